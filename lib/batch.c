// SPDX-License-Identifier: MIT
/* The batch figure (see lib/batch.h). */
#include "lib/batch.h"
#include "lib/stats.h"

#define BATCH_UNROLL	     8
#define MAX_BATCH_ITERATIONS (1u << 24) /* 134 M reads: a bound, not a goal */

/* Never inlined: the loops call through a pointer, as they do a clock. */
static __attribute__((noinline)) uint64_t read_nothing(void)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

/* An unrolled loop of reads, timed whole. */
static uint64_t time_loop(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
			  uint64_t iterations)
{
	uint64_t start = stopwatch(), i;

	for (i = 0; i < iterations; i++) {
		read();
		read();
		read();
		read();
		read();
		read();
		read();
		read();
	}
	return stopwatch() - start;
}

static double batch_ns(uint64_t loaded, uint64_t empty, uint64_t iterations,
		       double stopwatch_hz)
{
	return loaded > empty && stopwatch_hz > 0
		       ? (double)(loaded - empty) * 1e9 / stopwatch_hz /
				 (double)(iterations * BATCH_UNROLL)
		       : 0;
}

void batch_measure(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
		   double stopwatch_hz, uint64_t budget_counts,
		   struct batch_figure *out)
{
	uint64_t iterations = 1, target = budget_counts / BATCH_RUNS;
	uint64_t loaded[BATCH_RUNS], empty[BATCH_RUNS];
	struct stats_summary runs, empties;
	unsigned int i;

	for (;;) {
		loaded[0] = time_loop(read, stopwatch, iterations);
		if (loaded[0] >= target / 2 ||
		    iterations >= MAX_BATCH_ITERATIONS)
			break;
		iterations *= 2;
	}
	for (i = 0; i < BATCH_RUNS; i++) {
		loaded[i] = time_loop(read, stopwatch, iterations);
		empty[i] = time_loop(read_nothing, stopwatch, iterations);
	}
	stats_summarize(loaded, BATCH_RUNS, &runs);
	stats_summarize(empty, BATCH_RUNS, &empties);
	out->runs = BATCH_RUNS;
	out->iterations = iterations;
	out->ns_per_read =
		batch_ns(runs.p50, empties.p50, iterations, stopwatch_hz);
	out->ns_min = batch_ns(runs.min, empties.p50, iterations, stopwatch_hz);
	out->ns_max = batch_ns(runs.max, empties.p50, iterations, stopwatch_hz);
}
