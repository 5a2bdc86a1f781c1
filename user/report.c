// SPDX-License-Identifier: MIT
/* clockbench-user's tables, checks and JSON (see user/report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/figure.h"
#include "lib/json.h"
#include "user/report.h"

#define OS_SCHEMA "clockbench-os/1"
/* Members up to this depth start a line: one line per read. */
#define OS_NEWLINE_DEPTH 4

/* @value in its column's unit with @decimals, thousands grouped, for the
 * table ("-" when there is none): a column never changes unit. */
static const char *figure(char *buf, size_t len, double value,
			  unsigned int decimals, bool have)
{
	if (!have)
		snprintf(buf, len, "-");
	else
		figure_grouped(buf, len, value, decimals);
	return buf;
}

/* The table's word for how a read reached its clock. */
static const char *table_via(enum reader_through through)
{
	return through == THROUGH_INSTRUCTION ? "-"
	       : vdso_through_key(through)    ? vdso_through_key(through)
					      : "?";
}

/* A read's warp in ns (TSC counts turned with the stopwatch's rate). */
static double warp_ns(const struct os_report *rep, const struct read_result *r)
{
	return (r->reader->flags & READER_COUNTS)
		       ? (double)r->warps.worst * 1e9 / rep->stopwatch.hz
		       : (double)r->warps.worst;
}

static void print_read(const struct os_report *rep, const struct read_result *r)
{
	const struct reader *rd = r->reader;
	char p50[FIGURE_LEN], p99[FIGURE_LEN], batch[FIGURE_LEN];
	char res[FIGURE_LEN], upd[FIGURE_LEN], warps[2 * FIGURE_LEN];

	if (!rd->present) {
		printf("  %-38s %-11s absent: %s\n", rd->name,
		       reader_path_key(rd->path), rd->absent_reason);
		return;
	}
	if (!r->measured) {
		printf("  %-38s %-11s not measured\n", rd->name,
		       reader_path_key(rd->path));
		return;
	}
	snprintf(warps, sizeof(warps), "-");
	if (r->warps.measured)
		snprintf(warps, sizeof(warps), "%llu in %s",
			 (unsigned long long)r->warps.warps,
			 figure(upd, sizeof(upd), (double)r->warps.crossings, 0,
				true));
	if (r->warps.measured && r->warps.warps)
		snprintf(warps + strlen(warps), sizeof(warps) - strlen(warps),
			 " (%s)",
			 figure(res, sizeof(res), warp_ns(rep, r), 0, true));
	printf("  %-38s %-11s %-7s %9s %9s %9s %12s %13s %5llu  %s\n", rd->name,
	       reader_path_key(rd->path), table_via(r->through),
	       figure(p50, sizeof(p50), (double)r->read_ns.p50, 0, true),
	       figure(p99, sizeof(p99), (double)r->read_ns.p99, 0, true),
	       figure(batch, sizeof(batch), r->batch_ns_per_read, 1, true),
	       figure(res, sizeof(res), r->resolution_ns, 1, r->changed),
	       figure(upd, sizeof(upd), r->update_hz, 0, r->changed),
	       (unsigned long long)r->backward_steps, warps);
}

/* One snapshot's clocksources: "tsc of tsc hpet acpi_pm". */
static void print_choice(const struct readback_snapshot *snap)
{
	unsigned int i;

	if (!snap->known) {
		printf("unknown (sysfs could not be read)");
		return;
	}
	printf("%s of", snap->current);
	for (i = 0; i < snap->available.nr; i++)
		printf(" %s", snap->available.names[i]);
}

