// SPDX-License-Identifier: MIT
/* Unit tests: verdict names and exit codes (lib/verdict.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/verdict.h"

static void names(void **state)
{
	(void)state;
	assert_string_equal(verdict_name(VERDICT_PASS), "PASS");
	assert_string_equal(verdict_name(VERDICT_FAIL), "FAIL");
	assert_string_equal(verdict_name(VERDICT_SKIP), "SKIP");
	assert_string_equal(verdict_name(VERDICT_ERROR), "ERROR");
	assert_string_equal(verdict_key(VERDICT_PASS), "pass");
	assert_string_equal(verdict_key(VERDICT_FAIL), "fail");
	assert_string_equal(verdict_key(VERDICT_SKIP), "skip");
	assert_string_equal(verdict_key(VERDICT_ERROR), "error");
}

static void exit_codes_are_distinct_and_documented(void **state)
{
	(void)state;
	assert_int_equal(verdict_exit_code(VERDICT_PASS), 1);
	assert_int_equal(verdict_exit_code(VERDICT_FAIL), 2);
	assert_int_equal(verdict_exit_code(VERDICT_SKIP), 3);
	assert_int_equal(verdict_exit_code(VERDICT_ERROR), 4);
}

/* QEMU's own statuses (0: guest reset/poweroff, 1: QEMU error) must never
 * be taken for a verdict. */
static void qemu_statuses_avoid_qemus_own(void **state)
{
	(void)state;
	assert_int_equal(verdict_qemu_status(VERDICT_PASS), 3);
	assert_int_equal(verdict_qemu_status(VERDICT_FAIL), 5);
	assert_int_equal(verdict_qemu_status(VERDICT_SKIP), 7);
	assert_int_equal(verdict_qemu_status(VERDICT_ERROR), 9);
}

static void unknown_verdict_is_a_failure(void **state)
{
	(void)state;
	assert_string_equal(verdict_name((enum verdict)42), "FAIL");
	assert_string_equal(verdict_key((enum verdict) - 1), "fail");
	assert_int_equal(verdict_exit_code((enum verdict)42), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(exit_codes_are_distinct_and_documented),
		cmocka_unit_test(qemu_statuses_avoid_qemus_own),
		cmocka_unit_test(unknown_verdict_is_a_failure),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
