// SPDX-License-Identifier: MIT
/*
 * The events of the VM's life (engine/lifecycle.h): a table per event for
 * people, the checks, and the "lifecycle" member of the JSON.  What must
 * hold everywhere is judged (no clock steps back on any vCPU; each vCPU's
 * offset after within LIFECYCLE_OFFSET_STEP_MAX_NS of before); what
 * differs by design between hypervisors (which clocks freeze, which run
 * on, which jump) is described, in the info and the figures, not failed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/run.h"
#include "report/tolerances.h"

/* The clock the steps between clocks are taken from. */
#define STEP_BASE_CLOCK "tsc"

/* How one clock spent one event. */
struct behaviour {
	const char *name; /* "ran on", "frozen", "jumped", "went back" */
	double excess_ns; /* advance less the host's window */
	double bound_ns;  /* the longer round trip, the two rounds of reads,
			   * LIFECYCLE_SLACK_NS */
	double frozen_ns; /* -excess, when frozen */
};

static double host_window_ns(const struct host_event *h)
{
	return (double)(h->value[HOST_SENT_NS] - h->value[HOST_READY_NS]);
}

static double host_event_ns(const struct host_event *h)
{
	return (double)(h->value[HOST_END_NS] - h->value[HOST_START_NS]);
}

/* A rate in ppm for the event's table, "-" when there is none. */
static void ppm_cell(char *buf, size_t len, double ppm)
{
	if (isnan(ppm))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.0f", ppm);
}

/* The longest the host's lines can have been on their way: the sync's
 * round trip, or the one after the event when that was longer (a console
 * attached anew). */
static double round_trip_bound_ns(const struct lifecycle_event *e)
{
	return isnan(e->round_trip_after_ns) ||
			       e->round_trip_after_ns < e->round_trip_ns
		       ? e->round_trip_ns
		       : e->round_trip_after_ns;
}

static struct behaviour judge_clock(const struct lifecycle_event *e,
				    const struct lifecycle_clock *c)
{
	struct behaviour b;

	b.excess_ns = c->advance_ns - host_window_ns(&e->host);
	b.bound_ns =
		round_trip_bound_ns(e) + e->read_rounds_ns + LIFECYCLE_SLACK_NS;
	b.frozen_ns = 0;
	if (b.excess_ns > b.bound_ns) {
		b.name = "jumped";
	} else if (b.excess_ns >= -b.bound_ns) {
		b.name = "ran on";
	} else if (b.excess_ns < -(host_window_ns(&e->host) + b.bound_ns)) {
		b.name = "went back";
	} else {
		b.name = "frozen";
		b.frozen_ns = -b.excess_ns;
	}
	return b;
}

static const struct lifecycle_clock *step_base(const struct lifecycle_event *e)
{
	unsigned int k;

	for (k = 0; k < e->nr_clocks; k++)
		if (!strcmp(e->clocks[k].clock->name, STEP_BASE_CLOCK))
			return &e->clocks[k];
	return NULL;
}

static const char *kind_of(const struct lifecycle_event *e)
{
	return e->kind[0] ? e->kind : "event";
}

/* What became of the timer pending across the event, in a word. */
static const char *timer_behaviour(const struct lifecycle_timer *t)
{
	const struct tick_pending *o = &t->outcome;

	if (!o->fired_after)
		return "never fired";
	if (!o->due_in_gap)
		return "nothing due"; /* its clock stood still over the gap */
	if (o->burst)
		return "burst";
	if (t->oneshot && t->skipped)
		return "skipped";
	if (o->lost)
		return "lost";
	if (o->due_in_gap > 1)
		return "made up"; /* every one came, but not at once */
	return "late";
}

/* Expiries the host's account of the event had room for. */
static double timer_host_due(const struct lifecycle_event *e)
{
	return e->timer.period_ns > 0
		       ? floor(host_event_ns(&e->host) / e->timer.period_ns)
		       : NAN;
}

static bool timer_on_time(const struct lifecycle_timer *t)
{
	return t->earliest_ns >= -(t->slack_ns + LIFECYCLE_TIMER_EARLY_MAX_NS);
}

/* --- for people ---------------------------------------------------------------- */

/* Each clock's longest step between two reads on CPU 0: what it showed the
 * guest of the event, against the host's account. */
