// SPDX-License-Identifier: MIT
/* The noise section, its checks and the JSON "noise" (see report/run.h). */
#include <stdio.h>

#include "lib/figure.h"
#include "report/run.h"
#include "report/tolerances.h"

void report_noise_print(const struct run_report *run)
{
	const struct noise_result *n = &run->noise;
	unsigned int cpu;

	printf("# noise: each CPU spun %u ms on the TSC with interrupts off; a "
	       "step above %u ns is a gap (time taken away)\n",
	       n->duration_ms, n->threshold_ns);
	if (!n->measured) {
		printf("  not measured: %s\n", n->reason);
		return;
	}
	printf("  %-7s %14s %10s %10s %14s %12s %12s\n", "CPU", "available %",
	       "gaps", "gaps/s", "longest ns", "gap p50 ns", "gap p99 ns");
	for (cpu = 0; cpu < n->ncpu; cpu++) {
		const struct noise_cpu *c = &n->cpu[cpu];
		struct noise_summary s;

		if (!c->online)
			continue;
		if (!c->ran) {
			printf("  %-7u %s\n", cpu,
			       c->tally ? "did not finish its spin in time"
					: "no room on the heap for its tally");
			continue;
		}
		noise_summarize(c->tally, n->tsc_hz, &s);
		printf("  %-7u %14.5f %10llu %10.1f %14.0f %12lld %12lld\n",
		       cpu, s.availability_pct,
		       (unsigned long long)c->tally->gaps, s.gaps_per_s,
		       s.longest_ns,
		       (long long)hist_percentile(&c->tally->gap_ns, 500),
		       (long long)hist_percentile(&c->tally->gap_ns, 990));
	}
}

void report_noise_checks(const struct run_report *run, struct ktap *k)
{
	const struct noise_result *n = &run->noise;
	unsigned int cpu, ran = 0;
	uint64_t back = 0;

	if (!n->measured) {
		report_skip(k, "noise: every online CPU spun to its end");
		report_info(k, "%s", n->reason);
		return;
	}
	for (cpu = 0; cpu < n->ncpu; cpu++) {
		const struct noise_cpu *c = &n->cpu[cpu];

		ran += c->online && c->ran;
		if (c->online && c->ran)
			back += c->tally->backward_steps;
	}
	report(k, ran == n->online, "noise: every online CPU spun to its end");
	report_info(k, "%u of %u", ran, n->online);
	report_figure(k, "cpus_spun", ran);
	report_figure(k, "cpus_online", n->online);
	/* One CPU's own TSC never steps back: a step back is a broken TSC
	 * or a broken spin, not noise. */
	report(k, back <= NOISE_BACKWARD_STEPS_MAX,
	       "noise: no CPU's TSC stepped back in its spin");
	report_info(k, "%llu steps back", (unsigned long long)back);
	report_figure(k, "backward_steps", (double)back);
	report_tolerance(k, "noise_backward_steps_max",
			 NOISE_BACKWARD_STEPS_MAX);
}

void report_noise_json(const struct run_report *run, struct json_writer *w)
{
	const struct noise_result *n = &run->noise;
	unsigned int cpu;

	json_object_begin(w, "noise");
	json_bool(w, "measured", n->measured);
	json_string(w, "reason", n->measured ? NULL : n->reason);
	json_string(w, "clock", "tsc");
	json_uint(w, "duration_ms", n->duration_ms);
	json_uint(w, "threshold_ns", n->threshold_ns);
	json_array_begin(w, "cpus");
	for (cpu = 0; n->measured && cpu < n->ncpu; cpu++) {
		const struct noise_cpu *c = &n->cpu[cpu];
		bool m = c->ran;
		struct noise_summary s;

		if (!c->online)
			continue;
		if (m)
			noise_summarize(c->tally, n->tsc_hz, &s);
		json_object_begin(w, NULL);
		json_uint(w, "cpu", cpu);
		json_uint(w, "apic_id", c->id);
		json_bool(w, "ran", m);
		json_bool(w, "together", c->together);
		json_uint_if(w, "reads", m, m ? c->tally->reads : 0);
		json_double_if(w, "span_ns", m, m ? s.span_ns : 0);
		json_uint_if(w, "gaps", m, m ? c->tally->gaps : 0);
		json_double_if(w, "gap_ns_total", m, m ? s.gap_ns : 0);
		json_double_if(w, "longest_ns", m, m ? s.longest_ns : 0);
		json_double_if(w, "availability_pct", m,
			       m ? s.availability_pct : 0);
		json_double_if(w, "gaps_per_s", m, m ? s.gaps_per_s : 0);
		json_uint_if(w, "backward_steps", m,
			     m ? c->tally->backward_steps : 0);
		if (m)
			json_hist_distribution(w, "gap_ns", &c->tally->gap_ns);
		else
			json_null(w, "gap_ns");
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
