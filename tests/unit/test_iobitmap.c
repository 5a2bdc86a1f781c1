// SPDX-License-Identifier: MIT
/*
 * Unit tests: the TSS I/O permission bitmap (lib/iobitmap.c): what an
 * access of each width is allowed after which ports were allowed, the
 * terminating byte, and the layout in which every CPU's TSS reaches the one
 * shared bitmap within its 16-bit I/O map base and its limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/iobitmap.h"

#define TSS_SIZE 104 /* a 64-bit TSS */
#define NR_CPUS	 32

static uint8_t map[IOBITMAP_BYTES];

static void everything_denied_at_first(void **state)
{
	uint32_t port;

	(void)state;
	iobitmap_deny_all(map);
	for (port = 0; port < IOBITMAP_PORTS; port += 97)
		assert_false(iobitmap_allows(map, port, 1));
	/* The byte after the last port's: all ones, as the CPU needs. */
	assert_int_equal(map[IOBITMAP_BYTES - 1], 0xff);
	assert_int_equal(IOBITMAP_BYTES, 8193);
}

static void allowed_ranges_and_widths(void **state)
{
	(void)state;
	iobitmap_deny_all(map);
	assert_true(iobitmap_allow(map, 0x3f8, 8)); /* COM1 */
	assert_true(iobitmap_allow(map, 0x608, 4)); /* a PM timer */
	assert_true(iobitmap_allows(map, 0x3f8, 1));
	assert_true(iobitmap_allows(map, 0x3ff, 1));
	assert_false(iobitmap_allows(map, 0x3f7, 1));
	assert_false(iobitmap_allows(map, 0x400, 1));
	assert_true(iobitmap_allows(map, 0x608, 4));
	/* A dword at 0x609 reaches 0x60c, which was not allowed. */
	assert_false(iobitmap_allows(map, 0x609, 4));
	assert_true(iobitmap_allows(map, 0x60a, 2));
	/* Bits across a byte boundary: 0x3fe..0x401. */
	assert_false(iobitmap_allows(map, 0x3fe, 4));
	assert_false(iobitmap_allows(map, 0x3f8, 0));
	assert_false(iobitmap_allows(map, 0x3f8, 8));
}

static void the_last_port_and_bad_ranges(void **state)
{
	(void)state;
	iobitmap_deny_all(map);
	assert_true(iobitmap_allow(map, 0xfffe, 2));
	assert_true(iobitmap_allows(map, 0xffff, 1));
	/* Past port 0xffff the terminating byte denies. */
	assert_false(iobitmap_allows(map, 0xffff, 2));
	assert_int_equal(map[IOBITMAP_BYTES - 1], 0xff);
	assert_false(iobitmap_allow(map, 0xffff, 2));
	assert_false(iobitmap_allow(map, 0x10000, 1));
	assert_false(iobitmap_allow(map, 0x80, 0));
	assert_false(iobitmap_allows(map, 0x10000, 1));
	assert_true(iobitmap_allow(map, 0, IOBITMAP_PORTS));
	assert_true(iobitmap_allows(map, 0x1234, 4));
	assert_int_equal(map[IOBITMAP_BYTES - 1], 0xff);
}

/* The layout platform/hvm64/ring0.c uses: NR_CPUS TSSes, then the bitmap. */
static void every_tss_reaches_the_shared_bitmap(void **state)
{
	const size_t bitmap_offset = NR_CPUS * TSS_SIZE;
	struct iobitmap_tss io;
	unsigned int cpu;

	(void)state;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		size_t tss_offset = cpu * TSS_SIZE;

		assert_true(iobitmap_tss_layout(tss_offset, TSS_SIZE,
						bitmap_offset, &io));
		assert_int_equal(tss_offset + io.iomap_base, bitmap_offset);
		assert_true(io.iomap_base >= TSS_SIZE);
		/* The limit covers the terminating byte, and no more. */
		assert_int_equal(tss_offset + io.limit,
				 bitmap_offset + IOBITMAP_BYTES - 1);
	}
}

static void layouts_that_cannot_work(void **state)
{
	struct iobitmap_tss io;

	(void)state;
	/* The bitmap inside the TSS, before it, or out of 16-bit reach. */
	assert_false(iobitmap_tss_layout(0, TSS_SIZE, 50, &io));
	assert_false(iobitmap_tss_layout(200, TSS_SIZE, 100, &io));
	assert_false(iobitmap_tss_layout(0, TSS_SIZE, 0x10000, &io));
	assert_true(iobitmap_tss_layout(0, TSS_SIZE, 0xffff, &io));
	assert_int_equal(io.iomap_base, 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(everything_denied_at_first),
		cmocka_unit_test(allowed_ranges_and_widths),
		cmocka_unit_test(the_last_port_and_bad_ranges),
		cmocka_unit_test(every_tss_reaches_the_shared_bitmap),
		cmocka_unit_test(layouts_that_cannot_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
