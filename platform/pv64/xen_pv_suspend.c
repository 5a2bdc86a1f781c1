// SPDX-License-Identifier: MIT
/*
 * A Xen PV domU that takes part in xl save and restore (build/pv64/ only):
 * while the guest waits at an event point hypervisor/xen_suspend.c reads
 * its xenstore control/shutdown now and then; on "suspend" it acknowledges
 * and this file's part follows: it unmaps
 * shared_info (Xen's page, which a save cannot carry), puts pfns for
 * machine frames in start_info as the toolstack expects, and calls
 * SCHEDOP_shutdown(SHUTDOWN_suspend) with start_info's frame.  Back (in a
 * restored domain, or the same one when the suspend was cancelled) it maps
 * shared_info again, publishes the P2M frame list anew (its frames moved),
 * and takes the console's event channel and its pvclock area again.
 *
 * The P2M frame list (shared_info's arch.pfn_to_mfn_frame_list_list and
 * max_pfn) is published at the first poll: without it xl save fails with
 * "Bad mfn 0 for p2m frame list list".
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <xen/sched.h>

#include "base/cpu.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
#include "hypervisor/xen_suspend.h"
#include "platform/pv64/xen_pv.h"
#include "platform/pv64/xen_pv_events.h"

#define P2M_PER_PAGE	 (PAGE_SIZE / sizeof(uint64_t))
#define FRAME_LIST_PAGES 4 /* of P2M pages: 2048 of them, 4 GiB of guest */

static uint64_t frame_list[FRAME_LIST_PAGES][P2M_PER_PAGE]
	__attribute__((aligned(PAGE_SIZE)));
static uint64_t frame_list_list[P2M_PER_PAGE]
	__attribute__((aligned(PAGE_SIZE)));
static bool set_up, broken;

static int suspend(struct xen_suspend *s, char *said, size_t len);

static struct xen_suspend state = { .suspend = suspend };

/* The image is mapped at VIRT_BASE 0: a page's pfn is its address. */
static uint64_t virt_to_mfn(const void *va)
{
	const uint64_t *p2m = (const uint64_t *)xen_start_info->mfn_list;

	return p2m[(uintptr_t)va / PAGE_SIZE];
}

static uint64_t mfn_to_pfn(uint64_t mfn)
{
	const uint64_t *p2m = (const uint64_t *)xen_start_info->mfn_list;
	uint64_t pfn;

	for (pfn = 0; pfn < xen_start_info->nr_pages; pfn++)
		if (p2m[pfn] == mfn)
			return pfn;
	return ~0ull;
}

static int publish_p2m(char *why, size_t len)
{
	const uint64_t *p2m = (const uint64_t *)xen_start_info->mfn_list;
	uint64_t nr = xen_start_info->nr_pages;
	uint64_t pages = (nr + P2M_PER_PAGE - 1) / P2M_PER_PAGE, i;
	uint64_t lists = (pages + P2M_PER_PAGE - 1) / P2M_PER_PAGE;

	if (lists > FRAME_LIST_PAGES) {
		snprintf(why, len,
			 "the P2M list of %llu pages needs %llu frame-list "
			 "pages, more than %u",
			 (unsigned long long)nr, (unsigned long long)lists,
			 FRAME_LIST_PAGES);
		return -1;
	}
	for (i = 0; i < pages; i++)
		frame_list[i / P2M_PER_PAGE][i % P2M_PER_PAGE] =
			virt_to_mfn(&p2m[i * P2M_PER_PAGE]);
	for (i = 0; i < lists; i++)
		frame_list_list[i] = virt_to_mfn(frame_list[i]);
	xen_shared_info->arch.max_pfn = nr;
	xen_shared_info->arch.pfn_to_mfn_frame_list_list =
		virt_to_mfn(frame_list_list);
	return 0;
}

static int setup(char *why, size_t len)
{
	const struct start_info *si = xen_start_info;
	int rc;

	set_up = true;
	if (si->flags & SIF_INITDOMAIN) {
		snprintf(why, len, "as dom0 there is no suspend to answer");
		return -1;
	}
	state.store = xen_pv_map(si->store_mfn << 12, PAGE_SIZE, PTE_W, &rc);
	if (!state.store) {
		snprintf(why, len, "cannot map the xenstore ring (%d)", rc);
		return -1;
	}
	state.store_evtchn = si->store_evtchn;
	return publish_p2m(why, len);
}

/* Suspend; back in a restored domain (0) or the same one (1), or -1. */
static int suspend(struct xen_suspend *s, char *said, size_t len)
{
	struct start_info *si = (struct start_info *)xen_start_info;
	struct sched_shutdown reason = { .reason = SHUTDOWN_suspend };
	uint64_t store_mfn = si->store_mfn, console_mfn = si->console.domU.mfn;
	uint64_t si_mfn = virt_to_mfn(si);
	volatile void *shared = xen_shared_info;
	char why[96];
	long rc;

	if (xen_pv_remap(shared, 0, 0)) {
		snprintf(said, len, "could not unmap shared_info to suspend");
		return -1;
	}
	si->store_mfn = mfn_to_pfn(store_mfn);
	si->console.domU.mfn = mfn_to_pfn(console_mfn);
	rc = HYPERCALL3(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &reason,
			si_mfn);
	if (rc) { /* cancelled: the same domain, its frames unchanged */
		si->store_mfn = store_mfn;
		si->console.domU.mfn = console_mfn;
	}
	if (xen_pv_remap(shared, si->shared_info, PTE_W))
		return -1; /* nothing can be said without shared_info */
	if (publish_p2m(why, sizeof(why)))
		snprintf(said, len, "resumed, but %s", why);
	xen_pv_console_resume();
	if (!rc && xen_pv_timer_resume(why, sizeof(why)))
		snprintf(said, len, "resumed, but its timer: %s", why);
	s->store_evtchn = si->store_evtchn;
	return xen_suspend_resumed(rc, said, len);
}

int platform_event_poll(char *said, size_t len)
{
	said[0] = '\0';
	if (broken)
		return 0;
	if (!set_up && setup(said, len)) {
		broken = true;
		return -1;
	}
	return xen_suspend_poll(&state, said, len);
}

unsigned int platform_restores(void)
{
	return xen_suspend_restores();
}

int platform_cpu_resumed(char *why, size_t whylen)
{
	unsigned int cpu = cpu_index();

	/* A new domain has none of the old one's registered areas and
	 * event channels: this vCPU's time record, and the IPI channel and
	 * periodic timer that end its blocks when idle. */
	if (xen_suspend_cpu_resumed(why, whylen))
		return -1;
	return xen_idle_bind(cpu, smp_cpu(cpu)->apic_id, why, whylen);
}
