// SPDX-License-Identifier: MIT
/*
 * Fuzz target: CPUID as a hypervisor may answer it (hypervisor/detect.c,
 * lib/cpuinfo.c, hypervisor/hv_tsc.c, hypervisor/xen.c): the vendor and
 * brand, the scan of the hypervisor leaves and their signatures, the
 * features in words, the TSC frequency the leaves state, and Xen's leaves
 * from the base the scan found.
 *
 * Input: a buffer length byte, then leaves, each a little-endian leaf,
 * sub-leaf and EAX to EDX (24 bytes); a leaf not listed answers zeros,
 * and the last entry for a leaf and sub-leaf wins.
 */
#include <stdlib.h>
#include <string.h>

#include "hypervisor/detect.h"
#include "hypervisor/hv_tsc.h"
#include "hypervisor/xen.h"
#include "lib/cpuinfo.h"
#include "tests/fuzz/fuzz_phys.h"

#define MAX_LEAVES 64

struct leaf_entry {
	uint32_t leaf, sub;
	struct cpuid_regs r;
};

static struct leaf_entry leaves[MAX_LEAVES];
static unsigned int nr_leaves;

static struct cpuid_regs fuzz_cpuid(uint32_t leaf, uint32_t sub)
{
	unsigned int i = nr_leaves;

	while (i--)
		if (leaves[i].leaf == leaf && leaves[i].sub == sub)
			return leaves[i].r;
	return (struct cpuid_regs){ 0, 0, 0, 0 };
}

static void check_text(const char *s, size_t size)
{
	if (size && !memchr(s, '\0', size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_phys phys;
	struct xen_cpuid_info x;
	const struct hv_leaf *xen;
	struct cpu_info cpu;
	struct hv_info hv;
	unsigned int i;
	size_t len;
	char *buf;

	fuzz_phys_reset(&phys);
	len = 1 + fuzz_take(&data, &size, 1) % 160;
	for (nr_leaves = 0; size && nr_leaves < MAX_LEAVES; nr_leaves++) {
		struct leaf_entry *e = &leaves[nr_leaves];

		e->leaf = fuzz_take(&data, &size, 4);
		e->sub = fuzz_take(&data, &size, 4);
		e->r.eax = fuzz_take(&data, &size, 4);
		e->r.ebx = fuzz_take(&data, &size, 4);
		e->r.ecx = fuzz_take(&data, &size, 4);
		e->r.edx = fuzz_take(&data, &size, 4);
	}

	cpu_info_fill(&cpu, fuzz_cpuid);
	check_text(cpu.vendor, sizeof(cpu.vendor));
	check_text(cpu.brand, sizeof(cpu.brand));

	memset(&hv, 0, sizeof(hv));
	hv_scan(fuzz_cpuid, &hv);
	if (hv.nr > HV_MAX_FOUND)
		abort();
	buf = fuzz_phys_buffer(&phys, len);
	for (i = 0; i < hv.nr; i++) {
		const struct hv_leaf *l = &hv.found[i];

		check_text(l->signature, sizeof(l->signature));
		if (!hv_kind_name(l->kind) || l->max_leaf < l->base ||
		    l->max_leaf >= l->base + HV_LEAF_STEP)
			abort();
		hv_describe_features(l, fuzz_cpuid, buf, len);
		check_text(buf, len);
	}
	hv_describe_missing(&hv, "KVM", "kvm_clock", buf, len);
	check_text(buf, len);
	hv_primary(&hv);
	hv_tsc_frequency(&hv, fuzz_cpuid, buf, len);
	check_text(buf, len);
	xen_host_tsc_frequency(&hv, fuzz_cpuid, buf, len);
	check_text(buf, len);
	xen = hv_find(&hv, HV_XEN);
	if (xen) {
		xen_cpuid_read(xen, fuzz_cpuid, &x);
		xen_tsc_flags_describe(x.tsc_flags, buf, len);
		check_text(buf, len);
	}
	return 0;
}
