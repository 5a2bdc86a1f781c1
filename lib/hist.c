// SPDX-License-Identifier: MIT
/* Log-linear histograms in constant memory (pure; host-tested). */
#include <string.h>

#include "lib/hist.h"
#include "lib/json.h"
#include "lib/stats.h"

#define SUB_COUNT (1u << HIST_SUB_BITS)

/* The position of the highest set bit of @m > 0. */
static unsigned int top_bit(uint64_t m)
{
	return 63u - (unsigned int)__builtin_clzll(m);
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned int hist_bucket_index(uint64_t m)
{
	unsigned int e;

	if (m < SUB_COUNT)
		return (unsigned int)m;
	e = top_bit(m);
	/* Octave e starts at index (e - S + 1) * 2^S; within it, the S bits
	 * below the top one pick the bucket. */
	return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (unsigned int)((m >> (e - HIST_SUB_BITS)) - SUB_COUNT);
}

uint64_t hist_bucket_low(unsigned int index)
{
	unsigned int octave = index >> HIST_SUB_BITS;

	if (octave == 0)
		return index;
	return ((uint64_t)SUB_COUNT + (index & (SUB_COUNT - 1)))
	       << (octave - 1);
}

uint64_t hist_bucket_width(unsigned int index)
{
	unsigned int octave = index >> HIST_SUB_BITS;

	return octave == 0 ? 1 : (uint64_t)1 << (octave - 1);
}

uint64_t hist_width_at(int64_t low)
{
	uint64_t m = low < 0 ? -(uint64_t)low : (uint64_t)low;

	if (m < SUB_COUNT)
		return 1;
	return (uint64_t)1 << (top_bit(m) - HIST_SUB_BITS);
}

void hist_record(struct hist *h, int64_t value)
{
	uint32_t *count;

	if (h->total == 0 || value < h->min)
		h->min = value;
	if (h->total == 0 || value > h->max)
		h->max = value;
	h->total++;
	h->sum += (double)value;
	if (value >= HIST_LIMIT) {
		h->over++;
		return;
	}
	if (value <= -HIST_LIMIT) {
		h->under++;
		return;
	}
	count = value < 0 ? &h->neg[hist_bucket_index(-(uint64_t)value)]
			  : &h->pos[hist_bucket_index((uint64_t)value)];
	if (*count != UINT32_MAX)
		(*count)++;
}

/* The smallest value bucket @index of the sign @negative holds. */
static int64_t bucket_low_value(unsigned int index, bool negative)
{
	if (negative)
		return -(int64_t)(hist_bucket_low(index) +
				  hist_bucket_width(index) - 1);
	return (int64_t)hist_bucket_low(index);
}

bool hist_next_bucket(const struct hist *h, unsigned int *cursor,
		      struct hist_bucket *out)
{
	/* Cursor 0..N-1 walks the negative buckets from the largest
	 * magnitude down, N..2N-1 the others up: ascending values. */
	for (; *cursor < 2 * HIST_BUCKETS; (*cursor)++) {
		bool negative = *cursor < HIST_BUCKETS;
		unsigned int index = negative ? HIST_BUCKETS - 1 - *cursor
					      : *cursor - HIST_BUCKETS;
		uint32_t count = negative ? h->neg[index] : h->pos[index];

		if (count) {
			out->low = bucket_low_value(index, negative);
			out->count = count;
			(*cursor)++;
			return true;
		}
	}
	return false;
}

uint64_t hist_count_above(const struct hist *h, int64_t value)
{
	uint64_t above = h->over;
	unsigned int cursor = 0;
	struct hist_bucket b;

	while (hist_next_bucket(h, &cursor, &b))
		if (b.low > value)
			above += b.count;
	return above;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t hist_percentile(const struct hist *h, unsigned int permille)
{
	uint64_t rank, seen;
	unsigned int cursor = 0;
	struct hist_bucket b;

	if (h->total == 0)
		return 0;
	/* ceil(permille * total / 1000), within [1, total], as
	 * lib/stats.c ranks sorted samples. */
	rank = ((uint64_t)permille * h->total + 999) / 1000;
	if (rank < 1)
		rank = 1;
	if (rank > h->total)
		rank = h->total;
	seen = h->under;
	if (rank <= seen)
		return h->min;
	while (hist_next_bucket(h, &cursor, &b)) {
		seen += b.count;
		if (rank <= seen)
			return clamp(b.low, h->min, h->max);
	}
	/* Among the over-range samples. */
	return clamp(HIST_LIMIT, h->min, h->max);
}

static const unsigned int marks_permille[HIST_MARKS] = { 500, 900, 990 };

void hist_marks_take(const struct hist *h, struct hist_marks *out)
{
	unsigned int i;

	out->total = h->total;
	for (i = 0; i < HIST_MARKS; i++)
		out->at[i] = hist_percentile(h, marks_permille[i]);
}

/* A value's bucket as a signed ordinal: neighbouring buckets differ by 1
 * (0 and -1 too); every over-range magnitude counts as one bucket. */
static int64_t bucket_ordinal(int64_t v)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int64_t index =
		m < (uint64_t)HIST_LIMIT ? hist_bucket_index(m) : HIST_BUCKETS;

	return v < 0 ? -index : index;
}

bool hist_settled(const struct hist *h, const struct hist_marks *before)
{
	struct hist_marks now;
	unsigned int i;

	if (!before->total || before->total >= h->total)
		return false;
	hist_marks_take(h, &now);
	for (i = 0; i < HIST_MARKS; i++) {
		int64_t step = bucket_ordinal(now.at[i]) -
			       bucket_ordinal(before->at[i]);

		if (step > 1 || step < -1)
			return false;
	}
	return true;
}

void json_hist(struct json_writer *w, const char *key, const struct hist *h)
{
	unsigned int cursor = 0;
	struct hist_bucket b;

	json_object_begin(w, key);
	json_uint(w, "sub_bits", HIST_SUB_BITS);
	json_uint(w, "limit", (uint64_t)HIST_LIMIT);
	json_uint(w, "total", h->total);
	json_uint(w, "over", h->over);
	json_uint(w, "under", h->under);
	json_array_begin(w, "buckets");
	while (hist_next_bucket(h, &cursor, &b)) {
		json_array_begin(w, NULL);
		json_int(w, NULL, b.low);
		json_uint(w, NULL, b.count);
		json_array_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static uint64_t non_negative(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

void hist_summarize(const struct hist *h, struct stats_summary *out)
{
	*out = (struct stats_summary){ .n = h->total };
	if (h->total == 0)
		return;
	out->min = non_negative(h->min);
	out->p50 = non_negative(hist_percentile(h, 500));
	out->p90 = non_negative(hist_percentile(h, 900));
	out->p99 = non_negative(hist_percentile(h, 990));
	out->p999 = non_negative(hist_percentile(h, 999));
	out->max = non_negative(h->max);
	out->mean = h->sum / (double)h->total;
}

void json_hist_distribution(struct json_writer *w, const char *key,
			    const struct hist *h)
{
	json_object_begin(w, key);
	json_int(w, "min", h->min);
	json_int(w, "p50", hist_percentile(h, 500));
	json_int(w, "p90", hist_percentile(h, 900));
	json_int(w, "p99", hist_percentile(h, 990));
	json_int(w, "p999", hist_percentile(h, 999));
	json_int(w, "max", h->max);
	json_hist(w, "hist", h);
	json_object_end(w);
}
