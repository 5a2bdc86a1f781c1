/* SPDX-License-Identifier: MIT */
/*
 * The batch figure, shared by the image's engine and clockbench-user: the
 * cost of a read in an unrolled loop of reads timed as a whole, less the
 * same loop without reads.
 *
 * A host only ever adds time to a loop (preemption, another process's
 * cache traffic, a slower TCG moment); it never takes any away.  So each of
 * BATCH_RUNS batches is the fastest of its loops with reads less the fastest
 * of its loops without, the two kinds interleaved so that they see the same
 * host, and each loop short (about BATCH_LOOP_NS) against a host's time slice
 * but long against the stopwatch's tick.  The figure is the median batch;
 * its spread (the fastest and slowest batch) shows what no batch's fastest
 * loop could shed: a host slow for a whole batch, or a clock whose cost
 * moves.  The batches follow one another, so the spread is that of repeats,
 * not of one set of loops divided.  Pure: the read and the stopwatch come as
 * functions, each read a call, as the reads through struct clock are;
 * host-tested.
 */
#ifndef CLOCKBENCH_LIB_BATCH_H
#define CLOCKBENCH_LIB_BATCH_H

#include <stdint.h>

#define BATCH_RUNS 5
/* A loop's length: 100 us is 3,000 ticks of TCG's 30 ns TSC steps, and
 * well inside the 1-4 ms a host scheduler's tick or time slice lasts. */
#define BATCH_LOOP_NS 100000
/* Loops of each kind per batch: at least this many, budget or not... */
#define BATCH_MIN_LOOPS 3
/* ...and at most this many, however cheap the loops. */
#define BATCH_MAX_LOOPS 64

struct batch_figure {
	double ns_per_read; /* the median batch's */
	double ns_min, ns_max;
	unsigned int runs;
	unsigned int loops;  /* of each kind, with and without reads, in the
			      * batch that had fewest */
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
