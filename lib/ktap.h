/* SPDX-License-Identifier: MIT */
/*
 * The checks of a run, and their KTAP output (docs.kernel.org/dev-tools/
 * ktap.html).  One call per check, as in kvm-unit-tests: report(k, pass,
 * name, ...), with a stack of prefixes for the name ("tsc: ") and
 * report_info() for what was measured, which goes after a "#", so that a
 * check's name stays the same from run to run while its figures change:
 *
 *   ok 12 tsc: runs at its nominal rate within 10000 ppm # +0 ppm (± 3 ppm) against acpi_pm
 *
 * As in the Xen Test Framework, an error (the test or its environment is
 * broken) is told apart from a failure (the subject misbehaves), and the
 * verdict is the most severe result: fail, then error, then skip (when
 * nothing passed), then pass.  The checks are kept until ktap_print()
 * prints them all at once: the version line, the plan, one line each and
 * a totals line.
 *
 * The guest is the one judge (docs/report-format.md): report_figure() and
 * report_tolerance() give the last check the figures it was judged on and
 * the bounds it was judged against, which only the JSON carries
 * (ktap_json()), so that a reader takes the verdict rather than making it
 * again:
 *
 *   report(k, ok, "runs at its nominal rate within %u ppm", RATE_LIMIT_PPM);
 *   report_figure(k, "rate_ppm", r->rate_ppm);
 *   report_tolerance(k, "rate_limit_ppm", RATE_LIMIT_PPM);
 *
 * Pure; host-tested.
 */
#ifndef CLOCKBENCH_LIB_KTAP_H
#define CLOCKBENCH_LIB_KTAP_H

#include <stdbool.h>

#include "lib/verdict.h"

/** The checks a run keeps; the rest are counted, and the run is an error. */
#define KTAP_MAX_CHECKS	  128
#define KTAP_NAME_LEN	  160
#define KTAP_INFO_LEN	  240
#define KTAP_PREFIX_LEN	  64
#define KTAP_PREFIX_DEPTH 4
/* Figures and tolerances together, per check (16 bytes each); what a check
 * site gives beyond them is counted in its "values_dropped". */
#define KTAP_MAX_VALUES 6

/* The name of the check ktap_print() adds when checks were dropped. */
#define KTAP_LIST_CHECK "the checks fit the list"

enum check_result {
	CHECK_PASS,
	CHECK_SKIP,  /* could not be checked here: info says why */
	CHECK_ERROR, /* the test or its environment is broken */
	CHECK_FAIL,  /* the subject misbehaves */
};

/* A figure or a tolerance: @key is a string literal with the unit in it
 * ("rate_ppm"), kept by its address. */
struct ktap_value {
	const char *key;
	double value; /* not finite: null in the JSON */
};

struct ktap_check {
	enum check_result result;
	unsigned char nr_values;
	unsigned char tolerances;     /* bit i: values[i] is a tolerance */
	unsigned char values_dropped; /* beyond KTAP_MAX_VALUES: counted */
	char name[KTAP_NAME_LEN];
	char info[KTAP_INFO_LEN];
	struct ktap_value values[KTAP_MAX_VALUES];
};

struct ktap_counts {
	unsigned int passed, failed, skipped, errors;
};

struct ktap {
	struct ktap_check checks[KTAP_MAX_CHECKS];
	unsigned int nr;
	unsigned int dropped; /* checks beyond KTAP_MAX_CHECKS: counted */
	char prefix[KTAP_PREFIX_LEN];
	unsigned int prefix_ends[KTAP_PREFIX_DEPTH];
	unsigned int depth;
};

/** The checks of this run (what a fault or an early end adds to). */
struct ktap *ktap_run(void);

/** Empty @k of checks and prefixes. */
void ktap_init(struct ktap *k);

/** Prefix the names of the checks that follow with @fmt ("tsc: "). */
void report_prefix_push(struct ktap *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Drop the prefix pushed last. */
void report_prefix_pop(struct ktap *k);

/** A check named @fmt: passed when @pass, else failed. */
void report(struct ktap *k, bool pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** A check that could not be made here; report_info() says why. */
void report_skip(struct ktap *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** A check the test could not make because it, or its environment, is
 * broken; report_info() says how. */
void report_error(struct ktap *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** What the last check found, in figures or words (after its "#"). */
void report_info(struct ktap *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * A figure the last check was judged on, @value under @key: a string
 * literal naming it with its unit ("rate_ppm", "worst_warp_ns").  Not
 * finite (NaN: there is none) is null in the JSON.  A key given again
 * replaces its value; figures and tolerances beyond KTAP_MAX_VALUES a
 * check are counted, not kept.  Only the JSON shows them.
 */
void report_figure(struct ktap *k, const char *key, double value);

/**
 * A bound the last check was judged against, @value under @key: the
 * constant's name in lower case ("rate_limit_ppm" for RATE_LIMIT_PPM),
 * which tools/check-rules relies on.  As report_figure() otherwise.
 */
void report_tolerance(struct ktap *k, const char *key, double value);

/** How many checks passed, failed, were skipped and met an error. */
struct ktap_counts ktap_counts(const struct ktap *k);

/** The verdict: fail, else error, else skip when none passed, else pass. */
enum verdict ktap_verdict(const struct ktap *k);

struct json_writer;

/**
 * The checks and the verdict as the JSON documents end, members of the
 * object @w is in: "checks": {passed, failed, skipped, errors, list} and
 * "verdict" ("pass", ...).  "list" holds every check kept, one a line:
 * {name, result, info, figures, tolerance} (figures and tolerance only
 * where the check has them, "values_dropped" only where some were not
 * kept), and, when checks were dropped, KTAP_LIST_CHECK as ktap_print()
 * prints it.
 */
void ktap_json(struct json_writer *w, const struct ktap *k);

/** Print every check as KTAP: version, plan, results, totals. */
void ktap_print(const struct ktap *k);

#endif
