// SPDX-License-Identifier: MIT
/* The CPUs the run started (see engine/cpus.h). */
#include <stdio.h>
#include <string.h>

#include "base/platform.h"
#include "base/smp.h"
#include "engine/cpus.h"

#define WHOAMI_TIMEOUT_MS 1000

struct whoami {
	unsigned int index;
	uint32_t id;
};

static void whoami(void *arg)
{
	struct whoami *w = arg;

	w->index = cpu_index();
	w->id = platform_cpu_id();
}

void cpus_collect(struct cpus_result *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->nr = smp_nr_cpus();
	out->online = smp_cpus_online();
	snprintf(out->problem, sizeof(out->problem), "%s", smp_start_problem());
	out->id_name = platform_cpu_id_name();
	out->note = platform_cpus_note();
	for (i = 0; i < out->nr && i < MAX_CPUS; i++) {
		const struct cpu *c = smp_cpu(i);
		struct whoami w = { ~0u, ~0u };

		out->cpu[i].id = c->apic_id;
		out->cpu[i].online = c->online;
		out->cpu[i].held = c->held;
		if (!i || !c->online)
			continue;
		out->cpu[i].ran = on_cpu(i, whoami, &w, WHOAMI_TIMEOUT_MS);
		out->cpu[i].said_index = w.index;
		out->cpu[i].said_id = w.id;
	}
}
