// SPDX-License-Identifier: MIT
/*
 * The per-clock results: the table, the checks drawn from them, and the
 * JSON "clocks" (see report/run.h).
 */
#include <stdio.h>
#include <string.h>

#include "lib/figure.h"
#include "lib/hist.h"
#include "report/run.h"
#include "report/tolerances.h"

/* One cell of the table: @value in its column's unit, thousands grouped. */
static void print_cell(double value, unsigned int decimals, int width)
{
	char buf[FIGURE_LEN];

	printf(" %*s", width,
	       figure_grouped(buf, sizeof(buf), value, decimals));
}

/* The accesses that took the #GP detour, over a clock's ports. */
static long port_detours(const struct clock_result *r)
{
	long sum = 0;
	unsigned int i;

	for (i = 0; i < r->nr_ports; i++)
		if (r->port_use[i].detours > 0)
			sum += r->port_use[i].detours;
	return sum;
}

/* The path a clock's port reads took, judged by the worst of its ports. */
static enum port_path clock_port_path(const struct clock_result *r)
{
	enum port_path path = PORT_NATIVE;
	unsigned int i;

	for (i = 0; i < r->nr_ports; i++)
		if (r->port_use[i].path > path)
			path = r->port_use[i].path;
	return path;
}

static const char *const port_path_keys[] = {
	[PORT_NATIVE] = "native",
	[PORT_RING0] = "ring0",
	[PORT_HYPERVISOR] = "hypervisor",
};

/* Which path @r's port accesses took, in one sentence. */
static int port_path_words(const struct clock_result *r, char *buf, size_t len,
			   const char *sep)
{
	char ports[48] = "";
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < r->nr_ports && used < sizeof(ports); i++)
		used += snprintf(ports + used, sizeof(ports) - used, "%s%#x",
				 i ? " and " : "", r->clock->ports[i]);
	switch (clock_port_path(r)) {
	case PORT_NATIVE:
		return snprintf(buf, len,
				"%sIts port accesses (%s) ran natively, "
				"without a #GP: ring 3 was allowed the "
				"port%s.",
				sep, ports, r->nr_ports > 1 ? "s" : "");
	case PORT_RING0:
		return snprintf(buf, len,
				"%sIts port accesses (%s) were emulated by "
				"ring 0 after a #GP, %ld of them: each one "
				"adds an exception round trip.",
				sep, ports, port_detours(r));
	default:
		return snprintf(buf, len,
				"%sIts port accesses (%s) are each performed "
				"by the hypervisor (a PV guest's every in and "
				"out traps).",
				sep, ports);
	}
}

/* The reference sequence's median read, in ns. */
static double sequence_ns(const struct run_report *run)
{
	const struct measure_result *m = &run->measure;

	return m->tsc_hz > 0 ? (double)m->references.sequence_read.p50 * 1e9 /
				       m->tsc_hz
			     : 0;
}

/* What the report says of @r beyond the table, in words: the table's notes
 * column, and the JSON's "notes" after the driver's own. */
