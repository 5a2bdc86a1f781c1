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
