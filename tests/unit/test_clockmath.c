// SPDX-License-Identifier: MIT
/*
 * Unit tests: counter arithmetic shared by the clocks — wrap handling,
 * conversion to ns, torn 64-bit reads, HPET period and CPUID frequency.
 * (lib/clock.c, lib/counter.c, drivers/tsc_cpuid.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/hpet.h"
#include "drivers/tsc.h"
#include "lib/clock.h"
#include "lib/counter.h"

static void wraps_are_followed(void **state)
{
	struct clock c32 = { .width_bits = 32 }, c24 = { .width_bits = 24 },
		     c16 = { .width_bits = 16 }, c64 = { .width_bits = 64 };

	(void)state;
	/* The HPET's low 32 bits wrap every 42.9 s at 100 MHz. */
	assert_int_equal(clock_delta(&c32, 0xfffffff0u, 0x10), 0x20);
	assert_int_equal(clock_delta(&c32, 5, 5), 0);
	/* A 24-bit PM timer, a 16-bit PIT. */
	assert_int_equal(clock_delta(&c24, 0xfffffe, 0x000001), 3);
	assert_int_equal(clock_delta(&c16, 0xffff, 0), 1);
	assert_int_equal(clock_delta(&c64, ~0ull, 1), 2);
	assert_int_equal(clock_mask(24), 0xffffff);
	assert_int_equal(clock_mask(64), ~0ull);
}

static void counts_to_ns(void **state)
{
	struct clock hpet = { .freq_hz = 100000000 };
	struct clock ns = { .freq_hz = 1000000000, .flags = CLOCK_READS_NS };

	(void)state;
	assert_int_equal(clock_counts_to_ns(3579545, 3579545), 1000000000);
	assert_int_equal(clock_counts_to_ns(1, 3579545), 279);
	assert_int_equal(clock_ns(&hpet, 100), 1000);
	assert_int_equal(clock_ns(&ns, 12345), 12345);
	assert_int_equal(clock_counts_to_ns(123, 0), 0);
	/* A day of a 3 GHz TSC: the product needs more than 64 bits. */
	assert_int_equal(
		clock_counts_to_ns(86400ull * 3000000000ull, 3000000000ull),
		86400ull * 1000000000ull);
}

/* A fake 64-bit counter that moves by @step between any two reads. */
struct fake_counter {
	uint64_t value;
	uint64_t step;
	unsigned int reads;
};

static uint32_t fake_read32(void *ctx, int high)
{
	struct fake_counter *f = ctx;
	uint64_t v = f->value;

	f->value += f->step;
	f->reads++;
	return high ? (uint32_t)(v >> 32) : (uint32_t)v;
}

static void ns_to_counts_saturates(void **state)
{
	(void)state;
	assert_int_equal(clock_ns_to_counts(1000, 2300000000ull), 2300);
	assert_int_equal(clock_ns_to_counts(0, 2300000000ull), 0);
	/* Half the wrap of a 64-bit ns clock, in 2.3 GHz TSC cycles. */
	assert_int_equal(clock_ns_to_counts(1ull << 63, 2300000000ull),
			 UINT64_MAX);
	assert_int_equal(clock_ns_to_counts(UINT64_MAX, 1000000000ull),
			 UINT64_MAX);
}

static void gap_explains_a_big_step(void **state)
{
	const uint64_t half = 27500; /* half the PIT's wrap, in us here */

	(void)state;
	/* Seen under a loaded TCG: a 28.1 ms gap, and the PIT 26.9 ms "back",
	 * that is 28.1 ms forward. */
	assert_true(clock_gap_ambiguous(28100, 28100, half));
	assert_true(clock_gap_ambiguous(30000, 40000, half)); /* > half */
	assert_true(clock_gap_ambiguous(25000, 30000, half)); /* in slack */
	/* A real step back: reads microseconds apart. */
	assert_false(clock_gap_ambiguous(3, 40000, half));
	assert_false(clock_gap_ambiguous(20000, 40000, half));
}

