// SPDX-License-Identifier: MIT
/* Unit tests: the arithmetic of the tick measurements (lib/tickmath.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/tickmath.h"

#define PIT_HZ 1193182

static void pit_divisors(void **state)
{
	struct tick_divisor d;

	(void)state;
	/* 1000 Hz: 1193.182 rounds to 1193, 1000.15 Hz. */
	tick_divisor_for_rate(PIT_HZ, 1000, 2, 65536, &d);
	assert_int_equal(d.reach, TICK_REACH_OK);
	assert_int_equal(d.divisor, 1193);
	assert_float_equal(d.achieved_hz, 1000.152557, 1e-5);
	assert_float_equal(d.error_ppm, 152.557, 1e-2);
	/* 100 kHz: 11.93 rounds to 12, 0.57 % slow: still that rate. */
	tick_divisor_for_rate(PIT_HZ, 100000, 2, 65536, &d);
	assert_int_equal(d.reach, TICK_REACH_OK);
	assert_int_equal(d.divisor, 12);
	assert_float_equal(d.achieved_hz, 99431.833, 1e-2);
	/* 10 Hz needs 119318 counts: beyond the 16-bit reload. */
	tick_divisor_for_rate(PIT_HZ, 10, 2, 65536, &d);
	assert_int_equal(d.reach, TICK_REACH_TOO_SLOW);
	assert_float_equal(d.limit_hz, 18.2065, 1e-3);
	/* 1 MHz needs 1.19 counts: below the least divisor of mode 2. */
	tick_divisor_for_rate(PIT_HZ, 1000000, 2, 65536, &d);
	assert_int_equal(d.reach, TICK_REACH_TOO_FAST);
	assert_float_equal(d.limit_hz, 596591.0, 1e-6);
	/* 500 kHz: 2.39 rounds to 2, 19 % fast: not that rate. */
	tick_divisor_for_rate(PIT_HZ, 500000, 2, 65536, &d);
	assert_int_equal(d.reach, TICK_REACH_INEXACT);
	assert_int_equal(d.divisor, 2);
	assert_true(d.error_ppm > 190000 && d.error_ppm < 200000);
}

static void exact_divisors(void **state)
{
	struct tick_divisor d;

	(void)state;
	/* A 100 MHz HPET divides evenly into every default rate. */
	tick_divisor_for_rate(100000000, 100000, 1, 0xffffffff, &d);
	assert_int_equal(d.reach, TICK_REACH_OK);
	assert_int_equal(d.divisor, 1000);
	assert_float_equal(d.error_ppm, 0.0, 1e-9);
	/* A minimum tick of 2000 counts keeps it below 50 kHz. */
	tick_divisor_for_rate(100000000, 100000, 2000, 0xffffffff, &d);
	assert_int_equal(d.reach, TICK_REACH_TOO_FAST);
	assert_float_equal(d.limit_hz, 50000.0, 1e-9);
}

static void stolen_share(void **state)
{
	(void)state;
	/* 1000 chunks of 1000 cycles in 1,250,000 cycles: 20 % gone. */
	assert_float_equal(tick_stolen_pct(1000.0, 1000, 1250000), 20.0, 1e-9);
	/* Nothing gone. */
	assert_float_equal(tick_stolen_pct(1000.0, 1000, 1000000), 0.0, 1e-9);
	/* Faster than the baseline (noise): negative, as measured. */
	assert_float_equal(tick_stolen_pct(1000.0, 1000, 990000), -1.0101,
			   1e-4);
	/* No chunk finished: everything went to interrupts. */
	assert_float_equal(tick_stolen_pct(1000.0, 0, 5000000), 100.0, 1e-9);
	assert_true(isnan(tick_stolen_pct(0.0, 10, 1000)));
	assert_true(isnan(tick_stolen_pct(1000.0, 10, 0)));
}

static void cycles_per_interrupt(void **state)
{
	(void)state;
	/* 250,000 extra cycles over 100 interrupts. */
	assert_float_equal(
		tick_cycles_per_interrupt(1000.0, 1000, 1250000, 100), 2500.0,
		1e-9);
	assert_true(isnan(tick_cycles_per_interrupt(1000.0, 1000, 1250000, 0)));
	assert_true(isnan(tick_cycles_per_interrupt(0.0, 1000, 1250000, 5)));
}