static void print_blackout(const struct lifecycle_event *e)
{
	unsigned int k;

	printf("    blackout as CPU 0 saw it (each clock's longest step "
	       "between "
	       "two reads; the host's event %.3f ms):\n",
	       host_event_ns(&e->host) / 1e6);
	for (k = 0; k < e->nr_clocks; k++) {
		const struct lifecycle_clock *c = &e->clocks[k];

		printf("      %-10s %12.3f ms, from %.3f ms after ready by the "
		       "TSC (%.3f by itself); %+.3f ms against the host's\n",
		       c->clock->name, c->largest_step_ns / 1e6,
		       c->step_at_ns / 1e6, c->step_from_ns / 1e6,
		       (c->largest_step_ns - host_event_ns(&e->host)) / 1e6);
	}
	if (e->nr_beats)
		printf("    heartbeat: %u records of every clock, at most "
		       "every "
		       "%.0f ms by the TSC (in the JSON)\n",
		       e->nr_beats, e->beat_interval_ns / 1e6);
}

static void print_timer(const struct lifecycle_event *e)
{
	const struct lifecycle_timer *t = &e->timer;
	const struct tick_pending *o = &t->outcome;

	if (t->problem[0]) {
		printf("    timer: %s\n", t->problem);
		return;
	}
	if (!t->armed)
		return;
	printf("    timer %s (%s, every %.3f ms): CPU 0's longest gap %.3f "
	       "ms, %.3f ms after ready; %llu expiries due in it by the TSC, "
	       "%.0f in the host's event\n",
	       t->source, t->oneshot ? "one-shot" : "periodic",
	       t->period_ns / 1e6, t->gap_ns / 1e6, t->gap_at_ns / 1e6,
	       (unsigned long long)o->due_in_gap, timer_host_due(e));
	printf("      %llu interrupts for %llu due over %.3f ms; first after "
	       "the gap %s%.3f ms late; burst %llu, lost %llu, skipped %llu, "
	       "early %llu: %s\n",
	       (unsigned long long)o->interrupts, (unsigned long long)o->due,
	       t->window_ns / 1e6, o->fired_after ? "" : "(none) ",
	       t->first_after_late_ns / 1e6, (unsigned long long)o->burst,
	       (unsigned long long)o->lost, (unsigned long long)t->skipped,
	       (unsigned long long)o->early, timer_behaviour(t));
}

