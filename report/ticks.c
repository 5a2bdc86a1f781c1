// SPDX-License-Identifier: MIT
/* The tick section, its checks and the JSON "ticks" (see report/run.h). */
#include <math.h>
#include <stdio.h>

#include "report/run.h"
#include "report/tolerances.h"

static const char *state_name(enum tick_rate_state state)
{
	return state == TICK_RATE_MEASURED	? "measured"
	       : state == TICK_RATE_UNREACHABLE ? "unreachable"
						: "failed";
}

static void print_us(double ns, int width)
{
	printf(" %*.1f", width, ns / 1000);
}

static void print_rate(const struct tick_source *s,
		       const struct tick_rate_result *r)
{
	printf("  %-12s %8u", s->name, r->requested_hz);
	if (r->state != TICK_RATE_MEASURED) {
		printf("  %s: %s\n",
		       r->state == TICK_RATE_UNREACHABLE ? "cannot reach"
							 : "failed",
		       r->problem);
		return;
	}
	printf(" %10.1f %7.2f ± %-5.2f %10.0f %11llu", r->delivered_hz,
	       r->stolen_pct, r->noise_pct, r->cycles_per_interrupt,
	       (unsigned long long)r->handler_cycles.p50);
	if (r->recorded && r->lateness_known) {
		print_us((double)r->lateness_ns.p50, 11);
		print_us((double)r->lateness_ns.p99, 8);
		print_us((double)r->lateness_ns.max, 8);
	} else {
		printf(" %11s %8s %8s", "-", "-", "-");
	}
	printf("  %s\n", r->problem);
}

static const char *lateness_basis(const struct tick_start *st)
{
	if (st->no_expiries)
		return "; lateness not measured: the timer names no expiry "
		       "the guest can see";
	return st->oneshot ? "; lateness against each deadline written"
			   : "; lateness against the period's expiries";
}

/* " n (p50 .., p99 .., max .. us)" of one part of the split. */
static void print_part(const struct tick_spread *sp)
{
	printf(" %zu", sp->n);
	if (sp->n)
		printf(" (p50 %.1f, p99 %.1f, max %.1f us)",
		       (double)sp->p50 / 1000, (double)sp->p99 / 1000,
		       (double)sp->max / 1000);
}

/* One rate's steal, and its lateness split by it. */
static void print_rate_steal(const struct tick_source *s,
			     const struct tick_rate_result *r)
{
	const struct tick_steal *st = &r->steal;

	if (r->state != TICK_RATE_MEASURED || !st->traced)
		return;
	printf("  %-12s at %u Hz: steal %.1f ms, %.1f %% of the window",
	       s->name, r->requested_hz, (double)st->steal_ns / 1e6,
	       r->window_s > 0
		       ? 100.0 * (double)st->steal_ns / (r->window_s * 1e9)
		       : 0);
	if (r->recorded && r->lateness_known) {
		printf("; late while taken away");
		print_part(&st->lateness.taken_ns);
		printf(", not taken away");
		print_part(&st->lateness.not_taken_ns);
		if (st->lateness.untold)
			printf(", %llu untold (outside the loop's reads%s)",
			       (unsigned long long)st->lateness.untold,
			       st->spans_dropped ? ", or past a dropped span"
						 : "");
	}
	if (st->spans_dropped)
		printf("; %llu spans of steal dropped (no room)",
		       (unsigned long long)st->spans_dropped);
	if (st->failed_reads)
		printf("; %llu reads of the record never settled",
		       (unsigned long long)st->failed_reads);
	printf("\n");
}

/* The steal record the windows read, or why none: once, as the noise
 * section says it, then a line per measured rate. */
static void print_steal(const struct ticks_result *t)
{
	const struct tick_source_result *res;
	unsigned int j;

	if (report_steal_unread(&t->steal))
		return;
	printf("  steal: %s, read once a chunk of the loop; an interrupt was "
	       "late while taken away when the record grew between its "
	       "expiry and its entry (to within two chunks either side)\n",
	       t->steal.words);
	for (res = t->sources; res < t->sources + t->nr; res++)
		for (j = 0; res->source->present && j < res->nr_rates; j++)
			print_rate_steal(res->source, &res->rates[j]);
}

