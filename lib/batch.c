// SPDX-License-Identifier: MIT
/* The batch figure (see lib/batch.h). */
#include <stdbool.h>

#include "lib/batch.h"

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

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * One pair for a batch: a loop with reads and one without, in the order
 * @empty_first says, each kept if it is the batch's fastest of its kind.
 * Returns the pair's counts.
 */
static uint64_t time_pair(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
			  uint64_t iterations, bool empty_first,
			  uint64_t *loaded, uint64_t *empty)
{
	uint64_t with, without;

	if (empty_first) {
		without = time_loop(read_nothing, stopwatch, iterations);
		with = time_loop(read, stopwatch, iterations);
	} else {
		with = time_loop(read, stopwatch, iterations);
		without = time_loop(read_nothing, stopwatch, iterations);
	}
	*loaded = min_u64(*loaded, with);
	*empty = min_u64(*empty, without);
	return with + without;
}

/* The median of BATCH_RUNS figures, sorting them in place. */
static double median_of_runs(double *ns)
{
	unsigned int i, j;

	for (i = 1; i < BATCH_RUNS; i++)
		for (j = i; j > 0 && ns[j - 1] > ns[j]; j--) {
			double t = ns[j];

			ns[j] = ns[j - 1];
			ns[j - 1] = t;
		}
	return ns[BATCH_RUNS / 2];
}

void batch_measure(uint64_t (*read)(void), uint64_t (*stopwatch)(void),
		   double stopwatch_hz, uint64_t budget_counts,
		   struct batch_figure *out)
{
	uint64_t iterations = 1, loop_counts, spent = 0;
	uint64_t loaded[BATCH_RUNS], empty[BATCH_RUNS];
	double ns[BATCH_RUNS];
	unsigned int i, round;

	/* A loop of BATCH_LOOP_NS, or shorter where the budget would not
	 * hold BATCH_MIN_LOOPS of each kind per batch. */
	loop_counts = (uint64_t)(stopwatch_hz * (BATCH_LOOP_NS / 1e9));
	if (loop_counts > budget_counts / (BATCH_RUNS * 2 * BATCH_MIN_LOOPS))
		loop_counts =
			budget_counts / (BATCH_RUNS * 2 * BATCH_MIN_LOOPS);
	/* The faster of two loops, so that one the host held up does not
	 * end the doubling early, leaving loops too short to time. */
	while (min_u64(time_loop(read, stopwatch, iterations),
		       time_loop(read, stopwatch, iterations)) <
		       loop_counts / 2 &&
	       iterations < MAX_BATCH_ITERATIONS)
		iterations *= 2;

	/* Rounds of one pair per batch, which goes first alternating. */
	for (i = 0; i < BATCH_RUNS; i++)
		loaded[i] = empty[i] = UINT64_MAX;
	for (round = 0; round < BATCH_MAX_LOOPS &&
			(round < BATCH_MIN_LOOPS || spent < budget_counts);
	     round++)
		for (i = 0; i < BATCH_RUNS; i++)
			spent += time_pair(read, stopwatch, iterations,
					   (round + i) % 2, &loaded[i],
					   &empty[i]);
	for (i = 0; i < BATCH_RUNS; i++)
		ns[i] = batch_ns(loaded[i], empty[i], iterations, stopwatch_hz);
	out->runs = BATCH_RUNS;
	out->loops = round;
	out->iterations = iterations;
	out->ns_per_read = median_of_runs(ns);
	out->ns_min = ns[0];
	out->ns_max = ns[BATCH_RUNS - 1];
}
