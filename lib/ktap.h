/* SPDX-License-Identifier: MIT */
/*
 * Pass/fail checks, printed as KTAP: one call per check, a running count,
 * and one summary line at the end ("N passed, N failed, N skipped").
 */
#ifndef CLOCKBENCH_LIB_KTAP_H
#define CLOCKBENCH_LIB_KTAP_H

#include <stdbool.h>

#include "lib/verdict.h"

/** Print the KTAP header; checks may follow. */
void report_begin(void);

/** One check: "ok N description" when @pass, else "not ok N ...". */
void report(bool pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** A check that could not run here: "ok N # SKIP reason". */
void report_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The counts so far. */
void report_counts(unsigned int *passed, unsigned int *failed,
		   unsigned int *skipped);

/**
 * Print the plan and the summary line and return the verdict: fail when
 * any check failed, skip when none passed but some were skipped, else pass.
 */
enum verdict report_end(void);

#endif
