// SPDX-License-Identifier: MIT
/* The pvclock step monitor's section, its checks and the JSON
 * "pvclock_steps" (see report/run.h, engine/pvsteps.h). */
#include <stdio.h>

#include "report/run.h"
#include "report/tolerances.h"

static const char *spans_words(unsigned int spans)
{
	switch (spans & (PVSTEPS_SPAN_NOISE | PVSTEPS_SPAN_LIFECYCLE)) {
	case PVSTEPS_SPAN_NOISE | PVSTEPS_SPAN_LIFECYCLE:
		return "the noise phase's spin and the lifecycle events' waits";
	case PVSTEPS_SPAN_NOISE:
		return "the noise phase's spin";
	case PVSTEPS_SPAN_LIFECYCLE:
		return "the lifecycle events' waits";
	default:
		return "nothing: neither the noise spin nor an event wait ran";
	}
}

static double watched_ns(const struct pvsteps_result *p,
			 const struct pvclock_step_monitor *m)
{
	return p->tsc_hz > 0 ? (double)m->watched_cycles * 1e9 / p->tsc_hz : 0;
}

static double updates_per_s(const struct pvsteps_result *p,
			    const struct pvclock_step_monitor *m)
{
	double ns = watched_ns(p, m);

	return ns > 0 ? (double)m->updates * 1e9 / ns : 0;
}

void report_pvsteps_print(const struct run_report *run)
{
	const struct pvsteps_result *p = &run->pvsteps;
	char flags[PVCLOCK_FLAGS_TEXT_LEN];
	unsigned int cpu;

	printf("# pvclock steps: at each update of a vCPU's pvclock record, "
	       "the new parameters' time less the old's at one TSC value\n");
	if (!p->present) {
		printf("  not watched: %s\n", p->reason);
		return;
	}
	printf("  %s, watched over %s\n", p->clock, spans_words(p->spans));
	printf("  %-5s %10s %10s %9s %10s %10s %10s %10s %s\n", "CPU",
	       "watched ms", "updates", "per s", "p50 ns", "p99 ns", "fwd max",
	       "back max", "flags (first, changes)");
	for (cpu = 0; cpu < p->ncpu; cpu++) {
		const struct pvclock_step_monitor *m = p->cpu[cpu].monitor;

		if (!p->cpu[cpu].online)
			continue;
		if (!m) {
			printf("  %-5u not watched: %s\n", cpu,
			       p->cpu[cpu].area ? "no room on the heap"
						: "no record on this vCPU");
			continue;
		}
		printf("  %-5u %10.1f %10llu %9.2f %10lld %10lld %10lld "
		       "%10lld %s, %u%s\n",
		       cpu, watched_ns(p, m) / 1e6,
		       (unsigned long long)m->updates, updates_per_s(p, m),
		       (long long)hist_percentile(&m->step_ns, 500),
		       (long long)hist_percentile(&m->step_ns, 990),
		       (long long)m->largest_forward_ns,
		       (long long)m->largest_back_ns,
		       pvclock_flags_describe(m->first_flags, flags,
					      sizeof(flags)),
		       m->nr_changes, m->changes_dropped ? "+" : "");
	}
}

void report_pvsteps_checks(const struct run_report *run, struct ktap *k)
{
	const struct pvsteps_result *p = &run->pvsteps;
	uint64_t unsettled = 0, refused = 0, back = 0, stable = 0;
	int64_t worst = 0;
	unsigned int cpu;

	if (!p->present) {
		report_skip(k, "pvclock steps: every record settled within "
			       "its read bound");
		report_info(k, "%s", p->reason);
		report_skip(k, "pvclock steps: no step back beyond the "
			       "record's resolution while TSC stable");
		report_info(k, "%s", p->reason);
		return;
	}
	for (cpu = 0; cpu < p->ncpu; cpu++) {
		const struct pvclock_step_monitor *m = p->cpu[cpu].monitor;

		if (!m)
			continue;
		unsettled += m->unreadable;
		refused += m->refused;
		back += m->stable_back_beyond;
		stable += m->stable_updates;
		if (m->stable_worst_back_ns < worst)
			worst = m->stable_worst_back_ns;
	}
	/* The hypervisor rewrites a vCPU's record while that vCPU is out of
	 * the guest (KVM before entry, Xen on its own pCPU): a version left
	 * odd, or changing, through a whole bounded read is a broken
	 * record, not a busy host. */
	report(k, unsettled <= PVSTEPS_UNSETTLED_MAX && !refused,
	       "pvclock steps: every record settled within its read bound");
	report_info(k,
		    "%llu polls unsettled after %u reads, %llu updates "
		    "with a shift out of range",
		    (unsigned long long)unsettled, p->max_tries,
		    (unsigned long long)refused);
	report_figure(k, "unsettled_polls", (double)unsettled);
	report_figure(k, "refused_updates", (double)refused);
	report_tolerance(k, "pvsteps_unsettled_max", PVSTEPS_UNSETTLED_MAX);
	/* PVCLOCK_TSC_STABLE_BIT is the hypervisor's promise that the
	 * record's time never goes back, so that a guest need not clamp it
	 * (Linux skips its last-value guard then): without the bit a step
	 * back is allowed, and only described. */
	if (!stable) {
		report_skip(k, "pvclock steps: no step back beyond the "
			       "record's resolution while TSC stable");
		report_info(k, "no update seen with PVCLOCK_TSC_STABLE_BIT "
			       "before and after: nothing promised");
		return;
	}
	report(k, back <= PVSTEPS_STABLE_BACK_MAX,
	       "pvclock steps: no step back beyond the record's resolution "
	       "while TSC stable");
	report_info(k, "%llu of %llu stable updates, worst %lld ns",
		    (unsigned long long)back, (unsigned long long)stable,
		    (long long)worst);
	report_figure(k, "stable_back_steps", (double)back);
	report_figure(k, "stable_updates", (double)stable);
	report_figure(k, "worst_back_ns", (double)worst);
	report_tolerance(k, "pvsteps_stable_back_max", PVSTEPS_STABLE_BACK_MAX);
}

