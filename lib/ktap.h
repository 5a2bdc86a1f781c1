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
 * a totals line.  Pure; host-tested.
 */
#ifndef CLOCKBENCH_LIB_KTAP_H
#define CLOCKBENCH_LIB_KTAP_H

#include <stdbool.h>

#include "lib/verdict.h"

#define KTAP_MAX_CHECKS	  128
#define KTAP_NAME_LEN	  160
#define KTAP_INFO_LEN	  240
#define KTAP_PREFIX_LEN	  64
#define KTAP_PREFIX_DEPTH 4

enum check_result {
	CHECK_PASS,
	CHECK_SKIP,  /* could not be checked here: info says why */
	CHECK_ERROR, /* the test or its environment is broken */
	CHECK_FAIL,  /* the subject misbehaves */
};

struct ktap_check {
	enum check_result result;
	char name[KTAP_NAME_LEN];
	char info[KTAP_INFO_LEN];
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

/** How many checks passed, failed, were skipped and met an error. */
struct ktap_counts ktap_counts(const struct ktap *k);

/** The verdict: fail, else error, else skip when none passed, else pass. */
enum verdict ktap_verdict(const struct ktap *k);

struct json_writer;

/**
 * The counts and the verdict as the JSON documents end: "checks": {passed,
 * failed, skipped, errors} and "verdict" ("pass", ...), members of the
 * object @w is in.
 */
void ktap_json(struct json_writer *w, const struct ktap *k);

/** Print every check as KTAP: version, plan, results, totals. */
void ktap_print(const struct ktap *k);

#endif