/* What Linux decided about its clocksources, a few lines. */
static void print_kernel(const struct readback *rb)
{
	unsigned int i;

	printf("# Linux's clocksource decisions (kernel %s)\n",
	       rb->release[0] ? rb->release : "?");
	if (!rb->read)
		printf("  not read back: %s\n", rb->reason);
	for (i = 0; i < rb->nr_snapshots; i++) {
		const struct readback_snapshot *snap = &rb->snapshots[i];

		printf("  %-14s %9.2f s  %s", snap->when, snap->uptime_s,
		       i ? "current " : "Linux chose ");
		print_choice(snap);
		printf("\n");
	}
	printf("  marked unstable:");
	if (!rb->log.nr_unstable)
		printf(" none");
	for (i = 0; i < rb->log.nr_unstable; i++)
		printf("%s %s (at %.3f s)", i ? "," : "",
		       rb->log.unstable[i].clocksource,
		       (double)rb->log.unstable[i].ts_us * 1e-6);
	printf("\n");
	for (i = 0; i < rb->log.nr_unstable; i++)
		printf("    %s\n", rb->log.unstable[i].line);
	printf("  kernel log   %u lines about clocksources%s\n", rb->log.nr,
	       rb->log.wrapped	 ? ", the earliest lost: the kernel's buffer "
				   "had wrapped"
	       : rb->log.dropped ? ", more than it keeps"
				 : "");
}

void os_report_print(const struct os_report *rep)
{
	const struct os_system *s = &rep->system;
	unsigned int i, j;

	printf("# clockbench-user %s\n", rep->version);
	printf("  kernel       %s %s, %u CPUs%s\n", s->kernel, s->machine,
	       s->cpus, s->root ? ", as root" : "");
	printf("  cpu          %s\n", s->cpu_model[0] ? s->cpu_model : "?");
	printf("  hypervisor   %s\n",
	       s->hypervisor[0] ? s->hypervisor : "none seen");
	printf("  vdso         %s\n",
	       s->vdso ? "mapped" : "none: every read is a system call");
	printf("  stopwatch    %s (%.6g Hz)\n", rep->stopwatch.source,
	       rep->stopwatch.hz);
	if (rep->clocksource_problem[0]) {
		printf("  clocksources unknown: %s\n",
		       rep->clocksource_problem);
	} else {
		printf("  clocksources");
		for (i = 0; i < rep->available.nr; i++)
			printf(" %s", rep->available.names[i]);
		printf(" (current: %s)\n", rep->original);
	}
	if (!rep->switch_done)
		printf("  switching    %s\n", rep->switch_reason);
	for (i = 0; i < rep->nr_events; i++)
		printf("  event %u      %s\n", rep->events[i].seq,
		       rep->events[i].answered ? rep->events[i].kind
					       : rep->events[i].problem);
	for (i = 0; i < rep->nr_runs; i++) {
		const struct os_run *run = &rep->runs[i];

		printf("# clocksource %s\n", run->clocksource);
		if (run->problem[0]) {
			printf("  not measured: %s\n", run->problem);
			continue;
		}
		if (run->path_problem[0])
			printf("  the vDSO's part is unknown: %s\n",
			       run->path_problem);
		printf("  %-38s %-11s %-7s %9s %9s %9s %12s %13s %5s  %s\n",
		       "read", "path", "via", "p50 ns", "p99 ns", "batch ns",
		       "resol ns", "update Hz", "back",
		       "warps in cross-CPU reads (worst ns)");
		for (j = 0; j < run->nr; j++)
			print_read(rep, &run->reads[j]);
	}
	print_kernel(&rep->kernel);
}

/* The readers of @run that @flag selects and @bad picks, named into @out. */
static unsigned int name_reads(const struct os_run *run, unsigned int flag,
			       bool (*bad)(const struct read_result *),
			       char *out, size_t len)
{
	unsigned int i, n = 0;
	size_t used = 0;

	out[0] = '\0';
	for (i = 0; i < run->nr; i++) {
		const struct read_result *r = &run->reads[i];

		if (!r->measured || !(r->reader->flags & flag) || !bad(r))
			continue;
		if (used < len)
			used += (size_t)snprintf(
				out + used, len - used, "%s%s via %s",
				n ? ", " : "", r->reader->name,
				reader_path_key(r->reader->path));
		n++;
	}
	return n;
}

static bool steps_back(const struct read_result *r)
{
	return r->backward_steps > 0;
}

static bool warps(const struct read_result *r)
{
	return r->warps.measured && r->warps.warps > 0;
}

static bool warps_measured(const struct read_result *r)
{
	return r->warps.measured;
}

