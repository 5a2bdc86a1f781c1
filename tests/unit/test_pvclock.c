// SPDX-License-Identifier: MIT
/*
 * Unit tests: pvclock scaling, the implied TSC frequency and the version
 * protocol over a fake time record (hypervisor/pvclock.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hypervisor/pvclock.h"
#include "tests/unit/pvclock_reference.h"

static void scale_shifts(void **state)
{
	(void)state;
	/* mul 0x80000000 is one half */
	assert_int_equal(pvclock_scale_delta(1000, 0x80000000u, 0), 500);
	assert_int_equal(pvclock_scale_delta(1000, 0x80000000u, 1), 1000);
	assert_int_equal(pvclock_scale_delta(1000, 0x80000000u, 2), 2000);
	assert_int_equal(pvclock_scale_delta(1000, 0x80000000u, -1), 250);
	assert_int_equal(pvclock_scale_delta(1000, 0x80000000u, -3), 62);
	/* a right shift drops low bits before the multiply */
	assert_int_equal(pvclock_scale_delta(3, 0x80000000u, -1), 0);
	assert_int_equal(pvclock_scale_delta(1ull << 63, 0x80000000u, -63), 0);
	assert_int_equal(pvclock_scale_delta(1ull << 63, 0xffffffffu, -32),
			 reference_scale(1ull << 63, 0xffffffffu, -32));
	/* a left shift drops high bits, as the 64-bit ABI formula does */
	assert_int_equal(pvclock_scale_delta(1ull << 63, 0x80000000u, 1), 0);
	assert_int_equal(pvclock_scale_delta(1, 0x80000000u, 63), 1ull << 62);
	/* shifts of 64 or more, from a hostile record, give 0, not UB */
	assert_int_equal(pvclock_scale_delta(~0ull, 0xffffffffu, 64), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 0xffffffffu, -64), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 0xffffffffu, 127), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 0xffffffffu, -128), 0);
}

static void scale_multiplier_edges(void **state)
{
	(void)state;
	assert_int_equal(pvclock_scale_delta(0, 0xffffffffu, 0), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 0, 0), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 0, -5), 0);
	assert_int_equal(pvclock_scale_delta(1ull << 32, 1, 0), 1);
	assert_int_equal(pvclock_scale_delta((1ull << 32) - 1, 1, 0), 0);
	assert_int_equal(pvclock_scale_delta(~0ull, 1, 0), 0xffffffffull);
	assert_int_equal(pvclock_scale_delta(~0ull, 0x80000000u, 0),
			 0x7fffffffffffffffull);
	/* (2^64 - 1)(2^32 - 1) >> 32: the largest product there is */
	assert_int_equal(pvclock_scale_delta(~0ull, 0xffffffffu, 0),
			 0xfffffffeffffffffull);
	assert_int_equal(pvclock_scale_delta(1ull << 32, 0xffffffffu, 0),
			 0xffffffffull);
}

static void scale_needs_96_bits(void **state)
{
	/* Xen dom0's multiplier here; 2^40 cycles is about 8 minutes. */
	const uint32_t mul = 0xde9bcf6bu;
	const uint64_t delta = 1ull << 40;
	uint64_t truncated = (delta * mul) >> 32; /* a 64-bit product wraps */
	uint64_t want = reference_scale(delta, mul, -1);

	(void)state;
	assert_int_equal(pvclock_scale_delta(delta, mul, -1), want);
	assert_int_not_equal(want, truncated >> 1);
	/* 2^40 cycles at 2.3 GHz: 478 s */
	assert_in_range(want, 478000000000ull, 479000000000ull);
	assert_int_equal(pvclock_scale_delta(0x0123456789abcdefull, mul, 0),
			 reference_scale(0x0123456789abcdefull, mul, 0));
	assert_int_equal(pvclock_scale_delta(0xfedcba9876543210ull, mul, -1),
			 reference_scale(0xfedcba9876543210ull, mul, -1));
}

