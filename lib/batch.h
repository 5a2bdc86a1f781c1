/* SPDX-License-Identifier: MIT */
/*
 * The batch figure, shared by the image's engine and clockbench-user: the
 * cost of a read in an unrolled loop of reads timed as a whole, less the
 * same loop without reads.
 *
 * A host only ever adds time to a loop (preemption, another process's
 * cache traffic, a slower TCG moment); it never takes any away.  So each of
 * BATCH_RUNS batches is the fastest of its loops with reads less the fastest
 * of its loops without, each loop short (about BATCH_LOOP_NS) against a
 * host's time slice but long against the stopwatch's tick.  The batches take
 * their loops in rounds, one pair (with and without reads) per batch a
 * round, so that every batch, and both kinds of loop, see the same host over
 * the whole measurement: a host slow for a few milliseconds slows a loop of
 * every batch, not all of one.  The figure is the median batch; the spread
 * (the fastest and slowest batch) is how far five disjoint sets of loops
 * disagree, which a clock whose cost moves, or a host never quiet for a
 * whole loop, widens.  Pure: the read and the stopwatch come as functions,
 * each read a call, as the reads through struct clock are; host-tested.
 */
#ifndef CLOCKBENCH_LIB_BATCH_H
#define CLOCKBENCH_LIB_BATCH_H

#include <stdint.h>

#define BATCH_RUNS 5
/* A loop's length: 100 us is 3,000 ticks of TCG's 30 ns TSC steps, and
 * well inside the 1-4 ms a host scheduler's tick or time slice lasts. */
#define BATCH_LOOP_NS 100000
/*
 * Rounds, so loops of each kind per batch: at least BATCH_MIN_LOOPS, budget
 * or not, and more while the budget lasts, up to BATCH_MAX_LOOPS.  Measured
 * under TCG on a loaded two-core host, a batch's fastest of 3 loops left
 * spreads of 35-176 %, of 8 loops 2.6-4.3 %.  Where the host switches between
 * a slow and a fast phase (1.45 x apart, seen in four runs of 64 rounds),
 * the worst clock's spread was 16, 16, 7 and 3 % after 16 rounds and 16, 9,
 * 6 and 3 % after 32; more rounds catch a rare fast phase in some batches
 * and not others (141 % after 64 in the second run).
 */
#define BATCH_MIN_LOOPS 8
#define BATCH_MAX_LOOPS 32

struct batch_figure {
	double ns_per_read; /* the median batch's */
	double ns_min, ns_max;
	unsigned int runs;
	unsigned int loops;  /* rounds: loops of each kind per batch */
	uint64_t iterations; /* of BATCH_UNROLL reads, per loop */
};

/**
 * Time @read in batches within about @budget_counts of @stopwatch, whose
 * counts run at @stopwatch_hz, into @out.
 */
void batch_measure(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
		   double stopwatch_hz, uint64_t budget_counts,
		   struct batch_figure *out);

#endif
