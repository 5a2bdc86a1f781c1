// SPDX-License-Identifier: MIT
/*
 * Unit tests: one clock's rate against another (lib/clockrate.c), on fake
 * counters that read a simulated time, one that wraps every few hundred
 * reads, and ones that stand still.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/clockrate.h"

/* Simulated time: every read of either counter takes READ_NS. */
#define READ_NS 100
static uint64_t now_ns;
static uint64_t clock_hz = 2300000000ull, reference_hz = 3579545;
static bool clock_stands, reference_stands;
/* The guest away for GAP_NS once every GAP_EVERY reads of the clock, for
 * gaps_left more times. */
#define GAP_NS	  40000000ull /* 40 ms: over half a 16-bit PIT's wrap */
#define GAP_EVERY 1000
static unsigned int gaps_left, clock_reads;

static uint64_t counts(uint64_t hz)
{
	return (uint64_t)((unsigned __int128)now_ns * hz / 1000000000ull);
}

static struct clock measured;

static uint64_t read_clock(void)
{
	now_ns += READ_NS;
	if (gaps_left && ++clock_reads % GAP_EVERY == 0) {
		now_ns += GAP_NS;
		gaps_left--;
	}
	return clock_stands
		       ? 42
		       : counts(clock_hz) & clock_mask(measured.width_bits);
}

static struct clock reference;

static uint64_t read_reference(void)
{
	now_ns += READ_NS;
	return reference_stands ? 7
				: counts(reference_hz) &
					  clock_mask(reference.width_bits);
}

static struct clock measured = {
	.name = "fake",
	.read = read_clock,
	.width_bits = 64,
	.freq_hz = 2300000000ull,
};
static struct clock reference = {
	.name = "fake_pm",
	.read = read_reference,
	.width_bits = 24,
	.freq_hz = 3579545,
};

/* A third counter, 16 bits at a PIT's rate: it wraps every 55 ms. */
static uint64_t read_narrow(void)
{
	now_ns += READ_NS;
	return counts(1193182) & 0xffff;
}

static struct clock narrow = {
	.name = "fake_pit",
	.read = read_narrow,
	.width_bits = 16,
	.freq_hz = 1193182,
};

static int setup(void **state)
{
	(void)state;
	now_ns = 1000000;
	clock_hz = 2300000000ull;
	reference_hz = 3579545;
	clock_stands = reference_stands = false;
	gaps_left = clock_reads = 0;
	measured.width_bits = 64;
	measured.freq_hz = 2300000000ull;
	return 0;
}

/* A clock at its nominal rate, against a 16-bit reference that wraps every
 * 18 ms: measured over 2 s of simulated time, through a hundred wraps. */
static void nominal_rate_through_wraps(void **state)
{
	struct clock_rate rate;
	char why[CLOCK_TEXT_LEN] = "";
	int rc;

	(void)state;
	reference.width_bits = 16;
	rc = clock_measure_rate(&measured, &reference, 2000000000ull, &rate,
				why, sizeof(why));
	reference.width_bits = 24;
	assert_int_equal(rc, 0);
	assert_true(rate.interval_s > 1.99 && rate.interval_s < 2.01);
	assert_true(rate.hz > 2299990000.0 && rate.hz < 2300010000.0);
	/* Each end is off by at most half a bracket (two reads) and a count
	 * of the reference: under a ppm over 2 s. */
	assert_true(rate.uncertainty_ppm > 0 && rate.uncertainty_ppm < 1);
}

/* A clock 100 ppm fast shows so. */
static void fast_clock(void **state)
{
	struct clock_rate rate;
	char why[CLOCK_TEXT_LEN] = "";
	double ppm;

	(void)state;
	clock_hz = 2300230000ull;
	assert_int_equal(clock_measure_rate_best(&measured, &reference,
						 100000000ull, &rate, why,
						 sizeof(why)),
			 0);
	ppm = (rate.hz / 2300000000.0 - 1) * 1e6;
	assert_true(ppm > 100 - 2 * rate.uncertainty_ppm - 1 &&
		    ppm < 100 + 2 * rate.uncertainty_ppm + 1);
}

/* A reference that stands still ends the measurement with a reason, a
 * clock that does too. */