void report_ticks_print(const struct run_report *run)
{
	const struct ticks_result *t = &run->ticks;
	const struct tick_source_result *res;
	unsigned int j;

	printf("# ticks\n");
	if (!t->applied) {
		printf("  not measured: %s\n", t->not_applied);
		return;
	}
	printf("  CPU 0 runs a work loop for %u ms at each rate with the "
	       "timer on. CPU lost = the loop's slowdown against the same "
	       "loop with no timer (± how far the loop's own speed moved "
	       "before, after and during); cyc/intr = cycles lost per "
	       "interrupt; "
	       "handler = entry to exit of the interrupt (p50, cycles); "
	       "lateness = "
	       "entry against the expiry each interrupt was for (us)\n",
	       t->window_ms);
	printf("  %-12s %8s %10s %15s %10s %11s %11s %8s %8s  %s\n", "source",
	       "rate Hz", "intr/s", "CPU lost %", "cyc/intr", "handler cyc",
	       "late p50 us", "p99 us", "max us", "notes");
	for (res = t->sources; res < t->sources + t->nr; res++) {
		const struct tick_source *s = res->source;

		if (!s->present) {
			printf("  %-12s absent: %s\n", s->name,
			       s->absent_reason);
			continue;
		}
		for (j = 0; j < res->nr_rates; j++)
			print_rate(s, &res->rates[j]);
	}
	for (res = t->sources; res < t->sources + t->nr; res++) {
		const struct tick_source *s = res->source;

		if (!s->present)
			continue;
		printf("  %-12s %s: %s\n", s->name, s->description, s->notes);
		for (j = 0; j < res->nr_rates; j++)
			if (res->rates[j].state == TICK_RATE_MEASURED)
				printf("  %-12s at %u Hz: %s, %.3f Hz "
				       "programmed%s\n",
				       "", res->rates[j].requested_hz,
				       res->rates[j].start.notes,
				       res->rates[j].start.programmed_hz,
				       lateness_basis(&res->rates[j].start));
	}
	print_steal(t);
	if (t->stray_interrupts)
		printf("  %lu stray interrupts (a masked PIC's, or the APIC's "
		       "spurious vector) arrived meanwhile\n",
		       t->stray_interrupts);
	if (t->cpus_parked)
		printf("  the other %u CPUs halted meanwhile%s\n",
		       t->cpus_parked,
		       t->cpus_not_woken ? "; some did not wake again" : "");
}

static const struct tick_rate_result *
find_rate(const struct tick_source_result *res, unsigned int hz)
{
	unsigned int j;

	for (j = 0; j < res->nr_rates; j++)
		if (res->rates[j].requested_hz == hz)
			return &res->rates[j];
	return NULL;
}

/* The delivery check's name, the same whatever it finds. */
#define DELIVERY_CHECK "at %u Hz, delivers within %.0f %% of the rate asked"

/* What a measured rate's delivery was judged on, and against. */
static void delivery_values(const struct tick_rate_result *r, struct ktap *k)
{
	report_figure(k, "delivered_hz", r->delivered_hz);
	report_figure(k, "typical_hz", r->typical_hz);
	report_figure(k, "long_gaps", (double)r->long_gaps);
	report_tolerance(k, "tick_delivered_tolerance_pct",
			 TICK_DELIVERED_TOLERANCE_PCT);
	report_tolerance(k, "tick_long_gap_periods", TICK_LONG_GAP_PERIODS);
}

