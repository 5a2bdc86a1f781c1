// SPDX-License-Identifier: MIT
/*
 * Fuzz target: log-linear histograms (lib/hist.c).
 * Input: signed 64-bit values, 8 bytes each (little-endian), recorded in
 * one histogram; every percentile is then held to lib/hist.h's promise
 * against the exact nearest-rank one, the buckets to the count, and the
 * JSON to being well formed.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/json.h"

#define MAX_VALUES 4096

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void discard(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	(void)text;
	(void)len;
}

/* Whether @got keeps the promise for the exact percentile @exact. */
static int within_bound(int64_t got, int64_t exact)
{
	uint64_t magnitude = exact < 0 ? -(uint64_t)exact : (uint64_t)exact;

	if (got > exact)
		return 0;
	if (magnitude < (1u << HIST_SUB_BITS))
		return got == exact;
	if (magnitude >= (uint64_t)HIST_LIMIT)
		return 1; /* counted, not bucketed: only "never above" */
	return ((uint64_t)exact - (uint64_t)got) << HIST_SUB_BITS < magnitude;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hist h;
	static int64_t sorted[MAX_VALUES];
	static const unsigned int permilles[] = { 0,   1,   10,	 500,
						  900, 990, 999, 1000 };
	size_t n = size / 8, i, k;
	struct json_writer w;
	struct hist_bucket b;
	unsigned int cursor = 0;
	uint64_t sum = 0;

	if (n > MAX_VALUES)
		n = MAX_VALUES;
	hist_init(&h);
	for (i = 0; i < n; i++) {
		memcpy(&sorted[i], data + 8 * i, 8);
		hist_record(&h, sorted[i]);
	}
	if (h.total != n)
		abort();
	if (n == 0)
		return hist_percentile(&h, 500) == 0 ? 0 : (abort(), 0);
	qsort(sorted, n, sizeof(sorted[0]), compare_i64);
	if (h.min != sorted[0] || h.max != sorted[n - 1])
		abort();
	for (k = 0; k < sizeof(permilles) / sizeof(permilles[0]); k++) {
		size_t rank = ((size_t)permilles[k] * n + 999) / 1000;

		rank = rank < 1 ? 1 : rank > n ? n : rank;
		if (!within_bound(hist_percentile(&h, permilles[k]),
				  sorted[rank - 1]))
			abort();
	}
	while (hist_next_bucket(&h, &cursor, &b))
		sum += b.count;
	if (sum + h.over + h.under != h.total)
		abort();
	json_init(&w, discard, NULL, 0);
	json_hist_distribution(&w, NULL, &h);
	if (!json_finish(&w))
		abort();
	return 0;
}