static void split_reads_do_not_tear(void **state)
{
	struct fake_counter f = { .value = 0x00000001fffffffeull, .step = 1 };
	uint64_t v;

	(void)state;
	/* high=1, low=0xffffffff, high again=2 (carried): retry. */
	assert_int_equal(counter_read_split64(fake_read32, &f, 4, &v), 2);
	assert_int_equal(v, 0x0000000200000002ull);
	assert_int_equal(f.reads, 6);

	f = (struct fake_counter){ .value = 0x1234567800000000ull, .step = 1 };
	assert_int_equal(counter_read_split64(fake_read32, &f, 4, &v), 1);
	assert_int_equal(v, 0x1234567800000001ull);
}

static void split_reads_give_up(void **state)
{
	/* The high half moves on every read: never a consistent pair. */
	struct fake_counter f = { .value = 0, .step = 1ull << 32 };
	uint64_t v;

	(void)state;
	assert_int_equal(counter_read_split64(fake_read32, &f, 3, &v), 0);
	assert_int_equal(f.reads, 9);
}

static void hpet_period(void **state)
{
	(void)state;
	/* QEMU's HPET: 10,000,000 fs = 100 MHz. */
	assert_int_equal(hpet_hz_from_period(10000000), 100000000);
	/* A common chipset HPET: 69,841,279 fs = 14.318 MHz. */
	assert_int_equal(hpet_hz_from_period(69841279), 14318180);
	assert_int_equal(hpet_hz_from_period(0), 0);
}

static void tsc_from_cpuid(void **state)
{
	struct tsc_cpuid_leaves l = { .vendor = "GenuineIntel",
				      .max_basic_leaf = 0x16,
				      .l15_eax = 2,
				      .l15_ebx = 188,
				      .l15_ecx = 24000000,
				      .l16_eax = 2200 };
	char why[CLOCK_TEXT_LEN];

	(void)state;
	/* Crystal x ratio first: 24 MHz x 188 / 2. */
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)),
			 2256000000ull);
	assert_string_equal(why, "leaf 0x15: crystal 24000000 Hz x 188 / 2 "
				 "(EBX / EAX)");
	/* No crystal frequency: leaf 0x16's base. */
	l.l15_ecx = 0;
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)),
			 2200000000ull);
	assert_string_equal(why, "leaf 0x16: base frequency 2200 MHz (leaf "
				 "0x15 gives EAX 2, EBX 188, ECX 0: no crystal "
				 "ratio)");
	/* Both zero, as QEMU's TCG gives them. */
	l = (struct tsc_cpuid_leaves){ .vendor = "GenuineIntel",
				       .max_basic_leaf = 0x16 };
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)), 0);
	assert_string_equal(why, "no frequency in leaves 0x15 (EAX 0, EBX 0, "
				 "ECX 0: no crystal ratio) and 0x16 (base 0 "
				 "MHz)");
	l.max_basic_leaf = 0x15;
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "and 0x16 (not listed)"));
	/* Not listed at all. */
	l.max_basic_leaf = 0xd;
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)), 0);
	assert_string_equal(why, "leaves 0x15 and 0x16 not listed: the highest "
				 "basic leaf is 0xd");
	/* Another vendor: the leaves are not Intel's there, whatever they say. */
	l = (struct tsc_cpuid_leaves){ .vendor = "AuthenticAMD",
				       .max_basic_leaf = 0x16,
				       .l15_eax = 2,
				       .l15_ebx = 188,
				       .l15_ecx = 24000000,
				       .l16_eax = 2200 };
	assert_int_equal(tsc_cpuid_frequency(&l, why, sizeof(why)), 0);
	assert_string_equal(why, "leaves 0x15 and 0x16 not used: they are "
				 "Intel's, and this CPU is AuthenticAMD");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wraps_are_followed),
		cmocka_unit_test(counts_to_ns),
		cmocka_unit_test(ns_to_counts_saturates),
		cmocka_unit_test(gap_explains_a_big_step),
		cmocka_unit_test(split_reads_do_not_tear),
		cmocka_unit_test(split_reads_give_up),
		cmocka_unit_test(hpet_period),
		cmocka_unit_test(tsc_from_cpuid),
	};

	return cmocka_run_group_tests_name("clockmath", tests, NULL, NULL);
}