static void result_notes(const struct run_report *run,
			 const struct clock_result *r, char *buf, size_t len)
{
	const struct clock *c = r->clock;
	size_t used = 0;

	buf[0] = '\0';
	if (!run->measure.timed) {
		snprintf(buf, len,
			 "not timed: the TSC's frequency is unknown, so no "
			 "cycle count can be turned into time");
		return;
	}
	if (!r->measured)
		return;
	/* What the read is, in words, as judge_read() (engine/measure.c)
	 * found it: against the native bound and the reference sequence
	 * timed the same way in this run. */
	if (r->read_path == READ_TRANSLATED)
		used += snprintf(buf + used, len - used,
				 "translated: a read takes %llu ns (median), "
				 "%.1f ns in batches; under TCG every read is "
				 "translated code, never intercepted.",
				 (unsigned long long)r->read_ns.p50,
				 r->batch_ns_per_read);
	else if (c->native_read_ns_max && r->trapped)
		used += snprintf(buf + used, len - used,
				 "trapped: a read takes %llu ns (median), "
				 "%.1f ns in batches, above the %u ns it can "
				 "take natively and %.0f times the reference "
				 "sequence (%.1f ns, %.1f in batches), so "
				 "something intercepts or emulates it.",
				 (unsigned long long)r->read_ns.p50,
				 r->batch_ns_per_read, c->native_read_ns_max,
				 TRAP_REFERENCE_FACTOR, sequence_ns(run),
				 run->measure.references.sequence_batch_ns);
	else if (c->native_read_ns_max)
		used += snprintf(buf + used, len - used,
				 "not trapped: a read takes %llu ns (median), "
				 "%.1f ns in batches, within the %u ns it can "
				 "take natively or %.0f times the reference "
				 "sequence (%.1f ns, %.1f in batches).",
				 (unsigned long long)r->read_ns.p50,
				 r->batch_ns_per_read, c->native_read_ns_max,
				 TRAP_REFERENCE_FACTOR, sequence_ns(run),
				 run->measure.references.sequence_batch_ns);
	if (r->nr_ports && used < len)
		used += port_path_words(r, buf + used, len - used,
					used ? " " : "");
	if (r->ambiguous_gaps && used < len)
		used += snprintf(
			buf + used, len - used,
			"%s%llu back-to-back reads were about as far "
			"apart as a wrap's worth of steps forward, or "
			"more than half a wrap (the guest did not run "
			"in between): their steps were counted forward.",
			used ? " " : "", (unsigned long long)r->ambiguous_gaps);
	if (r->rate_shared_from && used < len)
		used += snprintf(buf + used, len - used,
				 "%sIts rate is %s's: the same counter, so its "
				 "rate was measured once.",
				 used ? " " : "", r->rate_shared_from->name);
	if ((c->flags & CLOCK_READS_NS) && used < len)
		used += snprintf(buf + used, len - used,
				 "%sIts reads return ns: the scaling to ns is "
				 "part of every read, and conversion_ns "
				 "measures only the generic path.",
				 used ? " " : "");
}

/* The references of this run, in words: the lean TSC read against tsc's,
 * and the sequence reads are judged against. */
static void print_references(const struct measure_result *m)
{
	const struct bracket_references *ref = &m->references;
	const struct lean_agreement *a = &m->lean;

	if (a->measured)
		printf("# lean bracket (nothing between, median %llu cycles): "
		       "an inline rdtsc %llu cycles, tsc's read %llu: %s "
		       "(within %.0f %% or a TSC step of %.0f cycles)\n",
		       (unsigned long long)ref->lean_bracket.p50,
		       (unsigned long long)a->lean_p50_cycles,
		       (unsigned long long)a->read_p50_cycles,
		       a->agree ? "they agree" : "they differ",
		       LEAN_AGREEMENT_SHARE * 100, a->step_cycles);
	printf("# reference sequence (nothing intercepts it): %llu cycles "
	       "(median), %.1f ns in batches%s\n",
	       (unsigned long long)ref->sequence_read.p50,
	       ref->sequence_batch_ns,
	       m->translated ? "; under TCG no read is judged trapped" : "");
}

/* Each clock's per-read tail against the steal record, in one line: of
 * its reads above p99, how many the vCPU was taken away during. */
static void print_steal_tails(const struct measure_result *m)
{
	const struct clock_result *r;
	const char *sep = "";

	if (report_steal_unread(&m->steal))
		return;
	printf("  steal: %s, read between the per-read samples (never inside "
	       "a bracket); of each clock's reads above its p99 (beyond its "
	       "bucket), those the vCPU was taken away during:",
	       m->steal.words);
	for (r = m->clocks; r < m->clocks + m->nr; r++) {
		const struct read_steal_tail *t = &r->steal_tail;

		if (!r->measured || !t->traced)
			continue;
		printf("%s %s %llu of %llu (%llu of all %u reads)", sep,
		       r->clock->name,
		       (unsigned long long)t->tail_reads_with_steal,
		       (unsigned long long)t->tail_reads,
		       (unsigned long long)t->reads_with_steal, r->samples);
		sep = ",";
	}
	printf("\n");
}

