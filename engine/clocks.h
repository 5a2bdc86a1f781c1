/* SPDX-License-Identifier: MIT */
/*
 * The clock table: every clock clockbench knows, probed once, in the order
 * reports list them.  Also the measurements every clock shares: whether it
 * advances, and its rate against a reference clock.
 */
#ifndef CLOCKBENCH_ENGINE_CLOCKS_H
#define CLOCKBENCH_ENGINE_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"

/* The measured rate of one clock against another. */
struct clock_rate {
	double hz;		/* measured frequency of the clock's counter */
	double uncertainty_ppm; /* half-width of the brackets, plus resolution */
	double interval_s;	/* reference time the measurement spanned */
};

/** Probe every clock; the TSC last, so it can calibrate against the rest. */
void clocks_probe(const struct clock_env *env);

/** The clock table, NULL-terminated, in report order. */
struct clock *const *clocks_all(void);

/** The clock named @name, or NULL. */
struct clock *clocks_find(const char *name);

/**
 * The present clock with an independently known frequency that other
 * clocks are best measured against: HPET, else the ACPI PM timer, else
 * the PIT.  NULL when there is none.
 */
const struct clock *clocks_reference(void);

/**
 * The best reference for @c: the first present of HPET, PM timer, PIT that
 * is neither @c nor the clock @c was calibrated against (any, when @c is
 * NULL); NULL if none.
 */
const struct clock *clocks_reference_for(const struct clock *c);

/**
 * Measure @c's rate against @ref over about @interval_ns of reference
 * time.  Both counters are followed through their wraps.  Returns 0, or
 * -1 with the reason in @why (a reference that stops, a clock that does).
 */
int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen);

/**
 * clock_measure_rate(), repeated when the brackets came out wide (the host
 * descheduled the guest mid-bracket, say); the tightest of a few is kept.
 */
int clock_measure_rate_best(const struct clock *c, const struct clock *ref,
			    uint64_t interval_ns, struct clock_rate *best,
			    char *why, size_t whylen);

/** Print the platform section: every clock, present or absent and why. */
void clocks_report_platform(void);

/** Driver checks: kvm-clock reads met no stuck version, HPET 64-bit reads
 * did not keep tearing. */
void clocks_check(void);

#endif
