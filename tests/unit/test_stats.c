// SPDX-License-Identifier: MIT
/* Unit tests: distribution summaries (lib/stats.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lib/stats.h"

static void empty_and_single(void **state)
{
	struct stats_summary s;
	uint64_t one = 42;

	(void)state;
	stats_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.max, 0);
	stats_summarize(&one, 1, &s);
	assert_int_equal(s.min, 42);
	assert_int_equal(s.p50, 42);
	assert_int_equal(s.p999, 42);
	assert_int_equal(s.max, 42);
}

/* 1..1000 shuffled: nearest-rank percentiles are exact ranks. */
static void uniform_ranks(void **state)
{
	uint64_t v[1000];
	struct stats_summary s;
	size_t i;

	(void)state;
	for (i = 0; i < 1000; i++)
		v[i] = (i * 389) % 1000 + 1; /* 389 is coprime to 1000 */
	stats_summarize(v, 1000, &s);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.p50, 500);
	assert_int_equal(s.p90, 900);
	assert_int_equal(s.p99, 990);
	assert_int_equal(s.p999, 999);
	assert_int_equal(s.max, 1000);
	assert_true(s.mean > 500.49 && s.mean < 500.51);
	/* Sorted in place. */
	for (i = 1; i < 1000; i++)
		assert_true(v[i - 1] <= v[i]);
}

/* A long tail: most samples small, a few huge, as trapped reads look. */
static void long_tail(void **state)
{
	uint64_t v[200];
	struct stats_summary s;
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++)
		v[i] = i % 100 == 0 ? 1000000 : 30 + i % 3;
	stats_summarize(v, 200, &s);
	assert_int_equal(s.min, 30);
	assert_int_equal(s.p50, 31);
	assert_int_equal(s.p99, 32);
	assert_int_equal(s.p999, 1000000);
	assert_int_equal(s.max, 1000000);
}

static void small_n_ranks(void **state)
{
	uint64_t v[] = { 5, 1, 3 };
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 3, &s);
	assert_int_equal(s.p50, 3); /* rank ceil(1.5) = 2 */
	assert_int_equal(s.p90, 5);
	assert_int_equal(stats_percentile_sorted(v, 3, 0), 1);
	assert_int_equal(stats_percentile_sorted(v, 3, 1000), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_and_single),
		cmocka_unit_test(uniform_ranks),
		cmocka_unit_test(long_tail),
		cmocka_unit_test(small_n_ranks),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