static void noise_and_reached(void **state)
{
	(void)state;
	assert_float_equal(tick_noise_pct(990.0, 1010.0, NAN), 2.0, 1e-9);
	assert_float_equal(tick_noise_pct(1000.0, 1000.0, 0.0), 0.0, 1e-9);
	/* The window's quiet chunks ran 16 % faster than both timings:
	 * that is the noise, however well those two agree. */
	assert_float_equal(tick_noise_pct(1000.0, 1000.0, 840.0), 16.0, 1e-9);
	assert_float_equal(tick_noise_pct(990.0, 1010.0, 1000.0), 2.0, 1e-9);
	assert_float_equal(tick_noise_pct(990.0, 1010.0, 1050.0), 6.0, 1e-9);
	assert_true(isnan(tick_noise_pct(0.0, 1000.0, 1000.0)));
	assert_true(tick_rate_reached(1000.0, 1000.0));
	assert_true(tick_rate_reached(901.0, 1000.0));
	assert_true(tick_rate_reached(1099.0, 1000.0));
	assert_false(tick_rate_reached(899.0, 1000.0));
	assert_false(tick_rate_reached(1101.0, 1000.0));
	assert_false(tick_rate_reached(0.0, 1000.0));
	assert_false(tick_rate_reached(10.0, 0.0));
}

static void grid_lateness_on_time_and_late(void **state)
{
	/* Expiries every 1000 cycles from t0 = 5000. */
	const uint64_t entries[] = { 6010, 7020, 8015, 9500, 10001 };
	int64_t late[5];

	(void)state;
	tick_grid_lateness(entries, 5, 5000, 1000.0, late);
	assert_int_equal(late[0], 10);
	assert_int_equal(late[1], 20);
	assert_int_equal(late[2], 15);
	assert_int_equal(late[3], 500);
	assert_int_equal(late[4], 1);
}

static void grid_lateness_dropped_expiries(void **state)
{
	/* The hypervisor dropped the expiries at 2000 and 3000: the next
	 * interrupt is counted against 4000, not as 2000 cycles late. */
	const uint64_t entries[] = { 1010, 4020, 5010 };
	int64_t late[3];

	(void)state;
	tick_grid_lateness(entries, 3, 0, 1000.0, late);
	assert_int_equal(late[0], 10);
	assert_int_equal(late[1], 20);
	assert_int_equal(late[2], 10);
}

static void grid_lateness_burst(void **state)
{
	/* Expiries at 1000, 2000, 3000 delivered together at 3500, 3510,
	 * 3520 (a late burst): the latest consistent assignment counts them
	 * against 1000, 2000, 3000. */
	const uint64_t entries[] = { 3500, 3510, 3520, 4005 };
	int64_t late[4];

	(void)state;
	tick_grid_lateness(entries, 4, 0, 1000.0, late);
	assert_int_equal(late[0], 2500);
	assert_int_equal(late[1], 1510);
	assert_int_equal(late[2], 520);
	assert_int_equal(late[3], 5);
}

static void grid_lateness_slow_grid(void **state)
{
	/* Interrupts every 900 cycles against a 1000-cycle grid: more
	 * interrupts than expiries, and the first came before expiry 1. */
	const uint64_t entries[] = { 900, 1800, 2700, 3600 };
	int64_t late[4];

	(void)state;
	tick_grid_lateness(entries, 4, 0, 1000.0, late);
	assert_int_equal(late[0], -100);
	assert_int_equal(late[1], 800);
	assert_int_equal(late[2], 700);
	assert_int_equal(late[3], 600);
	/* A fractional period is not rounded before it is multiplied. */
	{
		const uint64_t e[] = { 10000002 };
		int64_t l[1];

		tick_grid_lateness(e, 1, 0, 1000000.1, l);
		assert_int_equal(l[0], 1);
	}
}

static void intervals_and_long_gaps(void **state)
{
	/* 1000-cycle period; one expiry dropped (a 2000-cycle gap) and one
	 * held up by 1600 cycles. */
	const uint64_t entries[] = { 1000, 2010, 3000, 5005, 6000, 7600, 8000 };
	uint64_t scratch[7], gaps = 99;
	double median = -1;

	(void)state;
	tick_intervals(entries, 7, 1000.0, scratch, &median, &gaps);
	/* Intervals 1010, 990, 2005, 995, 1600, 400: sorted, the third. */
	assert_float_equal(median, 995.0, 1e-9);
	assert_int_equal(gaps, 2);
	tick_intervals(entries, 1, 1000.0, scratch, &median, &gaps);
	assert_float_equal(median, 0.0, 1e-9);
	assert_int_equal(gaps, 0);
}

