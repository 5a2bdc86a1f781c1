/* SPDX-License-Identifier: MIT */
/*
 * Event channels of a PV guest (build/pv64/ only).  Xen's timer as a tick
 * source: VIRQ_TIMER bound to an event channel on vCPU 0, Xen's periodic
 * or one-shot vCPU timer behind it, and the upcall
 * (platform/pv64/xen_pv_events.c) that records each event the way ring 0
 * records an interrupt natively.  And the events that wake an idle AP
 * blocked in Xen (platform/pv64/idle.c): its wake-up IPI and its own
 * VIRQ_TIMER, which the upcall only clears.
 */
#ifndef CLOCKBENCH_PLATFORM_PV64_XEN_PV_EVENTS_H
#define CLOCKBENCH_PLATFORM_PV64_XEN_PV_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/smp.h"
#include "boot/boot.h"
#include "hypervisor/pvclock.h"
#include "lib/tick_source.h"

/* What the upcall needs, set while events are masked. */
struct xen_timer_state {
	uint32_t port; /* the event channel VIRQ_TIMER is bound to */
	bool oneshot;  /* re-arm VCPUOP_set_singleshot_timer each time */
	uint64_t period_ns;
	uint64_t margin_ns;	       /* a deadline nearer than this: skip */
	volatile uint64_t deadline_ns; /* the one armed now */
	/* The TSC it falls at, by the reading of vCPU 0's record that chose
	 * it: what the event's lateness is measured against. */
	volatile uint64_t deadline_tsc;
	/* vCPU 0's record at start, for when it never settles later. */
	struct pvclock_sample start;
};

extern struct xen_timer_state xen_timer;

extern struct tick_source xen_periodic_tick_source, xen_oneshot_tick_source;

/**
 * In a restored domain (its event channels gone): bind VIRQ_TIMER again
 * when it was bound, and arm the one-shot timer's pending deadline again,
 * as an OS re-programs its clockevent on resume.  0, or -1 with @why.
 */
int xen_pv_timer_resume(char *why, size_t whylen);

/* platform/pv64/xen_pv_entry.S: the event upcall and the failsafe
 * callback, registered for every vCPU. */
extern const char xen_event_entry[], xen_failsafe_entry[];

/* An AP's own event channels (0: none, the AP spins when idle). */
struct xen_idle_ports {
	uint32_t ipi;	/* EVTCHNOP_bind_ipi: the wake-up */
	uint32_t timer; /* its VIRQ_TIMER: the bound on a block */
};

extern struct xen_idle_ports xen_idle_ports[MAX_CPUS];

/* How idle APs wait (base/smp.h): blocked in Xen, woken by their IPI. */
extern const struct smp_idle_ops xen_idle_ops;

/**
 * Before CPU @cpu starts as vCPU @vcpu: bind its wake-up IPI and its
 * VIRQ_TIMER, and slow its periodic timer to the bound on a block.
 * Returns 0, or -1 with the reason in @why (the AP then spins when idle).
 */
int xen_idle_bind(unsigned int cpu, uint32_t vcpu, char *why, size_t whylen);

#endif
