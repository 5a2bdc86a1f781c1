// SPDX-License-Identifier: MIT
/* The hypervisor's word on the TSC's frequency (see hypervisor/hv_tsc.h). */
#include <stdio.h>

#include "hypervisor/hv_tsc.h"
#include "hypervisor/xen.h"

/* VMware's timing leaf, also offered by KVM and others: base + 0x10, EAX
 * the TSC's kHz. */
#define HV_LEAF_TIMING 0x10

uint64_t hv_tsc_frequency(const struct hv_info *hv, cpuid_fn cpuid,
			  char *source, size_t len)
{
	unsigned int i;

	source[0] = '\0';
	for (i = 0; hv && i < hv->nr; i++) {
		const struct hv_leaf *leaf = &hv->found[i];
		struct xen_cpuid_info x;

		if (leaf->kind == HV_XEN) {
			xen_cpuid_read(leaf, cpuid, &x);
			if (!x.have_tsc_leaf || !x.tsc_khz)
				continue;
			snprintf(source, len, "Xen CPUID leaf 0x%x",
				 leaf->base + XEN_LEAF_TIME);
			return (uint64_t)x.tsc_khz * 1000;
		}
		if (leaf->max_leaf >= leaf->base + HV_LEAF_TIMING &&
		    cpuid(leaf->base + HV_LEAF_TIMING, 0).eax) {
			snprintf(source, len, "%s CPUID leaf 0x%x",
				 hv_kind_name(leaf->kind),
				 leaf->base + HV_LEAF_TIMING);
			return (uint64_t)cpuid(leaf->base + HV_LEAF_TIMING, 0)
				       .eax *
			       1000;
		}
	}
	return 0;
}

uint64_t xen_host_tsc_frequency(const struct hv_info *hv, cpuid_fn cpuid,
				char *source, size_t len)
{
	const struct hv_leaf *leaf = hv ? hv_find(hv, HV_XEN) : NULL;
	struct xen_cpuid_info x;

	source[0] = '\0';
	if (!leaf)
		return 0;
	xen_cpuid_read(leaf, cpuid, &x);
	if (!x.have_tsc_leaf || (x.tsc_flags & XEN_TSC_EMULATED) ||
	    !x.host_tsc_khz)
		return 0;
	snprintf(source, len,
		 "Xen's host TSC kHz (CPUID leaf 0x%x.2; no clock to calibrate "
		 "against)",
		 leaf->base + XEN_LEAF_TIME);
	return (uint64_t)x.host_tsc_khz * 1000;
}
