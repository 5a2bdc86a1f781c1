// SPDX-License-Identifier: MIT
/* KTAP output for pass/fail checks. */
#include <stdarg.h>
#include <stdio.h>

#include "lib/ktap.h"

static unsigned int nr_passed, nr_failed, nr_skipped;
static bool begun;

static unsigned int nr_checks(void)
{
	return nr_passed + nr_failed + nr_skipped;
}

void report_begin(void)
{
	if (begun)
		return;
	begun = true;
	printf("KTAP version 1\n");
}

void report(bool pass, const char *fmt, ...)
{
	va_list ap;

	report_begin();
	if (pass)
		nr_passed++;
	else
		nr_failed++;
	printf("%sok %u ", pass ? "" : "not ", nr_checks());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void report_skip(const char *fmt, ...)
{
	va_list ap;

	report_begin();
	nr_skipped++;
	printf("ok %u # SKIP ", nr_checks());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void report_counts(unsigned int *passed, unsigned int *failed,
		   unsigned int *skipped)
{
	*passed = nr_passed;
	*failed = nr_failed;
	*skipped = nr_skipped;
}

enum verdict report_end(void)
{
	report_begin();
	printf("1..%u\n", nr_checks());
	printf("# %u passed, %u failed, %u skipped\n", nr_passed, nr_failed,
	       nr_skipped);
	if (nr_failed)
		return VERDICT_FAIL;
	if (!nr_passed && nr_skipped)
		return VERDICT_SKIP;
	return VERDICT_PASS;
}
