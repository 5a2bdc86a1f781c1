// SPDX-License-Identifier: MIT
/* Unit tests: the noise phase's arithmetic (lib/noise.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lib/noise.h"

#define HZ 2e9 /* 2 cycles a ns */

static struct noise_tally *new_tally(void)
{
	struct noise_tally *t = malloc(sizeof(*t));

	assert_non_null(t);
	noise_tally_init(t);
	return t;
}

/* Steps at or below the threshold are the spin itself; above it, gaps,
 * each counted once with its length in ns. */
static void gaps_above_the_threshold(void **state)
{
	struct noise_tally *t = new_tally();

	(void)state;
	noise_tally_step(t, 1000, 1040, 100, HZ);  /* 40 cycles: no gap */
	noise_tally_step(t, 1040, 1140, 100, HZ);  /* 100: at it, no gap */
	noise_tally_step(t, 1140, 1241, 100, HZ);  /* 101: a gap */
	noise_tally_step(t, 1241, 21241, 100, HZ); /* 20000: 10 us */
	assert_int_equal(t->gaps, 2);
	assert_int_equal(t->gap_cycles, 101 + 20000);
	assert_int_equal(t->longest_cycles, 20000);
	assert_int_equal(t->gap_ns.total, 2);
	assert_int_equal(t->gap_ns.max, 10000);
	assert_int_equal(t->gap_ns.min, 51); /* 50.5 ns rounds up */
	assert_int_equal(t->backward_steps, 0);
	free(t);
}

/* A step back is counted as such, never as a gap, and leaves the longest
 * step alone. */
static void a_step_back_is_not_a_gap(void **state)
{
	struct noise_tally *t = new_tally();

	(void)state;
	noise_tally_step(t, 5000, 4000, 100, HZ);
	assert_int_equal(t->backward_steps, 1);
	assert_int_equal(t->gaps, 0);
	assert_int_equal(t->longest_cycles, 0);
	assert_int_equal(t->gap_ns.total, 0);
	free(t);
}

/* 100 ms with 10 gaps of 1 ms: 90 % available, 100 gaps a second. */
static void availability_and_rate(void **state)
{
	struct noise_tally *t = new_tally();
	struct noise_summary s;
	unsigned int i;

	(void)state;
	for (i = 0; i < 10; i++)
		noise_tally_step(t, 0, 2000000, 100, HZ);
	t->span_cycles = 200000000; /* 100 ms */
	noise_summarize(t, HZ, &s);
	assert_float_equal(s.span_ns, 1e8, 1e-3);
	assert_float_equal(s.gap_ns, 1e7, 1e-3);
	assert_float_equal(s.longest_ns, 1e6, 1e-3);
	assert_float_equal(s.availability_pct, 90.0, 1e-9);
	assert_float_equal(s.gaps_per_s, 100.0, 1e-9);
	free(t);
}

/* Nothing spun, or no rate: nothing seen taken, no division by 0.  Gaps
 * that claim more than the span give 0 %, never less. */
static void empty_and_impossible_tallies(void **state)
{
	struct noise_tally *t = new_tally();
	struct noise_summary s;

	(void)state;
	noise_summarize(t, HZ, &s);
	assert_float_equal(s.availability_pct, 100.0, 0);
	assert_float_equal(s.gaps_per_s, 0, 0);
	t->span_cycles = 1000;
	noise_summarize(t, 0, &s);
	assert_float_equal(s.availability_pct, 100.0, 0);
	assert_float_equal(s.span_ns, 0, 0);
	noise_tally_step(t, 0, 5000, 100, HZ);
	noise_summarize(t, HZ, &s);
	assert_float_equal(s.availability_pct, 0, 0);
	free(t);
}

/* The threshold in cycles: 5 us at 2 GHz is 10000; never below 1. */
static void threshold_in_cycles(void **state)
{
	(void)state;
	assert_int_equal(noise_threshold_cycles(5000, HZ), 10000);
	assert_int_equal(noise_threshold_cycles(100, 1e6), 1);
	assert_int_equal(noise_threshold_cycles(0, HZ), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaps_above_the_threshold),
		cmocka_unit_test(a_step_back_is_not_a_gap),
		cmocka_unit_test(availability_and_rate),
		cmocka_unit_test(empty_and_impossible_tallies),
		cmocka_unit_test(threshold_in_cycles),
	};

	return cmocka_run_group_tests_name("noise", tests, NULL, NULL);
}
