// SPDX-License-Identifier: MIT
/*
 * Xen HVM and PVH guests (the native images, when CPUID says Xen): fill
 * the hypercall page through the MSR Xen names in leaf base + 2, and map
 * shared_info into a page of the image with XENMEM_add_to_physmap.  A PV
 * guest has both from the start (hypervisor/xen_pv.c).
 */
#include <stdio.h>

#include <xen/memory.h>

#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
#include "kernel/priv.h"

/* Where shared_info appears: a page of the image's own .bss, whose frame
 * Xen replaces (the image is identity-mapped, so address = frame << 12). */
static uint8_t shared_info_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

int xen_hvm_setup(const struct xen_cpuid_info *x, char *why, size_t whylen)
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