static void check_delivery(const struct tick_source_result *res, struct ktap *k)
{
	const struct tick_rate_result *r = find_rate(res, TICK_CHECKED_RATE_HZ);

	if (!r)
		return;
	if (r->state == TICK_RATE_UNREACHABLE) {
		report_skip(k, DELIVERY_CHECK, TICK_CHECKED_RATE_HZ,
			    TICK_DELIVERED_TOLERANCE_PCT);
		report_info(k, "it cannot run at that rate: %s", r->problem);
	} else if (r->state == TICK_RATE_FAILED) {
		report(k, false, DELIVERY_CHECK, TICK_CHECKED_RATE_HZ,
		       TICK_DELIVERED_TOLERANCE_PCT);
		report_info(k, "%s", r->problem);
	} else if (!r->reached && r->start.no_expiries &&
		   r->delivered_hz < r->requested_hz) {
		/* Each interrupt is timed from the last one sent: any delay
		 * is carried into all that follow. */
		report_skip(k, DELIVERY_CHECK, TICK_CHECKED_RATE_HZ,
			    TICK_DELIVERED_TOLERANCE_PCT);
		report_info(k,
			    "%.1f interrupts a second (median interval: %.1f): "
			    "it times each interrupt from the last one it "
			    "sent, so every delay lowers the rate, and only "
			    "too many would be wrong",
			    r->delivered_hz, r->typical_hz);
		delivery_values(r, k);
	} else if (!r->reached &&
		   tick_rate_reached(r->typical_hz, r->requested_hz)) {
		/* The timer kept time while the guest ran; the host held the
		 * guest up and expiries were lost meanwhile. */
		report_skip(k, DELIVERY_CHECK, TICK_CHECKED_RATE_HZ,
			    TICK_DELIVERED_TOLERANCE_PCT);
		report_info(
			k,
			"%.1f interrupts a second, but its median interval "
			"gives %.1f: %llu gaps over %.1f periods, where the "
			"host held the guest up, so delivery is not judged",
			r->delivered_hz, r->typical_hz,
			(unsigned long long)r->long_gaps,
			TICK_LONG_GAP_PERIODS);
		delivery_values(r, k);
	} else {
		report(k, r->reached, DELIVERY_CHECK, TICK_CHECKED_RATE_HZ,
		       TICK_DELIVERED_TOLERANCE_PCT);
		report_info(k, "%.1f interrupts a second", r->delivered_hz);
		delivery_values(r, k);
	}
	report_tolerance(k, "tick_checked_rate_hz", TICK_CHECKED_RATE_HZ);
}

/* How far inside its bounds a rate's CPU lost lies (below 0: outside), in
 * points: from -max(STOLEN_NOISE_SPREADS × noise + STOLEN_NOISE_MARGIN_PCT,
 * STOLEN_NOISE_FLOOR_PCT) up to 100; NaN (a missing figure) is outside. */
static double stolen_margin_pct(const struct tick_rate_result *r)
{
	double floor_pct =
		-fmax(STOLEN_NOISE_SPREADS *
				      (isnan(r->noise_pct) ? 0 : r->noise_pct) +
			      STOLEN_NOISE_MARGIN_PCT,
		      STOLEN_NOISE_FLOOR_PCT);
	double margin = fmin(r->stolen_pct - floor_pct, 100.0 - r->stolen_pct);

	return isnan(margin) ? -INFINITY : margin;
}

static void check_stolen(const struct tick_source_result *res, struct ktap *k)
{
	const struct tick_rate_result *nearest = NULL;
	char text[KTAP_INFO_LEN - 80];
	size_t used = 0;
	unsigned int j;

	text[0] = '\0';
	for (j = 0; j < res->nr_rates; j++) {
		const struct tick_rate_result *r = &res->rates[j];

		if (r->state != TICK_RATE_MEASURED)
			continue;
		if (!nearest ||
		    stolen_margin_pct(r) < stolen_margin_pct(nearest))
			nearest = r;
		if (used < sizeof(text))
			used += snprintf(text + used, sizeof(text) - used,
					 "%s%u Hz %.2f ± %.2f", j ? ", " : "",
					 r->requested_hz, r->stolen_pct,
					 r->noise_pct);
	}
	if (!nearest)
		return;
	report(k, stolen_margin_pct(nearest) >= 0,
	       "CPU lost lies between 0 and 100 %% at every rate, give or take "
	       "the loop's own variation");
	report_info(k,
		    "%s (below 0 allowed: %.0f times the variation plus %.0f, "
		    "at least %.0f points)",
		    text, STOLEN_NOISE_SPREADS, STOLEN_NOISE_MARGIN_PCT,
		    STOLEN_NOISE_FLOOR_PCT);
	/* The rate nearest its bounds decides: its figures. */
	report_figure(k, "rate_hz", nearest->requested_hz);
	report_figure(k, "cpu_stolen_pct", nearest->stolen_pct);
	report_figure(k, "noise_pct", nearest->noise_pct);
	report_tolerance(k, "stolen_noise_spreads", STOLEN_NOISE_SPREADS);
	report_tolerance(k, "stolen_noise_margin_pct", STOLEN_NOISE_MARGIN_PCT);
	report_tolerance(k, "stolen_noise_floor_pct", STOLEN_NOISE_FLOOR_PCT);
}