static void print_event(const struct lifecycle_event *e)
{
	const struct lifecycle_clock *base = step_base(e);
	unsigned int k, unrated = 0;

	if (!e->answered) {
		printf("  event %u: %s\n", e->seq, e->problem);
		return;
	}
	printf("  event %u (%s): host window %.3f ms, the event %.3f ms, "
	       "console round trip %.3f ms",
	       e->seq, kind_of(e), host_window_ns(&e->host) / 1e6,
	       host_event_ns(&e->host) / 1e6, e->round_trip_ns / 1e6);
	if (!isnan(e->round_trip_after_ns))
		printf(", %.3f ms after it", e->round_trip_after_ns / 1e6);
	printf("\n");
	if (host_event_has(&e->host, HOST_STOP_US) &&
	    host_event_has(&e->host, HOST_RESUME_US))
		printf("    QEMU: STOP to RESUME %.3f ms\n",
		       (double)(e->host.value[HOST_RESUME_US] -
				e->host.value[HOST_STOP_US]) /
			       1e3);
	if (host_event_has(&e->host, HOST_DOWNTIME_MS))
		printf("    QEMU: migration downtime %llu ms, total %llu ms\n",
		       (unsigned long long)e->host.value[HOST_DOWNTIME_MS],
		       (unsigned long long)e->host.value[HOST_TOTAL_MS]);
	printf("    %-10s %12s %12s %-9s %12s %16s %12s %5s\n", "clock",
	       "advance ms", "-host ms", "", "+-bound ms", "tsc-clock ms",
	       "rate ppm", "back");
	for (k = 0; k < e->nr_clocks; k++) {
		const struct lifecycle_clock *c = &e->clocks[k];
		struct behaviour b = judge_clock(e, c);
		char before[16], after[16];

		ppm_cell(before, sizeof(before), c->rate_before_ppm);
		ppm_cell(after, sizeof(after), c->rate_after_ppm);
		unrated +=
			isnan(c->rate_before_ppm) || isnan(c->rate_after_ppm);
		printf("    %-10s %12.3f %+12.3f %-9s %12.3f %+16.3f "
		       "%5s/%-5s %5llu\n",
		       c->clock->name, c->advance_ns / 1e6, b.excess_ns / 1e6,
		       b.name, b.bound_ns / 1e6,
		       base ? (base->advance_ns - c->advance_ns) / 1e6 : NAN,
		       before, after, (unsigned long long)c->back_steps);
	}
	if (unrated)
		printf("    rate \"-\": no reference clock apart from the "
		       "clock's own counter, or the one it was calibrated "
		       "against, was followed to time it by\n");
	for (k = 0; k < e->nr_clocks; k++)
		printf("    %s: a read %.0f ns before, %.0f ns after\n",
		       e->clocks[k].clock->name, e->clocks[k].cost_before_ns,
		       e->clocks[k].cost_after_ns);
	print_blackout(e);
	print_timer(e);
	if (e->suspended || e->platform_said[0])
		printf("    the guest's own part: suspended %u time(s)%s%s\n",
		       e->suspended, e->platform_said[0] ? ": " : "",
		       e->platform_said);
	if (e->cpus_to_resume)
		printf("    after the restore %u of the %u other vCPU(s) set "
		       "up "
		       "their own part again%s%s\n",
		       e->cpus_resumed, e->cpus_to_resume,
		       e->cpu_resume_problem[0] ? "; " : "",
		       e->cpu_resume_problem);
	if (e->stray_lines)
		printf("    the console's input: %u line(s) not the host's, "
		       "dropped\n",
		       e->stray_lines);
	if (e->pvclock.present)
		printf("    %s record on CPU 0: version %u -> %u (%llu "
		       "updates seen), flags %#x -> %#x, GUEST_STOPPED %s\n",
		       e->pvclock.clock, e->pvclock.version_before,
		       e->pvclock.version_after,
		       (unsigned long long)e->pvclock.updates,
		       e->pvclock.flags_before, e->pvclock.flags_after,
		       e->pvclock.stopped_seen ? "seen" : "not seen");
}

void report_lifecycle_print(const struct run_report *run)
{
	const struct lifecycle_result *l = &run->lifecycle;
	unsigned int i;

	if (!l->asked)
		return;
	printf("\n# events: %u asked\n", l->asked);
	if (!l->applies) {
		printf("  none run: %s\n", l->reason);
		return;
	}
	if (l->left_out[0])
		printf("  not followed: %s\n", l->left_out);
	if (l->timer)
		printf("  timer across each event: %s, %s\n", l->timer->name,
		       l->timer_why);
	else
		printf("  no timer across the events: %s\n", l->timer_why);
	for (i = 0; i < l->nr; i++)
		print_event(&l->events[i]);
}

/* --- checks ------------------------------------------------------------------ */

static void offsets_check(const struct lifecycle_result *l,
			  const struct lifecycle_event *e, struct ktap *k)
{
	double worst = 0, worst_allowed = LIFECYCLE_OFFSET_STEP_MAX_NS;
	const char *worst_clock = NULL;
	unsigned int c, cpu, worst_cpu = 0, pairs = 0;
	bool ok = true;

	for (c = 0; c < e->nr_clocks; c++)
		for (cpu = 1; cpu < l->ncpu && cpu < MAX_CPUS; cpu++) {
			const typeof(e->clocks[c].cpu[cpu]) *o =
				&e->clocks[c].cpu[cpu];
			double moved, allowed;

			if (!o->ok_before || !o->ok_after)
				continue;
			pairs++;
			moved = fabs(o->after_ns - o->before_ns);
			allowed = LIFECYCLE_OFFSET_STEP_MAX_NS +
				  o->before_unc_ns + o->after_unc_ns;
			if (moved > allowed)
				ok = false;
			if (!worst_clock ||
			    moved - allowed > worst - worst_allowed) {
				worst = moved;
				worst_allowed = allowed;
				worst_clock = e->clocks[c].clock->name;
				worst_cpu = cpu;
			}
		}
	if (!pairs)
		return;
	report(k, ok, "every vCPU's offset from CPU 0 moves at most %.0f ns",
	       LIFECYCLE_OFFSET_STEP_MAX_NS);
	report_info(k,
		    "%u offsets; most: %s on CPU %u moved %.0f ns (%.0f "
		    "allowed with both bounds)",
		    pairs, worst_clock, worst_cpu, worst, worst_allowed);
	report_figure(k, "worst_offset_move_ns", worst);
	report_tolerance(k, "lifecycle_offset_step_max_ns",
			 LIFECYCLE_OFFSET_STEP_MAX_NS);
}