static void spread_of_signed_values(void **state)
{
	int64_t v[] = { 5, -3, 100, 0, -40, 7, 7, 2, 1, 9 };
	struct tick_spread s;

	(void)state;
	tick_spread_summarize(v, 10, &s);
	assert_int_equal(s.n, 10);
	assert_int_equal(s.min, -40);
	assert_int_equal(s.p50, 2);
	assert_int_equal(s.p90, 9);
	assert_int_equal(s.max, 100);
	/* Sorted in place, signs kept. */
	assert_int_equal(v[0], -40);
	assert_int_equal(v[1], -3);
	assert_int_equal(v[9], 100);
	tick_spread_summarize(v, 0, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.max, 0);
}

static void next_deadline(void **state)
{
	uint64_t skipped = 99;
	const uint64_t m64 = ~0ull, m32 = 0xffffffffull;

	(void)state;
	/* On time: the next period. */
	assert_int_equal(tick_next_deadline(1000, 100, 1050, 0, m64, &skipped),
			 1100);
	assert_int_equal(skipped, 0);
	/* Late by 2.5 periods: the expiries at 1100, 1200 and 1300 are
	 * past at 1350; the next in the future is 1400. */
	assert_int_equal(tick_next_deadline(1000, 100, 1350, 0, m64, &skipped),
			 1400);
	assert_int_equal(skipped, 3);
	/* Exactly at the next expiry: skipped, it cannot be armed. */
	assert_int_equal(tick_next_deadline(1000, 100, 1100, 0, m64, &skipped),
			 1200);
	assert_int_equal(skipped, 1);
	/* Within the margin: skipped too. */
	assert_int_equal(tick_next_deadline(1000, 100, 1095, 10, m64, &skipped),
			 1200);
	assert_int_equal(skipped, 1);
	/* A 32-bit comparator across its wrap. */
	assert_int_equal(tick_next_deadline(0xffffff00, 0x200, 0xffffff80, 0,
					    m32, &skipped),
			 0x100);
	assert_int_equal(skipped, 0);
	assert_int_equal(
		tick_next_deadline(0xffffff00, 0x200, 0x150, 0, m32, &skipped),
		0x300);
	assert_int_equal(skipped, 1);
}

/* A timer across a VM event, periodic: every clock frozen (TCG), nothing
 * fell due in the gap and the next interrupt came on its grid. */
static void pending_periodic_frozen(void **state)
{
	const uint64_t entries[] = { 1010, 2010, 3010, 4010, 5010 };
	const uint64_t late_then_next[] = { 1010, 2010, 3930, 4000 };
	struct tick_pending_input in = {
		.entry_tsc = entries,
		.n = 5,
		.period_cycles = 1000,
		.gap_start_tsc = 3500,
		.gap_end_tsc = 3600,
		.end_tsc = 5500,
	};
	struct tick_pending p;

	(void)state;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.due, 5);
	assert_int_equal(p.due_in_gap, 0);
	assert_int_equal(p.interrupts, 5);
	assert_int_equal(p.early, 0);
	assert_true(p.fired_after);
	assert_int_equal(p.pending_tsc, 4000);
	assert_int_equal(p.first_after_late_cycles, 10);
	assert_int_equal(p.burst, 0);
	assert_int_equal(p.lost, 0);
	/* A gap of 9.3 periods' tenths: the pending one 930 late, the next
	 * on its grid 70 later is no burst. */
	in.entry_tsc = late_then_next;
	in.n = 4;
	in.gap_start_tsc = 2500;
	in.gap_end_tsc = 2940;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.due_in_gap, 0);
	assert_int_equal(p.first_after_late_cycles, 930);
	assert_int_equal(p.burst, 0);
}

/* Periodic, its clock running on through a 5-period gap: the missed
 * expiries come in a burst, the one after on its grid again. */
