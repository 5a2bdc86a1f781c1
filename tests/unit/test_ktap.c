// SPDX-License-Identifier: MIT
/*
 * Unit tests: the checks of a run and their KTAP lines (lib/ktap.c):
 * prefixes, figures after "#", the severity order of the verdict, and a
 * list that overflows; and their JSON: every check with its figures and
 * tolerance, a bounded number of them, the list's own check.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/json_sink.h"

#include "lib/json.h"
#include "lib/ktap.h"

static struct ktap k;

/* --- the JSON, collected into memory (json_sink.h) ------------------------ */

/* @k's members as a document of their own, lines up to @newline_depth. */
static const char *json_of(const struct ktap *checks,
			   unsigned int newline_depth)
{
	struct json_writer w;

	document_len = 0;
	document[0] = '\0';
	json_init(&w, collect, NULL, newline_depth);
	json_object_begin(&w, NULL);
	ktap_json(&w, checks);
	json_object_end(&w);
	assert_true(json_finish(&w));
	return document;
}

/* What ktap_print() writes, captured through a temporary file. */
static const char *printed(const struct ktap *checks)
{
	static char out[1 << 16];
	FILE *f = tmpfile();
	FILE *saved = stdout;
	size_t len;

	assert_non_null(f);
	stdout = f;
	ktap_print(checks);
	fflush(f);
	stdout = saved;
	rewind(f);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	fclose(f);
	return out;
}

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

/* The KTAP lines; figures and tolerances are the JSON's alone. */
static void printed_lines(void **state)
{
	(void)state;
	report(&k, true, "a works");
	report_info(&k, "value 0x500");
	report_figure(&k, "value", 0x500);
	report(&k, false, "b works");
	report_tolerance(&k, "b_max", 0);
	report_skip(&k, "c works");
	report_info(&k, "not here");
	report_error(&k, "d works");
	report_info(&k, "broken");
	assert_string_equal(printed(&k),
			    "KTAP version 1\n"
			    "1..4\n"
			    "ok 1 a works # value 0x500\n"
			    "not ok 2 b works\n"
			    "ok 3 c works # SKIP not here\n"
			    "not ok 4 d works # ERROR broken\n"
			    "# 1 passed, 1 failed, 1 skipped, 1 errors\n");
}

/* A check keeps its figures and tolerances in the order given; a key
 * given again replaces its value, of its own kind only. */
static void figures_and_tolerance(void **state)
{
	const struct ktap_check *c = &k.checks[0];

	(void)state;
	report_figure(&k, "before_any_check", 1); /* nothing to give it to */
	report(&k, true, "runs at its nominal rate within %u ppm", 10000);
	report_figure(&k, "rate_ppm", 3);
	report_tolerance(&k, "rate_limit_ppm", 10000);
	report_figure(&k, "rate_uncertainty_ppm", 2);
	report_figure(&k, "rate_ppm", 4);
	report_tolerance(&k, "rate_ppm", 5); /* a tolerance of that name */
	assert_int_equal(k.nr, 1);
	assert_int_equal(c->nr_values, 4);
	assert_int_equal(c->values_dropped, 0);
	assert_string_equal(c->values[0].key, "rate_ppm");
	assert_true(c->values[0].value == 4);
	assert_string_equal(c->values[1].key, "rate_limit_ppm");
	assert_int_equal(c->tolerances, 1u << 1 | 1u << 3);
	assert_string_equal(c->values[2].key, "rate_uncertainty_ppm");
	assert_true(c->values[3].value == 5);
	/* The next check starts with none. */
	report(&k, true, "advances");
	assert_int_equal(k.checks[1].nr_values, 0);
	assert_int_equal(k.checks[1].tolerances, 0);
}

/* Beyond KTAP_MAX_VALUES a check's values are counted, and the JSON says
 * how many. */
static void values_are_bounded(void **state)
{
	static const char *const keys[] = { "a", "b", "c", "d", "e",
					    "f", "g", "h", "i" };
	const struct ktap_check *c = &k.checks[0];
	unsigned int i;

	(void)state;
	report(&k, true, "many");
	for (i = 0; i < KTAP_MAX_VALUES + 3; i++)
		if (i % 2)
			report_tolerance(&k, keys[i], i);
		else
			report_figure(&k, keys[i], i);
	assert_int_equal(c->nr_values, KTAP_MAX_VALUES);
	assert_int_equal(c->values_dropped, 3);
	/* A key it has is still replaced. */
	report_figure(&k, "a", 7);
	assert_true(c->values[0].value == 7);
	assert_int_equal(c->values_dropped, 3);
	assert_non_null(strstr(json_of(&k, 2), "\"values_dropped\": 3}"));
}

/* Every check, one a line, with its figures and tolerance only where it
 * has them; whole numbers exact, NaN null. */