static void run_checks(const struct os_run *run, struct ktap *k)
{
	char names[KTAP_INFO_LEN];
	unsigned int i, present = 0, measured = 0, n;
	const char *no_warps = "";

	report_prefix_push(k, "%s: ", run->clocksource);
	for (i = 0; i < run->nr; i++) {
		present += run->reads[i].reader->present;
		measured += run->reads[i].measured;
	}
	if (run->problem[0]) {
		report_skip(k, "every read measured or absent with a reason");
		report_info(k, "%s", run->problem);
		report_prefix_pop(k);
		return;
	}
	report(k, measured == present,
	       "every read measured or absent with a reason");
	report_info(k, "%u of %u reads measured, %u absent", measured, run->nr,
		    run->nr - present);
	report_figure(k, "reads", run->nr);
	report_figure(k, "reads_present", present);
	report_figure(k, "reads_measured", measured);
	if (run->path_problem[0]) {
		report_skip(k, "each read's way to the clock is known");
		report_info(k, "%s", run->path_problem);
	} else {
		report(k, true, "each read's way to the clock is known");
	}
	n = name_reads(run, READER_MONOTONIC, steps_back, names, sizeof(names));
	report(k, n == 0, "monotonic clocks never step back");
	if (n)
		report_info(k, "%s", names);
	report_figure(k, "reads_stepping_back", n);
	if (!name_reads(run, READER_MONOTONIC, warps_measured, names,
			sizeof(names))) {
		for (i = 0; i < run->nr; i++)
			if (run->reads[i].warps.reason[0] &&
			    (run->reads[i].reader->flags & READER_MONOTONIC) &&
			    run->reads[i].reader->path == READER_LIBC)
				no_warps = run->reads[i].warps.reason;
		report_skip(k, "monotonic clocks agree across CPUs");
		report_info(k, "%s", no_warps[0] ? no_warps : "not measured");
	} else {
		n = name_reads(run, READER_MONOTONIC, warps, names,
			       sizeof(names));
		report(k, n == 0, "monotonic clocks agree across CPUs");
		if (n)
			report_info(k, "warps: %s", names);
		report_figure(k, "reads_warping", n);
	}
	report_prefix_pop(k);
}

/* --switch: every clocksource measured, the original back. */
static void switch_checks(const struct os_report *rep, struct ktap *k)
{
	unsigned int i;

	if (!rep->switch_done) {
		report_skip(k, "every available clocksource measured");
		report_info(k, "%s", rep->switch_reason);
	} else {
		unsigned int failed = 0;

		for (i = 0; i < rep->nr_runs; i++)
			failed += rep->runs[i].problem[0] != '\0';
		report(k, failed == 0, "every available clocksource measured");
		report_info(k, "%u of %u", rep->nr_runs - failed, rep->nr_runs);
		report_figure(k, "clocksources", rep->nr_runs);
		report_figure(k, "clocksources_measured",
			      rep->nr_runs - failed);
	}
	if (rep->restore_tried) {
		if (rep->restored)
			report(k, true, "the original clocksource is back");
		else
			report_error(k, "the original clocksource is back");
		report_info(k, "%s%s%s", rep->original,
			    rep->restored ? "" : ": ", rep->restore_problem);
	}
}

/* The read-back of Linux's decisions, and the event points. */
static void kernel_checks(const struct os_report *rep, struct ktap *k)
{
	unsigned int i;

	if (rep->kernel.read) {
		report(k, true,
		       "the kernel's clocksource decisions were read back");
		report_info(k, "%u snapshots, %u log lines, %u marked unstable",
			    rep->kernel.nr_snapshots, rep->kernel.log.nr,
			    rep->kernel.log.nr_unstable);
	} else {
		report_skip(
			k, "the kernel's clocksource decisions were read back");
		report_info(k, "%s", rep->kernel.reason);
	}
	for (i = 0; i < rep->nr_events; i++) {
		const struct user_event *e = &rep->events[i];

		report_prefix_push(k, "event %u: ", e->seq);
		if (e->answered) {
			report(k, true, "the host answered");
			report_info(k, "%s", e->kind);
		} else {
			report_error(k, "the host answered");
			report_info(k, "%s", e->problem);
		}
		report_prefix_pop(k);
	}
	if (rep->nr_events < rep->events_asked) {
		report_error(k, "every event point reached");
		report_info(k, "%u of %u", rep->nr_events, rep->events_asked);
	}
}

