// SPDX-License-Identifier: MIT
/* One clock's rate against another (see lib/clockrate.h). */
#include <stdio.h>
#include <string.h>

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

/* A measurement under way: both counters followed since the start
 * bracket, and the narrowest end bracket so far. */
struct follow {
	const struct clock *c, *ref;
	uint64_t gap_limit, want, interval_ns;
	uint64_t ref_last, c_last, ref_acc, c_acc, reads;
	double start_width, start_mid;
	double end_mid, end_width, end_c;
	int end_tries;
};

static void follow_start(struct follow *f, const struct clock *c,
			 const struct clock *ref, uint64_t interval_ns)
{
	struct bracket start = best_bracket(c, ref);

	memset(f, 0, sizeof(*f));
	f->c = c;
	f->ref = ref;
	f->interval_ns = interval_ns;
	f->gap_limit = unseen_wrap_ref_counts(c, ref);
	f->want = (uint64_t)((double)interval_ns * ref->freq_hz / NS_PER_S);
	f->ref_last = start.ref_after;
	f->c_last = start.value;
	f->ref_acc = clock_delta(ref, start.ref_before, start.ref_after);
	f->start_width = (double)f->ref_acc;
	f->start_mid = f->ref_acc / 2.0;
	f->end_width = -1;
}

/*
 * One read of the clock between two of the reference, both followed
 * through their wraps.  Once the reference has run the interval, the end
 * brackets follow at once, back to back, so that a measurement taken among
 * others' is as tight at its end as one alone.  Returns 1 while under way,
 * 0 when done, -1 or CLOCK_RATE_GAP with the reason in @why.
 */
static int follow_step(struct follow *f, char *why, size_t whylen)
{
	const struct clock *c = f->c, *ref = f->ref;

	do {
		uint64_t c_now, ref_now, ref_before = f->ref_acc;

		if (f->reads++ == RATE_MAX_READS) {
			snprintf(why, whylen,
				 "%s did not advance %.0f ms in %llu reads",
				 ref->name, f->interval_ns / 1e6,
				 (unsigned long long)RATE_MAX_READS);
			return -1;
		}
		c_now = c->read();
		ref_now = ref->read();
		if (f->gap_limit &&
		    clock_delta(ref, f->ref_last, ref_now) > f->gap_limit) {
			snprintf(
				why, whylen,
				"the guest did not run for %.0f ms, over half "
				"of %s's %.0f ms wrap, so its count could not "
				"be followed",
				(double)clock_delta(ref, f->ref_last, ref_now) *
					1e3 / (double)ref->freq_hz,
				c->name,
				(double)clock_mask(c->width_bits) * 1e3 /
					(double)c->freq_hz);
			return CLOCK_RATE_GAP;
		}
		f->c_acc += clock_delta(c, f->c_last, c_now);
		f->ref_acc += clock_delta(ref, f->ref_last, ref_now);
		f->c_last = c_now;
		f->ref_last = ref_now;
		if (f->ref_acc < f->want)
			return 1;
		f->end_tries++;
		if (f->end_width < 0 ||
		    f->ref_acc - ref_before < f->end_width) {
			f->end_width = (double)(f->ref_acc - ref_before);
			f->end_mid = (ref_before + f->ref_acc) / 2.0;
			f->end_c = (double)f->c_acc;
		}
	} while (f->end_tries < RATE_BRACKET_TRIES);
	return 0;
}

static int follow_result(const struct follow *f, struct clock_rate *out,
			 char *why, size_t whylen)
{
	if (f->end_c == 0) {
		snprintf(why, whylen, "%s did not advance while %s ran %.0f ms",
			 f->c->name, f->ref->name, f->interval_ns / 1e6);
		return -1;
	}
	out->interval_s = (f->end_mid - f->start_mid) / f->ref->freq_hz;
	out->hz = f->end_c / out->interval_s;
	/* Each midpoint is off by at most half its bracket; add one count
	 * of the reference for its resolution. */
	out->uncertainty_ppm = ((f->start_width + f->end_width) / 2.0 + 1.0) /
			       (f->end_mid - f->start_mid) * 1e6;
	return 0;
}

int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen)
{
	struct follow f;
	int rc;

	follow_start(&f, c, ref, interval_ns);
	while ((rc = follow_step(&f, why, whylen)) > 0)
		;
	return rc ? rc : follow_result(&f, out, why, whylen);
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

void clock_measure_rates(struct clock_rate_job *jobs, unsigned int n,
			 uint64_t interval_ns)
{
	struct follow f[CLOCK_RATE_MAX_JOBS];
	unsigned int i, running = 0;

	/* None dropped unsaid: those past the bound are refused. */
	for (i = CLOCK_RATE_MAX_JOBS; i < n; i++) {
		jobs[i].rc = -1;
		snprintf(jobs[i].why, sizeof(jobs[i].why),
			 "more than %u rates measured at once",
			 CLOCK_RATE_MAX_JOBS);
	}
	if (n > CLOCK_RATE_MAX_JOBS)
		n = CLOCK_RATE_MAX_JOBS;
	for (i = 0; i < n; i++) {
		jobs[i].why[0] = '\0';
		jobs[i].rc = 1;
		follow_start(&f[i], jobs[i].c, jobs[i].ref, interval_ns);
		running++;
	}
	/* Round and round: one step of each measurement still under way, so
	 * that all of them span the same interval. */
	while (running)
		for (i = 0; i < n; i++) {
			if (jobs[i].rc <= 0)
				continue;
			jobs[i].rc = follow_step(&f[i], jobs[i].why,
						 sizeof(jobs[i].why));
			if (jobs[i].rc > 0)
				continue;
			running--;
			if (!jobs[i].rc)
				jobs[i].rc = follow_result(&f[i], &jobs[i].rate,
							   jobs[i].why,
							   sizeof(jobs[i].why));
		}
	/* A measurement a gap spoiled, or whose brackets came out wide, is
	 * taken again alone, as clock_measure_rate_best() takes one. */
	for (i = 0; i < n; i++) {
		struct clock_rate again;
		char why[CLOCK_TEXT_LEN];

		if (jobs[i].rc == -1 ||
		    (!jobs[i].rc &&
		     jobs[i].rate.uncertainty_ppm < RATE_GOOD_ENOUGH_PPM))
			continue;
		if (clock_measure_rate_best(jobs[i].c, jobs[i].ref, interval_ns,
					    &again, why, sizeof(why))) {
			if (jobs[i].rc) {
				jobs[i].rc = -1;
				memcpy(jobs[i].why, why, sizeof(why));
			}
			continue;
		}
		if (jobs[i].rc ||
		    again.uncertainty_ppm < jobs[i].rate.uncertainty_ppm)
			jobs[i].rate = again;
		jobs[i].rc = 0;
	}
}
