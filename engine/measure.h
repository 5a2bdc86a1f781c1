/* SPDX-License-Identifier: MIT */
/*
 * The measurement engine: for each present clock, what one read costs
 * (a distribution, and a batch figure), how fine the clock is, whether it
 * goes backwards, how fast it really runs, and whether its reads are
 * trapped.  It knows no particular clock: everything comes through
 * struct clock.
 */
#ifndef CLOCKBENCH_ENGINE_MEASURE_H
#define CLOCKBENCH_ENGINE_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "engine/clocks.h"
#include "lib/stats.h"

struct measure_options {
	unsigned int budget_ms; /* all measurements of the run */
	unsigned int samples; /* per-read samples per clock; 0 = from budget */
	unsigned int rate_ms; /* reference time for each rate measurement */
};

struct clock_result {
	const struct clock *clock;
	bool measured;
	unsigned int samples;
	struct stats_summary read_cycles; /* empty bracket subtracted */
	struct stats_summary read_ns;
	double batch_ns_per_read;
	double conversion_ns;
	bool changed;		 /* two consecutive reads ever differed */
	double resolution_ns;	 /* smallest non-zero step */
	uint64_t stalls;	 /* consecutive equal reads */
	double update_hz;	 /* distinct values per second */
	uint64_t backward_steps; /* raw counter, wraps handled */
	uint64_t ambiguous_gaps; /* reads over half a wrap apart */
	uint64_t backward_steps_ns;
	double worst_backward_ns;
	bool rate_measured;
	double rate_ppm, rate_uncertainty_ppm;
	const struct clock *rate_reference;
	char rate_problem[CLOCK_TEXT_LEN];
	bool trapped;
	char notes[3 * CLOCK_TEXT_LEN];
};

/** Cost of two back-to-back ordered TSC reads, in cycles. */
const struct stats_summary *measure_empty_bracket(void);

/** The clock rates are measured against (TSC if invariant, else HPET...). */
const struct clock *measure_reference(void);

/** Measure every present clock within @opts->budget_ms. */
void measure_all(const struct measure_options *opts);

/** Results, one per clock in clocks_all() order (absent ones unmeasured). */
const struct clock_result *measure_results(unsigned int *count);

#endif
