// SPDX-License-Identifier: MIT
/* Unit tests: the guest command-line parser (lib/options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/json.h"
#include "lib/options.h"

static struct options opts;
static char err[256];

static void defaults_when_empty(void **state)
{
	(void)state;
	assert_int_equal(options_parse("", &opts, err, sizeof(err)), 0);
	assert_int_equal(opts.exit_method, EXIT_AUTO);
	assert_int_equal(opts.fault, FAULT_NONE);
	assert_int_equal(opts.port_io, PORT_IO_BITMAP);
	assert_false(opts.verbose);
	assert_false(opts.help);
	assert_string_equal(err, "");
	assert_int_equal(options_parse("  \t ", &opts, err, sizeof(err)), 0);
}

static void parses_every_key(void **state)
{
	(void)state;
	assert_int_equal(options_parse("exit=halt fault=pf verbose=1 help=0 "
				       "port_io=trap",
				       &opts, err, sizeof(err)),
			 0);
	assert_int_equal(opts.port_io, PORT_IO_TRAP);
	assert_string_equal(options_value_name("port_io", &opts), "trap");
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
	assert_non_null(strstr(err, "exit, fault, port_io, verbose, acpi_dump, "
				    "budget_ms, samples, rate_ms, warp_ms, "
				    "drift_ms, noise_ms, noise_gap_ns, events, "
				    "event_wait_ms, hold_ap, "
				    "tick_rates, tick_ms "
				    "or help"));
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
	assert_int_equal(opts.budget_ms, 400);
	assert_int_equal(opts.samples, 0);
	assert_int_equal(opts.rate_ms, 50);
	assert_int_equal(
		options_parse("budget_ms=250 samples=1000000 rate_ms=10", &opts,
			      err, sizeof(err)),
		0);
	assert_int_equal(opts.budget_ms, 250);
	assert_int_equal(opts.samples, 1000000);
	assert_int_equal(opts.rate_ms, 10);
	assert_int_equal(
		options_parse("samples=1000001", &opts, err, sizeof(err)), -1);
	assert_string_equal(err, "option 'samples': '1000001' is not valid "
				 "(expected a whole number from 0 to 1000000)");
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

static void tick_rates_list(void **state)
{
	(void)state;
	/* The default list. */
	assert_int_equal(options_parse("", &opts, err, sizeof(err)), 0);
	assert_int_equal(opts.nr_tick_rates, 4);
	assert_int_equal(opts.tick_rates_hz[0], 100);
	assert_int_equal(opts.tick_rates_hz[1], 1000);
	assert_int_equal(opts.tick_rates_hz[2], 10000);
	assert_int_equal(opts.tick_rates_hz[3], 100000);
	assert_int_equal(opts.tick_ms, 40);
	/* Another list, one rate, and none at all (no tick phase). */
	assert_int_equal(options_parse("tick_rates=1000,50 tick_ms=20", &opts,
				       err, sizeof(err)),
			 0);
	assert_int_equal(opts.nr_tick_rates, 2);
	assert_int_equal(opts.tick_rates_hz[0], 1000);
	assert_int_equal(opts.tick_rates_hz[1], 50);
	assert_int_equal(opts.tick_ms, 20);
	assert_int_equal(
		options_parse("tick_rates=1000000", &opts, err, sizeof(err)),
		0);
	assert_int_equal(opts.nr_tick_rates, 1);
	assert_int_equal(opts.tick_rates_hz[0], 1000000);
	assert_int_equal(options_parse("tick_rates=", &opts, err, sizeof(err)),
			 0);
	assert_int_equal(opts.nr_tick_rates, 0);
	assert_string_equal(options_value_name("tick_rates", &opts), "?");
}

