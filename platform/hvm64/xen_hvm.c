// SPDX-License-Identifier: MIT
/*
 * Xen HVM and PVH guests (the native images, when CPUID says Xen): fill
 * the hypercall page through the MSR Xen names in leaf base + 2, map
 * shared_info into a page of the image with XENMEM_add_to_physmap, and
 * write Xen's PV console as well as the UART (a PVH guest has no UART).
 * A PV guest has all this its own way (hypervisor/xen_pv.c).
 */
#include <stdio.h>

#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/memory.h>

#include "hypervisor/xen_console.h"
#include "base/cpu.h"
#include "base/paging.h"

#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
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

int xen_guest_setup(const struct xen_cpuid_info *x, char *why, size_t whylen)
{
	struct xen_add_to_physmap map = {
		.domid = DOMID_SELF,
		.space = XENMAPSPACE_shared_info,
		.idx = 0,
		.gpfn = (uintptr_t)shared_info_page / PAGE_SIZE,
	};
	long rc;

	if (xen_shared_info)
		return 0;
	if (!xen_hypercall_page_ready()) {
		if (!x->hypercall_pages || !x->hypercall_msr) {
			snprintf(why, whylen,
				 "Xen's CPUID leaf %#x names no hypercall "
				 "page MSR",
				 x->base + 2);
			return -1;
		}
		if (!wrmsr_safe(x->hypercall_msr, (uintptr_t)hypercall_page) ||
		    !xen_hypercall_page_ready()) {
			snprintf(why, whylen,
				 "Xen did not fill the hypercall page when "
				 "its address was written to MSR %#x",
				 x->hypercall_msr);
			return -1;
		}
	}
	rc = HYPERCALL2(__HYPERVISOR_memory_op, XENMEM_add_to_physmap, &map);
	if (rc) {
		snprintf(why, whylen,
			 "XENMEM_add_to_physmap(shared_info) failed: %ld", rc);
		return -1;
	}
	xen_shared_info = (volatile struct shared_info *)shared_info_page;
	return 0;
}

/* --- the PV console ----------------------------------------------------------- */

static struct xencons console = {
	.kick = xen_evtchn_notify,
	.max_spins = XENCONS_WAIT_SPINS,
};

static uint64_t hvm_param(uint32_t index)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };

	if (HYPERCALL2(__HYPERVISOR_hvm_op, HVMOP_get_param, &p))
		return 0;
	return p.value;
}

void xen_hvm_console_init(void)
{
	struct xen_cpuid_info x;
	const struct hv_leaf *leaf;
	struct hv_info hv;
	char why[CLOCK_TEXT_LEN];
	uint64_t pfn, paddr;

	hv_scan(cpu_cpuid, &hv);
	leaf = hv_find(&hv, HV_XEN);
	if (!leaf)
		return;
	xen_cpuid_read(leaf, cpu_cpuid, &x);
	if (fill_hypercall_page(&x, why, sizeof(why)))
		return;
	pfn = hvm_param(HVM_PARAM_CONSOLE_PFN);
	paddr = pfn * PAGE_SIZE;
	/* The boot map covers the low 4 GiB, where Xen puts the page. */
	if (!pfn || !paging_range_mapped(paddr, PAGE_SIZE))
		return;
	console.evtchn = (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN);
	console.ring = (volatile struct xencons_interface *)(uintptr_t)paddr;
	console.broken = !xencons_sane(console.ring);
}

void xen_hvm_console_write(const char *buf, size_t len)
{
	if (console.ring && !console.broken)
		xencons_write(&console, buf, len);
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