/* The x86-64 asm path against the 128-bit reference over many vectors. */
static void scale_matches_reference(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		uint64_t delta;
		uint32_t mul;
		int8_t shift;

		/* xorshift64: full-width deltas and multipliers */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		delta = x >> (i % 64);
		mul = (uint32_t)(x >> 17) | (i & 1 ? 0x80000000u : 0);
		shift = (int8_t)((int)(x % 67) - 33);
		if (reference_scale(delta, mul, shift) !=
		    pvclock_scale_delta(delta, mul, shift))
			fail_msg("delta %#llx mul %#x shift %d: %#llx, want "
				 "%#llx",
				 (unsigned long long)delta, mul, shift,
				 (unsigned long long)pvclock_scale_delta(
					 delta, mul, shift),
				 (unsigned long long)reference_scale(delta, mul,
								     shift));
	}
}

static void tsc_hz(void **state)
{
	(void)state;
	/* Xen dom0 on this host: ((10^9 << 32) / 0xde9bcf6b) << 1 */
	assert_int_equal(pvclock_tsc_hz(0xde9bcf6bu, -1), 2300000640ull);
	/* 1 GHz exactly: one cycle, shifted left once, times one half */
	assert_int_equal(pvclock_tsc_hz(0x80000000u, 1), 1000000000ull);
	assert_int_equal(pvclock_scale_delta(123456789, 0x80000000u, 1),
			 123456789);
	assert_int_equal(pvclock_tsc_hz(0x80000000u, 0), 2000000000ull);
	assert_int_equal(pvclock_tsc_hz(0x80000000u, -1), 4000000000ull);
	assert_int_equal(pvclock_tsc_hz(0xffffffffu, 0), 1000000000ull);
	/* no multiplier: unknown */
	assert_int_equal(pvclock_tsc_hz(0, 0), 0);
	assert_int_equal(pvclock_tsc_hz(0, -1), 0);
	/* 10^9 << 32 with mul 1 (4.3e18), quadrupled, still fits; not 8x */
	assert_int_equal(pvclock_tsc_hz(1, 0), 1000000000ull << 32);
	assert_int_equal(pvclock_tsc_hz(1, -2), 1000000000ull << 34);
	assert_int_equal(pvclock_tsc_hz(1, -3), 0);
	assert_int_equal(pvclock_tsc_hz(0x80000000u, -64), 0);
	assert_int_equal(pvclock_tsc_hz(0x80000000u, 64), 0);
	assert_int_equal(pvclock_tsc_hz(0x80000000u, 31), 0);
}

/* The least delta that scales to @ns or more, found by the reference. */
static void check_inverse(uint64_t ns, uint32_t mul_frac, int8_t shift)
{
	uint64_t delta = pvclock_delta_for_ns(ns, mul_frac, shift);

	assert_true(reference_scale(delta, mul_frac, shift) >= ns);
	if (delta)
		assert_true(reference_scale(delta - 1, mul_frac, shift) < ns);
}

