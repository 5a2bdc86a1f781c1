// SPDX-License-Identifier: MIT
/*
 * Unit tests: the pvclock step monitor over a fake record
 * (hypervisor/pvclock_step.c): the step an update makes at one TSC value,
 * odd versions and torn reads, a shift out of range, the flag history.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hypervisor/pvclock_step.h"

static struct vcpu_time_info record;
static struct pvclock_step_monitor monitor;
static uint64_t fake_tsc;
/* Reads of the TSC that rewrite the record's version (a torn read). */
static unsigned int tear_reads;

static uint64_t read_fake_tsc(void)
{
	if (tear_reads) {
		tear_reads--;
		record.version += 2;
	}
	return fake_tsc;
}

/* mul 0x80000000 with shift 1: one ns a cycle. */
static void publish(uint32_t version, uint64_t tsc_timestamp,
		    uint64_t system_time, uint8_t flags)
{
	record.version = version;
	record.tsc_timestamp = tsc_timestamp;
	record.system_time = system_time;
	record.tsc_to_system_mul = 0x80000000u;
	record.tsc_shift = 1;
	record.flags = flags;
}

static int setup(void **state)
{
	(void)state;
	memset(&record, 0, sizeof(record));
	pvclock_step_init(&monitor);
	tear_reads = 0;
	fake_tsc = 1000;
	publish(2, 1000, 5000, 0);
	assert_false(pvclock_step_poll(&monitor, &record, fake_tsc,
				       read_fake_tsc, 4));
	return 0;
}

static bool poll_at(uint64_t tsc)
{
	fake_tsc = tsc;
	return pvclock_step_poll(&monitor, &record, tsc, read_fake_tsc, 4);
}

static void timestamp_moved_consistently_steps_zero(void **state)
{
	(void)state;
	publish(4, 3000, 7000, 0);
	assert_true(poll_at(3500));
	assert_int_equal(monitor.updates, 1);
	assert_int_equal(monitor.step_ns.total, 1);
	assert_int_equal(monitor.step_ns.min, 0);
	assert_int_equal(monitor.step_ns.max, 0);
}

static void known_step_forward_and_back(void **state)
{
	(void)state;
	publish(4, 3000, 7180, 0); /* 180 ns ahead of the old line */
	assert_true(poll_at(4000));
	publish(6, 5000, 8680, 0); /* 500 ns behind the line in force */
	assert_true(poll_at(5000));
	assert_int_equal(monitor.largest_forward_ns, 180);
	assert_int_equal(monitor.largest_back_ns, -500);
	assert_int_equal(monitor.step_ns.total, 2);
}

static void unchanged_version_reads_nothing_more(void **state)
{
	(void)state;
	record.system_time = 99999; /* not looked at: the version is the same */
	assert_false(poll_at(2000));
	assert_int_equal(monitor.updates, 0);
	assert_int_equal(monitor.polls, 2);
	assert_int_equal(monitor.watched_cycles, 1000);
}

static void odd_version_is_skipped(void **state)
{
	(void)state;
	publish(3, 3000, 9000, 0);
	assert_false(poll_at(3000));
	assert_int_equal(monitor.odd_polls, 1);
	assert_int_equal(monitor.unreadable, 1);
	assert_int_equal(monitor.updates, 0);
	publish(4, 3000, 7000, 0);
	assert_true(poll_at(3100));
	assert_int_equal(monitor.updates, 1);
	assert_int_equal(monitor.step_ns.max, 0);
}

static void torn_read_is_retried(void **state)
{
	(void)state;
	publish(4, 3000, 7000, 0);
	tear_reads = 2; /* two attempts torn, the third holds */
	assert_true(poll_at(3000));
	assert_int_equal(monitor.last.version, 8);
	assert_int_equal(monitor.unreadable, 0);
}

static void torn_read_is_bounded(void **state)
{
	(void)state;
	publish(4, 3000, 7000, 0);
	tear_reads = 100; /* torn at every attempt */
	assert_false(poll_at(3000));
	assert_int_equal(monitor.unreadable, 1);
	assert_int_equal(tear_reads, 96); /* four attempts, no more */
	assert_int_equal(monitor.updates, 0);
}

