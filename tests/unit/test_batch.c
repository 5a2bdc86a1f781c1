// SPDX-License-Identifier: MIT
/*
 * Unit tests: the batch figure (lib/batch.c), against a stopwatch that is a
 * counter the fake reads advance: a read costs exactly what it adds, an
 * empty loop costs nothing, and a host hiccup is a jump of the counter.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/batch.h"

static uint64_t now;
static uint64_t stopwatch_reads;
/* Every stall_every-th stopwatch read (0: none) first jumps by stall. */
static uint64_t stall_every, stall;
/* Reads cost 10 counts, or 30 in the loops of batch slow_batch (-1: none). */
static int slow_batch;
/* The stopwatch reads of sizing: 11 sizes (1 to 1024 iterations), two loops
 * each, two reads a loop. */
#define SIZING_READS 44

static void reset(void)
{
	now = stopwatch_reads = stall_every = stall = 0;
	slow_batch = -1;
}

static uint64_t fake_stopwatch(void)
{
	stopwatch_reads++;
	if (stall_every && stopwatch_reads % stall_every == 0)
		now += stall;
	return now;
}

/* Costs the stopwatch's own reading too: the empty loops must cancel it. */
static uint64_t costly_stopwatch(void)
{
	now += 7;
	return fake_stopwatch();
}

/* After sizing, each round is a pair of loops (4 stopwatch reads) for each
 * batch in turn: during batch b's pair, (reads - 45) / 4 % BATCH_RUNS is b. */
static uint64_t read_10(void)
{
	bool slow = slow_batch >= 0 && stopwatch_reads > SIZING_READS &&
		    (stopwatch_reads - SIZING_READS - 1) / 4 % BATCH_RUNS ==
			    (uint64_t)slow_batch;

	now += slow ? 30 : 10;
	return now;
}

static void a_steady_read(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	/* 1 GHz: a count is a ns, a loop BATCH_LOOP_NS = 100000 counts. */
	batch_measure(read_10, fake_stopwatch, 1e9, 10000000, &b);
	assert_int_equal(b.runs, BATCH_RUNS);
	/* Doubled until a loop of 8 reads of 10 lasts half of 100000. */
	assert_int_equal(b.iterations, 1024);
	/* The budget holds 24 rounds of 5 loops of 81920 with reads (the
	 * empty ones cost nothing here), and one more to reach it. */
	assert_int_equal(b.loops, 25);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0 && b.ns_max == 10.0);
	reset();
	batch_measure(read_10, fake_stopwatch, 2e9, 10000000, &b);
	assert_true(b.ns_per_read == 5.0);
	/* However large the budget, no more rounds than BATCH_MAX_LOOPS. */
	reset();
	batch_measure(read_10, fake_stopwatch, 1e9, 1000000000, &b);
	assert_int_equal(b.loops, BATCH_MAX_LOOPS);
}

/* The stopwatch's own cost is in every loop; the empty loops take it out. */
static void the_empty_loops_are_subtracted(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	batch_measure(read_10, costly_stopwatch, 1e9, 10000000, &b);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0 && b.ns_max == 10.0);
}

/* A host that stalls now and then, in loops with reads and without alike,
 * leaves every batch a clean loop of each kind: no figure moves. */
static void hiccups_move_nothing(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	stall_every = 7;
	stall = 500000;
	batch_measure(read_10, fake_stopwatch, 1e9, 10000000, &b);
	assert_int_equal(b.iterations, 1024);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0 && b.ns_max == 10.0);
	/* Stalls eat the budget, not the minimum of loops. */
	assert_true(b.loops >= BATCH_MIN_LOOPS && b.loops < 25);
}

/* Reads slow in every loop of one batch move the spread, not the median
 * figure. */
static void a_slow_batch_moves_the_spread(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	slow_batch = 3;
	batch_measure(read_10, fake_stopwatch, 1e9, 10000000, &b);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0);
	assert_true(b.ns_max == 30.0);
}

/* A budget too small for BATCH_MIN_LOOPS loops of BATCH_LOOP_NS shortens
 * the loops, and still takes that minimum. */
static void a_small_budget_keeps_the_minimum(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	/* 30000 / 80 = 375 counts a loop: doubled to 4 x 8 reads (320). */
	batch_measure(read_10, fake_stopwatch, 1e9, 30000, &b);
	assert_int_equal(b.iterations, 4);
	assert_true(b.ns_per_read == 10.0);
	reset();
	/* 1000 / 80 = 12 counts a loop: one iteration (80) is already more,
	 * and 8 of them more than a batch's 200. */
	batch_measure(read_10, fake_stopwatch, 1e9, 1000, &b);
	assert_int_equal(b.iterations, 1);
	assert_int_equal(b.loops, BATCH_MIN_LOOPS);
	assert_true(b.ns_per_read == 10.0);
}

static void no_rate_no_figure(void **state)
{
	struct batch_figure b;

	(void)state;
	reset();
	batch_measure(read_10, fake_stopwatch, 0, 1000, &b);
	assert_true(b.ns_per_read == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_steady_read),
		cmocka_unit_test(the_empty_loops_are_subtracted),
		cmocka_unit_test(hiccups_move_nothing),
		cmocka_unit_test(a_slow_batch_moves_the_spread),
		cmocka_unit_test(a_small_budget_keeps_the_minimum),
		cmocka_unit_test(no_rate_no_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