static void delta_for_ns_inverts_the_scale(void **state)
{
	static const uint64_t ns[] = { 1, 999, 1000000, 1000000007ull,
				       3600000000000ull };
	unsigned int i;

	(void)state;
	/* 1 GHz through a left shift: 1000 ns are 1000 cycles. */
	assert_int_equal(pvclock_delta_for_ns(1000, 0x80000000u, 1), 1000);
	/* Xen's scale for a 2,099,999 kHz TSC: 1 ms is 2,099,999 cycles,
	 * rounded up to the shift's even step. */
	assert_int_equal(pvclock_delta_for_ns(1000000, 0xf3cf448fu, -1),
			 2100000);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		check_inverse(ns[i], 0xf3cf448fu, -1);
		check_inverse(ns[i], 0xde9bcf6bu, -1);
		check_inverse(ns[i], 0x80000000u, 1);
		check_inverse(ns[i], 0xb504f333u, 0);
	}
	assert_int_equal(pvclock_delta_for_ns(0, 0, 0), 0);
	/* A record that scales everything to 0 never gets there. */
	assert_int_equal(pvclock_delta_for_ns(1, 0, -1), UINT64_MAX);
	assert_int_equal(pvclock_delta_for_ns(1, 0x80000000u, 64), UINT64_MAX);
	assert_int_equal(pvclock_delta_for_ns(1, 0x80000000u, -64), UINT64_MAX);
	/* Too many cycles for 64 bits. */
	assert_int_equal(pvclock_delta_for_ns(~0ull, 1, -1), UINT64_MAX);
	/* The fuzzer's find: 2^60 cycles fit, but shifted left by 28 they
	 * do not, and the scale's 64-bit shift wraps them to less than
	 * @ns.  No delta gets there. */
	assert_int_equal(pvclock_delta_for_ns(0xf8dcdcdc20000000ull, 0x100, 28),
			 UINT64_MAX);
	check_inverse(0xf8dcdcdc2ull, 0x100, 28); /* this one fits */
}

static void tsc_for_ns_either_way(void **state)
{
	struct pvclock_sample s = {
		.ns = 5000,
		.tsc = 1000,
		.mul_frac = 0x80000000u,
		.shift = 1,
	};

	(void)state;
	assert_int_equal(pvclock_tsc_for_ns(&s, 5000), 1000);
	assert_int_equal(pvclock_tsc_for_ns(&s, 6000), 2000);
	assert_int_equal(pvclock_tsc_for_ns(&s, 4600), 600);
	/* Clamped, not wrapped. */
	assert_int_equal(pvclock_tsc_for_ns(&s, 0), 0);
	s.tsc = UINT64_MAX - 10;
	assert_int_equal(pvclock_tsc_for_ns(&s, 5100), UINT64_MAX);
}

/*
 * The fake record and TSC.  before_tsc(call) runs inside read_tsc(), that
 * is between the reader's two version reads, to play the hypervisor.
 */
static struct vcpu_time_info fake;
static unsigned int tsc_calls;
static uint64_t fake_tsc_value;
static void (*before_tsc)(unsigned int call);

static uint64_t fake_read_tsc(void)
{
	if (before_tsc)
		before_tsc(tsc_calls);
	tsc_calls++;
	return fake_tsc_value;
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.version = 2;
	fake.tsc_timestamp = 1000;
	fake.system_time = 5000;
	fake.tsc_to_system_mul = 0x80000000u; /* 1 GHz */
	fake.tsc_shift = 1;
	fake.flags = XEN_PVCLOCK_TSC_STABLE_BIT;
	fake_tsc_value = 1500;
	tsc_calls = 0;
	before_tsc = NULL;
	return 0;
}

static void read_good(void **state)
{
	struct pvclock_sample s;

	(void)state;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 10, &s), 0);
	assert_int_equal(s.ns, 5500);
	assert_int_equal(s.tsc, 1500);
	assert_int_equal(s.version, 2);
	assert_int_equal(s.flags, XEN_PVCLOCK_TSC_STABLE_BIT);
	assert_int_equal(s.mul_frac, 0x80000000u);
	assert_int_equal(s.shift, 1);
	assert_int_equal(s.retries, 0);
	assert_int_equal(tsc_calls, 1);
}

static void read_at_a_given_tsc(void **state)
{
	struct pvclock_sample s;

	(void)state;
	/* The TSC given, not read: 5000 + ((1800 - 1000) << 1) / 2 ns. */
	assert_int_equal(pvclock_read_at(&fake, 1800, 10, &s), 0);
	assert_int_equal(s.ns, 5800);
	assert_int_equal(s.tsc, 1800);
	assert_int_equal(tsc_calls, 0);
	fake.version = 3; /* stuck odd: bounded, and says so */
	assert_int_equal(pvclock_read_at(&fake, 1800, 4, &s), -1);
	assert_int_equal(s.retries, 3);
}