static void check_lateness(const struct tick_source_result *res, struct ktap *k)
{
	const struct tick_rate_result *nearest = NULL;
	double earliest = INFINITY, allowed = 0, nearest_margin_ns = 0;
	unsigned int j;
	bool ok = true;

	for (j = 0; j < res->nr_rates; j++) {
		const struct tick_rate_result *r = &res->rates[j];
		double margin_ns;

		if (r->state != TICK_RATE_MEASURED || !r->recorded ||
		    !r->lateness_known)
			continue;
		if ((double)r->lateness_ns.min < earliest) {
			earliest = (double)r->lateness_ns.min;
			allowed = r->grid_uncertainty_ns;
		}
		if ((double)r->lateness_ns.min < -r->grid_uncertainty_ns)
			ok = false;
		/* The rate whose earliest interrupt came nearest to being
		 * before its expiry's earliest place decides. */
		margin_ns = (double)r->lateness_ns.min + r->grid_uncertainty_ns;
		if (!nearest || margin_ns < nearest_margin_ns) {
			nearest = r;
			nearest_margin_ns = margin_ns;
		}
	}
	if (isinf(earliest))
		return;
	report(k, ok,
	       "no interrupt came before its expiry, within what the expiries "
	       "are known to");
	report_info(k, "earliest %+.0f ns, expiries known to %.0f ns", earliest,
		    allowed);
	report_figure(k, "rate_hz", nearest->requested_hz);
	report_figure(k, "lateness_min_ns", (double)nearest->lateness_ns.min);
	report_figure(k, "grid_uncertainty_ns", nearest->grid_uncertainty_ns);
}

void report_ticks_checks(const struct run_report *run, struct ktap *k)
{
	const struct ticks_result *t = &run->ticks;
	const struct tick_source_result *res;

	if (!t->applied) {
		report_skip(k, "ticks");
		report_info(k, "%s", t->not_applied);
		return;
	}
	for (res = t->sources; res < t->sources + t->nr; res++) {
		const struct tick_source *s = res->source;

		report_prefix_push(k, "ticks: %s: ", s->name);
		report(k, s->present || s->absent_reason[0],
		       "present, or absent with a reason");
		if (s->present)
			report_info(k, "present");
		else
			report_info(k, "absent: %s", s->absent_reason);
		if (s->present) {
			check_delivery(res, k);
			check_stolen(res, k);
			check_lateness(res, k);
		}
		report_prefix_pop(k);
	}
}

/* --- JSON ------------------------------------------------------------------ */

static void json_spread(struct json_writer *w, const char *key,
			const struct tick_spread *sp)
{
	json_object_begin(w, key);
	json_int(w, "min", sp->min);
	json_int(w, "p50", sp->p50);
	json_int(w, "p90", sp->p90);
	json_int(w, "p99", sp->p99);
	json_int(w, "p999", sp->p999);
	json_int(w, "max", sp->max);
	json_object_end(w);
}

/* {"count", "p50", "p99", "max"} of one part of the split. */
static void json_part(struct json_writer *w, const char *key,
		      const struct tick_spread *sp)
{
	json_object_begin(w, key);
	json_uint(w, "count", sp->n);
	if (sp->n) {
		json_int(w, "p50", sp->p50);
		json_int(w, "p99", sp->p99);
		json_int(w, "max", sp->max);
	} else {
		json_null(w, "p50");
		json_null(w, "p99");
		json_null(w, "max");
	}
	json_object_end(w);
}

/* The window's steal and the lateness split by it; null where the run
 * read no steal record. */
static void json_rate_steal(struct json_writer *w,
			    const struct tick_rate_result *r)
{
	const struct tick_steal *st = &r->steal;
	bool split = r->recorded && r->lateness_known;

	if (!st->traced) {
		json_null(w, "steal");
		return;
	}
	json_object_begin(w, "steal");
	json_uint(w, "total_ns", st->steal_ns);
	json_uint(w, "spans", st->spans);
	json_uint(w, "spans_dropped", st->spans_dropped);
	json_uint(w, "failed_reads", st->failed_reads);
	if (split) {
		json_part(w, "preempted_lateness_ns", &st->lateness.taken_ns);
		json_part(w, "not_preempted_lateness_ns",
			  &st->lateness.not_taken_ns);
	} else {
		json_null(w, "preempted_lateness_ns");
		json_null(w, "not_preempted_lateness_ns");
	}
	json_uint_if(w, "unclassified", split, st->lateness.untold);
	json_object_end(w);
}

