// SPDX-License-Identifier: MIT
/* One clock's rate against another (see lib/clockrate.h). */
#include <stdio.h>

#include "lib/clockrate.h"

/* Reads of the pair before giving up on a stuck one. */
#define RATE_MAX_READS	     50000000ull
#define RATE_BRACKET_TRIES   8
#define RATE_CHECK_TRIES     3
#define RATE_GOOD_ENOUGH_PPM 1000.0 /* narrow enough: no need to repeat */
/* Measurements a gap may spoil before the rate is given up on: a host that
 * keeps the guest away that often leaves nothing to measure. */
#define RATE_GAP_TRIES 5

/* One bracket: reference, clock, reference; the narrowest of a few. */
struct bracket {
	uint64_t ref_before, value, ref_after;
};

static struct bracket best_bracket(const struct clock *c,
				   const struct clock *ref)
{
	struct bracket best = { 0 }, b;
	uint64_t best_width = ~0ull;
	int i;

	for (i = 0; i < RATE_BRACKET_TRIES; i++) {
		b.ref_before = ref->read();
		b.value = c->read();
		b.ref_after = ref->read();
		if (clock_delta(ref, b.ref_before, b.ref_after) < best_width) {
			best = b;
			best_width =
				clock_delta(ref, b.ref_before, b.ref_after);
		}
	}
	return best;
}

/*
 * The reference counts between two reads of @c beyond which a wrap of @c
 * could have gone unseen (half its wrap: a step forward and a step back
 * look alike past it); 0 when @c cannot wrap unseen (64 bits, or its rate
 * unknown, as the TSC's is while it is calibrated).
 */
static uint64_t unseen_wrap_ref_counts(const struct clock *c,
				       const struct clock *ref)
{
	double half_wrap_s;

	if (c->width_bits >= 64 || !c->freq_hz)
		return 0;
	half_wrap_s =
		(double)(1ull << (c->width_bits - 1)) / (double)c->freq_hz;
	return (uint64_t)(half_wrap_s * (double)ref->freq_hz);
}

int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen)
{
	uint64_t gap_limit = unseen_wrap_ref_counts(c, ref);
	struct bracket start = best_bracket(c, ref);
	uint64_t want =
		(uint64_t)((double)interval_ns * ref->freq_hz / NS_PER_S);
	uint64_t ref_last = start.ref_after, c_last = start.value;
	uint64_t ref_acc = clock_delta(ref, start.ref_before, start.ref_after);
	uint64_t c_acc = 0, reads;
	double start_width = (double)ref_acc, start_mid = ref_acc / 2.0;
	/* The narrowest of the last few brackets, as at the start. */
	double end_mid = 0, end_width = -1, end_c = 0;
	int end_tries = 0;

	/* Follow both counters through their wraps: each loop reads the
	 * clock between two reads of the reference. */
	for (reads = 0; end_tries < RATE_BRACKET_TRIES; reads++) {
		uint64_t c_now, ref_now, ref_before = ref_acc;

		if (reads == RATE_MAX_READS) {
			snprintf(why, whylen,
				 "%s did not advance %.0f ms in %llu reads",
				 ref->name, interval_ns / 1e6,
				 (unsigned long long)RATE_MAX_READS);
			return -1;
		}
		c_now = c->read();
		ref_now = ref->read();
		if (gap_limit &&
		    clock_delta(ref, ref_last, ref_now) > gap_limit) {
			snprintf(why, whylen,
				 "the guest did not run for %.0f ms, over half "
				 "of %s's %.0f ms wrap, so its count could not "
				 "be followed",
				 (double)clock_delta(ref, ref_last, ref_now) *
					 1e3 / (double)ref->freq_hz,
				 c->name,
				 (double)clock_mask(c->width_bits) * 1e3 /
					 (double)c->freq_hz);
			return CLOCK_RATE_GAP;
		}
		c_acc += clock_delta(c, c_last, c_now);
		ref_acc += clock_delta(ref, ref_last, ref_now);
		c_last = c_now;
		ref_last = ref_now;
		if (ref_acc < want)
			continue;
		end_tries++;
		if (end_width < 0 || ref_acc - ref_before < end_width) {
			end_width = (double)(ref_acc - ref_before);
			end_mid = (ref_before + ref_acc) / 2.0;
			end_c = (double)c_acc;
		}
	}
	if (end_c == 0) {
		snprintf(why, whylen, "%s did not advance while %s ran %.0f ms",
			 c->name, ref->name, interval_ns / 1e6);
		return -1;
	}
	out->interval_s = (end_mid - start_mid) / ref->freq_hz;
	out->hz = end_c / out->interval_s;
	/* Each midpoint is off by at most half its bracket; add one count
	 * of the reference for its resolution. */
	out->uncertainty_ppm = ((start_width + end_width) / 2.0 + 1.0) /
			       (end_mid - start_mid) * 1e6;
	return 0;
}

int clock_measure_rate_best(const struct clock *c, const struct clock *ref,
			    uint64_t interval_ns, struct clock_rate *best,
			    char *why, size_t whylen)
{
	struct clock_rate rate = { 0 };
	int i, rc, found = 0, gaps = 0;

	for (i = 0; i < RATE_CHECK_TRIES; i++) {
		rc = clock_measure_rate(c, ref, interval_ns, &rate, why,
					whylen);
		/* A measurement a gap spoiled is measured again. */
		if (rc == CLOCK_RATE_GAP && ++gaps < RATE_GAP_TRIES) {
			i--;
			continue;
		}
		if (rc == CLOCK_RATE_GAP && found)
			break;
		if (rc)
			return -1;
		if (!found++ || rate.uncertainty_ppm < best->uncertainty_ppm)
			*best = rate;
		if (best->uncertainty_ppm < RATE_GOOD_ENOUGH_PPM)
			break;
	}
	return 0;
}
