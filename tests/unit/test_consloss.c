// SPDX-License-Identifier: MIT
/*
 * Unit tests: what the console lost (lib/consloss.c): every byte written
 * counted, every byte given up on counted with the first reason kept, and
 * the end-of-run sentence in both cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/consloss.h"

static void nothing_lost(void **state)
{
	struct console_loss l = { 0 };
	char words[256];

	(void)state;
	consloss_written(&l, 40000);
	consloss_written(&l, 1234);
	consloss_dropped(&l, 0, "a drop of nothing is no drop");
	assert_int_equal(l.written_bytes, 41234);
	assert_int_equal(l.lost_bytes, 0);
	assert_int_equal(l.drops, 0);
	consloss_words(&l, words, sizeof(words));
	assert_string_equal(words,
			    "all 41234 bytes written were taken, none lost");
}

static void drops_counted_first_reason_kept(void **state)
{
	struct console_loss l = { 0 };
	char words[256];

	(void)state;
	consloss_written(&l, 50000);
	consloss_dropped(&l, 4096, "the virtio console did not take it");
	consloss_dropped(&l, 16, "COM1's transmitter never came ready");
	assert_int_equal(l.lost_bytes, 4112);
	assert_int_equal(l.drops, 2);
	consloss_words(&l, words, sizeof(words));
	assert_string_equal(words, "4112 of 50000 bytes written may be lost (2 "
				   "drops; the first: the virtio console did "
				   "not take it)");
}

static void one_drop_and_a_long_reason(void **state)
{
	struct console_loss l = { 0 };
	char why[400], words[512];

	(void)state;
	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	consloss_written(&l, 10);
	consloss_dropped(&l, 10, why);
	assert_int_equal(strlen(l.first_why), CONSLOSS_WHY_LEN - 1);
	consloss_words(&l, words, sizeof(words));
	assert_non_null(strstr(words, "10 of 10 bytes written may be lost (1 "
				      "drop; the first: xxx"));
	consloss_dropped(&l, 1, NULL);
	assert_int_equal(l.drops, 2);
	/* A short buffer is cut, never overrun. */
	assert_true(consloss_words(&l, words, 8) > 8);
	assert_string_equal(words, "11 of 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_lost),
		cmocka_unit_test(drops_counted_first_reason_kept),
		cmocka_unit_test(one_drop_and_a_long_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
