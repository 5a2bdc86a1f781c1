// SPDX-License-Identifier: MIT
/* Unit tests: the guest command-line parser (kernel/options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/options.h"

static struct options opts;
static char err[256];

static void defaults_when_empty(void **state)
{
	(void)state;
	assert_int_equal(options_parse("", &opts, err, sizeof(err)), 0);
	assert_int_equal(opts.exit_method, EXIT_AUTO);
	assert_int_equal(opts.fault, FAULT_NONE);
	assert_false(opts.verbose);
	assert_false(opts.help);
	assert_string_equal(err, "");
	assert_int_equal(options_parse("  \t ", &opts, err, sizeof(err)), 0);
}

static void parses_every_key(void **state)
{
	(void)state;
	assert_int_equal(options_parse("exit=halt fault=pf verbose=1 help=0",
				       &opts, err, sizeof(err)),
			 0);
	assert_int_equal(opts.exit_method, EXIT_HALT);
	assert_int_equal(opts.fault, FAULT_PF);
	assert_true(opts.verbose);
	assert_false(opts.help);
	assert_string_equal(options_value_name("fault", &opts), "pf");
	assert_string_equal(options_value_name("exit", &opts), "halt");
	assert_string_equal(options_value_name("verbose", &opts), "1");
}

static void unknown_key_is_named_with_the_valid_keys(void **state)
{
	(void)state;
	assert_int_equal(
		options_parse("verbose=1 bogus=1", &opts, err, sizeof(err)),
		-1);
	assert_non_null(strstr(err, "unknown option 'bogus'"));
	assert_non_null(strstr(err, "exit, fault, verbose, acpi_dump, "
				    "budget_ms, samples, rate_ms, warp_ms, "
				    "drift_ms, hold_ap or help"));
}

static void bad_value_is_named_with_the_valid_values(void **state)
{
	(void)state;
	assert_int_equal(options_parse("verbose=7", &opts, err, sizeof(err)),
			 -1);
	assert_string_equal(
		err, "option 'verbose': '7' is not valid (expected 0 or 1)");
	assert_int_equal(options_parse("exit=", &opts, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'' is not valid"));
	assert_non_null(strstr(err, "auto, isa, acpi, reset or halt"));
}

static void malformed_words_fail(void **state)
{
	(void)state;
	assert_int_equal(options_parse("verbose", &opts, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "option 'verbose' is not of the form key=value");
	assert_int_equal(options_parse("=1", &opts, err, sizeof(err)), -1);
	assert_int_equal(
		options_parse("verbose=1 verbose=0", &opts, err, sizeof(err)),
		-1);
	assert_string_equal(err, "option 'verbose' is given twice");
}

static void values_are_exact_not_prefixes(void **state)
{
	(void)state;
	assert_int_equal(options_parse("exit=hal", &opts, err, sizeof(err)),
			 -1);
	assert_int_equal(options_parse("exit=halted", &opts, err, sizeof(err)),
			 -1);
	assert_int_equal(options_parse("exits=halt", &opts, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "unknown option 'exits'"));
}

static void a_small_error_buffer_is_not_overrun(void **state)
{
	char small[12];

	(void)state;
	memset(small, 'x', sizeof(small));
	assert_int_equal(options_parse("bogus=1", &opts, small, 8), -1);
	assert_int_equal(strlen(small), 7);
	assert_int_equal(small[8], 'x');
}

static void numbers_within_bounds(void **state)
{
	(void)state;
	assert_int_equal(options_parse("", &opts, err, sizeof(err)), 0);
	assert_int_equal(opts.budget_ms, 1500);
	assert_int_equal(opts.samples, 0);
	assert_int_equal(opts.rate_ms, 100);
	assert_int_equal(options_parse("budget_ms=250 samples=20000 rate_ms=10",
				       &opts, err, sizeof(err)),
			 0);
	assert_int_equal(opts.budget_ms, 250);
	assert_int_equal(opts.samples, 20000);
	assert_int_equal(opts.rate_ms, 10);
	assert_int_equal(
		options_parse("samples=20001", &opts, err, sizeof(err)), -1);
	assert_string_equal(err, "option 'samples': '20001' is not valid "
				 "(expected a whole number from 0 to 20000)");
	assert_int_equal(options_parse("budget_ms=99", &opts, err, sizeof(err)),
			 -1);
	assert_int_equal(options_parse("budget_ms=", &opts, err, sizeof(err)),
			 -1);
	assert_int_equal(
		options_parse("budget_ms=1e3", &opts, err, sizeof(err)), -1);
	assert_int_equal(options_parse("rate_ms=-5", &opts, err, sizeof(err)),
			 -1);
	assert_int_equal(options_parse("budget_ms=99999999999999999999", &opts,
				       err, sizeof(err)),
			 -1);
	assert_string_equal(options_value_name("budget_ms", &opts), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_when_empty),
		cmocka_unit_test(parses_every_key),
		cmocka_unit_test(unknown_key_is_named_with_the_valid_keys),
		cmocka_unit_test(bad_value_is_named_with_the_valid_values),
		cmocka_unit_test(malformed_words_fail),
		cmocka_unit_test(values_are_exact_not_prefixes),
		cmocka_unit_test(a_small_error_buffer_is_not_overrun),
		cmocka_unit_test(numbers_within_bounds),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
