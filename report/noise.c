// SPDX-License-Identifier: MIT
/* The noise section, its checks and the JSON "noise" (see report/run.h). */
#include <stdio.h>

#include "lib/figure.h"
#include "report/run.h"
#include "report/tolerances.h"

bool report_steal_unread(const struct steal_setup *s)
{
	if (s->kind == STEAL_NONE)
		printf("  steal: %s\n", s->words);
	else if (!s->ok)
		printf("  steal: %s, not read: %s\n", s->words, s->why);
	return s->kind == STEAL_NONE || !s->ok;
}

/* Where a CPU's gap time went: the steal its record counted, the rest of
 * the gaps that held steal (the hypervisor's switching, which it counts as
 * the vCPU's running time), and the gaps without steal (exits and
 * interrupts, the hypervisor's or the host's). */
static void print_steal_split(const struct noise_result *n,
			      const struct noise_cpu *c, unsigned int cpu)
{
	const struct steal_attribution *a = &c->steal;
	double span_ns;

	if (!c->online || !c->ran || !c->steal_ok || !c->tally)
		return;
	span_ns = (double)c->tally->span_cycles * 1e9 / n->tsc_hz;
	printf("  CPU %u: steal %.1f ms, %.1f %% of its spin; %.1f ms of it in "
	       "%llu gaps that held steal (%.1f ms: %.1f %% steal, the rest "
	       "the hypervisor's switching, counted as running), %.1f ms in "
	       "gaps without steal (exits and interrupts)\n",
	       cpu, (double)c->steal_total_ns / 1e6,
	       span_ns > 0 ? 100.0 * (double)c->steal_total_ns / span_ns : 0,
	       a->steal_in_gaps_ns / 1e6,
	       (unsigned long long)a->gaps_with_steal, a->steal_gaps_ns / 1e6,
	       a->steal_gaps_ns > 0
		       ? 100.0 * a->steal_in_gaps_ns / a->steal_gaps_ns
		       : 0,
	       (a->gap_ns - a->steal_gaps_ns) / 1e6);
}

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
	if (n->tsc_trapped)
		printf("  the TSC's reads are trapped here (about %.0f ns "
		       "each, "
		       "an exit): the threshold is %u times that, not the "
		       "%u ns asked, and the time in those exits counts as "
		       "available\n",
		       n->tsc_read_ns, NOISE_TRAPPED_READ_FACTOR,
		       n->threshold_asked_ns);
	printf("  steal: %s\n", n->steal_words);
	printf("  %-7s %14s %10s %10s %14s %12s %12s %9s\n", "CPU",
	       "available %", "gaps", "gaps/s", "longest ns", "gap p50 ns",
	       "gap p99 ns", "steal %");
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
		printf("  %-7u %14.5f %10llu %10.1f %14.0f %12lld %12lld", cpu,
		       s.availability_pct, (unsigned long long)c->tally->gaps,
		       s.gaps_per_s, s.longest_ns,
		       (long long)hist_percentile(&c->tally->gap_ns, 500),
		       (long long)hist_percentile(&c->tally->gap_ns, 990));
		if (c->steal_ok)
			printf(" %9.1f\n", steal_share_pct(&c->steal));
		else
			printf(" %9s%s%s\n", "-", c->steal_why[0] ? "  " : "",
			       c->steal_why);
	}
	for (cpu = 0; cpu < n->ncpu; cpu++)
		print_steal_split(n, &n->cpu[cpu], cpu);
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

/* {"registered", "reason", "total_ns", "in_gaps_ns", "outside_ns",
 * "share_pct", "gaps_with_steal", "steal_gaps_ns", "failed_reads"}, or null
 * where there is no steal interface. */
static void json_steal(struct json_writer *w, const struct noise_result *n,
		       const struct noise_cpu *c)
{
	bool ok = c->ran && c->steal_ok;

	if (n->steal_kind == STEAL_NONE) {
		json_null(w, "steal");
		return;
	}
	json_object_begin(w, "steal");
	json_bool(w, "registered", c->steal_ok);
	json_string(w, "reason", c->steal_ok ? NULL : c->steal_why);
	json_uint_if(w, "total_ns", ok, c->steal_total_ns);
	json_double_if(w, "in_gaps_ns", ok, c->steal.steal_in_gaps_ns);
	json_double_if(w, "outside_ns", ok, c->steal.steal_outside_ns);
	json_double_if(w, "share_pct", ok, steal_share_pct(&c->steal));
	json_uint_if(w, "gaps_with_steal", ok, c->steal.gaps_with_steal);
	json_double_if(w, "steal_gaps_ns", ok, c->steal.steal_gaps_ns);
	json_uint_if(w, "failed_reads", ok, c->steal.failed_reads);
	json_object_end(w);
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
	json_uint(w, "threshold_asked_ns", n->threshold_asked_ns);
	json_bool(w, "tsc_trapped", n->tsc_trapped);
	json_double_if(w, "tsc_read_ns", n->tsc_trapped, n->tsc_read_ns);
	json_string(w, "steal_interface",
		    n->steal_kind == STEAL_NONE
			    ? NULL
			    : steal_kind_name(n->steal_kind));
	json_string(w, "steal_words", n->steal_words);
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
		json_steal(w, n, c);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
