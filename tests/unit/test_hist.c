// SPDX-License-Identifier: MIT
/*
 * Unit tests: log-linear histograms (lib/hist.c).  Percentiles against the
 * exact nearest-rank ones (lib/stats.c) on synthetic data, within the
 * bound lib/hist.h states.  With --json, prints the histogram of a fixed
 * data set as the report writes it, for tests/tools/test_histogram.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/hist.h"
#include "lib/json.h"
#include "lib/stats.h"

#define N_MAX 100000

static const unsigned int permilles[] = { 0,   1,   10,	 100, 500,
					  900, 990, 999, 1000 };

static struct hist h;
static int64_t values[N_MAX];

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: reproducible data, no libc dependence. */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact nearest-rank percentile of @n sorted signed values, ranked as
 * lib/stats.c ranks unsigned ones. */
static int64_t exact_percentile(const int64_t *sorted, size_t n,
				unsigned int permille)
{
	size_t rank = ((size_t)permille * n + 999) / 1000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/*
 * Record values[0..n) and check every percentile: never above the exact
 * one, below it by less than |exact| * 2^-HIST_SUB_BITS, exact for small
 * magnitudes; count, min and max exact.  Where all values are
 * non-negative, lib/stats.c's own percentile agrees with the exact one.
 */
static void check_against_exact(size_t n)
{
	static int64_t sorted[N_MAX];
	static uint64_t unsigned_sorted[N_MAX];
	bool non_negative = true;
	size_t i, k;

	hist_init(&h);
	for (i = 0; i < n; i++) {
		hist_record(&h, values[i]);
		sorted[i] = values[i];
		non_negative &= values[i] >= 0;
	}
	qsort(sorted, n, sizeof(sorted[0]), compare_i64);
	assert_int_equal(h.total, n);
	assert_int_equal(h.min, sorted[0]);
	assert_int_equal(h.max, sorted[n - 1]);
	for (i = 0; i < n; i++)
		unsigned_sorted[i] = (uint64_t)sorted[i];
	for (k = 0; k < sizeof(permilles) / sizeof(permilles[0]); k++) {
		int64_t exact = exact_percentile(sorted, n, permilles[k]);
		int64_t got = hist_percentile(&h, permilles[k]);
		uint64_t magnitude =
			exact < 0 ? -(uint64_t)exact : (uint64_t)exact;

		if (non_negative)
			assert_int_equal(
				stats_percentile_sorted(unsigned_sorted, n,
							permilles[k]),
				exact);
		assert_true(got <= exact);
		if (magnitude < (1u << HIST_SUB_BITS))
			assert_int_equal(got, exact);
		else if (magnitude < (uint64_t)HIST_LIMIT)
			assert_true((uint64_t)(exact - got) << HIST_SUB_BITS <
				    magnitude);
	}
}

static void uniform(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_MAX; i++)
		values[i] = (int64_t)(rng() % 1000000);
	check_against_exact(N_MAX);
}

/* Mostly 100..1100, one in a hundred up to 2^20 times more: a read cost
 * with hypervisor exits. */
static void long_tail(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_MAX; i++) {
		int64_t v = 100 + (int64_t)(rng() % 1000);

		if (rng() % 100 == 0)
			v <<= rng() % 21;
		values[i] = v;
	}
	check_against_exact(N_MAX);
}

/* Two modes far apart, and a signed one around 0 (tick lateness, cross-
 * CPU offsets). */
static void bimodal_and_signed(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_MAX; i++)
		values[i] = (int64_t)(rng() % 2 ? 20 + rng() % 10
						: 70000 + rng() % 5000);
	check_against_exact(N_MAX);
	for (i = 0; i < N_MAX; i++)
		values[i] = (int64_t)(rng() % 200001) - 100000;
	check_against_exact(N_MAX);
	for (i = 0; i < N_MAX; i++)
		values[i] = -(int64_t)(rng() % 3000000) - 1;
	check_against_exact(N_MAX);
}

static void constant_and_tiny(void **state)
{
	size_t i, n;

	(void)state;
	for (i = 0; i < 1000; i++)
		values[i] = 123456;
	check_against_exact(1000);
	assert_int_equal(hist_percentile(&h, 500), 123456);
	for (n = 1; n <= 5; n++) {
		for (i = 0; i < n; i++)
			values[i] = (int64_t)(rng() % 100000) - 50000;
		check_against_exact(n);
	}
	hist_init(&h);
	assert_int_equal(hist_percentile(&h, 500), 0);
	assert_int_equal(h.total, 0);
}

/* Values at and past the range are counted, not bucketed: a rank among
 * them answers no higher than the exact value and no lower than the
 * limit. */
