// SPDX-License-Identifier: MIT
/* The CPUs the run started (see engine/cpus.h). */
#include <stdio.h>

#include "base/platform.h"
#include "base/smp.h"
#include "engine/cpus.h"
#include "lib/ktap.h"

struct whoami {
	unsigned int index;
	uint32_t apic_id;
};

static void report_whoami(void *arg)
{
	struct whoami *w = arg;

	w->index = cpu_index();
	w->apic_id = platform_cpu_id();
}

void smp_print(void)
{
	const char *problem = smp_start_problem();
	unsigned int i;

	printf("  %-16s %u online of %u started or listed%s%s%s\n", "cpus",
	       smp_cpus_online(), smp_nr_cpus(), platform_cpus_note(),
	       problem[0] ? "; " : "", problem);
	for (i = 0; i < smp_nr_cpus(); i++) {
		const struct cpu *c = smp_cpu(i);

		printf("  %-16s CPU %u: %s %u, %s\n", "", i,
		       platform_cpu_id_name(), c->apic_id,
		       c->online ? "online"
		       : c->held ? "held back on purpose (hold_ap)"
				 : "did not start");
	}
}

void smp_checks(void)
{
	unsigned int i;

	for (i = 1; i < smp_nr_cpus(); i++) {
		const struct cpu *c = smp_cpu(i);
		struct whoami w = { ~0u, ~0u };
		bool ran;

		if (c->held) {
			report_skip("CPU %u (%s %u) held back by hold_ap", i,
				    platform_cpu_id_name(), c->apic_id);
			continue;
		}
		if (!c->online) {
			report(false, "CPU %u (%s %u) came online", i,
			       platform_cpu_id_name(), c->apic_id);
			continue;
		}
		ran = on_cpu(i, report_whoami, &w, 1000);
		report(ran && w.index == i && w.apic_id == c->apic_id,
		       "on_cpu(%u) ran on CPU %u with %s %u (expected %u)", i,
		       w.index, platform_cpu_id_name(), w.apic_id, c->apic_id);
	}
}