static void pending_periodic_burst(void **state)
{
	const uint64_t entries[] = { 1010, 2010, 7510, 7520,
				     7530, 7540, 7550, 8010 };
	struct tick_pending_input in = {
		.entry_tsc = entries,
		.n = 8,
		.period_cycles = 1000,
		.gap_start_tsc = 2500,
		.gap_end_tsc = 7600,
		.end_tsc = 8500,
	};
	struct tick_pending p;

	(void)state;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.due, 8);
	assert_int_equal(p.due_in_gap, 5);
	assert_int_equal(p.interrupts, 8);
	assert_int_equal(p.early, 0);
	assert_int_equal(p.pending_tsc, 3000);
	assert_int_equal(p.first_after_late_cycles, 4510);
	assert_int_equal(p.burst, 4);
	assert_int_equal(p.lost, 0);
	/* The same gap with no burst: the missed ones lost, the last due
	 * not counted (it may be on its way). */
	in.n = 3;
	in.end_tsc = 7700;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.due, 7);
	assert_int_equal(p.interrupts, 3);
	assert_int_equal(p.burst, 0);
	assert_int_equal(p.lost, 3);
}

/* One-shot re-armed past the expiries it missed (Xen's pause): late once,
 * the rest skipped; and an interrupt before its deadline is early. */
static void pending_oneshot(void **state)
{
	const uint64_t entries[] = { 1005, 2005, 7600, 8005 };
	const uint64_t deadlines[] = { 1000, 2000, 3000, 8000 };
	struct tick_pending_input in = {
		.entry_tsc = entries,
		.deadline_tsc = deadlines,
		.n = 4,
		.period_cycles = 1000,
		.gap_start_tsc = 2500,
		.gap_end_tsc = 7600,
		.end_tsc = 8500,
		.early_slack_cycles = 5,
	};
	const uint64_t early_entries[] = { 990, 1997 };
	const uint64_t soon[] = { 1005, 2005, 7600, 7700 };
	const uint64_t soon_deadlines[] = { 1000, 2000, 3000, 7690 };
	const uint64_t past_deadlines[] = { 1000, 2000, 3000, 4000 };
	struct tick_pending p;

	(void)state;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.due, 8);
	assert_int_equal(p.due_in_gap, 5);
	assert_int_equal(p.interrupts, 4);
	assert_int_equal(p.early, 0);
	assert_int_equal(p.earliest_cycles, 0);
	assert_true(p.fired_after);
	assert_int_equal(p.first_after_late_cycles, 4600);
	assert_int_equal(p.burst, 0);
	assert_int_equal(p.lost, 3);
	/* The re-arm after the late one fell 100 cycles on by chance: not
	 * a burst, its deadline had not passed. */
	in.entry_tsc = soon;
	in.deadline_tsc = soon_deadlines;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.burst, 0);
	/* Xen delivering a past deadline at once would be one. */
	in.deadline_tsc = past_deadlines;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.burst, 1);
	in.deadline_tsc = deadlines;
	/* 10 cycles early is early, 3 within the slack is not; nothing
	 * after the gap: it never fired. */
	in.entry_tsc = early_entries;
	in.n = 2;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.early, 1);
	assert_int_equal(p.earliest_cycles, -10);
	assert_int_equal(p.earliest_tsc, 990);
	assert_false(p.fired_after);
}

/* Periodic with more interrupts than expiries: the first came early. */
static void pending_periodic_early(void **state)
{
	const uint64_t entries[] = { 500, 1010 };
	struct tick_pending_input in = {
		.entry_tsc = entries,
		.n = 2,
		.period_cycles = 1000,
		.gap_start_tsc = 1100,
		.gap_end_tsc = 1200,
		.end_tsc = 1500,
	};
	struct tick_pending p;

	(void)state;
	tick_pending_outcome(&in, &p);
	assert_int_equal(p.early, 1);
	assert_int_equal(p.earliest_cycles, -500);
	assert_int_equal(p.earliest_tsc, 500);
	assert_false(p.fired_after); /* none after the gap */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pit_divisors),
		cmocka_unit_test(exact_divisors),
		cmocka_unit_test(stolen_share),
		cmocka_unit_test(cycles_per_interrupt),
		cmocka_unit_test(noise_and_reached),
		cmocka_unit_test(grid_lateness_on_time_and_late),
		cmocka_unit_test(grid_lateness_dropped_expiries),
		cmocka_unit_test(grid_lateness_burst),
		cmocka_unit_test(grid_lateness_slow_grid),
		cmocka_unit_test(intervals_and_long_gaps),
		cmocka_unit_test(spread_of_signed_values),
		cmocka_unit_test(next_deadline),
		cmocka_unit_test(pending_periodic_frozen),
		cmocka_unit_test(pending_periodic_burst),
		cmocka_unit_test(pending_oneshot),
		cmocka_unit_test(pending_periodic_early),
	};

	return cmocka_run_group_tests_name("tickmath", tests, NULL, NULL);
}
