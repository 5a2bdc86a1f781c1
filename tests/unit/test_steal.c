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
/* A chunked loop's samples: steal that grew between two samples falls in
 * the two steps before the second (from the sample before the last), runs
 * of growth are one span, and the total is the first sample to the last. */
static void trace_spans(void **state)
{
	struct steal_span spans[4];
	struct steal_trace t;

	(void)state;
	steal_trace_start(&t, spans, 4, 1000, 50);
	steal_trace_sample(&t, 2000, 50);
	steal_trace_sample(&t, 3000, 50);
	steal_trace_sample(&t, 9000, 4050); /* taken away in (2000, 9000) */
	assert_int_equal(t.n, 1);
	assert_int_equal(spans[0].from_tsc, 2000);
	assert_int_equal(spans[0].to_tsc, 9000);
	assert_int_equal(spans[0].steal_ns, 4000);
	steal_trace_sample(&t, 10000, 4060); /* (3000, 10000): the same run */
	assert_int_equal(t.n, 1);
	assert_int_equal(spans[0].to_tsc, 10000);
	assert_int_equal(spans[0].steal_ns, 4010);
	steal_trace_sample(&t, 11000, 4060);
	steal_trace_sample(&t, 12000, 4060);
	steal_trace_sample(&t, 13000, 4100); /* (11000, 13000): a new one */
	assert_int_equal(t.n, 2);
	assert_int_equal(spans[1].from_tsc, 11000);
	/* A record that goes back is not believed, nor counted twice. */
	steal_trace_sample(&t, 14000, 4000);
	steal_trace_sample(&t, 15000, 4000);
	steal_trace_sample(&t, 16000, 4100);
	assert_int_equal(t.n, 2);
	assert_int_equal(steal_trace_total_ns(&t), 4050);
	assert_int_equal(t.dropped, 0);
}

/* An interrupt is late while taken away when a span overlaps its expiry
 * to its entry; not where none does; untold outside the samples. */
static void trace_classify(void **state)
{
	struct steal_span spans[4];
	struct steal_trace t;
	uint64_t tsc;

	(void)state;
	steal_trace_start(&t, spans, 4, 1000, 0);
	for (tsc = 2000; tsc <= 20000; tsc += 1000)
		steal_trace_sample(&t, tsc, tsc >= 9000 ? 500 : 0);
	/* One span: (7000, 9000). */
	assert_int_equal(t.n, 1);
	assert_int_equal(steal_trace_classify(&t, 8000, 8500), STEAL_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 5000, 7500), STEAL_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 8800, 12000), STEAL_TAKEN);
	/* Either order: an early interrupt's entry comes before its expiry. */
	assert_int_equal(steal_trace_classify(&t, 8500, 8000), STEAL_TAKEN);
	/* Touching is not overlapping: the span's ends are TSC reads the
	 * steal fell strictly between. */
	assert_int_equal(steal_trace_classify(&t, 5000, 7000), STEAL_NOT_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 9000, 12000),
			 STEAL_NOT_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 15000, 15000),
			 STEAL_NOT_TAKEN);
	/* Before the first sample, after the last. */
	assert_int_equal(steal_trace_classify(&t, 500, 1500), STEAL_UNTOLD);
	assert_int_equal(steal_trace_classify(&t, 19000, 21000), STEAL_UNTOLD);
}

/* With no room, a span is dropped and counted: stretches before it are
 * still told, those reaching past its start are not, and the spans kept
 * still say "taken". */
static void trace_overflow(void **state)
{
	struct steal_span spans[2];
	struct steal_trace t;
	uint64_t tsc, steal = 0;

	(void)state;
	steal_trace_start(&t, spans, 2, 0, 0);
	/* Steal every fourth sample: spans (2000, 4000), (6000, 8000), ... */
	for (tsc = 1000; tsc <= 20000; tsc += 1000) {
		if (tsc % 4000 == 0)
			steal += 100;
		steal_trace_sample(&t, tsc, steal);
	}
	assert_int_equal(t.n, 2);
	assert_int_equal(t.dropped, 3);
	assert_int_equal(t.complete_to_tsc, 10000);
	assert_int_equal(steal_trace_total_ns(&t), 500);
	assert_int_equal(steal_trace_classify(&t, 3000, 3500), STEAL_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 4500, 5500), STEAL_NOT_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 9000, 9900), STEAL_NOT_TAKEN);
	assert_int_equal(steal_trace_classify(&t, 9000, 10500), STEAL_UNTOLD);
	assert_int_equal(steal_trace_classify(&t, 16000, 17000), STEAL_UNTOLD);
	/* Kept spans say taken whatever was dropped after them. */
	assert_int_equal(steal_trace_classify(&t, 7000, 12000), STEAL_TAKEN);
}

/* The split: each part's count, p50 and max from its own records; the
 * counts add up to every record. */
static void lateness_split(void **state)
{
	int64_t late[] = { 5, 9000, 7, -2, 12000, 6, 400, 8 };
	uint8_t verdict[] = { STEAL_NOT_TAKEN, STEAL_TAKEN,    STEAL_NOT_TAKEN,
			      STEAL_NOT_TAKEN, STEAL_TAKEN,    STEAL_NOT_TAKEN,
			      STEAL_UNTOLD,    STEAL_NOT_TAKEN };
	struct steal_lateness out;

	(void)state;
	steal_lateness_split(late, verdict, 8, &out);
	assert_int_equal(out.taken_ns.n, 2);
	assert_int_equal(out.taken_ns.min, 9000);
	assert_int_equal(out.taken_ns.max, 12000);
	assert_int_equal(out.not_taken_ns.n, 5);
	assert_int_equal(out.not_taken_ns.min, -2);
	assert_int_equal(out.not_taken_ns.p50, 6);
	assert_int_equal(out.not_taken_ns.max, 8);
	assert_int_equal(out.untold, 1);
	assert_int_equal(late[7], 400); /* the untold last */
	assert_int_equal(out.taken_ns.n + out.not_taken_ns.n + out.untold, 8);
	/* Nothing to split. */
	steal_lateness_split(late, verdict, 0, &out);
	assert_int_equal(out.taken_ns.n + out.not_taken_ns.n + out.untold, 0);
}

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
		cmocka_unit_test(trace_spans),
		cmocka_unit_test(trace_classify),
		cmocka_unit_test(trace_overflow),
		cmocka_unit_test(lateness_split),
		cmocka_unit_test(kind_names),
	};

	return cmocka_run_group_tests_name("steal", tests, NULL, NULL);
}