/*
 * A TSC read before the record was rewritten (an event's entry TSC, and
 * then a calibration or a move to another CPU) lies before the record's
 * stamp: its time is the record's line back from the stamp.  The ABI's
 * unsigned difference would put it about 2^63 ns ahead, and the Xen
 * one-shot timer's lateness, counted from it and turned back into TSC
 * cycles at the rate Xen's scale was made from, came out as an event
 * about a second early (-1.014 s in a domU).
 */
static void read_at_a_tsc_before_the_stamp(void **state)
{
	struct pvclock_sample s;

	(void)state;
	/* 400 cycles before the stamp at 1 GHz: 5000 - 400 ns. */
	assert_int_equal(pvclock_read_at(&fake, 600, 10, &s), 0);
	assert_int_equal(s.ns, 4600);
	assert_int_equal(s.tsc, 600);
	/* Xen's scale for a 2,099,999 kHz TSC (set_time_scale(): shift -1,
	 * mul 10^9 * 2^32 / 1,049,999,500): 2100 cycles are 1000 ns. */
	fake.tsc_to_system_mul = 0xf3cf448fu;
	fake.tsc_shift = -1;
	fake.tsc_timestamp = 1000000000000ull;
	fake.system_time = 500000000000ull;
	assert_int_equal(
		pvclock_read_at(&fake, 1000000000000ull - 2100, 10, &s), 0);
	assert_int_equal(s.ns, 500000000000ull - 1000);
	/* At or after the stamp, forward as ever. */
	assert_int_equal(
		pvclock_read_at(&fake, 1000000000000ull + 2100, 10, &s), 0);
	assert_int_equal(s.ns, 500000000000ull + 1000);
}

static void read_odd_forever(void **state)
{
	struct pvclock_sample s;

	(void)state;
	fake.version = 3;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 7, &s), -1);
	assert_int_equal(tsc_calls, 7);
	assert_int_equal(s.retries, 6);
	assert_int_equal(s.version, 3);

	/* 0 tries is taken as one */
	tsc_calls = 0;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 0, &s), -1);
	assert_int_equal(tsc_calls, 1);
}

/* An update completes during the first attempt, then all is quiet. */
static void update_on_first_call(unsigned int call)
{
	if (call)
		return;
	fake.version += 2;
	fake.tsc_timestamp = 1400;
	fake.system_time = 9000;
}

static void read_changes_once(void **state)
{
	struct pvclock_sample s;

	(void)state;
	before_tsc = update_on_first_call;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 10, &s), 0);
	assert_int_equal(s.retries, 1);
	assert_int_equal(s.version, 4);
	assert_int_equal(s.ns, 9100); /* the new fields, not a mix */
	assert_int_equal(tsc_calls, 2);
}

/* The first attempt sees an update in progress that then finishes. */
static void finish_on_first_call(unsigned int call)
{
	if (!call)
		fake.version++;
}

static void read_odd_then_even(void **state)
{
	struct pvclock_sample s;

	(void)state;
	fake.version = 5;
	before_tsc = finish_on_first_call;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 10, &s), 0);
	assert_int_equal(s.retries, 1);
	assert_int_equal(s.version, 6);
}

static void update_every_call(unsigned int call)
{
	(void)call;
	fake.version += 2;
}

static void read_changes_forever(void **state)
{
	struct pvclock_sample s;

	(void)state;
	before_tsc = update_every_call;
	assert_int_equal(pvclock_read(&fake, fake_read_tsc, 5, &s), -1);
	assert_int_equal(tsc_calls, 5);
	assert_int_equal(s.retries, 4);
}

