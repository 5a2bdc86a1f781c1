// SPDX-License-Identifier: MIT
/* Unit tests: steal time read and attributed (lib/steal.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/steal.h"

/* The layout KVM documents: 64 bytes, steal first, version after it. */
static void kvm_record_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct kvm_steal_time), 64);
	assert_int_equal(offsetof(struct kvm_steal_time, steal), 0);
	assert_int_equal(offsetof(struct kvm_steal_time, version), 8);
}

/* An even version is a settled record; an odd one is being written and is
 * never taken, however often it is read. */
static void kvm_version_protocol(void **state)
{
	struct kvm_steal_time st;
	uint64_t steal = 7;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.steal = 123456789;
	st.version = 4;
	assert_int_equal(steal_read_kvm(&st, STEAL_READ_MAX_TRIES, &steal), 0);
	assert_int_equal(steal, 123456789);
	st.version = 5;
	steal = 7;
	assert_int_equal(steal_read_kvm(&st, STEAL_READ_MAX_TRIES, &steal), -1);
	assert_int_equal(steal, 7); /* untouched */
	/* No tries, no read. */
	st.version = 6;
	assert_int_equal(steal_read_kvm(&st, 0, &steal), -1);
}

/* Xen's steal is runnable plus offline time; running and blocked are the
 * vCPU's own.  A record flagged as being updated is never taken. */
static void xen_runstate_protocol(void **state)
{
	struct vcpu_runstate_info rs;
	uint64_t steal = 7;

	(void)state;
	memset(&rs, 0, sizeof(rs));
	rs.state = RUNSTATE_running;
	rs.state_entry_time = 1000000;
	rs.time[RUNSTATE_running] = 900000;
	rs.time[RUNSTATE_runnable] = 60000;
	rs.time[RUNSTATE_blocked] = 30000;
	rs.time[RUNSTATE_offline] = 10000;
	assert_int_equal(steal_read_xen(&rs, STEAL_READ_MAX_TRIES, &steal), 0);
	assert_int_equal(steal, 70000);
	rs.state_entry_time |= XEN_RUNSTATE_UPDATE;
	steal = 7;
	assert_int_equal(steal_read_xen(&rs, STEAL_READ_MAX_TRIES, &steal), -1);
	assert_int_equal(steal, 7);
}

/* Steal accounts for a gap up to its length; the rest of the gap is
 * unaccounted, steal beyond it is counted apart. */
static void attribution(void **state)
{
	struct steal_attribution a;

	(void)state;
	memset(&a, 0, sizeof(a));
	steal_attribute(&a, 1000000, 900000); /* 90 % of a 1 ms gap */
	steal_attribute(&a, 10000, 0);	      /* an exit: no steal */
	steal_attribute(&a, 500000, 600000);  /* 100 us beyond the gap */
	assert_float_equal(a.gap_ns, 1510000, 1e-6);
	assert_float_equal(a.steal_in_gaps_ns, 1400000, 1e-6);
	assert_float_equal(a.steal_outside_ns, 100000, 1e-6);
	assert_int_equal(a.gaps_with_steal, 2);
	assert_float_equal(a.steal_gaps_ns, 1500000, 1e-6);
	assert_float_equal(steal_share_pct(&a), 100.0 * 1400000 / 1510000,
			   1e-9);
	memset(&a, 0, sizeof(a));
	assert_float_equal(steal_share_pct(&a), 0, 0);
}

/* Steal goes to runs of gaps, from the record read before the run's first
 * clock read to the one before the first read after it. */
static void runs_of_gaps(void **state)
{
	struct steal_attribution a;
	struct steal_runs r;

	(void)state;
	memset(&a, 0, sizeof(a));
	steal_runs_start(&r, 100);
	steal_runs_step(&r, &a, 100, 0);
	/* A trapped clock read: its value was taken before a 2.2 ms wait
	 * and returned after it, so the record read after it already holds
	 * the wait, which shows as the gap of the step after. */
	steal_runs_step(&r, &a, 100, 50000);
	steal_runs_step(&r, &a, 100 + 2200000, 2400000);
	assert_float_equal(a.gap_ns, 0, 0); /* the run is still open */
	steal_runs_step(&r, &a, 100 + 2200000, 0);
	assert_float_equal(a.gap_ns, 2450000, 1e-6);
	assert_float_equal(a.steal_in_gaps_ns, 2200000, 1e-6);
	assert_float_equal(a.steal_outside_ns, 0, 0);
	assert_int_equal(a.gaps_with_steal, 1);
	assert_float_equal(a.steal_gaps_ns, 2450000, 1e-6);
	/* A wait between a record read and its clock read: the next record
	 * read holds it, and closes the run. */
	steal_runs_step(&r, &a, 2200100, 1000000);
	steal_runs_step(&r, &a, 3100100, 0);
	assert_float_equal(a.steal_in_gaps_ns, 3100000, 1e-6);
	/* A gap without steal (an exit), and steal between two reads too
	 * close to make a gap, which no gap is given. */
	steal_runs_step(&r, &a, 3100100, 30000);
	steal_runs_step(&r, &a, 3100100, 0);
	steal_runs_step(&r, &a, 3100200, 0);
	assert_float_equal(a.gap_ns, 3480000, 1e-6);
	assert_float_equal(a.steal_in_gaps_ns, 3100000, 1e-6);
	assert_int_equal(a.gaps_with_steal, 2);
	/* A run open at the spin's end takes the last read; a record that
	 * went back gives it none. */
	steal_runs_step(&r, &a, 3100200, 400000);
	steal_runs_end(&r, &a, 3400200);
	assert_float_equal(a.steal_in_gaps_ns, 3400000, 1e-6);
	steal_runs_end(&r, &a, 9999999); /* nothing open: nothing added */
	assert_float_equal(a.steal_in_gaps_ns, 3400000, 1e-6);
	steal_runs_step(&r, &a, 3400200, 10000);
	steal_runs_end(&r, &a, 5);
	assert_float_equal(a.steal_in_gaps_ns, 3400000, 1e-6);
	assert_float_equal(a.gap_ns, 3890000, 1e-6);
}

/* Each record has its name; none is said as such. */
static void kind_names(void **state)
{
	(void)state;
	assert_string_equal(steal_kind_name(STEAL_KVM), "KVM steal-time MSR");
	assert_string_equal(steal_kind_name(STEAL_XEN), "Xen runstate area");
	assert_string_equal(steal_kind_name(STEAL_NONE), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kvm_record_layout),
		cmocka_unit_test(kvm_version_protocol),
		cmocka_unit_test(xen_runstate_protocol),
		cmocka_unit_test(attribution),
		cmocka_unit_test(runs_of_gaps),
		cmocka_unit_test(kind_names),
	};

	return cmocka_run_group_tests_name("steal", tests, NULL, NULL);
}