void os_report_checks(const struct os_report *rep, struct ktap *k)
{
	unsigned int i;

	if (rep->clocksource_problem[0]) {
		report_skip(k, "clocksources listed");
		report_info(k, "%s", rep->clocksource_problem);
	} else {
		report(k, true, "clocksources listed");
	}
	for (i = 0; i < rep->nr_runs; i++)
		run_checks(&rep->runs[i], k);
	if (rep->switch_asked)
		switch_checks(rep, k);
	kernel_checks(rep, k);
}

static void json_warps(struct json_writer *w, const struct os_report *rep,
		       const struct read_result *r)
{
	const struct warp_result *x = &r->warps;

	json_object_begin(w, "warps");
	json_bool(w, "measured", x->measured);
	json_string(w, "reason", x->measured ? NULL : x->reason);
	json_uint_if(w, "cpus", x->measured, x->cpus);
	json_uint_if(w, "reads", x->measured, x->reads);
	json_uint_if(w, "crossings", x->measured, x->crossings);
	json_uint_if(w, "count", x->measured, x->warps);
	json_double_if(w, "worst_ns", x->measured, warp_ns(rep, r));
	json_object_end(w);
}

static void json_read(struct json_writer *w, const struct os_report *rep,
		      const struct read_result *r)
{
	const struct reader *rd = r->reader;
	bool m = r->measured;

	json_object_begin(w, NULL);
	json_string(w, "name", rd->name);
	json_string(w, "call", rd->call);
	json_string(w, "clock", rd->clock);
	json_string(w, "path", reader_path_key(rd->path));
	json_string(w, "through",
		    rd->present ? vdso_through_key(r->through) : NULL);
	json_bool(w, "present", rd->present);
	json_string(w, "absent_reason", rd->present ? NULL : rd->absent_reason);
	json_bool(w, "measured", m);
	json_uint_if(w, "samples", m, r->samples);
	json_stats(w, "read_ns", &r->read_ns, m);
	json_double_if(w, "batch_ns_per_read", m, r->batch_ns_per_read);
	json_double_if(w, "batch_ns_min", m, r->batch_ns_min);
	json_double_if(w, "batch_ns_max", m, r->batch_ns_max);
	json_double_if(w, "resolution_ns", m && r->changed, r->resolution_ns);
	json_double_if(w, "update_hz", m, r->update_hz);
	json_uint_if(w, "stalls", m, r->stalls);
	json_uint_if(w, "backward_steps", m, r->backward_steps);
	json_double_if(w, "worst_backward_ns", m, r->worst_backward_ns);
	if (m)
		json_warps(w, rep, r);
	else
		json_null(w, "warps");
	json_object_end(w);
}

static void json_system(struct json_writer *w, const struct os_report *rep)
{
	const struct os_system *s = &rep->system;

	json_object_begin(w, "system");
	json_string(w, "kernel", s->kernel);
	json_string(w, "machine", s->machine);
	json_string(w, "cpu_model", s->cpu_model[0] ? s->cpu_model : NULL);
	json_string(w, "hypervisor", s->hypervisor[0] ? s->hypervisor : NULL);
	json_uint(w, "cpus", s->cpus);
	json_bool(w, "root", s->root);
	json_bool(w, "vdso", s->vdso);
	json_string(w, "tsc_refused",
		    s->tsc_refused[0] ? s->tsc_refused : NULL);
	json_object_end(w);
	json_object_begin(w, "stopwatch");
	json_string(w, "kind", rep->stopwatch.tsc ? "tsc" : "monotonic_raw");
	json_double(w, "hz", rep->stopwatch.hz);
	json_string(w, "source", rep->stopwatch.source);
	json_stats(w, "empty_bracket", &rep->stopwatch.empty_bracket, true);
	json_object_end(w);
}

static void json_clocksources(struct json_writer *w,
			      const struct os_report *rep)
{
	bool known = !rep->clocksource_problem[0];
	unsigned int i;

	json_object_begin(w, "clocksources");
	json_string(w, "original", known ? rep->original : NULL);
	json_array_begin(w, "available");
	for (i = 0; known && i < rep->available.nr; i++)
		json_string(w, NULL, rep->available.names[i]);
	json_array_end(w);
	json_string(w, "problem", known ? NULL : rep->clocksource_problem);
	json_bool(w, "switch_asked", rep->switch_asked);
	json_bool(w, "switch_done", rep->switch_done);
	json_string(w, "switch_reason",
		    rep->switch_done ? NULL : rep->switch_reason);
	if (rep->restore_tried)
		json_bool(w, "restored", rep->restored);
	else
		json_null(w, "restored");
	json_string(w, "restore_problem",
		    rep->restore_tried && !rep->restored ? rep->restore_problem
							 : NULL);
	json_object_end(w);
}