static void json_flag_history(struct json_writer *w,
			      const struct pvclock_step_monitor *m)
{
	char words[PVCLOCK_FLAGS_TEXT_LEN];
	unsigned int i;

	json_array_begin(w, "flag_history");
	for (i = 0; i < m->nr_changes; i++) {
		const struct pvclock_flag_change *c = &m->changes[i];
		uint8_t set = c->after & ~c->before;
		uint8_t cleared = c->before & ~c->after;

		json_object_begin(w, NULL);
		json_uint(w, "update", c->update);
		json_uint(w, "version", c->version);
		json_uint(w, "flags", c->after);
		json_string(
			w, "set",
			set ? pvclock_flags_describe(set, words, sizeof(words))
			    : NULL);
		json_string(w, "cleared",
			    cleared ? pvclock_flags_describe(cleared, words,
							     sizeof(words))
				    : NULL);
		json_object_end(w);
	}
	json_array_end(w);
	json_uint(w, "flag_history_dropped", m->changes_dropped);
}

static void json_cpu(struct json_writer *w, const struct pvsteps_result *p,
		     unsigned int cpu)
{
	const struct pvclock_step_monitor *m = p->cpu[cpu].monitor;
	char words[PVCLOCK_FLAGS_TEXT_LEN];

	json_object_begin(w, NULL);
	json_uint(w, "cpu", cpu);
	json_uint(w, "apic_id", p->cpu[cpu].id);
	json_bool(w, "watched", m != NULL);
	if (!m) {
		json_string(w, "reason",
			    p->cpu[cpu].area ? "no room on the heap"
					     : "no record on this vCPU");
		json_object_end(w);
		return;
	}
	json_double(w, "watched_ns", watched_ns(p, m));
	json_uint(w, "polls", m->polls);
	json_uint(w, "updates", m->updates);
	json_double(w, "updates_per_s", updates_per_s(p, m));
	json_uint(w, "odd_polls", m->odd_polls);
	json_uint(w, "unsettled_polls", m->unreadable);
	json_uint(w, "refused_updates", m->refused);
	json_int(w, "largest_forward_ns", m->largest_forward_ns);
	json_int(w, "largest_back_ns", m->largest_back_ns);
	json_uint(w, "stable_updates", m->stable_updates);
	json_uint(w, "stable_back_steps", m->stable_back_beyond);
	json_int(w, "stable_worst_back_ns", m->stable_worst_back_ns);
	if (m->step_ns.total)
		json_hist_distribution(w, "step_ns", &m->step_ns);
	else
		json_null(w, "step_ns");
	json_uint(w, "first_flags", m->first_flags);
	json_string(
		w, "first_flags_words",
		pvclock_flags_describe(m->first_flags, words, sizeof(words)));
	json_flag_history(w, m);
	json_object_end(w);
}

void report_pvsteps_json(const struct run_report *run, struct json_writer *w)
{
	const struct pvsteps_result *p = &run->pvsteps;
	unsigned int cpu;

	json_object_begin(w, "pvclock_steps");
	json_bool(w, "present", p->present);
	json_string(w, "reason", p->present ? NULL : p->reason);
	json_string(w, "clock", p->present ? p->clock : NULL);
	json_string(w, "span", p->present ? spans_words(p->spans) : NULL);
	json_uint(w, "noise_poll_every", PVSTEPS_NOISE_POLL_EVERY);
	json_uint(w, "max_tries", p->max_tries);
	json_array_begin(w, "cpus");
	for (cpu = 0; p->present && cpu < p->ncpu; cpu++)
		if (p->cpu[cpu].online)
			json_cpu(w, p, cpu);
	json_array_end(w);
	json_object_end(w);
}
