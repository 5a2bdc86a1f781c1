/* SPDX-License-Identifier: MIT */
/*
 * A Xen domU's part in xl save, restore and migrate, PV and HVM alike:
 * while the guest waits at an event point, read its xenstore
 * control/shutdown now and then; on "suspend", acknowledge (write the node
 * empty: the toolstack waits for that) and hand over to the platform's
 * suspend, which knows how this kind of guest suspends and comes back
 * (platform/pv64/xen_pv_suspend.c, platform/hvm64/xen_hvm.c).
 */
#ifndef CLOCKBENCH_HYPERVISOR_XEN_SUSPEND_H
#define CLOCKBENCH_HYPERVISOR_XEN_SUSPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypervisor/xenstore.h"

struct xen_suspend {
	volatile struct xenstore_domain_interface *store; /* NULL: none */
	uint32_t store_evtchn; /* the platform's suspend updates it */
	/* Suspend now: 0 back in a restored domain, 1 back in the same one
	 * (the suspend was cancelled), -1 with @said. */
	int (*suspend)(struct xen_suspend *s, char *said, size_t len);
	/* The poll's own state. */
	bool broken;
	uint32_t req_id;
	uint64_t next_poll, asked_at; /* stopwatch */
	int stage;
};

/**
 * The end of a platform's suspend, once SCHEDOP_shutdown(SHUTDOWN_suspend)
 * returned @rc and the platform's own pages are back: Xen's pvclock area
 * registered anew, and how it went in @said (unless @said already holds a
 * sentence).  Returns the suspend's result: 1 when it was cancelled (the
 * same domain), 0 in a restored one.
 */
int xen_suspend_resumed(long rc, char *said, size_t len);

/** Restores so far (platform_restores()): xen_suspend_resumed() counts
 * each one after CPU 0's part is set up again. */
unsigned int xen_suspend_restores(void);

/**
 * On a CPU other than 0, after a restore: its Xen time record's area
 * registered anew and checked renewed (platform_cpu_resumed()'s part that
 * every Xen guest type shares).  0, or -1 with @why.
 */
int xen_suspend_cpu_resumed(char *why, size_t whylen);

/**
 * One step of the poll (platform_event_poll()'s contract): 0 when nothing
 * happened, 1 when the guest suspended and resumed (@said says how), -1
 * when the store broke or refused (@said says why; polling stops).
 */
int xen_suspend_poll(struct xen_suspend *s, char *said, size_t len);

#endif
