// SPDX-License-Identifier: MIT
/*
 * Xen HVM and PVH guests (the native images, when CPUID says Xen): fill
 * the hypercall page through the MSR Xen names in leaf base + 2, map
 * shared_info into a page of the image with XENMEM_add_to_physmap, and
 * write Xen's PV console as well as the UART (a PVH guest has no UART), or,
 * as Xen's hardware domain (a PVH dom0), Xen's own console alone.
 * A PV guest has all this its own way (platform/pv64/xen_pv.c).
 */
#include <stdio.h>

#include <xen/features.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/version.h>

#include "hypervisor/xen_console.h"
#include "lib/boot_info.h"
#include "base/cpu.h"
#include "base/paging.h"

#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
#include "hypervisor/xen_suspend.h"
#include "base/priv.h"

/* Where shared_info appears: a page of the image's own .bss, whose frame
 * Xen replaces (the image is identity-mapped, so address = frame << 12). */
static uint8_t shared_info_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

static int fill_hypercall_page(const struct xen_cpuid_info *x, char *why,
			       size_t whylen)
{
	if (xen_hypercall_page_ready())
		return 0;
	if (!x->hypercall_pages || !x->hypercall_msr) {
		snprintf(why, whylen,
			 "Xen's CPUID leaf %#x names no hypercall page MSR",
			 x->base + 2);
		return -1;
	}
	if (!wrmsr_safe(x->hypercall_msr, (uintptr_t)hypercall_page) ||
	    !xen_hypercall_page_ready()) {
		snprintf(why, whylen,
			 "Xen did not fill the hypercall page when its address "
			 "was written to MSR %#x",
			 x->hypercall_msr);
		return -1;
	}
	return 0;
}

/* Put shared_info at shared_info_page's frame: at setup, and again in a
 * restored domain, which has none.  Xen's result (0 on success). */
static long add_shared_info(void)
{
	struct xen_add_to_physmap map = {
		.domid = DOMID_SELF,
		.space = XENMAPSPACE_shared_info,
		.idx = 0,
		.gpfn = (uintptr_t)shared_info_page / PAGE_SIZE,
	};

	return HYPERCALL2(__HYPERVISOR_memory_op, XENMEM_add_to_physmap, &map);
}

int xen_guest_setup(const struct xen_cpuid_info *x, char *why, size_t whylen)
{
	long rc;

	if (xen_shared_info)
		return 0;
	if (fill_hypercall_page(x, why, whylen))
		return -1;
	rc = add_shared_info();
	if (rc) {
		snprintf(why, whylen,
			 "XENMEM_add_to_physmap(shared_info) failed: %ld", rc);
		return -1;
	}
	xen_shared_info = (volatile struct shared_info *)shared_info_page;
	return 0;
}

/* --- leaving ------------------------------------------------------------------- */

bool xen_hvm_can_shutdown(void)
{
	return xen_hypercall_page_ready();
}

void xen_hvm_shutdown(bool crash)
{
	struct sched_shutdown arg = { .reason = crash ? SHUTDOWN_crash
						      : SHUTDOWN_poweroff };

	HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &arg);
}

/* --- the memory map ---------------------------------------------------------- */

void xen_hvm_memory_map(struct boot_info *bi)
{
	static struct e820_entry map[BOOT_MEMMAP_MAX];
	struct xen_memory_map mm = { .nr_entries = BOOT_MEMMAP_MAX };

	if (!xen_hypercall_page_ready())
		return;
	set_xen_guest_handle(mm.buffer, map);
	if (HYPERCALL2(__HYPERVISOR_memory_op, XENMEM_memory_map, &mm) == 0)
		boot_info_set_e820(bi, map, mm.nr_entries,
				   "Xen (XENMEM_memory_map)");
}

/* --- the PV console ----------------------------------------------------------- */

static struct xencons console = {
	.kick = xen_evtchn_notify,
	.relax = xen_sched_yield,
	.max_spins = XENCONS_WAIT_SPINS,
};

static uint64_t hvm_param(uint32_t index)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };

	if (HYPERCALL2(__HYPERVISOR_hvm_op, HVMOP_get_param, &p))
		return 0;
	return p.value;
}

/* Xen's hardware domain (a PVH dom0) writes Xen's own console. */
static bool console_io;

bool xen_hvm_is_hardware_domain(void)
{
	return console_io;
}

static bool hardware_domain(void)
{
	struct xen_feature_info fi = { .submap_idx = 0 };

	return HYPERCALL2(__HYPERVISOR_xen_version, XENVER_get_features, &fi) ==
		       0 &&
	       (fi.submap & (1u << XENFEAT_dom0));
}

