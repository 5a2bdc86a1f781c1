/* SPDX-License-Identifier: MIT */
/*
 * Do the CPUs agree on the time?  For every clock all online CPUs can
 * read: a warp test (CPUs read in turn under one lock and compare with the
 * last value any CPU read), each CPU's offset from CPU 0 with an error
 * bound (narrowest local-remote-local bracket), and the drift of that
 * offset over the run (a weighted straight-line fit).
 */
#ifndef CLOCKBENCH_ENGINE_CROSSCPU_H
#define CLOCKBENCH_ENGINE_CROSSCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/skew.h"

struct xcpu_per_cpu {
	bool offset_ok;
	struct skew_offset offset; /* this CPU minus CPU 0, ns */
	bool drift_ok;
	struct skew_fit drift; /* slope of the offset, ns per ns */
	unsigned int drift_samples;
	/* Every valid bracket's own offset estimate (remote minus the
	 * bracket's midpoint, ns) over all rounds, of which offset is the
	 * narrowest's: about 7 KiB from the heap; NULL when it had no room. */
	struct hist *bracket_offsets_ns;
};

struct xcpu_clock {
	const struct clock *clock;
	uint64_t iterations, warps, stalls;
	uint64_t ambiguous_gaps; /* reads over half a wrap after the last */
	double worst_warp_ns;
	struct xcpu_per_cpu cpu[MAX_CPUS];
};

struct xcpu_options {
	unsigned int warp_ms;  /* per clock */
	unsigned int drift_ms; /* the span offsets are followed over */
};

/* What a CPU's TSC_ADJUST and TSC_AUX read (the ok flags false when
 * unreadable). */
struct xcpu_msrs {
	bool tsc_adjust_ok, tsc_aux_ok;
	int64_t tsc_adjust;
	uint64_t tsc_aux;
};

#define MAX_XCLOCKS 16

/* What the cross-CPU measurements found, for the report. */
struct xcpu_result {
	bool applies;	  /* two or more CPUs online */
	char reason[128]; /* why not */
	unsigned int ncpu, online;
	struct {
		bool online;
		uint32_t id; /* the hardware's (struct cpu.apic_id) */
		struct xcpu_msrs msrs;
	} cpu[MAX_CPUS];
	unsigned int nr; /* clocks measured across CPUs */
	struct xcpu_clock clocks[MAX_XCLOCKS];
};

/** Set up per-CPU clocks on every CPU and measure, into @out. */
void xcpu_measure(const struct xcpu_options *opts, struct xcpu_result *out);

#endif
