/* SPDX-License-Identifier: MIT */
/*
 * The batch figure, the seeds' method, shared by the image's engine and
 * clockbench-user: double the iteration count of an unrolled loop of reads
 * (never on an estimate that may be 0) until it lasts about a run's share
 * of the budget; then time BATCH_RUNS loops of that size, each followed by
 * the same loop without reads.  Every run is corrected by the median empty
 * loop (so the spread is the reads', not the subtraction's), and the figure
 * is the median run: one loop a host hiccup lengthened moves the spread,
 * not the figure.  Pure: the read and the stopwatch come as functions, each
 * read a call, as the reads through struct clock are; host-tested.
 */
#ifndef CLOCKBENCH_LIB_BATCH_H
#define CLOCKBENCH_LIB_BATCH_H

#include <stdint.h>

#define BATCH_RUNS 5

struct batch_figure {
	double ns_per_read; /* the median run's */
	double ns_min, ns_max;
	unsigned int runs;
	uint64_t iterations; /* of BATCH_UNROLL reads, per run */
};

/**
 * Time @read in batches within about @budget_counts of @stopwatch, whose
 * counts run at @stopwatch_hz, into @out.
 */
void batch_measure(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
		   double stopwatch_hz, uint64_t budget_counts,
		   struct batch_figure *out);

#endif
