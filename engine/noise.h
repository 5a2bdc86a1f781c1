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
#include "engine/pvsteps.h"
#include "hypervisor/detect.h"
#include "hypervisor/steal.h"
#include "lib/noise.h"
#include "lib/steal.h"

/* Where the TSC's reads are trapped, each is an exit: a gap is then a step
 * above this many times a read's cost (its median or batch figure,
 * whichever is larger), or above the threshold asked, whichever is
 * larger. */
#define NOISE_TRAPPED_READ_FACTOR 10

struct noise_options {
	unsigned int duration_ms;  /* each CPU's spin */
	unsigned int threshold_ns; /* the least step that is a gap */
	/* The TSC's reads are intercepted here (engine/measure.h), each
	 * costing about tsc_read_ns: the threshold is raised above it. */
	bool tsc_trapped;
	double tsc_read_ns;
	const struct hv_info *hv; /* whose steal record to read */
	/* The pvclock step monitor (engine/pvsteps.h), polled every
	 * PVSTEPS_NOISE_POLL_EVERY reads of the spin; NULL: none. */
	struct pvsteps_result *pvsteps;
};

struct noise_cpu {
	bool online;
	bool ran;      /* spun to its end (or to the read cap) */
	bool together; /* started with the others (a rendezvous in time) */
	uint32_t id;   /* the hardware's (struct cpu.apic_id) */
	/* Its tally (lib/noise.h), from the heap: about 7 KiB; NULL when
	 * the heap had no room. */
	struct noise_tally *tally;
	/* The hypervisor's steal record (hypervisor/steal.h): registered,
	 * else why not; its steal over the whole spin, and the gaps'. */
	bool steal_ok;
	char steal_why[96];
	uint64_t steal_total_ns;
	struct steal_attribution steal;
};

struct noise_result {
	bool measured;	  /* the spins ran */
	char reason[128]; /* why not, when not */
	unsigned int duration_ms;
	/* The threshold asked, and the one used: higher where the TSC is
	 * trapped (tsc_trapped, tsc_read_ns). */
	unsigned int threshold_asked_ns, threshold_ns;
	bool tsc_trapped;
	double tsc_read_ns;
	enum steal_kind steal_kind;
	char steal_words[160]; /* which record, or why none */
	uint64_t threshold_cycles;
	double tsc_hz;
	unsigned int ncpu, online;
	struct noise_cpu cpu[MAX_CPUS];
};

/** Spin on every online CPU at once, into @out. */
void noise_measure(const struct noise_options *opts, struct noise_result *out);

#endif