static void past_the_range(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 1000; i++)
		values[i] = i < 980 ? 500 : HIST_LIMIT + (int64_t)i * 1000;
	check_against_exact(1000);
	assert_int_equal(h.over, 20);
	assert_int_equal(hist_percentile(&h, 500), 500);
	assert_true(hist_percentile(&h, 990) >= HIST_LIMIT);
	assert_true(hist_percentile(&h, 990) <= HIST_LIMIT + 990 * 1000);
	assert_int_equal(hist_percentile(&h, 1000), HIST_LIMIT);
	for (i = 0; i < 10; i++)
		values[i] = i < 5 ? -HIST_LIMIT - 7 : 3;
	check_against_exact(10);
	assert_int_equal(h.under, 5);
	assert_int_equal(hist_percentile(&h, 100), -HIST_LIMIT - 7);
}

/* 0, 1, the largest value bucketed and the smallest not, and INT64's
 * extremes. */
static void edges(void **state)
{
	unsigned int last = HIST_BUCKETS - 1;

	(void)state;
	assert_int_equal(hist_bucket_index(0), 0);
	assert_int_equal(hist_bucket_index(HIST_LIMIT - 1), last);
	assert_int_equal(hist_bucket_low(last) + hist_bucket_width(last),
			 HIST_LIMIT);
	hist_init(&h);
	hist_record(&h, 0);
	assert_int_equal(h.pos[0], 1);
	assert_int_equal(hist_percentile(&h, 1000), 0);
	hist_record(&h, HIST_LIMIT - 1);
	assert_int_equal(h.pos[last], 1);
	hist_record(&h, HIST_LIMIT);
	hist_record(&h, INT64_MAX);
	hist_record(&h, -HIST_LIMIT + 1);
	hist_record(&h, INT64_MIN);
	assert_int_equal(h.neg[last], 1);
	assert_int_equal(h.over, 2);
	assert_int_equal(h.under, 1);
	assert_int_equal(h.min, INT64_MIN);
	assert_int_equal(h.max, INT64_MAX);
	assert_int_equal(hist_percentile(&h, 0), INT64_MIN);
	assert_int_equal(hist_percentile(&h, 1000), HIST_LIMIT);
}

/* Every bucket: contiguous, the low end maps back to it, widths as stated,
 * and hist_width_at() recovers the width from either sign's low end. */
static void buckets_tile_the_range(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < HIST_BUCKETS; i++) {
		uint64_t low = hist_bucket_low(i), width = hist_bucket_width(i);

		assert_int_equal(hist_bucket_index(low), i);
		assert_int_equal(hist_bucket_index(low + width - 1), i);
		if (i + 1 < HIST_BUCKETS)
			assert_int_equal(hist_bucket_low(i + 1), low + width);
		assert_true(width == 1 || width << HIST_SUB_BITS <= low);
		assert_int_equal(hist_width_at((int64_t)low), width);
		assert_int_equal(hist_width_at(-(int64_t)(low + width - 1)),
				 width);
	}
}

/* The walk is ascending, and the counts add up. */
static void walk_ascending(void **state)
{
	struct hist_bucket b;
	unsigned int cursor = 0;
	int64_t prev_end = INT64_MIN;
	uint64_t sum = 0;
	size_t i;

	(void)state;
	hist_init(&h);
	for (i = 0; i < 5000; i++)
		hist_record(&h, (int64_t)(rng() % 2000000) - 1000000);
	while (hist_next_bucket(&h, &cursor, &b)) {
		assert_true(b.low >= prev_end);
		prev_end = b.low + (int64_t)hist_width_at(b.low);
		sum += b.count;
	}
	assert_int_equal(sum + h.over + h.under, h.total);
}

/* Settling: the same distribution at twice the count has settled; one
 * whose median moved two buckets, or whose tail grew, has not; marks of
 * nothing, or of no fewer samples, never settle. */