static void json_rate(struct json_writer *w, const struct tick_rate_result *r)
{
	bool m = r->state == TICK_RATE_MEASURED;

	json_object_begin(w, NULL);
	json_uint(w, "requested_hz", r->requested_hz);
	json_string(w, "state", state_name(r->state));
	json_string(w, "problem", r->problem[0] ? r->problem : NULL);
	if (!m) {
		json_object_end(w);
		return;
	}
	json_double(w, "programmed_hz", r->start.programmed_hz);
	json_string(w, "mode", r->start.oneshot ? "oneshot" : "periodic");
	json_string(w, "setup", r->start.notes);
	json_double(w, "window_ms", r->window_s * 1e3);
	json_uint(w, "interrupts", r->interrupts);
	json_double(w, "interrupts_per_s", r->delivered_hz);
	json_bool(w, "reached", r->reached);
	json_double(w, "typical_hz", r->typical_hz);
	json_uint(w, "long_gaps", r->long_gaps);
	json_double(w, "cpu_stolen_pct", r->stolen_pct);
	json_double(w, "noise_pct", r->noise_pct);
	json_double(w, "cycles_per_interrupt", r->cycles_per_interrupt);
	json_uint(w, "work_chunks", r->chunks);
	json_double(w, "disturbed_ms", r->disturbed_ms);
	json_double(w, "baseline_cycles_per_chunk",
		    r->baseline_cycles_per_chunk);
	json_double(w, "quiet_cycles_per_chunk", r->quiet_cycles_per_chunk);
	json_uint(w, "records", r->recorded);
	if (r->recorded && r->hists)
		json_hist_distribution(w, "handler_cycles",
				       &r->hists->handler_cycles);
	else
		json_stats(w, "handler_cycles", &r->handler_cycles,
			   r->recorded);
	if (r->recorded && r->lateness_known && r->hists)
		json_hist_distribution(w, "lateness_ns",
				       &r->hists->lateness_ns);
	else if (r->recorded && r->lateness_known)
		json_spread(w, "lateness_ns", &r->lateness_ns);
	else
		json_null(w, "lateness_ns");
	json_double(w, "grid_uncertainty_ns", r->grid_uncertainty_ns);
	json_bool(w, "expiries_known", !r->start.no_expiries);
	json_uint(w, "skipped", r->skipped);
	json_bool(w, "gave_up", r->gave_up);
	json_rate_steal(w, r);
	json_object_end(w);
}

void report_ticks_json(const struct run_report *run, struct json_writer *w)
{
	const struct ticks_result *t = &run->ticks;
	const struct tick_source_result *res;
	unsigned int j;

	json_object_begin(w, "ticks");
	json_bool(w, "applies", t->applied);
	json_string(w, "reason", t->applied ? NULL : t->not_applied);
	json_uint(w, "tick_ms", t->window_ms);
	json_double(w, "chunk_cycles", t->applied ? t->chunk_cycles : NAN);
	json_uint(w, "stray_interrupts", t->stray_interrupts);
	json_uint(w, "cpus_parked", t->cpus_parked);
	json_uint(w, "cpus_not_woken", t->cpus_not_woken);
	json_string(w, "steal_interface",
		    t->applied && t->steal.kind != STEAL_NONE
			    ? steal_kind_name(t->steal.kind)
			    : NULL);
	json_string(w, "steal_words", t->applied ? t->steal.words : NULL);
	json_string(w, "steal_reason",
		    t->applied && t->steal.kind != STEAL_NONE && !t->steal.ok
			    ? t->steal.why
			    : NULL);
	json_array_begin(w, "sources");
	for (res = t->sources; t->applied && res < t->sources + t->nr; res++) {
		const struct tick_source *s = res->source;

		json_object_begin(w, NULL);
		json_string(w, "name", s->name);
		json_string(w, "description", s->description);
		json_bool(w, "present", s->present);
		json_string(w, "absent_reason",
			    s->present ? NULL : s->absent_reason);
		json_string(w, "notes", s->present ? s->notes : "");
		if (s->present && t->tsc_hz > 0)
			json_double(w, "baseline_disturbed_ms",
				    (double)res->baseline_disturbed_cycles *
					    1e3 / t->tsc_hz);
		else
			json_null(w, "baseline_disturbed_ms");
		json_array_begin(w, "rates");
		for (j = 0; j < res->nr_rates; j++)
			json_rate(w, &res->rates[j]);
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
