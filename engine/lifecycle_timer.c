// SPDX-License-Identifier: MIT
/*
 * The timer pending across an event (engine/lifecycle_timer.h).  It knows
 * no tick source in particular: it arms one through struct tick_source and
 * reads ring 0's records, as the tick engine (engine/ticks.c) does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu.h"
#include "base/stopwatch.h"
#include "base/tick_irq.h"
#include "drivers/tsc.h"
#include "engine/lifecycle_timer.h"
#include "engine/ticks.h"

/* Interrupts on record per event: 40 s of them at LIFECYCLE_TIMER_HZ
 * (asked of the heap at the first event, 96 KiB). */
#define TIMER_RECORDS 4096
/* After "done", the most spent waiting for the first interrupt after the
 * gap, and the moment interrupts stay on once the timer is stopped. */
#define AFTER_DONE_MS 1000
#define DRAIN_NS      1000000.0
/* Beyond the wait's bound, how long ring 0 still takes interrupts. */
#define GIVE_UP_EXTRA_MS (AFTER_DONE_MS + 1000)

/* In order of preference: what an OS would program here, and why. */
static const struct {
	const char *name;
	const char *why;
} preferred[] = {
	{ "xen_oneshot",
	  "Xen's one-shot vCPU timer, as a PV Linux's clockevent "
	  "(VCPUOP_set_singleshot_timer) re-armed at each expiry" },
	{ "tsc_deadline",
	  "the local APIC in TSC-deadline mode, Linux's first choice, "
	  "re-armed at each expiry" },
	{ "lapic", "the local APIC timer, periodic (no TSC-deadline mode here; "
		   "Linux would run this timer one-shot)" },
	{ "hpet", "HPET timer 0: the local APIC has no timer here" },
	{ "pit", "the PIT: neither the local APIC's timer nor the HPET's" },
};

static struct tick_irq_record *records;
static struct tick_start start;
static uint64_t *entries, *deadlines;

void lifecycle_timer_choose(const struct probe_env *env,
			    struct lifecycle_result *out)
{
	struct tick_source *const *all = tick_sources_all();
	size_t used = 0;
	unsigned int i, j;

	out->timer = NULL;
	for (i = 0; i < sizeof(preferred) / sizeof(preferred[0]); i++)
		for (j = 0; all[j]; j++) {
			struct tick_source *s = all[j];

			if (strcmp(s->name, preferred[i].name))
				continue;
			ticks_probe_one(s, env);
			if (s->present) {
				out->timer = s;
				snprintf(out->timer_why, sizeof(out->timer_why),
					 "%s", preferred[i].why);
				return;
			}
			used += (size_t)snprintf(
				out->timer_why + used,
				used < sizeof(out->timer_why)
					? sizeof(out->timer_why) - used
					: 0,
				"%s%s absent", used ? "; " : "", s->name);
			if (used >= sizeof(out->timer_why))
				used = sizeof(out->timer_why) - 1;
		}
	if (!used)
		snprintf(out->timer_why, sizeof(out->timer_why),
			 "no tick source here");
}

int lifecycle_timer_arm(struct tick_source *s, unsigned int bound_ms,
			struct lifecycle_timer *t)
{
	char why[TICK_TEXT_LEN];

	t->source = s->name;
	if (!records) {
		records = calloc(TIMER_RECORDS, sizeof(*records));
		entries = calloc(TIMER_RECORDS, sizeof(*entries));
		deadlines = calloc(TIMER_RECORDS, sizeof(*deadlines));
	}
	if (!records || !entries || !deadlines) {
		snprintf(t->problem, sizeof(t->problem),
			 "the heap has no room for the timer's records");
		return -1;
	}
	irq_disable();
	ticks_irq_reset(records, TIMER_RECORDS);
	memset(&start, 0, sizeof(start));
	if (s->start(s, LIFECYCLE_TIMER_HZ, &start, why, sizeof(why)) !=
	    TICK_STARTED) {
		s->stop(s);
		snprintf(t->problem, sizeof(t->problem),
			 "%s did not start at %u Hz: %s", s->name,
			 LIFECYCLE_TIMER_HZ, why);
		return -1;
	}
	tick_irq.give_up_tsc =
		tsc_read_ordered() +
		stopwatch_cycles((double)(bound_ms + GIVE_UP_EXTRA_MS) * 1e6);
	t->armed = true;
	t->oneshot = start.oneshot;
	t->period_ns = stopwatch_ns(start.period_cycles);
	irq_enable();
	return 0;
}

void lifecycle_timer_hold(const struct lifecycle_timer *t, bool hold)
{
	if (!t->armed)
		return;
	if (hold)
		irq_disable();
	else
		irq_enable();
}

/* The newest interrupt on record entered after @tsc. */
static bool fired_since(uint64_t tsc)
{
	uint64_t n = tick_irq.count;

	if (n > TIMER_RECORDS)
		n = TIMER_RECORDS;
	return n && records[n - 1].entry_tsc > tsc;
}

void lifecycle_timer_finish(struct tick_source *s, uint64_t ready_tsc,
			    uint64_t gap_start_tsc, uint64_t gap_end_tsc,
			    struct lifecycle_timer *t)
{
	uint64_t done = tsc_read_ordered(), now = done, end, n, i;
	uint64_t bound = stopwatch_cycles(AFTER_DONE_MS * 1e6);
	double span;

	if (!t->armed)
		return;
	while (!fired_since(gap_start_tsc) && now - done < bound) {
		cpu_relax();
		now = tsc_read_ordered();
	}
	end = now;
	irq_disable();
	s->stop(s);
	now = tsc_read_ordered();
	irq_enable();
	while (tsc_read_ordered() - now < stopwatch_cycles(DRAIN_NS))
		cpu_relax();
	irq_disable();
	t->after_done_ns = stopwatch_ns((double)(end - done));
	t->total = tick_irq.count;
	t->recorded = t->total < TIMER_RECORDS ? t->total : TIMER_RECORDS;
	t->skipped = tick_irq.skipped;
	t->gave_up = tick_irq.gave_up;
	n = t->recorded;
	for (i = 0; i < n; i++) {
		entries[i] = records[i].entry_tsc;
		deadlines[i] = start.oneshot && s->deadline_tsc
				       ? s->deadline_tsc(s, records[i].deadline)
				       : 0;
	}
	span = (double)(end - start.t0_tsc);
	t->slack_ns = stopwatch_ns((double)start.arm_cycles +
				   start.grid_ppm * 1e-6 * span);
	tick_pending_outcome(
		&(struct tick_pending_input){
			.entry_tsc = entries,
			.deadline_tsc = start.oneshot ? deadlines : NULL,
			.n = n,
			.t0_tsc = start.t0_tsc,
			.period_cycles = start.period_cycles,
			.gap_start_tsc = gap_start_tsc,
			.gap_end_tsc = gap_end_tsc,
			.end_tsc = end,
			.early_slack_cycles = stopwatch_cycles(t->slack_ns),
		},
		&t->outcome);
	t->gap_ns = stopwatch_ns((double)(gap_end_tsc - gap_start_tsc));
	t->gap_at_ns = stopwatch_ns((double)(gap_start_tsc - ready_tsc));
	t->window_ns = stopwatch_ns(span);
	t->first_after_late_ns =
		stopwatch_ns((double)t->outcome.first_after_late_cycles);
	t->earliest_ns = stopwatch_ns((double)t->outcome.earliest_cycles);
	t->earliest_at_ns =
		t->outcome.earliest_cycles < 0
			? stopwatch_ns(
				  (double)(int64_t)(t->outcome.earliest_tsc -
						    ready_tsc))
			: NAN;
}
