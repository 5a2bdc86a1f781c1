// SPDX-License-Identifier: MIT
/* The cross-CPU section, its checks and the JSON "cross_cpu" (see
 * report/run.h). */
#include <stdio.h>

#include "report/run.h"
#include "report/tolerances.h"

void report_xcpu_print(const struct run_report *run)
{
	const struct xcpu_result *x = &run->xcpu;
	unsigned int i, cpu;

	printf("# cross-CPU\n");
	for (cpu = 0; cpu < x->ncpu && cpu < MAX_CPUS; cpu++) {
		const struct xcpu_msrs *m = &x->cpu[cpu].msrs;

		if (!x->cpu[cpu].online)
			continue;
		printf("  CPU %-3u %s %-3u TSC_ADJUST ", cpu, run->cpus.id_name,
		       x->cpu[cpu].id);
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
	if (!x->applies) {
		printf("  does not apply: %s\n", x->reason);
		return;
	}
	printf("  %-12s %10s %8s %12s %8s  %s\n", "clock", "hand-offs", "warps",
	       "worst ns", "stalls",
	       "per CPU: offset from CPU 0 (ns), drift (ppm)");
	for (i = 0; i < x->nr; i++) {
		const struct xcpu_clock *c = &x->clocks[i];

		printf("  %-12s %10llu %8llu %12.0f %8llu ", c->clock->name,
		       (unsigned long long)c->iterations,
		       (unsigned long long)c->warps, c->worst_warp_ns,
		       (unsigned long long)c->stalls);
		for (cpu = 1; cpu < x->ncpu && cpu < MAX_CPUS; cpu++) {
			const struct xcpu_per_cpu *pc = &c->cpu[cpu];

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

void report_xcpu_checks(const struct run_report *run, struct ktap *k)
{
	const struct xcpu_result *x = &run->xcpu;
	unsigned int i, cpu;

	if (!x->applies) {
		report_skip(k, "cross-CPU checks");
		report_info(k, "%s", x->reason);
		return;
	}
	for (i = 0; i < x->nr; i++) {
		const struct xcpu_clock *c = &x->clocks[i];
		unsigned int missing = 0;

		/* A clock that claims CPUs agree must not warp; others are
		 * measured, not judged. */
		if (c->clock->flags & CLOCK_CLAIMS_STABLE) {
			report(k, c->warps <= XCPU_WARPS_MAX,
			       "%s, which claims stability across CPUs, never "
			       "warped",
			       c->clock->name);
			report_info(
				k, "%llu hand-offs, %llu warps, worst %.0f ns",
				(unsigned long long)c->iterations,
				(unsigned long long)c->warps, c->worst_warp_ns);
			report_figure(k, "hand_offs", (double)c->iterations);
			report_figure(k, "warps", (double)c->warps);
			report_figure(k, "worst_warp_ns", c->worst_warp_ns);
			report_tolerance(k, "xcpu_warps_max", XCPU_WARPS_MAX);
		}
		for (cpu = 1; cpu < x->ncpu && cpu < MAX_CPUS; cpu++)
			missing += x->cpu[cpu].online && !c->cpu[cpu].offset_ok;
		report(k, missing == 0 && c->iterations > 0,
		       "%s: the warp test ran and every CPU's offset from CPU "
		       "0 "
		       "was measured",
		       c->clock->name);
		report_info(k, "%llu hand-offs, %u offsets missing",
			    (unsigned long long)c->iterations, missing);
		report_figure(k, "hand_offs", (double)c->iterations);
		report_figure(k, "offsets_missing", missing);
	}
}

void report_xcpu_json(const struct run_report *run, struct json_writer *w)
{
	const struct xcpu_result *x = &run->xcpu;
	unsigned int i, cpu;

	json_object_begin(w, "cross_cpu");
	json_bool(w, "applies", x->applies);
	json_string(w, "reason", x->applies ? NULL : x->reason);
	json_uint(w, "cpus", x->online);
	json_array_begin(w, "clocks");
	for (i = 0; x->applies && i < x->nr; i++) {
		const struct xcpu_clock *c = &x->clocks[i];

		json_object_begin(w, NULL);
		json_string(w, "clock", c->clock->name);
		json_bool(w, "claims_stable",
			  c->clock->flags & CLOCK_CLAIMS_STABLE);
		json_uint(w, "iterations", c->iterations);
		json_uint(w, "warps", c->warps);
		json_double(w, "worst_warp_ns", c->worst_warp_ns);
		json_uint(w, "stalls", c->stalls);
		json_uint(w, "ambiguous_gaps", c->ambiguous_gaps);
		json_array_begin(w, "offsets");
		for (cpu = 1; cpu < x->ncpu && cpu < MAX_CPUS; cpu++) {
			const struct xcpu_per_cpu *pc = &c->cpu[cpu];

			if (!x->cpu[cpu].online)
				continue;
			json_object_begin(w, NULL);
			json_uint(w, "cpu", cpu);
			json_uint(w, "apic_id", x->cpu[cpu].id);
			json_double_if(w, "offset_ns", pc->offset_ok,
				       pc->offset.offset_ns);
			json_double_if(w, "uncertainty_ns", pc->offset_ok,
				       pc->offset.uncertainty_ns);
			if (pc->bracket_offsets_ns &&
			    pc->bracket_offsets_ns->total)
				json_hist_distribution(w, "bracket_offsets_ns",
						       pc->bracket_offsets_ns);
			json_object_end(w);
		}
		json_array_end(w);
		json_array_begin(w, "drift_ppm");
		for (cpu = 1; cpu < x->ncpu && cpu < MAX_CPUS; cpu++) {
			const struct xcpu_per_cpu *pc = &c->cpu[cpu];

			if (!x->cpu[cpu].online)
				continue;
			json_object_begin(w, NULL);
			json_uint(w, "cpu", cpu);
			json_double_if(w, "drift_ppm", pc->drift_ok,
				       pc->drift.slope * 1e6);
			json_double_if(w, "uncertainty_ppm", pc->drift_ok,
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
