// SPDX-License-Identifier: MIT
/*
 * Starting the other vCPUs of a Xen PV guest: those Xen gave the domain,
 * found by asking for each id in turn, started with VCPUOP_initialise and
 * VCPUOP_up on a stack of base/smp.c's (which tells cpu_index() which CPU
 * it is), each with the event channels that wake it from idle
 * (platform/pv64/idle.c).
 */
#include <stdio.h>

#include "base/platform.h"
#include "base/smp.h"
#include "platform/pv64/xen_pv.h"
#include "platform/pv64/xen_pv_events.h"

/* Where VCPUOP_initialise starts an AP, with its vCPU id as the argument. */
static void xen_ap_start(unsigned int vcpu)
{
	unsigned int cpu = cpu_index();

	xen_pv_record_vcpu(cpu, vcpu);
	xen_pv_ap_setup();
	ap_main(cpu);
}

static bool start_vcpu(struct cpu *c, char *why, size_t whylen)
{
	char problem[160];

	if (xen_idle_bind(c->index, c->apic_id, problem, sizeof(problem)))
		printf("clockbench: vCPU %u will spin when idle: %s\n",
		       c->apic_id, problem);
	return xen_pv_vcpu_up(c->apic_id, xen_ap_start,
			      smp_ap_stack_top(c->index), why, whylen) == 0;
}

void platform_start_cpus(struct acpi *acpi, uint32_t hold_id, char *why,
			 size_t whylen)
{
	uint32_t vcpu;

	(void)acpi; /* the domain's vCPUs are Xen's to say, not the MADT's */
	smp_set_idle_ops(&xen_idle_ops);
	for (vcpu = 1; vcpu < MAX_CPUS; vcpu++) {
		char problem[160];

		if (xen_pv_vcpu_exists(vcpu, problem, sizeof(problem)) <= 0) {
			if (problem[0])
				snprintf(why, whylen, "%s", problem);
			break;
		}
		smp_add_cpu(vcpu, hold_id, start_vcpu);
	}
}