static void shift_out_of_range_is_refused(void **state)
{
	int64_t ns;

	(void)state;
	publish(4, 3000, 7000, 0);
	record.tsc_shift = 64;
	assert_true(poll_at(3000));
	assert_int_equal(monitor.refused, 1);
	assert_int_equal(monitor.step_ns.total, 0);
	record.tsc_shift = -64;
	assert_int_equal(
		pvclock_params_time(&(struct pvclock_params){ .shift = -64 }, 0,
				    &ns),
		-1);
}

static void before_the_stamp_counts_back(void **state)
{
	struct pvclock_params p = { .tsc_timestamp = 1000,
				    .system_time = 5000,
				    .mul_frac = 0x80000000u,
				    .shift = 1 };
	int64_t ns;

	(void)state;
	assert_int_equal(pvclock_params_time(&p, 400, &ns), 0);
	assert_int_equal(ns, 4400);
}

static void stable_back_step_beyond_bound(void **state)
{
	(void)state;
	publish(4, 1000, 5000, XEN_PVCLOCK_TSC_STABLE_BIT);
	assert_true(poll_at(1000)); /* flags set: a change, no step */
	publish(6, 2000, 5998, XEN_PVCLOCK_TSC_STABLE_BIT); /* -2: in bound */
	assert_true(poll_at(2000));
	assert_int_equal(monitor.stable_back_beyond, 0);
	publish(8, 3000, 6900, XEN_PVCLOCK_TSC_STABLE_BIT); /* -98 */
	assert_true(poll_at(3000));
	assert_int_equal(monitor.stable_back_beyond, 1);
	assert_int_equal(monitor.stable_worst_back_ns, -98);
	assert_int_equal(monitor.stable_updates, 2);
}

static void flag_history_in_order_and_bounded(void **state)
{
	unsigned int i;

	(void)state;
	publish(4, 1000, 5000, XEN_PVCLOCK_GUEST_STOPPED);
	assert_true(poll_at(1000));
	publish(6, 1000, 5000, 0);
	assert_true(poll_at(1000));
	assert_int_equal(monitor.nr_changes, 2);
	assert_int_equal(monitor.changes[0].before, 0);
	assert_int_equal(monitor.changes[0].after, XEN_PVCLOCK_GUEST_STOPPED);
	assert_int_equal(monitor.changes[0].update, 1);
	assert_int_equal(monitor.changes[1].after, 0);
	assert_int_equal(monitor.changes[1].version, 6);
	for (i = 0; i < 2 * PVCLOCK_FLAG_HISTORY; i++) {
		publish(8 + 2 * i, 1000, 5000, (uint8_t)(i & 1));
		poll_at(1000);
	}
	assert_int_equal(monitor.nr_changes, PVCLOCK_FLAG_HISTORY);
	assert_int_equal(monitor.changes_dropped, 2 + 2 * PVCLOCK_FLAG_HISTORY -
							  PVCLOCK_FLAG_HISTORY -
							  1);
}

static void pause_takes_a_new_baseline(void **state)
{
	(void)state;
	pvclock_step_pause(&monitor);
	publish(10, 900000, 905000, XEN_PVCLOCK_TSC_STABLE_BIT);
	assert_false(poll_at(900000));
	assert_int_equal(monitor.updates, 0);
	assert_int_equal(monitor.watched_cycles, 0);
	assert_int_equal(monitor.nr_changes, 1);
	assert_int_equal(monitor.first_flags, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(timestamp_moved_consistently_steps_zero,
				       setup),
		cmocka_unit_test_setup(known_step_forward_and_back, setup),
		cmocka_unit_test_setup(unchanged_version_reads_nothing_more,
				       setup),
		cmocka_unit_test_setup(odd_version_is_skipped, setup),
		cmocka_unit_test_setup(torn_read_is_retried, setup),
		cmocka_unit_test_setup(torn_read_is_bounded, setup),
		cmocka_unit_test_setup(shift_out_of_range_is_refused, setup),
		cmocka_unit_test(before_the_stamp_counts_back),
		cmocka_unit_test_setup(stable_back_step_beyond_bound, setup),
		cmocka_unit_test_setup(flag_history_in_order_and_bounded,
				       setup),
		cmocka_unit_test_setup(pause_takes_a_new_baseline, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