/* What must hold of any timer across any event: armed, never before its
 * deadline, and the one pending fires after the event.  How late, and
 * whether the missed ones came in a burst or not at all, differs by
 * design: described, not judged. */
static void timer_checks(const struct lifecycle_event *e, struct ktap *k)
{
	const struct lifecycle_timer *t = &e->timer;
	const struct tick_pending *o = &t->outcome;
	char where[96];

	if (!t->armed) {
		report(k, false, "timer: armed across the event");
		report_info(k, "%s", t->problem);
		return;
	}
	report(k, timer_on_time(t), "timer: no interrupt before its deadline");
	where[0] = '\0';
	if (o->early)
		snprintf(where, sizeof(where),
			 ", %.3f ms after ready (the longest gap %.3f ms from "
			 "%.3f)",
			 t->earliest_at_ns / 1e6, t->gap_ns / 1e6,
			 t->gap_at_ns / 1e6);
	report_info(k,
		    "%s: %llu early of %llu, earliest %.3f us against the "
		    "deadline (grid uncertainty %.3f us)%s",
		    t->source, (unsigned long long)o->early,
		    (unsigned long long)o->interrupts, t->earliest_ns / 1e3,
		    t->slack_ns / 1e3, where);
	report_figure(k, "earliest_ns", t->earliest_ns);
	report_figure(k, "slack_ns", t->slack_ns);
	report_tolerance(k, "lifecycle_timer_early_max_ns",
			 LIFECYCLE_TIMER_EARLY_MAX_NS);
	if (!e->answered)
		return;
	report(k, o->fired_after && !t->gave_up,
	       "timer: the pending timer fires after the event");
	if (o->fired_after)
		report_info(k,
			    "%s: %.3f ms late; %llu due in the gap, burst "
			    "%llu, lost %llu, skipped %llu",
			    timer_behaviour(t), t->first_after_late_ns / 1e6,
			    (unsigned long long)o->due_in_gap,
			    (unsigned long long)o->burst,
			    (unsigned long long)o->lost,
			    (unsigned long long)t->skipped);
	else
		report_info(k,
			    "no interrupt after CPU 0's longest gap (%.3f ms) "
			    "within %.0f ms of \"done\"%s",
			    t->gap_ns / 1e6, t->after_done_ns / 1e6,
			    t->gave_up ? "; ring 0 gave up on interrupts" : "");
	report_figure(k, "first_after_late_ns", t->first_after_late_ns);
	report_figure(k, "due_in_gap", (double)o->due_in_gap);
	report_figure(k, "burst", (double)o->burst);
	report_figure(k, "lost", (double)o->lost);
}

