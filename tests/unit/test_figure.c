// SPDX-License-Identifier: MIT
/*
 * Unit tests: grouped figures for the tables (lib/figure.c): thousands
 * grouped on the integer part only, rounding, signs, what is not a number,
 * and a buffer too small.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/figure.h"

static void expect(double value, unsigned int decimals, const char *want)
{
	char buf[FIGURE_LEN];

	assert_string_equal(figure_grouped(buf, sizeof(buf), value, decimals),
			    want);
}

static void test_groups_the_integer_part(void **state)
{
	(void)state;
	expect(0, 0, "0");
	expect(17, 0, "17");
	expect(999, 1, "999.0");
	expect(1000, 0, "1,000");
	expect(25612.34, 1, "25,612.3");
	expect(45920000, 0, "45,920,000");
	expect(123456789.125, 3, "123,456,789.125");
	expect(1e12, 0, "1,000,000,000,000");
}

static void test_rounds_and_signs(void **state)
{
	(void)state;
	expect(999.96, 1, "1,000.0");
	expect(4236.6, 0, "4,237");
	expect(-1234567.8, 1, "-1,234,567.8");
	expect(-12, 0, "-12");
	expect(0.25, 12, "0.250000000"); /* at most 9 decimals */
}

static void test_not_a_number(void **state)
{
	(void)state;
	expect(NAN, 1, "-");
	expect(INFINITY, 0, "-");
	expect(-INFINITY, 0, "-");
}

static void test_small_buffer_is_cut_short(void **state)
{
	char buf[6];

	(void)state;
	assert_string_equal(figure_grouped(buf, sizeof(buf), 1234567, 0),
			    "1,234");
	assert_string_equal(figure_grouped(buf, 1, 1234567, 0), "");
	assert_string_equal(figure_grouped(buf, 4, -1234, 0), "-1,");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_the_integer_part),
		cmocka_unit_test(test_rounds_and_signs),
		cmocka_unit_test(test_not_a_number),
		cmocka_unit_test(test_small_buffer_is_cut_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
