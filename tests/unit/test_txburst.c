// SPDX-License-Identifier: MIT
/*
 * Unit tests: console bytes in bursts (lib/txburst.c), the logic of the
 * UART driver's FIFO writes: no burst longer than the room, "\n" sent as
 * "\r\n" even when a burst of one splits them, nothing lost or repeated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/txburst.h"

/* Everything a write gives out in bursts of @room, joined; the number of
 * bursts in *@bursts. */
static size_t drain(const char *text, size_t room, char *out, size_t *bursts)
{
	struct txburst t;
	char burst[64];
	size_t n, len = 0;

	*bursts = 0;
	txburst_start(&t, text, strlen(text));
	while ((n = txburst_next(&t, burst, room))) {
		assert_true(n <= room);
		memcpy(out + len, burst, n);
		len += n;
		++*bursts;
	}
	out[len] = '\0';
	return len;
}

static void bursts_of_a_fifo(void **state)
{
	char out[256];
	size_t bursts;

	(void)state;
	/* 39 bytes, 2 of them newlines: 41 bytes, in 16 + 16 + 9. */
	assert_int_equal(drain("0123456789abcdef0123456789\nabcdefghijk\n", 16,
			       out, &bursts),
			 41);
	assert_string_equal(out,
			    "0123456789abcdef0123456789\r\nabcdefghijk\r\n");
	assert_int_equal(bursts, 3);
}

static void a_newline_split_by_a_burst_of_one(void **state)
{
	char out[64];
	size_t bursts;

	(void)state;
	assert_int_equal(drain("a\n\nb", 1, out, &bursts), 6);
	assert_string_equal(out, "a\r\n\r\nb");
	assert_int_equal(bursts, 6);
	/* The "\r" as a burst's last byte and its "\n" in the next. */
	assert_int_equal(drain("abc\nd", 4, out, &bursts), 6);
	assert_string_equal(out, "abc\r\nd");
	assert_int_equal(bursts, 2);
}

static void nothing_to_send(void **state)
{
	struct txburst t;
	char burst[4];
	size_t bursts;
	char out[4];

	(void)state;
	assert_int_equal(drain("", 16, out, &bursts), 0);
	assert_int_equal(bursts, 0);
	txburst_start(&t, "x", 1);
	assert_int_equal(txburst_next(&t, burst, 0), 0);
	assert_int_equal(txburst_next(&t, burst, 4), 1);
	assert_int_equal(txburst_next(&t, burst, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bursts_of_a_fifo),
		cmocka_unit_test(a_newline_split_by_a_burst_of_one),
		cmocka_unit_test(nothing_to_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
