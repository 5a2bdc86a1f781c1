// SPDX-License-Identifier: MIT
/* Summaries of sample distributions (pure; host-tested). */
#include <stdlib.h>

#include "lib/stats.h"

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t stats_percentile_sorted(const uint64_t *sorted, size_t n,
				 unsigned int permille)
{
	size_t rank;

	if (n == 0)
		return 0;
	/* ceil(permille * n / 1000), at least 1 */
	rank = ((size_t)permille * n + 999) / 1000;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void stats_summarize(uint64_t *samples, size_t n, struct stats_summary *out)
{
	double sum = 0;
	size_t i;

	*out = (struct stats_summary){ .n = n };
	if (n == 0)
		return;
	qsort(samples, n, sizeof(samples[0]), compare_u64);
	for (i = 0; i < n; i++)
		sum += (double)samples[i];
	out->min = samples[0];
	out->max = samples[n - 1];
	out->p50 = stats_percentile_sorted(samples, n, 500);
	out->p90 = stats_percentile_sorted(samples, n, 900);
	out->p99 = stats_percentile_sorted(samples, n, 990);
	out->p999 = stats_percentile_sorted(samples, n, 999);
	out->mean = sum / (double)n;
}
