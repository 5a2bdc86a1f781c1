// SPDX-License-Identifier: MIT
/* Steal time read and attributed (see lib/steal.h). */
#include <string.h>

#include "lib/steal.h"

/* Compiler barrier: the record's fields are read between the two reads of
 * its version, not moved across them (x86 keeps loads in order). */
#define READ_BARRIER() __asm__ volatile("" ::: "memory")

const char *steal_kind_name(enum steal_kind kind)
{
	switch (kind) {
	case STEAL_KVM:
		return "KVM steal-time MSR";
	case STEAL_XEN:
		return "Xen runstate area";
	default:
		return "none";
	}
}

int steal_read_kvm(const volatile struct kvm_steal_time *st,
		   unsigned int max_tries, uint64_t *steal_ns)
{
	unsigned int i;

	for (i = 0; i < max_tries; i++) {
		uint32_t version = st->version;
		uint64_t steal;

		READ_BARRIER();
		steal = st->steal;
		READ_BARRIER();
		if (!(version & 1) && st->version == version) {
			*steal_ns = steal;
			return 0;
		}
	}
	return -1;
}

int steal_read_xen(const volatile struct vcpu_runstate_info *rs,
		   unsigned int max_tries, uint64_t *steal_ns)
{
	unsigned int i;

	for (i = 0; i < max_tries; i++) {
		uint64_t entry = rs->state_entry_time;
		uint64_t runnable, offline;

		READ_BARRIER();
		runnable = rs->time[RUNSTATE_runnable];
		offline = rs->time[RUNSTATE_offline];
		READ_BARRIER();
		if (!(entry & XEN_RUNSTATE_UPDATE) &&
		    rs->state_entry_time == entry) {
			*steal_ns = runnable + offline;
			return 0;
		}
	}
	return -1;
}

void steal_attribute(struct steal_attribution *a, double gap_ns,
		     uint64_t steal_delta_ns)
{
	double steal = (double)steal_delta_ns;
	double in_gap = steal < gap_ns ? steal : gap_ns;

	a->gap_ns += gap_ns;
	a->steal_in_gaps_ns += in_gap;
	a->steal_outside_ns += steal - in_gap;
	if (steal_delta_ns > 0) {
		a->gaps_with_steal++;
		a->steal_gaps_ns += gap_ns;
	}
}

double steal_share_pct(const struct steal_attribution *a)
{
	return a->gap_ns > 0 ? 100.0 * a->steal_in_gaps_ns / a->gap_ns : 0;
}

/* The run's gaps against what the record gained from before its first
 * clock read to @steal_after. */
static void close_run(struct steal_runs *r, struct steal_attribution *a,
		      uint64_t steal_after)
{
	steal_attribute(a, r->run_gap_ns,
			steal_after >= r->run_base ? steal_after - r->run_base
						   : 0);
	r->in_run = false;
	r->run_gap_ns = 0;
}

void steal_runs_start(struct steal_runs *r, uint64_t steal_first)
{
	memset(r, 0, sizeof(*r));
	r->before_prev = steal_first;
}

void steal_runs_step(struct steal_runs *r, struct steal_attribution *a,
		     uint64_t steal_before_now, double gap_ns)
{
	if (gap_ns > 0) {
		if (!r->in_run) {
			r->in_run = true;
			r->run_base = r->before_prev;
		}
		r->run_gap_ns += gap_ns;
	} else if (r->in_run) {
		close_run(r, a, steal_before_now);
	}
	r->before_prev = steal_before_now;
}

void steal_runs_end(struct steal_runs *r, struct steal_attribution *a,
		    uint64_t steal_end)
{
	if (r->in_run)
		close_run(r, a, steal_end);
}

void steal_trace_start(struct steal_trace *t, struct steal_span *spans,
		       unsigned int capacity, uint64_t tsc, uint64_t steal)
{
	*t = (struct steal_trace){
		.spans = spans,
		.capacity = capacity,
		.first_tsc = tsc,
		.first_steal = steal,
		.prev_tsc = tsc,
		.last_tsc = tsc,
		.last_steal = steal,
		.complete_to_tsc = UINT64_MAX,
	};
}

/* Steal of @steal_ns between TSC @from and @to, after every span kept:
 * one with it when they overlap, else a span of its own where there is
 * room. */
static void trace_add(struct steal_trace *t, uint64_t from, uint64_t to,
		      uint64_t steal_ns)
{
	struct steal_span *last = t->n ? &t->spans[t->n - 1] : NULL;

	if (last && from <= last->to_tsc && t->complete_to_tsc == UINT64_MAX) {
		last->to_tsc = to;
		last->steal_ns += steal_ns;
	} else if (t->n < t->capacity && t->complete_to_tsc == UINT64_MAX) {
		t->spans[t->n++] = (struct steal_span){ from, to, steal_ns };
	} else {
		t->dropped++;
		if (from < t->complete_to_tsc)
			t->complete_to_tsc = from;
	}
}

void steal_trace_sample(struct steal_trace *t, uint64_t tsc, uint64_t steal)
{
	/* A record that went back (it never should) is not believed: what
	 * it gains again is not counted twice. */
	if (steal > t->last_steal) {
		trace_add(t, t->prev_tsc, tsc, steal - t->last_steal);
		t->last_steal = steal;
	}
	t->prev_tsc = t->last_tsc;
	t->last_tsc = tsc;
}

uint64_t steal_trace_total_ns(const struct steal_trace *t)
{
	return t->last_steal - t->first_steal;
}

enum steal_verdict steal_trace_classify(const struct steal_trace *t,
					uint64_t from_tsc, uint64_t to_tsc)
{
	unsigned int lo = 0, hi = t->n;

	if (from_tsc > to_tsc) {
		uint64_t swap = from_tsc;

		from_tsc = to_tsc;
		to_tsc = swap;
	}
	if (from_tsc < t->first_tsc || to_tsc > t->last_tsc)
		return STEAL_UNTOLD;
	/* The first span that ends after the stretch starts. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->spans[mid].to_tsc > from_tsc)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < t->n && t->spans[lo].from_tsc < to_tsc)
		return STEAL_TAKEN;
	/* A dropped span may have overlapped it. */
	return to_tsc > t->complete_to_tsc ? STEAL_UNTOLD : STEAL_NOT_TAKEN;
}

/* Swap two records' lateness and verdict. */
static void swap_records(int64_t *late_ns, uint8_t *verdict, size_t a, size_t b)
{
	int64_t late = late_ns[a];
	uint8_t v = verdict[a];

	late_ns[a] = late_ns[b];
	verdict[a] = verdict[b];
	late_ns[b] = late;
	verdict[b] = v;
}

void steal_lateness_split(int64_t *late_ns, uint8_t *verdict, size_t n,
			  struct steal_lateness *out)
{
	size_t taken = 0, untold_from = n, i = 0;

	/* Three ways in one pass: [0, taken) taken, [taken, i) not taken,
	 * [untold_from, n) untold. */
	while (i < untold_from) {
		if (verdict[i] == STEAL_TAKEN)
			swap_records(late_ns, verdict, i++, taken++);
		else if (verdict[i] == STEAL_UNTOLD)
			swap_records(late_ns, verdict, i, --untold_from);
		else
			i++;
	}
	tick_spread_summarize(late_ns, taken, &out->taken_ns);
	tick_spread_summarize(late_ns + taken, untold_from - taken,
			      &out->not_taken_ns);
	out->untold = n - untold_from;
}