static void tick_rates_refused(void **state)
{
	static const char *const bad[] = {
		"tick_rates=0",
		"tick_rates=1000001",
		"tick_rates=100,",
		",100",
		"tick_rates=100,,200",
		"tick_rates=1e3",
		"tick_rates=100;200",
		"tick_rates=-5",
		"tick_rates=99999999999999999999",
		"tick_rates=1,2,3,4,5,6,7,8,9",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(options_parse(bad[i], &opts, err, sizeof(err)),
				 -1);
	assert_int_equal(
		options_parse("tick_rates=100,x", &opts, err, sizeof(err)), -1);
	assert_string_equal(err, "option 'tick_rates': '100,x' is not valid "
				 "(expected up to 8 whole numbers from 1 to "
				 "1000000, separated by commas, or nothing)");
	/* Eight is the most. */
	assert_int_equal(options_parse("tick_rates=1,2,3,4,5,6,7,8", &opts, err,
				       sizeof(err)),
			 0);
	assert_int_equal(opts.nr_tick_rates, 8);
	assert_int_equal(opts.tick_rates_hz[7], 8);
	assert_int_equal(options_parse("tick_ms=9", &opts, err, sizeof(err)),
			 -1);
}

static char json_text[8192];
static size_t json_len;

static void collect(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	if (json_len + len < sizeof(json_text)) {
		memcpy(json_text + json_len, text, len);
		json_len += len;
		json_text[json_len] = '\0';
	}
}

/* The table as JSON: each kind with its values or bounds and its default as
 * it would be written. */
static void table_as_json(void **state)
{
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 2);
	options_json(&w);
	assert_true(json_finish(&w));
	assert_true(json_len + 1 < sizeof(json_text)); /* not cut */
	assert_non_null(
		strstr(json_text, "\"schema\": \"" OPTIONS_SCHEMA "\""));
	assert_non_null(strstr(json_text,
			       "{\"name\": \"exit\",\"kind\": "
			       "\"choice\",\"values\": [\"auto\","
			       "\"isa\",\"acpi\",\"reset\",\"halt\"],"
			       "\"default\": \"auto\""));
	assert_non_null(strstr(json_text, "{\"name\": \"verbose\",\"kind\": "
					  "\"bool\",\"values\": [\"0\",\"1\"],"
					  "\"default\": \"0\""));
	assert_non_null(strstr(json_text,
			       "{\"name\": \"samples\",\"kind\": "
			       "\"number\",\"min\": 0,\"max\": 1000000,"
			       "\"default\": \"0\""));
	assert_non_null(strstr(json_text,
			       "{\"name\": \"tick_rates\",\"kind\": "
			       "\"list\",\"min\": 1,\"max\": 1000000,"
			       "\"max_items\": 8,\"default\": "
			       "\"100,1000,10000,100000\""));
	/* A quote in a help text is escaped. */
	assert_non_null(strstr(json_text, "lines starting \\\"acpi-dump \\\""));
}

/* A long value is quoted in part, so the sentence still ends by saying what
 * is wrong and what is valid in a 256-byte buffer. */
static void a_long_value_is_quoted_in_part(void **state)
{
	char cmdline[400], quoted[64];

	(void)state;
	memset(quoted, 'x', 40);
	strcpy(quoted + 40, "...");
	strcpy(cmdline, "budget_ms=");
	memset(cmdline + 10, 'x', 300);
	cmdline[310] = '\0';
	assert_int_equal(options_parse(cmdline, &opts, err, sizeof(err)), -1);
	assert_non_null(strstr(err, quoted));
	assert_non_null(strstr(err, "is not valid (expected a whole number"));
	assert_int_equal(err[strlen(err) - 1], ')');

	memcpy(cmdline, "exit=", 5);
	memset(cmdline + 5, 'x', 305);
	assert_int_equal(options_parse(cmdline, &opts, err, sizeof(err)), -1);
	assert_non_null(
		strstr(err, "(expected auto, isa, acpi, reset or halt)"));

	memset(cmdline, 'k', 300);
	strcpy(cmdline + 300, "=1");
	assert_int_equal(options_parse(cmdline, &opts, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown option 'kkkk"));
	assert_non_null(strstr(err, "tick_ms or help)"));

	memset(cmdline, 'w', 300);
	cmdline[300] = '\0';
	assert_int_equal(options_parse(cmdline, &opts, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "...' is not of the form key=value"));

	strcpy(cmdline, "tick_rates=");
	memset(cmdline + 11, '1', 300);
	cmdline[311] = '\0';
	assert_int_equal(options_parse(cmdline, &opts, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "separated by commas, or nothing)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_when_empty),
		cmocka_unit_test(parses_every_key),
		cmocka_unit_test(unknown_key_is_named_with_the_valid_keys),
		cmocka_unit_test(tick_rates_list),
		cmocka_unit_test(tick_rates_refused),
		cmocka_unit_test(bad_value_is_named_with_the_valid_values),
		cmocka_unit_test(malformed_words_fail),
		cmocka_unit_test(values_are_exact_not_prefixes),
		cmocka_unit_test(a_small_error_buffer_is_not_overrun),
		cmocka_unit_test(numbers_within_bounds),
		cmocka_unit_test(table_as_json),
		cmocka_unit_test(a_long_value_is_quoted_in_part),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