static void flags_in_words(void **state)
{
	char buf[PVCLOCK_FLAGS_TEXT_LEN];
	char tiny[5];

	(void)state;
	assert_string_equal(pvclock_flags_describe(0, buf, sizeof(buf)),
			    "none");
	assert_string_equal(pvclock_flags_describe(XEN_PVCLOCK_TSC_STABLE_BIT,
						   buf, sizeof(buf)),
			    "TSC stable");
	assert_string_equal(pvclock_flags_describe(XEN_PVCLOCK_GUEST_STOPPED,
						   buf, sizeof(buf)),
			    "guest stopped");
	assert_string_equal(pvclock_flags_describe(3, buf, sizeof(buf)),
			    "TSC stable, guest stopped");
	assert_string_equal(pvclock_flags_describe(0x81, buf, sizeof(buf)),
			    "TSC stable, unknown bits 0x80");
	assert_string_equal(pvclock_flags_describe(0x84, buf, sizeof(buf)),
			    "unknown bits 0x84");
	assert_string_equal(pvclock_flags_describe(3, tiny, sizeof(tiny)),
			    "TSC ");
}

/* A TSC that moves 1000 cycles a read, and a record Xen left as it was. */
static void tsc_runs(unsigned int call)
{
	(void)call;
	fake_tsc_value += 1000;
}

static void advance_detected(void **state)
{
	char why[128] = "";

	(void)state;
	before_tsc = tsc_runs;
	assert_int_equal(pvclock_check_advance(&fake, fake_read_tsc, 10, 5000,
					       100, "xen_pvclock", why,
					       sizeof(why)),
			 0);
	assert_string_equal(why, "");
}

static void standing_clock_is_refused(void **state)
{
	char why[128];

	(void)state;
	/* The TSC stands, so the record gives the same ns both times; the
	 * spin bound ends the wait. */
	assert_int_equal(pvclock_check_advance(&fake, fake_read_tsc, 10, 5000,
					       100, "xen_pvclock", why,
					       sizeof(why)),
			 -1);
	assert_string_equal(why, "xen_pvclock did not advance: 5500 ns, then "
				 "5500 ns 0 TSC cycles later");
	fake.version = 5;
	assert_int_equal(pvclock_check_advance(&fake, fake_read_tsc, 3, 5000,
					       100, "kvm-clock", why,
					       sizeof(why)),
			 -1);
	assert_string_equal(why, "the kvm-clock area's version stayed odd or "
				 "kept changing over 3 reads");
}

static void source_and_wall_in_words(void **state)
{
	struct pvclock_sample s = { .mul_frac = 0xde9bcf6bu, .shift = -1 };
	char buf[160];

	(void)state;
	/* Xen's dom0 record seen here: 2.3 GHz. */
	assert_string_equal(pvclock_describe_source(&s, buf, sizeof(buf)),
			    "pvclock (ns); TSC 2.30 GHz from tsc_to_system_mul "
			    "0xde9bcf6b, tsc_shift -1");
	assert_string_equal(pvclock_describe_wall("wall clock at Xen time 0",
						  1796020000, 5, buf,
						  sizeof(buf)),
			    "wall clock at Xen time 0: 2026-11-30 "
			    "06:26:40.000000005 UTC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale_shifts),
		cmocka_unit_test(scale_multiplier_edges),
		cmocka_unit_test(scale_needs_96_bits),
		cmocka_unit_test(scale_matches_reference),
		cmocka_unit_test(tsc_hz),
		cmocka_unit_test(delta_for_ns_inverts_the_scale),
		cmocka_unit_test(tsc_for_ns_either_way),
		cmocka_unit_test_setup(read_good, setup),
		cmocka_unit_test_setup(read_at_a_given_tsc, setup),
		cmocka_unit_test_setup(read_at_a_tsc_before_the_stamp, setup),
		cmocka_unit_test_setup(read_odd_forever, setup),
		cmocka_unit_test_setup(read_changes_once, setup),
		cmocka_unit_test_setup(read_odd_then_even, setup),
		cmocka_unit_test_setup(read_changes_forever, setup),
		cmocka_unit_test(flags_in_words),
		cmocka_unit_test_setup(advance_detected, setup),
		cmocka_unit_test_setup(standing_clock_is_refused, setup),
		cmocka_unit_test(source_and_wall_in_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
