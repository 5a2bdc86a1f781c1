// SPDX-License-Identifier: MIT
/*
 * Xen, PV and HVM alike: its CPUID leaves and its wall clock.  Pure C over
 * a CPUID function and a shared_info page, so the host unit tests run it.
 */
#include <stdio.h>
#include <string.h>

#include <xen/arch-x86/cpuid.h>

#include "hypervisor/xen.h"

/* Leaf offsets from the Xen base (xen/arch-x86/cpuid.h numbers them 1-5). */

/* Leaf 3, sub-leaf 0, EAX (XEN_TSC_EMULATED is in hypervisor/xen.h). */
#define XEN_TSC_RELIABLE (1u << 1)
#define XEN_TSC_RDTSCP	 (1u << 2)

volatile struct shared_info *xen_shared_info;

static bool listed(const struct hv_leaf *leaf, unsigned int offset)
{
	return leaf->max_leaf >= leaf->base + offset;
}

void xen_cpuid_read(const struct hv_leaf *leaf, cpuid_fn cpuid,
		    struct xen_cpuid_info *out)
{
	struct cpuid_regs r;

	memset(out, 0, sizeof(*out));
	out->base = leaf->base;
	out->max_leaf = leaf->max_leaf;
	if (listed(leaf, XEN_LEAF_VERSION)) {
		r = cpuid(leaf->base + XEN_LEAF_VERSION, 0);
		out->major = r.eax >> 16;
		out->minor = r.eax & 0xffff;
	}
	if (listed(leaf, XEN_LEAF_HYPERCALL)) {
		r = cpuid(leaf->base + XEN_LEAF_HYPERCALL, 0);
		out->hypercall_pages = r.eax;
		out->hypercall_msr = r.ebx;
	}
	if (listed(leaf, XEN_LEAF_TIME)) {
		r = cpuid(leaf->base + XEN_LEAF_TIME, 0);
		out->have_tsc_leaf = true;
		out->tsc_flags = r.eax;
		out->tsc_mode = r.ebx;
		out->tsc_khz = r.ecx;
		out->host_tsc_khz = cpuid(leaf->base + XEN_LEAF_TIME, 2).eax;
	}
	if (listed(leaf, XEN_LEAF_HVM)) {
		r = cpuid(leaf->base + XEN_LEAF_HVM, 0);
		out->have_hvm_leaf = true;
		out->hvm_features = r.eax;
		out->vcpu_id_valid = r.eax & XEN_HVM_CPUID_VCPU_ID_PRESENT;
		out->vcpu_id = out->vcpu_id_valid ? r.ebx : 0;
	}
}

const char *xen_tsc_mode_name(uint32_t mode)
{
	/* xen/arch-x86/cpuid.h, leaf 4 sub-leaf 0 EBX. */
	switch (mode) {
	case 0:
		return "default (native when the TSC is reliable, else "
		       "emulated)";
	case 1:
		return "always emulate";
	case 2:
		return "never emulate";
	case 3:
		return "never emulate, with TSC_AUX";
	default:
		return "unknown";
	}
}

char *xen_tsc_flags_describe(uint32_t flags, char *buf, size_t len)
{
	snprintf(buf, len, "rdtsc %s, host TSC %s, rdtscp %s%s",
		 flags & XEN_TSC_EMULATED ? "emulated by Xen" : "native",
		 flags & XEN_TSC_RELIABLE ? "reliable" : "not known reliable",
		 flags & XEN_TSC_RDTSCP ? "offered" : "not offered",
		 flags & ~(XEN_TSC_EMULATED | XEN_TSC_RELIABLE | XEN_TSC_RDTSCP)
			 ? ", other bits set"
			 : "");
	return buf;
}

int xen_wallclock_read(const volatile struct shared_info *s,
		       unsigned int max_tries, uint64_t *sec, uint32_t *nsec)
{
	unsigned int i;

	for (i = 0; i < (max_tries ? max_tries : 1); i++) {
		uint32_t version = s->wc_version;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		*sec = s->wc_sec | (uint64_t)s->xen_wc_sec_hi << 32;
		*nsec = s->wc_nsec;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(version & 1) && version == s->wc_version)
			return 0;
	}
	return -1;
}