void report_measure_print(const struct run_report *run)
{
	const struct measure_result *m = &run->measure;
	const struct clock_result *r;
	char notes[4 * CLOCK_TEXT_LEN];

	printf("# results: ns from TSC cycles at %.6f GHz; per-read cost = "
	       "lfence;rdtsc, call read, lfence;rdtsc minus the same bracket "
	       "calling nothing (median %llu cycles); rates against %s\n",
	       m->tsc_hz / 1e9, (unsigned long long)m->empty_bracket.p50,
	       m->reference ? m->reference->name : "nothing");
	print_references(m);
	printf("  %-12s %10s %10s %8s %8s %10s %12s %13s %8s %5s %9s  %s\n",
	       "clock", "p50 ns", "p99 ns", "p50 cyc", "p99 cyc", "batch ns",
	       "resol ns", "update Hz", "stalls", "back", "rate ppm", "notes");
	for (r = m->clocks; r < m->clocks + m->nr; r++) {
		if (!r->measured) {
			printf("  %-12s %s\n", r->clock->name,
			       r->clock->present ? "not measured" : "absent");
			continue;
		}
		printf("  %-12s", r->clock->name);
		print_cell((double)r->read_ns.p50, 0, 10);
		print_cell((double)r->read_ns.p99, 0, 10);
		printf(" %8llu %8llu", (unsigned long long)r->read_cycles.p50,
		       (unsigned long long)r->read_cycles.p99);
		print_cell(r->batch_ns_per_read, 1, 10);
		if (r->changed)
			print_cell(r->resolution_ns, 1, 12);
		else
			printf(" %12s", "-");
		print_cell(r->update_hz, 0, 13);
		printf(" %8llu %5llu", (unsigned long long)r->stalls,
		       (unsigned long long)r->backward_steps);
		if (r->rate_measured)
			printf(" %+9.1f", r->rate_ppm);
		else
			printf(" %9s", "-");
		printf("  %s%s\n", r->trapped ? "TRAPPED " : "",
		       r->rate_measured || !r->rate_problem[0]
			       ? ""
			       : r->rate_problem);
	}
	for (r = m->clocks; r < m->clocks + m->nr; r++) {
		result_notes(run, r, notes, sizeof(notes));
		if (notes[0])
			printf("  %-12s %s\n", r->clock->name, notes);
	}
	if (m->timed)
		print_steal_tails(m);
}