static void event_checks(const struct lifecycle_result *l,
			 const struct lifecycle_event *e, struct ktap *k)
{
	const struct lifecycle_clock *base = step_base(e);
	unsigned int c;

	if (e->answered) {
		report(k, true, "the host answered");
		if (isnan(e->round_trip_after_ns))
			report_info(k,
				    "%s: host window %.3f ms, round trip "
				    "%.3f ms",
				    kind_of(e), host_window_ns(&e->host) / 1e6,
				    e->round_trip_ns / 1e6);
		else
			report_info(k,
				    "%s: host window %.3f ms, round trip "
				    "%.3f ms, %.3f ms after the event",
				    kind_of(e), host_window_ns(&e->host) / 1e6,
				    e->round_trip_ns / 1e6,
				    e->round_trip_after_ns / 1e6);
		report_figure(k, "host_window_ns", host_window_ns(&e->host));
		report_figure(k, "host_event_ns", host_event_ns(&e->host));
		report_figure(k, "round_trip_ns", e->round_trip_ns);
		if (!isnan(e->round_trip_after_ns))
			report_figure(k, "round_trip_after_ns",
				      e->round_trip_after_ns);
	} else {
		report_error(k, "the host answered");
		report_info(k, "%s", e->problem);
	}
	for (c = 0; e->sampled && c < e->nr_clocks; c++) {
		const struct lifecycle_clock *lc = &e->clocks[c];
		struct behaviour b = judge_clock(e, lc);

		report(k, lc->back_steps <= BACKWARD_STEPS_MAX,
		       "%s never steps back on any vCPU", lc->clock->name);
		if (!e->answered)
			report_info(k, "%llu steps back",
				    (unsigned long long)lc->back_steps);
		else if (lc->back_steps)
			report_info(k,
				    "%llu steps back, worst %.0f ns on CPU "
				    "%u; %s %+.3f ms",
				    (unsigned long long)lc->back_steps,
				    lc->worst_back_ns, lc->back_cpu, b.name,
				    b.excess_ns / 1e6);
		else
			report_info(k,
				    "%s: %+.3f ms against the host (+-%.3f)"
				    "; %s-%s stepped %+.3f ms",
				    b.name, b.excess_ns / 1e6, b.bound_ns / 1e6,
				    STEP_BASE_CLOCK, lc->clock->name,
				    base ? (base->advance_ns - lc->advance_ns) /
						    1e6
					 : NAN);
		report_figure(k, "back_steps", (double)lc->back_steps);
		report_figure(k, "worst_back_ns", lc->worst_back_ns);
		if (e->answered) {
			report_figure(k, "excess_ns", b.excess_ns);
			report_figure(k, "bound_ns", b.bound_ns);
		}
		report_tolerance(k, "backward_steps_max", BACKWARD_STEPS_MAX);
	}
	if (e->cpus_to_resume) {
		report(k, e->cpus_resumed == e->cpus_to_resume,
		       "every vCPU comes back from the restore");
		report_info(k, "%u of %u other vCPU(s) set up again%s%s",
			    e->cpus_resumed, e->cpus_to_resume,
			    e->cpu_resume_problem[0] ? ": " : "",
			    e->cpu_resume_problem);
		report_figure(k, "cpus_resumed", (double)e->cpus_resumed);
		report_figure(k, "cpus_to_resume", (double)e->cpus_to_resume);
	}
	if (e->answered)
		offsets_check(l, e, k);
	if (e->sampled && l->timer)
		timer_checks(e, k);
	/* KVM marks every vCPU's record when the VM was stopped (so that a
	 * guest's soft lockup watchdog can forgive the gap). */
	if (e->answered && e->pvclock.present && e->pvclock.clock &&
	    !strcmp(e->pvclock.clock, "kvm_clock") &&
	    !strcmp(kind_of(e), "stop")) {
		report(k, e->pvclock.stopped_seen,
		       "kvm_clock: PVCLOCK_GUEST_STOPPED is seen after a stop");
		report_info(k, "flags %#x before, %#x after",
			    e->pvclock.flags_before, e->pvclock.flags_after);
	}
}

void report_lifecycle_checks(const struct run_report *run, struct ktap *k)
{
	const struct lifecycle_result *l = &run->lifecycle;
	unsigned int i;

	if (!l->asked)
		return;
	if (!l->applies) {
		report_error(k, "events: the event points run");
		report_info(k, "%s", l->reason);
		return;
	}
	for (i = 0; i < l->nr; i++) {
		report_prefix_push(k, "event %u: ", l->events[i].seq);
		event_checks(l, &l->events[i], k);
		report_prefix_pop(k);
	}
	if (l->nr < l->asked) {
		report_error(k, "events: every event point was reached");
		report_info(k, "%u of %u: the host stopped answering", l->nr,
			    l->asked);
	}
}

/* --- JSON ---------------------------------------------------------------------- */

static void host_json(struct json_writer *w, const char *key,
		      const struct host_event *h)
{
	unsigned int i;

	json_object_begin(w, key);
	for (i = 0; i < HOST_NR_KEYS; i++)
		json_uint_if(w, hostline_key_name((enum hostline_key)i),
			     host_event_has(h, (enum hostline_key)i),
			     h->value[i]);
	json_object_end(w);
}

