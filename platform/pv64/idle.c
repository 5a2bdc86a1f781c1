// SPDX-License-Identifier: MIT
/*
 * Idle vCPUs of a Xen PV guest (see base/idle.h and base/smp.h's
 * smp_idle_ops).  An AP with no on_cpu() work blocks in Xen with
 * SCHEDOP_block, which enables event delivery as it blocks, so an event
 * that came after the AP last looked at its mailbox ends the block at
 * once instead of being missed.  The CPU that posts it work wakes it with
 * an event on the AP's own IPI channel (EVTCHNOP_bind_ipi, then
 * EVTCHNOP_send); and so that no block lasts for ever, the AP's VIRQ_TIMER
 * comes from its periodic vCPU timer every IDLE_BLOCK_BOUND_NS.  The
 * upcall (platform/pv64/xen_pv_events.c) only clears those two events;
 * back from the block the AP masks events again and reads its mailbox.
 * Blocked vCPUs leave the physical CPUs to the ones that work: under
 * QEMU, more vCPUs than host cores all spinning starved CPU 0.
 */
#include <stdio.h>

#include <xen/event_channel.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

#include "base/cpu.h"
#include "base/idle.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "hypervisor/hypercall.h"
#include "platform/pv64/xen_pv_events.h"

/* A lost wake-up (there should be none) costs at most this long. */
#define IDLE_BLOCK_BOUND_NS 1000000000ull
/* A blocked vCPU is running again within microseconds, unless the host is
 * busy; then it is given up on. */
#define PARK_TIMEOUT_MS 200
#define WAKE_TIMEOUT_MS 400

struct xen_idle_ports xen_idle_ports[MAX_CPUS];

static volatile bool blocking[MAX_CPUS];
static bool parked[MAX_CPUS];

static void idle_wait(unsigned int cpu)
{
	if (!xen_idle_ports[cpu].ipi) {
		cpu_relax();
		return;
	}
	__atomic_store_n(&blocking[cpu], true, __ATOMIC_RELEASE);
	HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_block, NULL);
	/* The upcall has taken the event and left events enabled. */
	irq_disable();
	__atomic_store_n(&blocking[cpu], false, __ATOMIC_RELEASE);
}

static void idle_kick(unsigned int cpu)
{
	if (xen_idle_ports[cpu].ipi)
		xen_evtchn_notify(xen_idle_ports[cpu].ipi);
}

const struct smp_idle_ops xen_idle_ops = {
	.wait = idle_wait,
	.kick = idle_kick,
};

static int unmask(uint32_t port)
{
	struct evtchn_unmask arg = { .port = port };

	return (int)HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_unmask,
			       &arg);
}

int xen_idle_bind(unsigned int cpu, uint32_t vcpu, char *why, size_t whylen)
{
	struct vcpu_set_periodic_timer period = {
		.period_ns = IDLE_BLOCK_BOUND_NS,
	};
	struct evtchn_bind_virq timer = { .virq = VIRQ_TIMER, .vcpu = vcpu };
	struct evtchn_bind_ipi ipi = { .vcpu = vcpu };
	int rc;

	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_set_periodic_timer,
			     vcpu, &period);
	if (rc) {
		snprintf(why, whylen,
			 "VCPUOP_set_periodic_timer(%u) failed: %d", vcpu, rc);
		return -1;
	}
	rc = (int)HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_bind_virq,
			     &timer);
	if (!rc)
		rc = unmask(timer.port);
	if (rc) {
		snprintf(why, whylen, "binding vCPU %u's VIRQ_TIMER failed: %d",
			 vcpu, rc);
		return -1;
	}
	rc = (int)HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_bind_ipi,
			     &ipi);
	if (!rc)
		rc = unmask(ipi.port);
	if (rc) {
		snprintf(why, whylen, "EVTCHNOP_bind_ipi(%u) failed: %d", vcpu,
			 rc);
		return -1;
	}
	xen_idle_ports[cpu] =
		(struct xen_idle_ports){ .ipi = ipi.port, .timer = timer.port };
	return 0;
}

/*
 * Idle APs block by themselves: parking them for the tick phase only
 * waits (bounded) until each that can block is on its way into Xen, and
 * counts them.
 */
unsigned int idle_park_others(void)
{
	uint64_t end = tsc_read() + stopwatch_cycles(PARK_TIMEOUT_MS * 1e6);
	unsigned int i, n = 0;

	for (i = 1; i < smp_nr_cpus(); i++) {
		parked[i] = false;
		if (!smp_cpu(i)->online || !xen_idle_ports[i].ipi)
			continue;
		while (!__atomic_load_n(&blocking[i], __ATOMIC_ACQUIRE) &&
		       tsc_read() < end)
			cpu_relax();
		parked[i] = __atomic_load_n(&blocking[i], __ATOMIC_ACQUIRE);
		n += parked[i];
	}
	return n;
}

static void nothing(void *arg)
{
	(void)arg;
}

/* Each parked AP is woken with a no-op, which proves it still wakes. */
unsigned int idle_unpark_others(void)
{
	unsigned int i, lost = 0;

	for (i = 1; i < smp_nr_cpus(); i++) {
		if (!parked[i])
			continue;
		parked[i] = false;
		if (on_cpu(i, nothing, NULL, WAKE_TIMEOUT_MS))
			continue;
		printf("clockbench: CPU %u (vCPU %u) did not wake from idle "
		       "within %u ms\n",
		       i, smp_cpu(i)->apic_id, WAKE_TIMEOUT_MS);
		lost++;
	}
	return lost;
}
