/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the noise phase (engine/noise.c): a CPU spins with
 * interrupts off reading the TSC back to back, and every step between two
 * reads longer than a threshold is a gap, time the CPU was taken away
 * (by the hypervisor, the host, an SMI).  What is left is available.  Pure
 * C over numbers; host-tested (tests/unit/test_noise.c).
 */
#ifndef CLOCKBENCH_LIB_NOISE_H
#define CLOCKBENCH_LIB_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hist.h"

/* One CPU's spin, as it went: counts in TSC cycles, the gaps' lengths in
 * ns in a histogram (lib/hist.h). */
struct noise_tally {
	uint64_t reads;		 /* TSC reads in the spin */
	uint64_t span_cycles;	 /* from the first read to the last */
	uint64_t gaps;		 /* steps above the threshold */
	uint64_t gap_cycles;	 /* their sum */
	uint64_t longest_cycles; /* the longest step, gap or not */
	uint64_t backward_steps; /* reads below the one before (never on one
				  * CPU's TSC: counted, not a gap) */
	struct hist gap_ns;
};

/* A tally in the units a reader wants. */
struct noise_summary {
	double span_ns;
	double gap_ns;		 /* all gaps together */
	double longest_ns;	 /* the longest step */
	double availability_pct; /* the span less its gaps, of the span */
	double gaps_per_s;	 /* over the span */
};

/** Empty @t. */
void noise_tally_init(struct noise_tally *t);

/**
 * Count the step from @prev to @now (TSC cycles) in @t: a gap when it is
 * above @threshold_cycles (its length in ns, at @hz, goes to the
 * histogram), a step back when @now is below @prev.  True for a gap.
 */
bool noise_tally_step(struct noise_tally *t, uint64_t prev, uint64_t now,
		      uint64_t threshold_cycles, double hz);

/**
 * @t in ns, %, and gaps a second at @hz cycles a second.  With no span
 * (or no rate) everything is 0 but availability, which is 100: nothing
 * was seen taken.
 */
void noise_summarize(const struct noise_tally *t, double hz,
		     struct noise_summary *out);

/** @threshold_ns in TSC cycles at @hz, at least 1. */
uint64_t noise_threshold_cycles(unsigned int threshold_ns, double hz);

#endif
