// SPDX-License-Identifier: MIT
/* One clock's rate against another (see lib/clockrate.h). */
#include <stdio.h>

#include "lib/clockrate.h"

/* Reads of the pair before giving up on a stuck one. */
#define RATE_MAX_READS	     50000000ull
#define RATE_BRACKET_TRIES   8
#define RATE_CHECK_TRIES     3
#define RATE_GOOD_ENOUGH_PPM 1000.0 /* narrow enough: no need to repeat */

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

int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen)
{
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
	int i, found = 0;

	for (i = 0; i < RATE_CHECK_TRIES; i++) {
		if (clock_measure_rate(c, ref, interval_ns, &rate, why, whylen))
			return -1;
		if (!found++ || rate.uncertainty_ppm < best->uncertainty_ppm)
			*best = rate;
		if (best->uncertainty_ppm < RATE_GOOD_ENOUGH_PPM)
			break;
	}
	return 0;
}
