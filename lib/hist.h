/* SPDX-License-Identifier: MIT */
/*
 * A log-linear histogram of signed integer samples in constant memory, so
 * a distribution can be kept over every sample however many there are.
 *
 * Magnitudes below 2^HIST_SUB_BITS get a bucket each (exact).  Above, each
 * power of two [2^e, 2^(e+1)) is split into 2^HIST_SUB_BITS equal buckets
 * 2^(e - HIST_SUB_BITS) wide, so a bucket is never wider than
 * 2^-HIST_SUB_BITS of the values in it.  Negative values are bucketed by
 * their magnitude the same way.  Magnitudes of HIST_LIMIT or more are only
 * counted (over, under).  Count, min, max and the sum are exact.
 *
 * Error bound: a percentile is nearest-rank over the buckets, and what is
 * returned is the low end of the bucket the ranked sample lies in, clamped
 * into [min, max].  It is never above the exact nearest-rank percentile p
 * and below it by less than |p| * 2^-HIST_SUB_BITS (3.125 %); exact where
 * |p| < 2^HIST_SUB_BITS.  A rank among the over-range samples returns
 * max(HIST_LIMIT, min); one among the under-range ones returns min.
 *
 * Memory: sizeof(struct hist), about 7 KiB, whatever the count.  Pure;
 * host-tested.
 */
#ifndef CLOCKBENCH_LIB_HIST_H
#define CLOCKBENCH_LIB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS	5
#define HIST_LIMIT_BITS 32
#define HIST_LIMIT	((int64_t)1 << HIST_LIMIT_BITS)
/* Buckets per sign: 2^S exact ones, then 2^S per octave from 2^S up to
 * 2^HIST_LIMIT_BITS. */
#define HIST_BUCKETS ((HIST_LIMIT_BITS - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t total;		    /* every sample, over and under included */
	uint64_t over, under;	    /* >= HIST_LIMIT, <= -HIST_LIMIT */
	int64_t min, max;	    /* exact; 0 while empty */
	double sum;		    /* for the mean */
	uint32_t pos[HIST_BUCKETS]; /* 0 <= v < HIST_LIMIT */
	uint32_t neg[HIST_BUCKETS]; /* by -v: -HIST_LIMIT < v < 0 */
};

/** Empty @h. */
void hist_init(struct hist *h);

/** Count @value in @h.  A bucket's count saturates at UINT32_MAX (2^32
 * samples in one bucket; total and the percentiles still count them). */
void hist_record(struct hist *h, int64_t value);

/** The nearest-rank @permille-th per-mille of @h (see the error bound
 * above); 0 when empty. */
int64_t hist_percentile(const struct hist *h, unsigned int permille);

/** The bucket index of magnitude @m (< HIST_LIMIT), and the low end and
 * width of bucket @index: the bucket holds magnitudes [low, low + width). */
unsigned int hist_bucket_index(uint64_t m);
uint64_t hist_bucket_low(unsigned int index);
uint64_t hist_bucket_width(unsigned int index);

/**
 * A bucket by the smallest value it holds, as the report writes it: bucket
 * [@low, @low + hist_width_at(@low)).  Holds for negative buckets too: the
 * magnitude |low| is the top of its bucket, in the same octave.
 */
uint64_t hist_width_at(int64_t low);

/* One non-empty bucket, in ascending order of value. */
struct hist_bucket {
	int64_t low; /* the smallest value the bucket holds */
	uint64_t count;
};

/**
 * The @i-th non-empty bucket of @h in ascending order of value (over- and
 * under-range counts are not buckets).  Returns false past the last.
 * Walk with a cursor: *@cursor starts at 0.
 */
bool hist_next_bucket(const struct hist *h, unsigned int *cursor,
		      struct hist_bucket *out);

/**
 * How many of @h's samples lie above @value's bucket: in buckets whose
 * smallest value is above @value, the over-range ones included.  With
 * @value a percentile (p99) of a histogram of the same layout, the samples
 * beyond it, that one's or a subset's: a narrow distribution whose p99
 * bucket holds most samples still has only its true tail counted.
 */
uint64_t hist_count_above(const struct hist *h, int64_t value);

/** The summary lib/stats.h keeps of unsigned samples, from @h: count, min,
 * max and mean exact, percentiles as hist_percentile() (negative values,
 * which unsigned samples never give, read as 0). */
struct stats_summary;
void hist_summarize(const struct hist *h, struct stats_summary *out);

/*
 * Whether a distribution has settled, to the histogram's own resolution:
 * its followed percentiles (p50, p90, p99: the median and the tail the
 * report shows; p999 and max belong to the tail and keep moving as it
 * grows) taken at one count, then compared at a larger one.
 */
#define HIST_MARKS 3

struct hist_marks {
	uint64_t total;		/* the count they were taken at; 0: none */
	int64_t at[HIST_MARKS]; /* p50, p90, p99 */
};

/** @h's followed percentiles now, into @out. */
void hist_marks_take(const struct hist *h, struct hist_marks *out);

/**
 * Whether each of @h's followed percentiles lies in the bucket @before
 * found it in or in a neighbour of it (within 2^-HIST_SUB_BITS of its
 * value; within 1 below 2^HIST_SUB_BITS).  False when @before holds none,
 * or as many samples as @h: settling is judged over new samples only.
 */
bool hist_settled(const struct hist *h, const struct hist_marks *before);

struct json_writer;

/**
 * @h as {"sub_bits", "limit", "total", "over", "under", "buckets"} under
 * @key (lib/json.h): "buckets" lists the non-empty buckets in ascending
 * order as [low, count], a bucket holding low <= v < low + hist_width_at(low)
 * (docs/report-format.md).
 */
void json_hist(struct json_writer *w, const char *key, const struct hist *h);

/**
 * A distribution object {min, p50, p90, p99, p999, max, hist} of @h under
 * @key, every figure from @h (what hist_summarize() gives, signed).
 */
void json_hist_distribution(struct json_writer *w, const char *key,
			    const struct hist *h);

#endif
