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