enum xen_hvm_console xen_hvm_console_init(void)
{
	struct xen_cpuid_info x;
	const struct hv_leaf *leaf;
	struct hv_info hv;
	char why[CLOCK_TEXT_LEN];
	uint64_t pfn, paddr;

	hv_scan(cpu_cpuid, &hv);
	leaf = hv_find(&hv, HV_XEN);
	if (!leaf)
		return XEN_HVM_CONSOLE_NONE;
	xen_cpuid_read(leaf, cpu_cpuid, &x);
	if (fill_hypercall_page(&x, why, sizeof(why)))
		return XEN_HVM_CONSOLE_NONE;
	if (hardware_domain()) {
		console_io = true;
		return XEN_HVM_CONSOLE_IO;
	}
	pfn = hvm_param(HVM_PARAM_CONSOLE_PFN);
	paddr = pfn * PAGE_SIZE;
	/* The boot map covers the low 4 GiB, where Xen puts the page. */
	if (!pfn || !paging_range_mapped(paddr, PAGE_SIZE))
		return XEN_HVM_CONSOLE_NONE;
	console.evtchn = (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN);
	console.ring = (volatile struct xencons_interface *)(uintptr_t)paddr;
	console.broken = !xencons_sane(console.ring);
	return XEN_HVM_CONSOLE_RING;
}

static size_t broken_lost; /* bytes not written: the ring's indexes broke */

void xen_hvm_console_write(const char *buf, size_t len)
{
	if (console_io)
		HYPERCALL3(__HYPERVISOR_console_io, CONSOLEIO_write, len, buf);
	else if (console.ring && !console.broken)
		xencons_write(&console, buf, len);
	else if (console.ring)
		broken_lost += len;
}

size_t xen_hvm_console_lost(void)
{
	return console.lost_total + broken_lost;
}

int xen_hvm_console_read_byte(void)
{
	return console.ring ? xencons_read_byte(&console) : -1;
}

/* --- suspend and resume (xl save, restore, migrate) ------------------------- */

static int hvm_suspend(struct xen_suspend *s, char *said, size_t len);

static struct xen_suspend suspend_state = { .suspend = hvm_suspend };
static bool suspend_set_up;

/* As Linux's HVM guests do: SCHEDOP_shutdown(SHUTDOWN_suspend) with no
 * start_info; back, shared_info added to the physmap again (a restored
 * domain has none), the event channels Xen's params now name, and the
 * pvclock area registered anew. */
static int hvm_suspend(struct xen_suspend *s, char *said, size_t len)
{
	struct sched_shutdown reason = { .reason = SHUTDOWN_suspend };
	long rc;

	rc = HYPERCALL3(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &reason, 0);
	if (xen_shared_info && add_shared_info()) {
		snprintf(said, len,
			 "resumed, but shared_info could not be added back");
		return -1;
	}
	if (console.ring)
		console.evtchn = (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN);
	s->store_evtchn = (uint32_t)hvm_param(HVM_PARAM_STORE_EVTCHN);
	return xen_suspend_resumed(rc, said, len);
}

int xen_hvm_event_poll(char *said, size_t len)
{
	said[0] = '\0';
	if (!suspend_set_up) {
		uint64_t pfn;

		suspend_set_up = true;
		/* Not as Xen's dom0, and only where there is Xen. */
		if (console_io || !xen_hypercall_page_ready())
			return 0;
		pfn = hvm_param(HVM_PARAM_STORE_PFN);
		if (!pfn || !paging_range_mapped(pfn * PAGE_SIZE, PAGE_SIZE))
			return 0;
		suspend_state.store = (volatile struct xenstore_domain_interface
					       *)(uintptr_t)(pfn * PAGE_SIZE);
		suspend_state.store_evtchn =
			(uint32_t)hvm_param(HVM_PARAM_STORE_EVTCHN);
	}
	return xen_suspend_poll(&suspend_state, said, len);
}

void xen_hvm_console_flush(void)
{
	if (console.ring)
		xencons_flush(&console);
}

/* An HVM guest asks Xen's leaf base + 4 on the CPU itself. */
uint32_t xen_vcpu_id(const struct xen_cpuid_info *x, unsigned int cpu)
{
	struct xen_cpuid_info here;

	xen_cpuid_read(
		&(struct hv_leaf){ .base = x->base, .max_leaf = x->max_leaf },
		cpu_cpuid, &here);
	return here.vcpu_id_valid ? here.vcpu_id : cpu;
}