static void clock_json(struct json_writer *w, const struct lifecycle_result *l,
		       const struct lifecycle_event *e,
		       const struct lifecycle_clock *c)
{
	const struct lifecycle_clock *base = step_base(e);
	struct behaviour b = judge_clock(e, c);
	unsigned int cpu;

	json_object_begin(w, NULL);
	json_string(w, "clock", c->clock->name);
	json_double(w, "advance_ns", c->advance_ns);
	if (e->answered) {
		json_string(w, "behaviour", b.name);
		json_double(w, "excess_ns", b.excess_ns);
		json_double(w, "bound_ns", b.bound_ns);
	} else {
		json_null(w, "behaviour");
		json_null(w, "excess_ns");
		json_null(w, "bound_ns");
	}
	/* json_double() writes a NaN (not measured) as null. */
	json_double(w, "step_from_tsc_ns",
		    base ? base->advance_ns - c->advance_ns : NAN);
	json_double(w, "largest_step_ns", c->largest_step_ns);
	json_double(w, "step_at_ns", c->step_at_ns);
	json_double(w, "step_from_ns", c->step_from_ns);
	json_double(w, "rate_before_ppm", c->rate_before_ppm);
	json_double(w, "rate_after_ppm", c->rate_after_ppm);
	json_double(w, "cost_before_ns", c->cost_before_ns);
	json_double(w, "cost_after_ns", c->cost_after_ns);
	json_uint(w, "back_steps", c->back_steps);
	json_double(w, "worst_back_ns", c->worst_back_ns);
	json_array_begin(w, "offsets");
	for (cpu = 1; cpu < l->ncpu && cpu < MAX_CPUS; cpu++) {
		const typeof(c->cpu[cpu]) *o = &c->cpu[cpu];

		if (!o->ok_before && !o->ok_after)
			continue;
		json_object_begin(w, NULL);
		json_uint(w, "cpu", cpu);
		json_double_if(w, "before_ns", o->ok_before, o->before_ns);
		json_double_if(w, "before_uncertainty_ns", o->ok_before,
			       o->before_unc_ns);
		json_double_if(w, "after_ns", o->ok_after, o->after_ns);
		json_double_if(w, "after_uncertainty_ns", o->ok_after,
			       o->after_unc_ns);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static void timer_json(struct json_writer *w, const struct lifecycle_event *e)
{
	const struct lifecycle_timer *t = &e->timer;
	const struct tick_pending *o = &t->outcome;

	if (!t->armed && !t->problem[0]) {
		json_null(w, "timer");
		return;
	}
	json_object_begin(w, "timer");
	json_string(w, "source", t->source);
	json_bool(w, "armed", t->armed);
	json_string(w, "problem", t->problem[0] ? t->problem : NULL);
	if (t->armed) {
		json_bool(w, "oneshot", t->oneshot);
		json_double(w, "period_ns", t->period_ns);
		json_double(w, "gap_ns", t->gap_ns);
		json_double(w, "gap_at_ns", t->gap_at_ns);
		json_double(w, "window_ns", t->window_ns);
		json_double(w, "after_done_ns", t->after_done_ns);
		json_double(w, "slack_ns", t->slack_ns);
		json_uint(w, "due", o->due);
		json_uint(w, "due_in_gap", o->due_in_gap);
		json_double(w, "host_due",
			    e->answered ? timer_host_due(e) : NAN);
		json_uint(w, "interrupts", o->interrupts);
		json_uint(w, "total", t->total);
		json_uint(w, "recorded", t->recorded);
		json_uint(w, "early", o->early);
		json_double(w, "earliest_ns", t->earliest_ns);
		json_double(w, "earliest_at_ns", t->earliest_at_ns);
		json_bool(w, "fired_after", o->fired_after);
		json_double(w, "first_after_late_ns",
			    o->fired_after ? t->first_after_late_ns : NAN);
		json_uint(w, "burst", o->burst);
		json_uint(w, "lost", o->lost);
		json_uint(w, "skipped", t->skipped);
		json_bool(w, "gave_up", t->gave_up);
		json_string(w, "behaviour", timer_behaviour(t));
	}
	json_object_end(w);
}

static void heartbeat_json(struct json_writer *w,
			   const struct lifecycle_event *e)
{
	unsigned int i, k;

	if (!e->nr_beats) {
		json_null(w, "heartbeat");
		return;
	}
	json_object_begin(w, "heartbeat");
	json_double(w, "interval_ns", e->beat_interval_ns);
	json_array_begin(w, "clocks");
	for (k = 0; k < e->nr_clocks; k++)
		json_string(w, NULL, e->clocks[k].clock->name);
	json_array_end(w);
	json_array_begin(w, "beats");
	for (i = 0; i < e->nr_beats; i++) {
		json_array_begin(w, NULL);
		json_double(w, NULL, e->beats[i].tsc_ns);
		for (k = 0; k < e->nr_clocks; k++)
			json_double(w, NULL, e->beats[i].advance_ns[k]);
		json_array_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static void event_json(struct json_writer *w, const struct lifecycle_result *l,
		       const struct lifecycle_event *e)
{
	const struct lifecycle_pvclock *p = &e->pvclock;
	unsigned int k, cpu;

	json_object_begin(w, NULL);
	json_uint(w, "seq", e->seq);
	json_string(w, "kind", e->kind[0] ? e->kind : NULL);
	json_bool(w, "answered", e->answered);
	json_bool(w, "aborted", e->aborted);
	json_string(w, "problem", e->problem[0] ? e->problem : NULL);
	json_double(w, "round_trip_ns", e->round_trip_ns);
	json_double(w, "round_trip_after_ns", e->round_trip_after_ns);
	json_uint(w, "pings", e->pings);
	json_double(w, "read_rounds_ns", e->read_rounds_ns);
	json_double(w, "waited_ns", e->waited_ns);
	host_json(w, "host", &e->host);
	json_uint(w, "suspended", e->suspended);
	json_string(w, "platform_said",
		    e->platform_said[0] ? e->platform_said : NULL);
	json_uint(w, "stray_input_lines", e->stray_lines);
	json_uint(w, "cpus_to_resume", e->cpus_to_resume);
	json_uint(w, "cpus_resumed", e->cpus_resumed);
	json_string(w, "cpu_resume_problem",
		    e->cpu_resume_problem[0] ? e->cpu_resume_problem : NULL);
	json_array_begin(w, "loops");
	for (cpu = 0; cpu < l->ncpu && cpu < MAX_CPUS; cpu++)
		json_uint(w, NULL, e->loops[cpu]);
	json_array_end(w);
	json_array_begin(w, "clocks");
	for (k = 0; k < e->nr_clocks; k++)
		clock_json(w, l, e, &e->clocks[k]);
	json_array_end(w);
	timer_json(w, e);
	heartbeat_json(w, e);
	if (p->present) {
		json_object_begin(w, "pvclock");
		json_string(w, "clock", p->clock);
		json_uint_if(w, "version_before", p->ok_before,
			     p->version_before);
		json_uint_if(w, "version_after", p->ok_after, p->version_after);
		json_uint_if(w, "flags_before", p->ok_before, p->flags_before);
		json_uint_if(w, "flags_after", p->ok_after, p->flags_after);
		json_bool(w, "tsc_stable_before",
			  p->flags_before & XEN_PVCLOCK_TSC_STABLE_BIT);
		json_bool(w, "tsc_stable_after",
			  p->flags_after & XEN_PVCLOCK_TSC_STABLE_BIT);
		json_bool(w, "guest_stopped_seen", p->stopped_seen);
		json_uint(w, "updates", p->updates);
		json_object_end(w);
	} else {
		json_null(w, "pvclock");
	}
	json_object_end(w);
}

void report_lifecycle_json(const struct run_report *run, struct json_writer *w)
{
	const struct lifecycle_result *l = &run->lifecycle;
	unsigned int i;

	if (!l->asked)
		return; /* the member only in a run that asked for events */
	json_object_begin(w, "lifecycle");
	json_uint(w, "asked", l->asked);
	json_bool(w, "applies", l->applies);
	json_string(w, "reason", l->applies ? NULL : l->reason);
	json_uint(w, "wait_ms", l->wait_ms);
	json_string(w, "left_out", l->left_out[0] ? l->left_out : NULL);
	json_string(w, "timer", l->timer ? l->timer->name : NULL);
	json_string(w, "timer_why", l->timer_why[0] ? l->timer_why : NULL);
	json_array_begin(w, "events");
	for (i = 0; i < l->nr; i++)
		event_json(w, l, &l->events[i]);
	json_array_end(w);
	json_object_end(w);
}
