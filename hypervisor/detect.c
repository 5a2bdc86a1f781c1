// SPDX-License-Identifier: MIT
/* Hypervisor detection from the CPUID signature leaves. */
#include <stdio.h>
#include <string.h>

#include "hypervisor/detect.h"
#include "lib/x86.h"

#define CPUID_ECX_HYPERVISOR (1u << 31)

static const struct {
	char signature[13];
	enum hv_kind kind;
	const char *name;
} known[] = {
	{ "KVMKVMKVM\0\0\0", HV_KVM, "KVM" },
	{ "XenVMMXenVMM", HV_XEN, "Xen" },
	{ "TCGTCGTCGTCG", HV_TCG, "TCG" },
	{ "Microsoft Hv", HV_HYPERV, "Hyper-V" },
	{ "VMwareVMware", HV_VMWARE, "VMware" },
	{ "bhyve bhyve ", HV_BHYVE, "bhyve" },
	{ "ACRNACRNACRN", HV_ACRN, "ACRN" },
	{ "QNXQVMBSQG\0\0", HV_QNX, "QNX" },
	{ " lrpepyh  vr", HV_PARALLELS, "Parallels" },
};

#define NR_KNOWN (sizeof(known) / sizeof(known[0]))

enum hv_kind hv_kind_from_signature(const char *signature)
{
	size_t i;

	for (i = 0; i < NR_KNOWN; i++)
		if (!memcmp(known[i].signature, signature, 12))
			return known[i].kind;
	return HV_UNKNOWN;
}

const char *hv_kind_name(enum hv_kind kind)
{
	size_t i;

	for (i = 0; i < NR_KNOWN; i++)
		if (known[i].kind == kind)
			return known[i].name;
	return "unknown hypervisor";
}

static bool printable_signature(const char *sig)
{
	size_t i;
	bool any = false;

	for (i = 0; i < 12; i++) {
		if (sig[i] == '\0')
			continue;
		if (sig[i] < 0x20 || sig[i] > 0x7e)
			return false;
		any = true;
	}
	return any;
}

void hv_scan(cpuid_fn cpuid, struct hv_info *info)
{
	uint32_t leaf;

	memset(info, 0, sizeof(*info));
	info->present = cpuid(CPUID_FEATURES, 0).ecx & CPUID_ECX_HYPERVISOR;
	if (!info->present)
		return;
	for (leaf = HV_LEAF_FIRST;
	     leaf < HV_LEAF_LAST && info->nr < HV_MAX_FOUND;
	     leaf += HV_LEAF_STEP) {
		struct cpuid_regs r = cpuid(leaf, 0);
		struct hv_leaf *found = &info->found[info->nr];
		char sig[12];

		memcpy(sig + 0, &r.ebx, 4);
		memcpy(sig + 4, &r.ecx, 4);
		memcpy(sig + 8, &r.edx, 4);
		/* Leaves past the last interface echo other data or zeros;
		 * an interface's max leaf lies within its own 0x100 block. */
		if (!printable_signature(sig) || r.eax < leaf ||
		    r.eax >= leaf + HV_LEAF_STEP)
			continue;
		found->base = leaf;
		found->max_leaf = r.eax;
		memcpy(found->signature, sig, 12);
		found->signature[12] = '\0';
		found->kind = hv_kind_from_signature(sig);
		info->nr++;
	}
	/* The hypervisor proper first, a Hyper-V interface it offers after. */
	if (info->nr > 1 && info->found[0].kind == HV_HYPERV) {
		struct hv_leaf first = info->found[0];

		memmove(&info->found[0], &info->found[1],
			(info->nr - 1) * sizeof(info->found[0]));
		info->found[info->nr - 1] = first;
	}
}

/* KVM's feature bits (CPUID base + 1, EAX), as KVM's cpuid.rst names them. */
static const char *const kvm_feature_names[32] = {
	[0] = "clocksource",
	[1] = "nop_io_delay",
	[2] = "mmu_op",
	[3] = "clocksource2",
	[4] = "async_pf",
	[5] = "steal_time",
	[6] = "pv_eoi",
	[7] = "pv_unhalt",
	[9] = "pv_tlb_flush",
	[10] = "async_pf_vmexit",
	[11] = "pv_send_ipi",
	[12] = "poll_control",
	[13] = "pv_sched_yield",
	[14] = "async_pf_int",
	[15] = "msi_ext_dest_id",
	[16] = "hc_map_gpa_range",
	[17] = "migration_control",
	[24] = "clocksource_stable_bit",
};

void hv_describe_features(const struct hv_leaf *leaf, cpuid_fn cpuid, char *buf,
			  size_t len)
{
	size_t used = 0;
	uint32_t eax;
	unsigned int bit;

	buf[0] = '\0';
	if (leaf->max_leaf < leaf->base + 1 &&
	    !(leaf->kind == HV_KVM && leaf->max_leaf == 0))
		return;
	eax = cpuid(leaf->base + 1, 0).eax;
	if (leaf->kind == HV_XEN) {
		snprintf(buf, len, "Xen %u.%u", eax >> 16, eax & 0xffff);
		return;
	}
	if (leaf->kind != HV_KVM)
		return;
	used = snprintf(buf, len, "KVM features 0x%08x:", eax);
	for (bit = 0; bit < 32 && used < len; bit++) {
		if (!(eax & (1u << bit)))
			continue;
		if (kvm_feature_names[bit])
			used += snprintf(buf + used, len - used, " %s",
					 kvm_feature_names[bit]);
		else
			used += snprintf(buf + used, len - used, " bit%u", bit);
	}
}

void hv_describe_missing(const struct hv_info *info, const char *want,
			 const char *clock, char *buf, size_t len)
{
	const struct hv_leaf *hv = info ? hv_primary(info) : NULL;

	snprintf(buf, len,
		 "no %s signature in the hypervisor leaves (%s%s): %s needs %s",
		 want, hv ? "the hypervisor is " : "no hypervisor found",
		 hv ? hv_kind_name(hv->kind) : "", clock, want);
}

const struct hv_leaf *hv_find(const struct hv_info *info, enum hv_kind kind)
{
	unsigned int i;

	for (i = 0; info && i < info->nr; i++)
		if (info->found[i].kind == kind)
			return &info->found[i];
	return NULL;
}

const struct hv_leaf *hv_primary(const struct hv_info *info)
{
	return info->nr ? &info->found[0] : NULL;
}
