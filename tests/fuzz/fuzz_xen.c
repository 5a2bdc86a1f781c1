// SPDX-License-Identifier: MIT
/*
 * Fuzz target: what Xen tells a guest outside start_info (which the
 * boot_xen_pv target parses): its CPUID leaves (hypervisor/xen.c), their
 * descriptions, and the shared_info wall clock under its version protocol.
 *
 * Input: the leaf base and highest leaf (little-endian u32s), a try count,
 * a buffer length, the registers of leaves base+1 to base+4 (sub-leaf 0,
 * and 2 for base+3), then the bytes of shared_info.
 */
#include <stdlib.h>
#include <string.h>

#include <xen/arch-x86/cpuid.h>

#include "hypervisor/xen.h"
#include "tests/fuzz/fuzz_phys.h"

#define NR_LEAVES 6 /* base+1..+4, base+3 sub-leaf 2, anything else */

static struct cpuid_regs leaves[NR_LEAVES];
static uint32_t leaf_base;

static struct cpuid_regs fuzz_cpuid(uint32_t leaf, uint32_t sub)
{
	uint32_t offset = leaf - leaf_base;

	if (offset == 3 && sub == 2)
		return leaves[4];
	if (offset >= 1 && offset <= 4 && sub == 0)
		return leaves[offset - 1];
	return leaves[5];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_phys phys;
	struct xen_cpuid_info x;
	struct shared_info *s;
	struct hv_leaf leaf;
	unsigned int i, max_tries;
	uint32_t nsec;
	uint64_t sec;
	size_t len;
	char *buf;

	fuzz_phys_reset(&phys);
	memset(&leaf, 0, sizeof(leaf));
	leaf.base = leaf_base = fuzz_take(&data, &size, 4);
	leaf.max_leaf = fuzz_take(&data, &size, 4);
	max_tries = fuzz_take(&data, &size, 1) % 8;
	len = fuzz_take(&data, &size, 1) % 128;
	for (i = 0; i < NR_LEAVES; i++) {
		leaves[i].eax = fuzz_take(&data, &size, 4);
		leaves[i].ebx = fuzz_take(&data, &size, 4);
		leaves[i].ecx = fuzz_take(&data, &size, 4);
		leaves[i].edx = fuzz_take(&data, &size, 4);
	}
	xen_cpuid_read(&leaf, fuzz_cpuid, &x);
	if (x.vcpu_id_valid !=
		    !!(x.hvm_features & XEN_HVM_CPUID_VCPU_ID_PRESENT) ||
	    (!x.vcpu_id_valid && x.vcpu_id) ||
	    (x.have_tsc_leaf && leaf.max_leaf < leaf.base + 3))
		abort();
	if (!xen_tsc_mode_name(x.tsc_mode))
		abort();
	buf = fuzz_phys_buffer(&phys, len);
	if (len) {
		xen_tsc_flags_describe(x.tsc_flags, buf, len);
		if (!memchr(buf, '\0', len))
			abort();
	}

	/* shared_info: what the input has of it, zero after that. */
	s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	memcpy(s, data, size < sizeof(*s) ? size : sizeof(*s));
	if (xen_wallclock_read(s, max_tries, &sec, &nsec) == 0 &&
	    (s->wc_version & 1))
		abort();
	free(s);
	return 0;
}
