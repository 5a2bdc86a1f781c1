// SPDX-License-Identifier: MIT
/*
 * Unit tests: the batch figure (lib/batch.c), against a stopwatch that is a
 * counter the fake reads advance: a read costs exactly what it adds, and an
 * empty loop costs nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/batch.h"

static uint64_t now;
static uint64_t loops;	   /* timed loops seen, by stopwatch reads */
static uint64_t slow_loop; /* the loop (counted from 1) whose reads cost 3x */

static uint64_t fake_stopwatch(void)
{
	loops++;
	return now;
}

static uint64_t read_10(void)
{
	now += 10;
	return now;
}

/* Costs 10 counts, but 30 in the timed loop number slow_loop. */
static uint64_t read_with_a_hiccup(void)
{
	now += (loops + 1) / 2 == slow_loop ? 30 : 10;
	return now;
}

static void a_steady_read(void **state)
{
	struct batch_figure b;

	(void)state;
	now = loops = 0;
	/* 1 GHz: a count is a ns. */
	batch_measure(read_10, fake_stopwatch, 1e9, 1000000, &b);
	assert_int_equal(b.runs, BATCH_RUNS);
	/* Doubled until a loop of 8 reads of 10 lasts half of 200000. */
	assert_int_equal(b.iterations, 2048);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0 && b.ns_max == 10.0);
	batch_measure(read_10, fake_stopwatch, 2e9, 1000000, &b);
	assert_true(b.ns_per_read == 5.0);
}

/* One slow run moves the spread, not the median figure. */
static void a_hiccup_moves_the_spread(void **state)
{
	struct batch_figure b;

	(void)state;
	now = loops = 0;
	/* Loops 1..12 size it (12 doublings to 2048), loop 13 is the first
	 * timed run, 14 its empty loop, 15 the second run. */
	slow_loop = 15;
	batch_measure(read_with_a_hiccup, fake_stopwatch, 1e9, 1000000, &b);
	assert_true(b.ns_per_read == 10.0);
	assert_true(b.ns_min == 10.0);
	assert_true(b.ns_max == 30.0);
}

static void no_rate_no_figure(void **state)
{
	struct batch_figure b;

	(void)state;
	now = loops = 0;
	batch_measure(read_10, fake_stopwatch, 0, 1000, &b);
	assert_true(b.ns_per_read == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_steady_read),
		cmocka_unit_test(a_hiccup_moves_the_spread),
		cmocka_unit_test(no_rate_no_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
