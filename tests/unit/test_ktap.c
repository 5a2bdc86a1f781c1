// SPDX-License-Identifier: MIT
/*
 * Unit tests: the checks of a run and their KTAP lines (lib/ktap.c):
 * prefixes, figures after "#", the severity order of the verdict, and a
 * list that overflows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/ktap.h"

static struct ktap k;

static int setup(void **state)
{
	(void)state;
	ktap_init(&k);
	return 0;
}

static void names_prefixes_and_info(void **state)
{
	(void)state;
	report_prefix_push(&k, "%s: ", "tsc");
	report(&k, true, "runs at its nominal rate within %u ppm", 10000);
	report_info(&k, "%+.0f ppm against %s", 3.0, "acpi_pm");
	report_prefix_push(&k, "cpu%u: ", 1);
	report(&k, false, "offset measured");
	report_prefix_pop(&k);
	report_skip(&k, "rate");
	report_info(&k, "no independent clock");
	report_prefix_pop(&k);
	report_prefix_pop(&k); /* one too many: harmless */
	report_error(&k, "exception table works");
	report(&k, true, "no prefix left");
	assert_int_equal(k.nr, 5);
	assert_string_equal(k.checks[0].name,
			    "tsc: runs at its nominal rate within 10000 ppm");
	assert_string_equal(k.checks[0].info, "+3 ppm against acpi_pm");
	assert_string_equal(k.checks[1].name, "tsc: cpu1: offset measured");
	assert_string_equal(k.checks[1].info, "");
	assert_string_equal(k.checks[2].name, "tsc: rate");
	assert_int_equal(k.checks[3].result, CHECK_ERROR);
	assert_string_equal(k.checks[4].name, "no prefix left");
}

/* The verdict is the most severe result: fail, error, then skip only when
 * nothing passed. */
static void verdict_by_severity(void **state)
{
	struct ktap_counts n;

	(void)state;
	assert_int_equal(ktap_verdict(&k), VERDICT_PASS); /* nothing at all */
	report_skip(&k, "a");
	assert_int_equal(ktap_verdict(&k), VERDICT_SKIP);
	report(&k, true, "b");
	assert_int_equal(ktap_verdict(&k), VERDICT_PASS);
	report_error(&k, "c");
	assert_int_equal(ktap_verdict(&k), VERDICT_ERROR);
	report(&k, false, "d");
	assert_int_equal(ktap_verdict(&k), VERDICT_FAIL);
	n = ktap_counts(&k);
	assert_int_equal(n.passed, 1);
	assert_int_equal(n.skipped, 1);
	assert_int_equal(n.errors, 1);
	assert_int_equal(n.failed, 1);
}

/* A list that overflows keeps its checks, counts the rest, and is an
 * error: the run cannot say what the dropped ones found. */
static void overflow_is_an_error(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < KTAP_MAX_CHECKS + 3; i++)
		report(&k, true, "check %u", i);
	report_info(&k, "lost"); /* belongs to a dropped check: not kept */
	assert_int_equal(k.nr, KTAP_MAX_CHECKS);
	assert_int_equal(k.dropped, 3);
	assert_string_equal(k.checks[KTAP_MAX_CHECKS - 1].info, "");
	assert_int_equal(ktap_verdict(&k), VERDICT_ERROR);
	assert_int_equal(ktap_counts(&k).errors, 1);
}

/* Long names and figures are cut, never overrun. */
static void long_text_is_cut(void **state)
{
	char big[3 * KTAP_INFO_LEN];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	report_prefix_push(&k, "%s", big);
	report(&k, true, "%s", big);
	report_info(&k, "%s", big);
	assert_int_equal(strlen(k.checks[0].name), KTAP_NAME_LEN - 1);
	assert_int_equal(strlen(k.checks[0].info), KTAP_INFO_LEN - 1);
	assert_int_equal(strlen(k.prefix), KTAP_PREFIX_LEN - 1);
	/* Cut text says so. */
	assert_string_equal(k.checks[0].name + KTAP_NAME_LEN - 4, "...");
	assert_string_equal(k.checks[0].info + KTAP_INFO_LEN - 4, "...");
	report_prefix_pop(&k);
	report(&k, true, "%s", "short");
	report_info(&k, "%s", "whole");
	assert_string_equal(k.checks[1].name, "short");
	assert_string_equal(k.checks[1].info, "whole");
}

/* What ktap_print() writes, captured through a temporary file. */
static void printed_lines(void **state)
{
	char out[1024];
	FILE *f = tmpfile();
	FILE *saved = stdout;
	size_t len;

	(void)state;
	report(&k, true, "a works");
	report_info(&k, "value 0x500");
	report(&k, false, "b works");
	report_skip(&k, "c works");
	report_info(&k, "not here");
	report_error(&k, "d works");
	report_info(&k, "broken");
	assert_non_null(f);
	stdout = f;
	ktap_print(&k);
	fflush(f);
	stdout = saved;
	rewind(f);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	fclose(f);
	assert_string_equal(out, "KTAP version 1\n"
				 "1..4\n"
				 "ok 1 a works # value 0x500\n"
				 "not ok 2 b works\n"
				 "ok 3 c works # SKIP not here\n"
				 "not ok 4 d works # ERROR broken\n"
				 "# 1 passed, 1 failed, 1 skipped, 1 errors\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(names_prefixes_and_info, setup),
		cmocka_unit_test_setup(verdict_by_severity, setup),
		cmocka_unit_test_setup(overflow_is_an_error, setup),
		cmocka_unit_test_setup(long_text_is_cut, setup),
		cmocka_unit_test_setup(printed_lines, setup),
	};

	return cmocka_run_group_tests_name("ktap", tests, NULL, NULL);
}
