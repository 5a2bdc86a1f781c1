// SPDX-License-Identifier: MIT
/* Unit tests: the JSON writer (lib/json.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/json.h"

static char out[4096];
static size_t out_len;

static void collect(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	assert_true(out_len + len < sizeof(out));
	memcpy(out + out_len, text, len);
	out_len += len;
	out[out_len] = '\0';
}

static int setup(void **state)
{
	(void)state;
	out_len = 0;
	out[0] = '\0';
	return 0;
}

static void flat_document(void **state)
{
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 0);
	json_object_begin(&w, NULL);
	json_string(&w, "s", "x");
	json_uint(&w, "u", 18446744073709551615ull);
	json_int(&w, "i", -42);
	json_double(&w, "d", 1.5);
	json_bool(&w, "t", true);
	json_null(&w, "n");
	json_array_begin(&w, "a");
	json_uint(&w, NULL, 1);
	json_uint(&w, NULL, 2);
	json_array_end(&w);
	json_object_end(&w);
	assert_true(json_finish(&w));
	assert_string_equal(out, "{\"s\": \"x\",\"u\": 18446744073709551615,"
				 "\"i\": -42,\"d\": 1.5,\"t\": true,"
				 "\"n\": null,\"a\": [1,2]}\n");
}

static void strings_are_escaped(void **state)
{
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 0);
	json_string(&w, NULL, "a\"b\\c\nd\te\x01\x7f/");
	assert_true(json_finish(&w));
	assert_string_equal(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f/\"\n");
	setup(NULL);
	json_init(&w, collect, NULL, 0);
	json_string(&w, "k\"ey", NULL);
	assert_string_equal(out, "\"k\\\"ey\": null");
}

static void non_finite_numbers_are_null(void **state)
{
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 0);
	json_array_begin(&w, NULL);
	json_double(&w, NULL, NAN);
	json_double(&w, NULL, INFINITY);
	json_double(&w, NULL, -INFINITY);
	json_double(&w, NULL, 2300006000.0);
	json_double(&w, NULL, -0.25);
	json_array_end(&w);
	assert_true(json_finish(&w));
	assert_string_equal(out, "[null,null,null,2300006000,-0.25]\n");
}

/* The members the image's report and clockbench-user share. */
static void stats_and_optional_members(void **state)
{
	struct stats_summary st = { .n = 3,
				    .min = 1,
				    .p50 = 2,
				    .p90 = 3,
				    .p99 = 4,
				    .p999 = 5,
				    .max = 6 };
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 0);
	json_object_begin(&w, NULL);
	json_stats(&w, "s", &st, true);
	json_stats(&w, "none", &st, false);
	json_double_if(&w, "d", true, 0.5);
	json_double_if(&w, "nd", false, 0.5);
	json_uint_if(&w, "u", true, 7);
	json_uint_if(&w, "nu", false, 7);
	json_object_end(&w);
	assert_true(json_finish(&w));
	assert_string_equal(out, "{\"s\": {\"min\": 1,\"p50\": 2,\"p90\": 3,"
				 "\"p99\": 4,\"p999\": 5,\"max\": 6},"
				 "\"none\": null,\"d\": 0.5,\"nd\": null,"
				 "\"u\": 7,\"nu\": null}\n");
}

static void newlines_up_to_a_depth(void **state)
{
	struct json_writer w;

	(void)state;
	json_init(&w, collect, NULL, 1);
	json_object_begin(&w, NULL);
	json_uint(&w, "a", 1);
	json_object_begin(&w, "b");
	json_uint(&w, "c", 2);
	json_object_end(&w);
	json_object_end(&w);
	assert_true(json_finish(&w));
	assert_string_equal(out, "{\n \"a\": 1,\n \"b\": {\"c\": 2}}\n");
}

static void unbalanced_documents_are_reported(void **state)
{
	struct json_writer w;
	int i;

	(void)state;
	json_init(&w, collect, NULL, 0);
	json_object_begin(&w, NULL);
	assert_false(json_finish(&w));
	json_init(&w, collect, NULL, 0);
	json_object_end(&w);
	assert_false(json_finish(&w));
	json_init(&w, collect, NULL, 0);
	for (i = 0; i < JSON_MAX_DEPTH + 2; i++)
		json_array_begin(&w, NULL);
	assert_false(json_finish(&w));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(flat_document, setup),
		cmocka_unit_test_setup(strings_are_escaped, setup),
		cmocka_unit_test_setup(non_finite_numbers_are_null, setup),
		cmocka_unit_test_setup(stats_and_optional_members, setup),
		cmocka_unit_test_setup(newlines_up_to_a_depth, setup),
		cmocka_unit_test_setup(unbalanced_documents_are_reported,
				       setup),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
