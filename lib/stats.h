/* SPDX-License-Identifier: MIT */
/*
 * Distributions of measured values: min, percentiles, max, mean.
 * Percentiles are nearest-rank: the p-th percentile of n sorted samples is
 * the sample at rank ceil(p/100 * n).  Pure; host-tested.
 */
#ifndef CLOCKBENCH_LIB_STATS_H
#define CLOCKBENCH_LIB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	uint64_t min, p50, p90, p99, p999, max;
	double mean;
};

/**
 * Summarise @n samples, sorting them in place (newlib's qsort).  With
 * n == 0 everything is 0.
 */
void stats_summarize(uint64_t *samples, size_t n, struct stats_summary *out);

/** The nearest-rank @permille-th per-mille of @n sorted samples. */
uint64_t stats_percentile_sorted(const uint64_t *sorted, size_t n,
				 unsigned int permille);

#endif
