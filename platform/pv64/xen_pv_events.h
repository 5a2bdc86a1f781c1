/* SPDX-License-Identifier: MIT */
/*
 * Xen's timer as a tick source of a PV guest (build/pv64/ only): VIRQ_TIMER
 * bound to an event channel on vCPU 0, Xen's periodic or one-shot vCPU
 * timer behind it, and the upcall (hypervisor/xen_pv_events.c) that
 * records each event the way ring 0 records an interrupt natively.
 */
#ifndef CLOCKBENCH_PLATFORM_PV64_XEN_PV_EVENTS_H
#define CLOCKBENCH_PLATFORM_PV64_XEN_PV_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/tick_source.h"

/* What the upcall needs, set while events are masked. */
struct xen_timer_state {
	uint32_t port; /* the event channel VIRQ_TIMER is bound to */
	bool oneshot;  /* re-arm VCPUOP_set_singleshot_timer each time */
	uint64_t period_ns;
	uint64_t margin_ns;	       /* a deadline nearer than this: skip */
	volatile uint64_t deadline_ns; /* the one armed now */
	uint64_t tsc_hz;	       /* to turn lateness into TSC cycles */
	/* CPU 0's pvclock record at start: Xen's time from the TSC. */
	uint64_t tsc_timestamp, system_time_ns;
	uint32_t mul_frac;
	int8_t shift;
};

extern struct xen_timer_state xen_timer;

extern struct tick_source xen_periodic_tick_source, xen_oneshot_tick_source;

#endif
