/* SPDX-License-Identifier: MIT */
/*
 * One clock's rate against another: both read through their read()
 * pointers, followed through their wraps, each end the narrowest of a few
 * reference-clock-reference brackets.  Pure over struct clock: drivers that
 * calibrate are handed the reference to measure against (struct
 * probe_env), the engine checks every clock's rate with it, and host tests
 * run it on counters of their own.
 */
#ifndef CLOCKBENCH_LIB_CLOCKRATE_H
#define CLOCKBENCH_LIB_CLOCKRATE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"

/* The measured rate of one clock against another. */
struct clock_rate {
	double hz;		/* measured frequency of the clock's counter */
	double uncertainty_ppm; /* half-width of the brackets, plus resolution */
	double interval_s;	/* reference time the measurement spanned */
};

/* clock_measure_rate()'s return when two reads of the clock were further
 * apart than half its wrap (the guest did not run): a wrap may be lost. */
#define CLOCK_RATE_GAP (-2)

/**
 * Measure @c's rate against @ref over about @interval_ns of reference
 * time.  Both counters are followed through their wraps.  Returns 0, or
 * -1 with the reason in @why (a reference that stops, a clock that does),
 * or CLOCK_RATE_GAP with it when a gap could have hidden a wrap of @c.
 */
int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen);

/**
 * clock_measure_rate(), repeated when the brackets came out wide (the host
 * descheduled the guest mid-bracket, say); the tightest of a few is kept.
 * A measurement a gap spoiled is repeated too, a few times; -1 with the
 * reason when gaps spoiled every one.
 */
int clock_measure_rate_best(const struct clock *c, const struct clock *ref,
			    uint64_t interval_ns, struct clock_rate *best,
			    char *why, size_t whylen);

/* Measurements clock_measure_rates() runs at once, at most. */
#define CLOCK_RATE_MAX_JOBS 16

/* One clock's rate among several measured over the same interval. */
struct clock_rate_job {
	const struct clock *c, *ref; /* in: the clock and its reference */
	int rc;			     /* out: 0, or -1 with @why */
	struct clock_rate rate;	     /* out: when @rc is 0 */
	char why[CLOCK_TEXT_LEN];
};

/**
 * The rates of several clocks, each against its own reference, measured
 * over the same @interval_ns: one step of each in turn, each end bracket
 * as tight as clock_measure_rate()'s, so that n clocks take the time of
 * one.  A measurement a gap spoiled or whose brackets came out wide is then
 * repeated alone (clock_measure_rate_best()).  At most CLOCK_RATE_MAX_JOBS:
 * any past them get -1 and a reason.
 */
void clock_measure_rates(struct clock_rate_job *jobs, unsigned int n,
			 uint64_t interval_ns);

#endif