static void json_snapshot(struct json_writer *w,
			  const struct readback_snapshot *snap)
{
	unsigned int i;

	json_object_begin(w, NULL);
	json_string(w, "when", snap->when);
	if (snap->event_seq) {
		json_object_begin(w, "event");
		json_uint(w, "seq", snap->event_seq);
		json_string(w, "kind", snap->event_kind);
		json_object_end(w);
	}
	json_double(w, "uptime_s", snap->uptime_s);
	json_string(w, "current", snap->known ? snap->current : NULL);
	json_array_begin(w, "available");
	for (i = 0; snap->known && i < snap->available.nr; i++)
		json_string(w, NULL, snap->available.names[i]);
	json_array_end(w);
	json_object_end(w);
}

/* kernel_clocksource: what Linux decided (docs/os-layer.md). */
static void json_kernel(struct json_writer *w, const struct readback *rb)
{
	unsigned int i;

	json_object_begin(w, "kernel_clocksource");
	json_bool(w, "read", rb->read);
	json_string(w, "reason", rb->read ? NULL : rb->reason);
	json_string(w, "release", rb->release[0] ? rb->release : NULL);
	json_string(w, "cmdline", rb->cmdline);
	if (rb->flags_read) {
		json_object_begin(w, "cpu_flags");
		for (i = 0; i < CPU_FLAG_NR; i++)
			json_bool(w, cpu_flag_name(i), rb->flags[i]);
		json_object_end(w);
	} else {
		json_null(w, "cpu_flags");
	}
	json_array_begin(w, "snapshots");
	for (i = 0; i < rb->nr_snapshots; i++)
		json_snapshot(w, &rb->snapshots[i]);
	json_array_end(w);
	json_array_begin(w, "log");
	for (i = 0; i < rb->log.nr; i++) {
		json_object_begin(w, NULL);
		json_double(w, "uptime_s",
			    (double)rb->log.lines[i].ts_us * 1e-6);
		json_string(w, "line", rb->log.lines[i].text);
		json_object_end(w);
	}
	json_array_end(w);
	json_bool(w, "log_complete", !rb->log.wrapped && !rb->log.dropped);
	json_array_begin(w, "unstable");
	for (i = 0; i < rb->log.nr_unstable; i++) {
		const struct kernlog_unstable *u = &rb->log.unstable[i];

		json_object_begin(w, NULL);
		json_string(w, "clocksource", u->clocksource);
		json_double(w, "uptime_s", (double)u->ts_us * 1e-6);
		json_string(w, "line", u->line);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

bool os_report_json(const struct os_report *rep, const struct ktap *k,
		    void (*emit)(void *ctx, const char *text, size_t len),
		    void *ctx)
{
	struct json_writer w;
	unsigned int i, j;

	json_init(&w, emit, ctx, OS_NEWLINE_DEPTH);
	json_object_begin(&w, NULL);
	json_string(&w, "schema", OS_SCHEMA);
	json_string(&w, "version", rep->version);
	json_system(&w, rep);
	json_clocksources(&w, rep);
	json_uint(&w, "budget_ms", rep->budget_ms);
	json_array_begin(&w, "runs");
	for (i = 0; i < rep->nr_runs; i++) {
		const struct os_run *run = &rep->runs[i];

		json_object_begin(&w, NULL);
		json_string(&w, "clocksource", run->clocksource);
		json_string(&w, "problem",
			    run->problem[0] ? run->problem : NULL);
		json_string(&w, "path_problem",
			    run->path_problem[0] ? run->path_problem : NULL);
		json_array_begin(&w, "reads");
		for (j = 0; !run->problem[0] && j < run->nr; j++)
			json_read(&w, rep, &run->reads[j]);
		json_array_end(&w);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_kernel(&w, &rep->kernel);
	ktap_json(&w, k);
	json_object_end(&w);
	return json_finish(&w);
}