static void stuck_counters(void **state)
{
	struct clock_rate rate;
	char why[CLOCK_TEXT_LEN] = "";

	(void)state;
	reference_stands = true;
	assert_int_equal(clock_measure_rate(&measured, &reference, 1000000ull,
					    &rate, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "fake_pm did not advance 1 ms in"));
	setup(NULL);
	clock_stands = true;
	assert_int_equal(clock_measure_rate(&measured, &reference, 1000000ull,
					    &rate, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "fake did not advance while fake_pm ran 1 ms");
}

/* A 16-bit PIT-like clock (55 ms a wrap) the guest leaves unread for 40 ms:
 * a wrap may have gone by unseen, so that measurement is not used; one
 * measured again without a gap gives the right rate, and a host that keeps
 * the guest away every time leaves no rate, saying why. */
static void gaps_longer_than_half_a_wrap(void **state)
{
	struct clock_rate rate;
	char why[CLOCK_TEXT_LEN] = "";

	(void)state;
	measured.width_bits = 16;
	measured.freq_hz = clock_hz = 1193182;
	gaps_left = 1;
	assert_int_equal(clock_measure_rate(&measured, &reference, 100000000ull,
					    &rate, why, sizeof(why)),
			 CLOCK_RATE_GAP);
	assert_non_null(strstr(why, "the guest did not run for 40 ms, over "
				    "half of fake's 55 ms wrap"));
	gaps_left = 2;
	clock_reads = 0;
	assert_int_equal(clock_measure_rate_best(&measured, &reference,
						 100000000ull, &rate, why,
						 sizeof(why)),
			 0);
	assert_int_equal(gaps_left, 0);
	assert_true(rate.hz > 1193182 * 0.999 && rate.hz < 1193182 * 1.001);
	gaps_left = 1000;
	assert_int_equal(clock_measure_rate_best(&measured, &reference,
						 100000000ull, &rate, why,
						 sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "the guest did not run for"));
}

/* Three clocks measured at once take the time of one, each through its own
 * reference's wraps, and each comes out as it would alone. */
static void several_at_once(void **state)
{
	struct clock_rate_job jobs[3] = {
		{ .c = &measured, .ref = &reference },
		{ .c = &reference, .ref = &narrow },
		{ .c = &narrow, .ref = &reference },
	};
	uint64_t start = now_ns;
	unsigned int i;

	(void)state;
	clock_hz = 2300230000ull; /* 100 ppm fast */
	clock_measure_rates(jobs, 3, 100000000ull);
	/* 100 ms of the references' time, and the reads around it. */
	assert_true(now_ns - start > 100000000ull);
	assert_true(now_ns - start < 110000000ull);
	for (i = 0; i < 3; i++) {
		assert_int_equal(jobs[i].rc, 0);
		assert_string_equal(jobs[i].why, "");
		assert_true(jobs[i].rate.interval_s > 0.099 &&
			    jobs[i].rate.interval_s < 0.101);
		/* The end brackets are as tight as alone: two reads. */
		assert_true(jobs[i].rate.uncertainty_ppm < 20);
	}
	assert_true(jobs[0].rate.hz > 2300230000.0 * (1 - 20e-6) &&
		    jobs[0].rate.hz < 2300230000.0 * (1 + 20e-6));
	assert_true(jobs[1].rate.hz > 3579545 * (1 - 20e-6) &&
		    jobs[1].rate.hz < 3579545 * (1 + 20e-6));
	assert_true(jobs[2].rate.hz > 1193182 * (1 - 20e-6) &&
		    jobs[2].rate.hz < 1193182 * (1 + 20e-6));
}

/* Among several, a clock that stands still gets its reason and the others
 * their rates; one a gap spoiled is measured again alone and gets its
 * rate. */
static void several_one_stuck_one_gap(void **state)
{
	struct clock_rate_job jobs[2] = {
		{ .c = &measured, .ref = &reference },
		{ .c = &narrow, .ref = &reference },
	};

	(void)state;
	clock_stands = true;
	clock_measure_rates(jobs, 2, 10000000ull);
	assert_int_equal(jobs[0].rc, -1);
	assert_string_equal(jobs[0].why,
			    "fake did not advance while fake_pm ran 10 ms");
	assert_int_equal(jobs[1].rc, 0);

	setup(NULL);
	measured.width_bits = 16;
	measured.freq_hz = clock_hz = 1193182;
	gaps_left = 1;
	clock_measure_rates(jobs, 2, 100000000ull);
	assert_int_equal(gaps_left, 0);
	assert_int_equal(jobs[0].rc, 0);
	assert_true(jobs[0].rate.hz > 1193182 * 0.999 &&
		    jobs[0].rate.hz < 1193182 * 1.001);
	assert_int_equal(jobs[1].rc, 0);

	/* A host that keeps the guest away every time leaves no rate. */
	gaps_left = 1000;
	clock_measure_rates(jobs, 1, 100000000ull);
	assert_int_equal(jobs[0].rc, -1);
	assert_non_null(strstr(jobs[0].why, "the guest did not run for"));
}

/* More than the bound: the ones past it are refused, not dropped. */
static void too_many_at_once_are_refused(void **state)
{
	struct clock_rate_job many[CLOCK_RATE_MAX_JOBS + 1];
	unsigned int i;

	(void)state;
	for (i = 0; i <= CLOCK_RATE_MAX_JOBS; i++)
		many[i] = (struct clock_rate_job){ .c = &measured,
						   .ref = &reference };
	clock_measure_rates(many, CLOCK_RATE_MAX_JOBS + 1, 1000000ull);
	for (i = 0; i < CLOCK_RATE_MAX_JOBS; i++)
		assert_int_equal(many[i].rc, 0);
	assert_int_equal(many[CLOCK_RATE_MAX_JOBS].rc, -1);
	assert_string_equal(many[CLOCK_RATE_MAX_JOBS].why,
			    "more than 16 rates measured at once");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nominal_rate_through_wraps, setup),
		cmocka_unit_test_setup(fast_clock, setup),
		cmocka_unit_test_setup(stuck_counters, setup),
		cmocka_unit_test_setup(gaps_longer_than_half_a_wrap, setup),
		cmocka_unit_test_setup(several_at_once, setup),
		cmocka_unit_test_setup(several_one_stuck_one_gap, setup),
		cmocka_unit_test_setup(too_many_at_once_are_refused, setup),
	};

	return cmocka_run_group_tests_name("clockrate", tests, NULL, NULL);
}