static void settling(void **state)
{
	struct hist_marks marks = { 0 };
	size_t i;

	(void)state;
	hist_init(&h);
	assert_false(hist_settled(&h, &marks));
	for (i = 0; i < 20000; i++)
		hist_record(&h, 100 + (int64_t)(rng() % 1000));
	assert_false(hist_settled(&h, &marks));
	hist_marks_take(&h, &marks);
	assert_int_equal(marks.total, 20000);
	assert_int_equal(marks.at[0], hist_percentile(&h, 500));
	assert_int_equal(marks.at[2], hist_percentile(&h, 990));
	assert_false(hist_settled(&h, &marks));
	for (i = 0; i < 20000; i++)
		hist_record(&h, 100 + (int64_t)(rng() % 1000));
	assert_true(hist_settled(&h, &marks));

	/* A constant 1024 (bucket [1024, 1056)), then the neighbouring
	 * bucket: settled; two buckets on: not. */
	hist_init(&h);
	for (i = 0; i < 1000; i++)
		hist_record(&h, 1024);
	hist_marks_take(&h, &marks);
	for (i = 0; i < 3000; i++)
		hist_record(&h, 1056);
	assert_true(hist_settled(&h, &marks));
	hist_init(&h);
	for (i = 0; i < 1000; i++)
		hist_record(&h, 1024);
	hist_marks_take(&h, &marks);
	for (i = 0; i < 3000; i++)
		hist_record(&h, 1088);
	assert_false(hist_settled(&h, &marks));

	/* The median stays, the p99 grows out of its bucket: not settled. */
	hist_init(&h);
	for (i = 0; i < 10000; i++)
		hist_record(&h, 50);
	hist_marks_take(&h, &marks);
	for (i = 0; i < 10000; i++)
		hist_record(&h, i % 25 ? 50 : 5000);
	assert_int_equal(hist_percentile(&h, 500), 50);
	assert_false(hist_settled(&h, &marks));

	/* Small and signed values: exact buckets, 1 apart is a neighbour. */
	hist_init(&h);
	for (i = 0; i < 100; i++)
		hist_record(&h, -1);
	hist_marks_take(&h, &marks);
	for (i = 0; i < 300; i++)
		hist_record(&h, 0);
	assert_true(hist_settled(&h, &marks));
	for (i = 0; i < 2000; i++)
		hist_record(&h, 2);
	assert_false(hist_settled(&h, &marks));

	/* Over the range: every such value is one bucket. */
	hist_init(&h);
	for (i = 0; i < 100; i++)
		hist_record(&h, HIST_LIMIT + (int64_t)i);
	hist_marks_take(&h, &marks);
	for (i = 0; i < 100; i++)
		hist_record(&h, 3 * HIST_LIMIT);
	assert_true(hist_settled(&h, &marks));
}

static void emit_stdout(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	fwrite(text, 1, len, stdout);
}

/* The fixed data set tests/tools/test_histogram.py decodes: 0..999, then
 * -1..-300, then two past each end of the range. */
static int print_json(void)
{
	struct json_writer w;
	int64_t v;

	hist_init(&h);
	for (v = 0; v < 1000; v++)
		hist_record(&h, v * v);
	for (v = 1; v <= 300; v++)
		hist_record(&h, -v * 37);
	hist_record(&h, HIST_LIMIT);
	hist_record(&h, HIST_LIMIT * 3);
	hist_record(&h, -HIST_LIMIT);
	json_init(&w, emit_stdout, NULL, 0);
	json_hist(&w, NULL, &h);
	return json_finish(&w) ? 0 : 1;
}

/* A tail counted the same in two histograms: every read's, and a subset's
 * (the reads across which steal grew), each beyond the first's p99. */
static void count_above(void **state)
{
	struct hist all, some;
	int64_t i, p99;

	(void)state;
	hist_init(&all);
	hist_init(&some);
	for (i = 0; i < 989; i++)
		hist_record(&all, 20);
	for (i = 0; i < 11; i++)
		hist_record(&all, 6000);
	hist_record(&all, HIST_LIMIT + 1); /* over range */
	/* The 991st of 1001: 6000's bucket, [5888, 6016); beyond it only the
	 * over-range one. */
	p99 = hist_percentile(&all, 990);
	assert_int_equal(p99, 5888);
	assert_int_equal(hist_count_above(&all, p99), 1);
	assert_int_equal(hist_count_above(&all, 5887), 12);
	assert_int_equal(hist_count_above(&all, 19), 1001);
	assert_int_equal(hist_count_above(&all, 20), 12);
	/* A narrow distribution: its p90 and p99 share the bucket of 20, and
	 * the tail beyond is the 12, not the 1001 in and above it. */
	assert_int_equal(hist_percentile(&all, 900), 20);
	assert_int_equal(hist_count_above(&all, hist_percentile(&all, 900)),
			 12);
	hist_record(&some, 20);
	hist_record(&some, 6000);
	hist_record(&some, HIST_LIMIT + 1);
	hist_record(&some, -100); /* its bucket: -101 and -100 */
	assert_int_equal(hist_count_above(&some, p99), 1);
	assert_int_equal(hist_count_above(&some, 5887), 2);
	assert_int_equal(hist_count_above(&some, -102), 4);
	assert_int_equal(hist_count_above(&some, -101), 3);
	hist_init(&some);
	assert_int_equal(hist_count_above(&some, 0), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uniform),
		cmocka_unit_test(long_tail),
		cmocka_unit_test(bimodal_and_signed),
		cmocka_unit_test(constant_and_tiny),
		cmocka_unit_test(past_the_range),
		cmocka_unit_test(edges),
		cmocka_unit_test(buckets_tile_the_range),
		cmocka_unit_test(walk_ascending),
		cmocka_unit_test(settling),
		cmocka_unit_test(count_above),
	};

	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		return print_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