/* The checks of a clock's measurements. */
static void check_measured(const struct clock_result *r, struct ktap *k)
{
	report(k, r->changed, "advances");
	if (r->backward_steps && (r->clock->flags & CLOCK_MULTI_ACCESS) &&
	    r->nr_ports && clock_port_path(r) != PORT_NATIVE) {
		/* Each access is a #GP the hypervisor hands to ring 0 here;
		 * an access lost or repeated on the way leaves a latch stale,
		 * so a step back says as much about that path as about the
		 * clock. */
		report_skip(k, "never went backwards in back-to-back reads");
		report_info(k,
			    "went back %llu times (worst %.0f ns), but its "
			    "multi-access reads go through port-I/O emulation "
			    "here, so this is not judged",
			    (unsigned long long)r->backward_steps,
			    r->worst_backward_ns);
	} else {
		report(k, r->backward_steps <= BACKWARD_STEPS_MAX,
		       "never went backwards in back-to-back reads");
		report_info(k, "%llu steps back, worst %.0f ns",
			    (unsigned long long)r->backward_steps,
			    r->worst_backward_ns);
		report_tolerance(k, "backward_steps_max", BACKWARD_STEPS_MAX);
	}
	report_figure(k, "backward_steps", (double)r->backward_steps);
	report_figure(k, "worst_backward_ns", r->worst_backward_ns);
	if (!r->rate_measured) {
		report_skip(k, "runs at its nominal rate within %.0f ppm",
			    RATE_LIMIT_PPM);
		report_info(k, "%s", r->rate_problem);
	} else {
		report(k,
		       r->rate_ppm < RATE_LIMIT_PPM &&
			       r->rate_ppm > -RATE_LIMIT_PPM,
		       "runs at its nominal rate within %.0f ppm",
		       RATE_LIMIT_PPM);
		report_figure(k, "rate_ppm", r->rate_ppm);
		report_figure(k, "rate_uncertainty_ppm",
			      r->rate_uncertainty_ppm);
		report_tolerance(k, "rate_limit_ppm", RATE_LIMIT_PPM);
		char shared[CLOCK_TEXT_LEN] = "";

		if (r->rate_shared_from)
			snprintf(shared, sizeof(shared),
				 " (measured once, as %s: the same counter)",
				 r->rate_shared_from->name);
		report_info(k, "%+.0f ppm (± %.0f ppm) against %s%s",
			    r->rate_ppm, r->rate_uncertainty_ppm,
			    r->rate_reference->name, shared);
	}
}

void report_measure_checks(const struct run_report *run, struct ktap *k)
{
	const struct measure_result *m = &run->measure;
	const struct clock_result *r;

	if (m->timed) {
		report(k, m->empty_bracket.p50 >= EMPTY_BRACKET_MIN_CYCLES,
		       "the empty TSC bracket is measured and subtracted");
		report_info(k, "%llu cycles (median)",
			    (unsigned long long)m->empty_bracket.p50);
		report_figure(k, "empty_bracket_p50_cycles",
			      (double)m->empty_bracket.p50);
		report_tolerance(k, "empty_bracket_min_cycles",
				 EMPTY_BRACKET_MIN_CYCLES);
	}
	for (r = m->clocks; r < m->clocks + m->nr; r++) {
		if (!r->clock->present)
			continue;
		report_prefix_push(k, "%s: ", r->clock->name);
		if (r->measured)
			check_measured(r, k);
		/* The driver's own count, measured or not (probes read too). */
		if (r->clock->bad_reads) {
			report(k, r->bad_reads <= BAD_READS_MAX, "%s",
			       r->clock->bad_reads_check);
			report_info(k, "%lu did", r->bad_reads);
			report_figure(k, "bad_reads", (double)r->bad_reads);
			report_tolerance(k, "bad_reads_max", BAD_READS_MAX);
		}
		report_prefix_pop(k);
	}
}

static void json_flags(struct json_writer *w, unsigned int flags)
{
	size_t i;

	json_array_begin(w, "flags");
	for (i = 0; i < clock_flag_count; i++)
		if (flags & clock_flag_names[i].flag)
			json_string(w, NULL, clock_flag_names[i].key);
	json_array_end(w);
}

/* {"path", "ports": [{"port", "detours"}]}, or null for a clock read
 * without I/O ports (or not measured). */