static void json_lists_every_check(void **state)
{
	(void)state;
	report_prefix_push(&k, "%s: ", "tsc");
	report(&k, true, "runs at its nominal rate within %u ppm", 10000);
	report_info(&k, "+3 ppm (± 2 ppm) against \"hpet\"");
	report_figure(&k, "rate_ppm", 3);
	report_figure(&k, "rate_uncertainty_ppm", 2.5);
	report_tolerance(&k, "rate_limit_ppm", 10000);
	report(&k, false, "never went backwards in back-to-back reads");
	report_figure(&k, "backward_steps", 12345678901.0);
	report_figure(&k, "worst_backward_ns", NAN);
	report_prefix_pop(&k);
	report_skip(&k, "cross-CPU checks");
	report_info(&k, "only 1 CPU");
	report_error(&k, "SSE registers survive an exception");
	report_tolerance(&k, "limit_pct", -0.5);
	assert_string_equal(
		json_of(&k, 1),
		"{\n"
		" \"checks\": {\"passed\": 1,\"failed\": 1,\"skipped\": 1,"
		"\"errors\": 1,\"list\": [\n"
		"  {\"name\": \"tsc: runs at its nominal rate within 10000 "
		"ppm\",\"result\": \"pass\",\"info\": \"+3 ppm (± 2 ppm) "
		"against \\\"hpet\\\"\",\"figures\": {\"rate_ppm\": 3,"
		"\"rate_uncertainty_ppm\": 2.5},\"tolerance\": "
		"{\"rate_limit_ppm\": 10000}},\n"
		"  {\"name\": \"tsc: never went backwards in back-to-back "
		"reads\",\"result\": \"fail\",\"info\": \"\",\"figures\": "
		"{\"backward_steps\": 12345678901,\"worst_backward_ns\": "
		"null}},\n"
		"  {\"name\": \"cross-CPU checks\",\"result\": \"skip\","
		"\"info\": \"only 1 CPU\"},\n"
		"  {\"name\": \"SSE registers survive an exception\","
		"\"result\": \"error\",\"info\": \"\",\"tolerance\": "
		"{\"limit_pct\": -0.5}}]},\n"
		" \"verdict\": \"fail\"}\n");
}

/* No checks: an empty list, and the verdict a pass. */
static void json_of_no_checks(void **state)
{
	(void)state;
	assert_string_equal(json_of(&k, 0),
			    "{\"checks\": {\"passed\": 0,\"failed\": 0,"
			    "\"skipped\": 0,\"errors\": 0,\"list\": []},"
			    "\"verdict\": \"pass\"}\n");
}

/* Checks beyond the list: the KTAP text and the JSON both end in the
 * list's own check, an error, with what it found as figures. */
static void dropped_checks_have_an_entry(void **state)
{
	const char *json, *entry;
	unsigned int i;

	(void)state;
	for (i = 0; i < KTAP_MAX_CHECKS + 2; i++) {
		report(&k, true, "check %u", i);
		report_figure(&k, "i", i); /* the last two: not kept */
	}
	assert_int_equal(k.checks[KTAP_MAX_CHECKS - 1].nr_values, 1);
	assert_non_null(
		strstr(printed(&k),
		       "\nnot ok 129 the checks fit the list # ERROR 2 more "
		       "checks than its 128 places were dropped\n"
		       "# 128 passed, 0 failed, 0 skipped, 1 errors\n"));
	json = json_of(&k, 2);
	entry = strstr(json, "\"name\": \"" KTAP_LIST_CHECK "\"");
	assert_non_null(entry);
	assert_string_equal(
		entry,
		"\"name\": \"the checks fit the list\","
		"\"result\": \"error\",\"info\": \"2 more checks than "
		"its 128 places were dropped\",\"figures\": "
		"{\"dropped_checks\": 2},\"tolerance\": "
		"{\"ktap_max_checks\": 128}}]},\n \"verdict\": \"error\"}\n");
	assert_non_null(strstr(json, "\"errors\": 1,"));
	assert_null(strstr(json, "\"name\": \"check 128\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(names_prefixes_and_info, setup),
		cmocka_unit_test_setup(verdict_by_severity, setup),
		cmocka_unit_test_setup(overflow_is_an_error, setup),
		cmocka_unit_test_setup(long_text_is_cut, setup),
		cmocka_unit_test_setup(printed_lines, setup),
		cmocka_unit_test_setup(figures_and_tolerance, setup),
		cmocka_unit_test_setup(values_are_bounded, setup),
		cmocka_unit_test_setup(json_lists_every_check, setup),
		cmocka_unit_test_setup(json_of_no_checks, setup),
		cmocka_unit_test_setup(dropped_checks_have_an_entry, setup),
	};

	return cmocka_run_group_tests_name("ktap", tests, NULL, NULL);
}
