// SPDX-License-Identifier: MIT
/* The measurement report: table, checks and JSON. */
#include <stdio.h>
#include <string.h>

#include "engine/clocks.h"
#include "base/console.h"
#include "engine/crosscpu.h"
#include "base/smp.h"
#include "lib/json.h"
#include "engine/measure.h"
#include "base/platform.h"
#include "base/stopwatch.h"
#include "lib/ktap.h"
#include "report/summary.h"

#define JSON_BEGIN  "clockbench-json begin\n"
#define JSON_END    "clockbench-json end\n"
#define JSON_PREFIX "json| "

static void print_cell_ns(double ns)
{
	if (ns >= 10000)
		printf(" %8.1fus", ns / 1000);
	else
		printf(" %10.1f", ns);
}

void summary_print_table(void)
{
	const struct stats_summary *empty = measure_empty_bracket();
	const struct clock *ref = measure_reference();
	const struct clock_result *r;
	unsigned int n, i;

	r = measure_results(&n);
	printf("# results: ns from TSC cycles at %.6f GHz; per-read cost = "
	       "lfence;rdtsc, read, lfence;rdtsc minus the empty bracket "
	       "(median %llu cycles); rates against %s\n",
	       (double)stopwatch_hz() / 1e9, (unsigned long long)empty->p50,
	       ref ? ref->name : "nothing");
	printf("  %-12s %10s %10s %8s %8s %10s %10s %11s %8s %5s %9s  %s\n",
	       "clock", "p50 ns", "p99 ns", "p50 cyc", "p99 cyc", "batch ns",
	       "resol ns", "update Hz", "stalls", "back", "rate ppm", "notes");
	for (i = 0; i < n; i++, r++) {
		if (!r->measured) {
			printf("  %-12s %s\n", r->clock->name,
			       r->clock->present ? "not measured" : "absent");
			continue;
		}
		printf("  %-12s", r->clock->name);
		print_cell_ns((double)r->read_ns.p50);
		print_cell_ns((double)r->read_ns.p99);
		printf(" %8llu %8llu", (unsigned long long)r->read_cycles.p50,
		       (unsigned long long)r->read_cycles.p99);
		print_cell_ns(r->batch_ns_per_read);
		if (r->changed)
			print_cell_ns(r->resolution_ns);
		else
			printf(" %10s", "-");
		printf(" %11.4g %8llu %5llu", r->update_hz,
		       (unsigned long long)r->stalls,
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
	for (i = 0, r = measure_results(&n); i < n; i++, r++)
		if (r->notes[0])
			printf("  %-12s %s\n", r->clock->name, r->notes);
}

void summary_checks(void)
{
	const struct stats_summary *empty = measure_empty_bracket();
	const struct clock_result *r;
	unsigned int n, i;

	r = measure_results(&n);
	if (!n)
		return;
	report(empty->p50 > 0,
	       "the empty TSC bracket costs %llu cycles (median) and is "
	       "subtracted",
	       (unsigned long long)empty->p50);
	for (i = 0; i < n; i++, r++) {
		const char *name = r->clock->name;

		if (!r->measured)
			continue;
		report(r->changed, "%s advances", name);
		if (r->backward_steps &&
		    (r->clock->flags & CLOCK_MULTI_ACCESS) &&
		    platform_port_io_emulated())
			/* Each access is a #GP the hypervisor hands to ring
			 * 0 here; an access lost or repeated on the way
			 * leaves a latch stale, so a step back says as much
			 * about that path as about the clock. */
			report_skip(
				"%s went back %llu times (worst %.0f ns), but "
				"its multi-access reads go through port-I/O "
				"emulation here, so this is not judged",
				name, (unsigned long long)r->backward_steps,
				r->worst_backward_ns);
		else
			report(r->backward_steps == 0,
			       "%s never went backwards in back-to-back reads "
			       "(%llu "
			       "steps back, worst %.0f ns)",
			       name, (unsigned long long)r->backward_steps,
			       r->worst_backward_ns);
		if (!r->rate_measured)
			report_skip("%s rate: %s", name, r->rate_problem);
		else
			report(r->rate_ppm < RATE_TOLERANCE_PPM &&
				       r->rate_ppm > -RATE_TOLERANCE_PPM,
			       "%s runs at its nominal rate within %.0f ppm: "
			       "%+.0f ppm (± %.0f ppm) against %s",
			       name, RATE_TOLERANCE_PPM, r->rate_ppm,
			       r->rate_uncertainty_ppm,
			       r->rate_reference->name);
	}
}

/* --- cross-CPU ---------------------------------------------------------- */

void summary_print_xcpu(void)
{
	const struct xcpu_clock *x;
	const char *why;
	unsigned int n, i, cpu, ncpu = smp_nr_cpus();

	printf("# cross-CPU\n");
	for (cpu = 0; cpu < ncpu; cpu++) {
		const struct xcpu_msrs *m = xcpu_cpu_msrs(cpu);

		if (!smp_cpu(cpu)->online)
			continue;
		printf("  CPU %-3u %s %-3u TSC_ADJUST ", cpu,
		       platform_cpu_id_name(), smp_cpu(cpu)->apic_id);
		if (m->tsc_adjust_ok)
			printf("%lld", (long long)m->tsc_adjust);
		else
			printf("unreadable");
		printf(", TSC_AUX ");
		if (m->tsc_aux_ok)
			printf("%llu\n", (unsigned long long)m->tsc_aux);
		else
			printf("unreadable\n");
	}
	if (!xcpu_applies(&why)) {
		printf("  does not apply: %s\n", why);
		return;
	}
	printf("  %-12s %10s %8s %12s %8s  %s\n", "clock", "hand-offs", "warps",
	       "worst ns", "stalls",
	       "per CPU: offset from CPU 0 (ns), drift (ppm)");
	x = xcpu_results(&n);
	for (i = 0; i < n; i++, x++) {
		printf("  %-12s %10llu %8llu %12.0f %8llu ", x->clock->name,
		       (unsigned long long)x->iterations,
		       (unsigned long long)x->warps, x->worst_warp_ns,
		       (unsigned long long)x->stalls);
		for (cpu = 1; cpu < ncpu; cpu++) {
			const struct xcpu_per_cpu *pc = &x->cpu[cpu];

			if (!pc->offset_ok) {
				printf(" cpu%u: -", cpu);
				continue;
			}
			printf(" cpu%u: %+.0f ± %.0f", cpu,
			       pc->offset.offset_ns, pc->offset.uncertainty_ns);
			if (pc->drift_ok)
				printf(", %+.1f ± %.1f ppm",
				       pc->drift.slope * 1e6,
				       pc->drift.slope_uncertainty * 1e6);
		}
		printf("\n");
	}
}

void summary_xcpu_checks(void)
{
	const struct xcpu_clock *x;
	const char *why;
	unsigned int n, i, cpu, ncpu = smp_nr_cpus();

	if (!xcpu_applies(&why)) {
		report_skip("cross-CPU checks: %s", why);
		return;
	}
	x = xcpu_results(&n);
	for (i = 0; i < n; i++, x++) {
		unsigned int missing = 0;

		/* A clock that claims CPUs agree must not warp; others are
		 * measured, not judged. */
		if (x->clock->flags & CLOCK_CLAIMS_STABLE)
			report(x->warps == 0,
			       "%s, which claims stability across CPUs, never "
			       "warped in %llu hand-offs (%llu warps, worst "
			       "%.0f ns)",
			       x->clock->name,
			       (unsigned long long)x->iterations,
			       (unsigned long long)x->warps, x->worst_warp_ns);
		for (cpu = 1; cpu < ncpu; cpu++)
			missing +=
				smp_cpu(cpu)->online && !x->cpu[cpu].offset_ok;
		report(missing == 0 && x->iterations > 0,
		       "%s: warp test ran (%llu hand-offs) and every CPU's "
		       "offset from CPU 0 was measured (%u missing)",
		       x->clock->name, (unsigned long long)x->iterations,
		       missing);
	}
}

/* --- JSON ------------------------------------------------------------------ */

/* Console sink: every line of the document gets the prefix. */
struct line_sink {
	char line[512];
	size_t len;
};

static void flush_line(struct line_sink *s)
{
	console_puts(JSON_PREFIX);
	console_write(s->line, s->len);
	console_puts("\n");
	s->len = 0;
}

static void emit(void *ctx, const char *text, size_t len)
{
	struct line_sink *s = ctx;
	size_t i;

	for (i = 0; i < len; i++) {
		if (text[i] == '\n') {
			flush_line(s);
			continue;
		}
		/* A long line is split; the parser joins the lines anyway. */
		if (s->len == sizeof(s->line))
			flush_line(s);
		s->line[s->len++] = text[i];
	}
}

void summary_json_stats(struct json_writer *w, const char *key,
			const struct stats_summary *st, bool present)
{
	if (!present) {
		json_null(w, key);
		return;
	}
	json_object_begin(w, key);
	json_uint(w, "min", st->min);
	json_uint(w, "p50", st->p50);
	json_uint(w, "p90", st->p90);
	json_uint(w, "p99", st->p99);
	json_uint(w, "p999", st->p999);
	json_uint(w, "max", st->max);
	json_object_end(w);
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

static void json_optional_double(struct json_writer *w, const char *key,
				 bool have, double value)
{
	if (have)
		json_double(w, key, value);
	else
		json_null(w, key);
}

static void json_optional_uint(struct json_writer *w, const char *key,
			       bool have, uint64_t value)
{
	if (have)
		json_uint(w, key, value);
	else
		json_null(w, key);
}

static void json_clock(struct json_writer *w, const struct clock_result *r)
{
	const struct clock *c = r->clock;
	bool m = r->measured;
	char notes[sizeof(r->notes) + sizeof(c->notes) + 2];

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
	json_optional_uint(w, "samples", m, r->samples);
	summary_json_stats(w, "read_cycles", &r->read_cycles, m);
	summary_json_stats(w, "read_ns", &r->read_ns, m);
	json_optional_double(w, "batch_ns_per_read", m, r->batch_ns_per_read);
	json_optional_double(w, "conversion_ns", m, r->conversion_ns);
	json_optional_double(w, "resolution_ns", m && r->changed,
			     r->resolution_ns);
	json_optional_uint(w, "stalls", m, r->stalls);
	json_optional_double(w, "update_hz", m, r->update_hz);
	json_optional_uint(w, "backward_steps", m, r->backward_steps);
	json_optional_uint(w, "backward_steps_ns", m, r->backward_steps_ns);
	json_optional_uint(w, "ambiguous_gaps", m, r->ambiguous_gaps);
	json_optional_double(w, "worst_backward_ns", m, r->worst_backward_ns);
	json_optional_double(w, "rate_ppm", m && r->rate_measured, r->rate_ppm);
	json_optional_double(w, "rate_uncertainty_ppm", m && r->rate_measured,
			     r->rate_uncertainty_ppm);
	json_string(w, "rate_reference",
		    m && r->rate_measured ? r->rate_reference->name : NULL);
	if (m)
		json_bool(w, "trapped", r->trapped);
	else
		json_null(w, "trapped");
	snprintf(notes, sizeof(notes), "%s%s%s", c->notes,
		 c->notes[0] && r->notes[0] ? " " : "", r->notes);
	json_string(w, "notes", notes);
	json_object_end(w);
}

static void json_xcpu(struct json_writer *w)
{
	const struct xcpu_clock *x;
	const char *why;
	unsigned int n, i, cpu, ncpu = smp_nr_cpus();
	bool applies = xcpu_applies(&why);

	json_object_begin(w, "cross_cpu");
	json_bool(w, "applies", applies);
	json_string(w, "reason", applies ? NULL : why);
	json_uint(w, "cpus", smp_cpus_online());
	json_array_begin(w, "clocks");
	x = xcpu_results(&n);
	for (i = 0; applies && i < n; i++, x++) {
		json_object_begin(w, NULL);
		json_string(w, "clock", x->clock->name);
		json_bool(w, "claims_stable",
			  x->clock->flags & CLOCK_CLAIMS_STABLE);
		json_uint(w, "iterations", x->iterations);
		json_uint(w, "warps", x->warps);
		json_double(w, "worst_warp_ns", x->worst_warp_ns);
		json_uint(w, "stalls", x->stalls);
		json_uint(w, "ambiguous_gaps", x->ambiguous_gaps);
		json_array_begin(w, "offsets");
		for (cpu = 1; cpu < ncpu; cpu++) {
			const struct xcpu_per_cpu *pc = &x->cpu[cpu];

			if (!smp_cpu(cpu)->online)
				continue;
			json_object_begin(w, NULL);
			json_uint(w, "cpu", cpu);
			json_uint(w, "apic_id", smp_cpu(cpu)->apic_id);
			json_optional_double(w, "offset_ns", pc->offset_ok,
					     pc->offset.offset_ns);
			json_optional_double(w, "uncertainty_ns", pc->offset_ok,
					     pc->offset.uncertainty_ns);
			json_object_end(w);
		}
		json_array_end(w);
		json_array_begin(w, "drift_ppm");
		for (cpu = 1; cpu < ncpu; cpu++) {
			const struct xcpu_per_cpu *pc = &x->cpu[cpu];

			if (!smp_cpu(cpu)->online)
				continue;
			json_object_begin(w, NULL);
			json_uint(w, "cpu", cpu);
			json_optional_double(w, "drift_ppm", pc->drift_ok,
					     pc->drift.slope * 1e6);
			json_optional_double(w, "uncertainty_ppm", pc->drift_ok,
					     pc->drift.slope_uncertainty * 1e6);
			json_uint(w, "samples", pc->drift_samples);
			json_object_end(w);
		}
		json_array_end(w);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

void summary_print_json(const struct report_env *env, enum verdict verdict)
{
	static struct line_sink sink;
	const struct clock_result *r;
	struct json_writer w;
	unsigned int n, i, passed, failed, skipped;

	r = measure_results(&n);
	report_counts(&passed, &failed, &skipped);
	console_puts(JSON_BEGIN);
	json_init(&w, emit, &sink, 2);
	json_object_begin(&w, NULL);
	json_string(&w, "schema", "clockbench/1");
	json_string(&w, "version", env->version);
	json_object_begin(&w, "env");
	json_string(&w, "boot", env->boot);
	json_string(&w, "cmdline", env->cmdline);
	json_string(&w, "cpu", env->cpu);
	json_string(&w, "hypervisor", env->hypervisor);
	json_string(&w, "hypervisor_signature", env->hypervisor_signature);
	if (env->cpus >= 0)
		json_uint(&w, "cpus", (uint64_t)env->cpus);
	else
		json_null(&w, "cpus");
	json_uint(&w, "cpus_online", env->cpus_online);
	json_uint(&w, "memory_mib", env->memory_mib);
	json_bool(&w, "iopl_honoured", env->iopl_honoured);
	json_optional_double(&w, "tsc_hz", (double)stopwatch_hz() > 0,
			     (double)stopwatch_hz());
	json_object_end(&w);
	json_uint(&w, "budget_ms", env->budget_ms);
	summary_json_stats(&w, "empty_bracket_cycles", measure_empty_bracket(),
			   (double)stopwatch_hz() > 0);
	json_array_begin(&w, "clocks");
	for (i = 0; i < n; i++)
		json_clock(&w, &r[i]);
	json_array_end(&w);
	json_xcpu(&w);
	summary_json_ticks(&w);
	json_object_begin(&w, "checks");
	json_uint(&w, "passed", passed);
	json_uint(&w, "failed", failed);
	json_uint(&w, "skipped", skipped);
	json_object_end(&w);
	json_string(&w, "verdict",
		    verdict == VERDICT_PASS   ? "pass"
		    : verdict == VERDICT_SKIP ? "skip"
					      : "fail");
	json_object_end(&w);
	if (!json_finish(&w))
		printf("clockbench: the JSON writer found the document "
		       "malformed\n");
	if (sink.len)
		flush_line(&sink);
	console_puts(JSON_END);
}