static void json_port_path(struct json_writer *w, const struct clock_result *r)
{
	unsigned int i;

	if (!r->measured || !r->nr_ports) {
		json_null(w, "port_path");
		return;
	}
	json_object_begin(w, "port_path");
	json_string(w, "path", port_path_keys[clock_port_path(r)]);
	json_array_begin(w, "ports");
	for (i = 0; i < r->nr_ports; i++) {
		json_object_begin(w, NULL);
		json_uint(w, "port", r->clock->ports[i]);
		if (r->port_use[i].detours >= 0)
			json_uint(w, "detours",
				  (uint64_t)r->port_use[i].detours);
		else
			json_null(w, "detours");
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static const char *const read_path_keys[] = {
	[READ_DIRECT] = "direct",
	[READ_TRAPPED] = "trapped",
	[READ_TRANSLATED] = "translated",
};

/* {"result", "figures", "tolerance"}: judge_read()'s verdict on @r and
 * what it was made from, or null for a clock not measured. */
static void json_read_judgement(const struct run_report *run,
				struct json_writer *w,
				const struct clock_result *r)
{
	const struct bracket_references *ref = &run->measure.references;

	if (!r->measured) {
		json_null(w, "read_judgement");
		return;
	}
	json_object_begin(w, "read_judgement");
	json_string(w, "result", read_path_keys[r->read_path]);
	json_object_begin(w, "figures");
	json_uint(w, "read_p50_ns", r->read_ns.p50);
	json_double(w, "batch_ns_per_read", r->batch_ns_per_read);
	json_double(w, "sequence_p50_ns", sequence_ns(run));
	json_double(w, "sequence_batch_ns", ref->sequence_batch_ns);
	json_object_end(w);
	json_object_begin(w, "tolerance");
	if (r->clock->native_read_ns_max)
		json_uint(w, "native_read_ns_max",
			  r->clock->native_read_ns_max);
	else
		json_null(w, "native_read_ns_max");
	json_double(w, "trap_reference_factor", TRAP_REFERENCE_FACTOR);
	json_object_end(w);
	json_object_end(w);
}

/* {"reads_with_steal", "tail_reads", "tail_reads_with_steal",
 * "failed_reads"}, or null where no steal record was read. */
static void json_steal_tail(struct json_writer *w, const struct clock_result *r)
{
	const struct read_steal_tail *t = &r->steal_tail;

	if (!r->measured || !t->traced) {
		json_null(w, "steal_tail");
		return;
	}
	json_object_begin(w, "steal_tail");
	json_uint(w, "reads_with_steal", t->reads_with_steal);
	json_uint(w, "tail_reads", t->tail_reads);
	json_uint(w, "tail_reads_with_steal", t->tail_reads_with_steal);
	json_uint(w, "failed_reads", t->failed_reads);
	json_object_end(w);
}

static void json_clock(const struct run_report *run, struct json_writer *w,
		       const struct clock_result *r)
{
	const struct clock *c = r->clock;
	bool m = r->measured;
	char mine[4 * CLOCK_TEXT_LEN];
	char notes[sizeof(mine) + sizeof(c->notes) + 2];

	json_object_begin(w, NULL);
	json_string(w, "name", c->name);
	json_bool(w, "present", c->present);
	json_bool(w, "measured", m);
	json_string(w, "absent_reason", c->present ? NULL : c->absent_reason);
	if (c->present) {
		json_uint(w, "freq_hz", c->freq_hz);
		json_string(w, "freq_source", c->freq_source);
		json_uint(w, "width_bits", c->width_bits);
		json_flags(w, c->flags);
	} else {
		json_null(w, "freq_hz");
		json_null(w, "freq_source");
		json_null(w, "width_bits");
		json_array_begin(w, "flags");
		json_array_end(w);
	}
	json_uint_if(w, "samples", m, r->samples);
	if (m && r->read_hists) {
		json_hist_distribution(w, "read_cycles",
				       &r->read_hists->cycles);
		json_hist_distribution(w, "read_ns", &r->read_hists->ns);
	} else {
		json_stats(w, "read_cycles", &r->read_cycles, m);
		json_stats(w, "read_ns", &r->read_ns, m);
	}
	json_double_if(w, "batch_ns_per_read", m, r->batch_ns_per_read);
	json_double_if(w, "batch_ns_min", m, r->batch_ns_min);
	json_double_if(w, "batch_ns_max", m, r->batch_ns_max);
	json_uint_if(w, "batches", m, r->batches);
	json_double_if(w, "conversion_ns", m, r->conversion_ns);
	json_double_if(w, "resolution_ns", m && r->changed, r->resolution_ns);
	json_uint_if(w, "stalls", m, r->stalls);
	json_double_if(w, "update_hz", m, r->update_hz);
	json_uint_if(w, "backward_steps", m, r->backward_steps);
	json_uint_if(w, "backward_steps_ns", m, r->backward_steps_ns);
	json_uint_if(w, "ambiguous_gaps", m, r->ambiguous_gaps);
	json_double_if(w, "worst_backward_ns", m, r->worst_backward_ns);
	json_double_if(w, "rate_ppm", m && r->rate_measured, r->rate_ppm);
	json_double_if(w, "rate_uncertainty_ppm", m && r->rate_measured,
		       r->rate_uncertainty_ppm);
	json_string(w, "rate_reference",
		    m && r->rate_measured ? r->rate_reference->name : NULL);
	json_string(w, "rate_shared_from",
		    m && r->rate_shared_from ? r->rate_shared_from->name
					     : NULL);
	if (m)
		json_bool(w, "trapped", r->trapped);
	else
		json_null(w, "trapped");
	json_read_judgement(run, w, r);
	json_steal_tail(w, r);
	json_port_path(w, r);
	result_notes(run, r, mine, sizeof(mine));
	snprintf(notes, sizeof(notes), "%s%s%s", c->notes,
		 c->notes[0] && mine[0] ? " " : "", mine);
	json_string(w, "notes", notes);
	json_object_end(w);
}

/* {"lean_bracket_cycles", "lean_tsc_read_cycles", "sequence_read_cycles",
 * "sequence_batch_ns", "translated", "tsc_against_lean"}, or null when
 * nothing was timed. */
static void json_references(struct json_writer *w,
			    const struct measure_result *m)
{
	const struct bracket_references *ref = &m->references;
	const struct lean_agreement *a = &m->lean;

	if (!m->timed) {
		json_null(w, "references");
		return;
	}
	json_object_begin(w, "references");
	json_stats(w, "lean_bracket_cycles", &ref->lean_bracket, true);
	json_stats(w, "lean_tsc_read_cycles", &ref->lean_tsc_read, true);
	json_stats(w, "sequence_read_cycles", &ref->sequence_read, true);
	json_double(w, "sequence_batch_ns", ref->sequence_batch_ns);
	json_bool(w, "translated", m->translated);
	if (a->measured) {
		json_object_begin(w, "tsc_against_lean");
		json_bool(w, "agree", a->agree);
		json_object_begin(w, "figures");
		json_uint(w, "read_p50_cycles", a->read_p50_cycles);
		json_uint(w, "lean_p50_cycles", a->lean_p50_cycles);
		json_double(w, "step_cycles", a->step_cycles);
		json_object_end(w);
		json_object_begin(w, "tolerance");
		json_double(w, "lean_agreement_share", LEAN_AGREEMENT_SHARE);
		json_object_end(w);
		json_object_end(w);
	} else {
		json_null(w, "tsc_against_lean");
	}
	json_object_end(w);
}

void report_measure_json(const struct run_report *run, struct json_writer *w)
{
	const struct measure_result *m = &run->measure;
	unsigned int i;

	json_uint(w, "budget_ms", m->budget_ms);
	json_stats(w, "empty_bracket_cycles", &m->empty_bracket, m->timed);
	json_references(w, m);
	json_string(w, "read_steal_interface",
		    m->timed && m->steal.kind != STEAL_NONE
			    ? steal_kind_name(m->steal.kind)
			    : NULL);
	json_string(w, "read_steal_words", m->timed ? m->steal.words : NULL);
	json_array_begin(w, "clocks");
	for (i = 0; i < m->nr; i++)
		json_clock(run, w, &m->clocks[i]);
	json_array_end(w);
}
