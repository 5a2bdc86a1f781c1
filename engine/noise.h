/* SPDX-License-Identifier: MIT */
/*
 * The noise phase ("hwnoise for guests"): every online CPU at once spins
 * with interrupts off reading the TSC back to back for a while, and every
 * step between two reads above a threshold is a gap: time the CPU was
 * taken away (the hypervisor ran something else, the host preempted the
 * vCPU, an SMI).  The share of the spin left is the CPU's availability.
 */
#ifndef CLOCKBENCH_ENGINE_NOISE_H
#define CLOCKBENCH_ENGINE_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"
#include "lib/noise.h"

struct noise_options {
	unsigned int duration_ms;  /* each CPU's spin */
	unsigned int threshold_ns; /* the least step that is a gap */
	/* The TSC's reads are intercepted here (engine/measure.h): each
	 * read would be a gap, so the phase is not run. */
	bool tsc_trapped;
};

struct noise_cpu {
	bool online;
	bool ran;      /* spun to its end (or to the read cap) */
	bool together; /* started with the others (a rendezvous in time) */
	uint32_t id;   /* the hardware's (struct cpu.apic_id) */
	/* Its tally (lib/noise.h), from the heap: about 7 KiB; NULL when
	 * the heap had no room. */
	struct noise_tally *tally;
};

struct noise_result {
	bool measured;	  /* the spins ran */
	char reason[128]; /* why not, when not */
	unsigned int duration_ms, threshold_ns;
	uint64_t threshold_cycles;
	double tsc_hz;
	unsigned int ncpu, online;
	struct noise_cpu cpu[MAX_CPUS];
};

/** Spin on every online CPU at once, into @out. */
void noise_measure(const struct noise_options *opts, struct noise_result *out);

#endif
