// SPDX-License-Identifier: MIT
/* The clock table, the platform section and the shared clock checks.
 * Nothing here names a clock but the table itself. */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/stopwatch.h"
#include "drivers/acpi_pm.h"
#include "drivers/hpet.h"
#include "drivers/pit.h"
#include "drivers/tsc.h"
#include "engine/clocks.h"
#include "hypervisor/detect.h"
#include "hypervisor/hv_tsc.h"
#include "hypervisor/kvmclock.h"
#include "hypervisor/xen.h"
#include "lib/ktap.h"

static struct clock *const clock_table[] = {
	&tsc_clock,  &tsc_rdtscp_clock, &tsc_ordered_clock,
	&hpet_clock, &acpi_pm_clock,	&pit_clock,
	&kvm_clock,  &xen_pvclock,	NULL,
};

struct clock *const *clocks_all(void)
{
	return clock_table;
}

const struct clock *clocks_stopwatch(void)
{
	struct clock *const *c;

	for (c = clock_table; *c; c++)
		if ((*c)->stopwatch)
			return *c;
	return NULL;
}

const struct clock *clocks_reference_for(const struct clock *c)
{
	const struct clock *best = NULL;
	struct clock *const *cp;

	for (cp = clock_table; *cp; cp++) {
		const struct clock *ref = *cp;

		if (!ref->reference_rank || !ref->present)
			continue;
		if (c && (clock_same_counter(ref, c) ||
			  ref == c->calibrated_against))
			continue;
		if (!best || ref->reference_rank < best->reference_rank)
			best = ref;
	}
	return best;
}

const struct clock *clocks_reference(void)
{
	return clocks_reference_for(NULL);
}

static void probe_one(struct clock *c, const struct probe_env *env)
{
	c->absent_reason[0] = '\0';
	c->present = probe_present(c->probe(c, env), c->absent_reason,
				   sizeof(c->absent_reason));
}

void clocks_probe(struct probe_env *env)
{
	const struct clock *stopwatch;
	struct clock *const *c;

	env->hv_tsc_hz =
		hv_tsc_frequency(env->hv, cpu_cpuid, env->hv_tsc_source,
				 sizeof(env->hv_tsc_source));
	env->xen_host_tsc_hz = xen_host_tsc_frequency(
		env->hv, cpu_cpuid, env->xen_host_tsc_source,
		sizeof(env->xen_host_tsc_source));
	for (c = clock_table; *c; c++)
		if (!(*c)->probe_late)
			probe_one(*c, env);
	env->reference = clocks_reference();
	for (c = clock_table; *c; c++)
		if ((*c)->probe_late)
			probe_one(*c, env);
	stopwatch = clocks_stopwatch();
	if (stopwatch && stopwatch->present && stopwatch->freq_hz) {
		stopwatch_set_hz(stopwatch->freq_hz);
		env->stopwatch = stopwatch;
	}
}

static void format_hz(char *buf, size_t len, double hz)
{
	if (hz >= 1e9)
		snprintf(buf, len, "%.6f GHz", hz / 1e9);
	else if (hz >= 1e6)
		snprintf(buf, len, "%.6f MHz", hz / 1e6);
	else
		snprintf(buf, len, "%.3f kHz", hz / 1e3);
}

static void format_flags(char *buf, size_t len, unsigned int flags)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < clock_flag_count && used < len; i++)
		if (flags & clock_flag_names[i].flag)
			used += snprintf(buf + used, len - used, ", %s",
					 clock_flag_names[i].words);
}

static void report_tsc_features(void)
{
	const struct tsc_features *f = tsc_features();

	printf("  %-16s invariant %s, rdtscp %s, TSC-deadline %s, TSC_ADJUST "
	       "%s",
	       "tsc features", f->invariant ? "yes" : "no",
	       f->rdtscp ? "yes" : "no", f->deadline ? "yes" : "no",
	       f->tsc_adjust ? "yes" : "no");
	if (f->tsc_adjust && f->tsc_adjust_read)
		printf(" (%lld)", (long long)f->tsc_adjust_value);
	else if (f->tsc_adjust)
		printf(" (unreadable)");
	printf("\n");
	if (f->cpuid_frequency[0])
		printf("  %-16s CPUID: %s\n", "tsc frequency",
		       f->cpuid_frequency);
}

void clocks_report_platform(void)
{
	struct clock *const *cp;

	printf("# clocks\n");
	for (cp = clock_table; *cp; cp++) {
		const struct clock *c = *cp;
		char hz[32], flags[96];

		if (!c->present) {
			printf("  %-12s absent: %s\n", c->name,
			       c->absent_reason);
			continue;
		}
		format_hz(hz, sizeof(hz), (double)c->freq_hz);
		format_flags(flags, sizeof(flags), c->flags);
		printf("  %-12s present  %s (%s), %u-bit%s\n", c->name, hz,
		       c->freq_source, c->width_bits, flags);
		if (c->notes[0])
			printf("  %-12s %s\n", "", c->notes);
	}
	report_tsc_features();
}

void clocks_check(void)
{
	struct clock *const *cp;

	for (cp = clock_table; *cp; cp++) {
		const struct clock *c = *cp;
		unsigned long bad;

		if (!c->present || !c->bad_reads)
			continue;
		bad = c->bad_reads();
		report(bad == 0, "%s: %s (%lu did)", c->name,
		       c->bad_reads_check, bad);
	}
}
