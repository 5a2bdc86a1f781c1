// SPDX-License-Identifier: MIT
/* The TSC frequency CPUID leaves 0x15 and 0x16 give (pure; host-tested). */
#include <stdio.h>
#include <string.h>

#include "drivers/tsc.h"

#define LEAF_TSC_CRYSTAL 0x15
#define LEAF_FREQUENCY	 0x16
/* Leaves 0x15 and 0x16 are Intel's (Linux reads them on Intel CPUs only). */
#define VENDOR_INTEL "GenuineIntel"

uint64_t tsc_cpuid_frequency(const struct tsc_cpuid_leaves *l, char *why,
			     size_t whylen)
{
	bool ratio = l->l15_eax && l->l15_ebx && l->l15_ecx;

	if (strcmp(l->vendor, VENDOR_INTEL)) {
		snprintf(why, whylen,
			 "leaves 0x15 and 0x16 not used: they are Intel's, and "
			 "this CPU is %s",
			 l->vendor[0] ? l->vendor : "of no vendor");
		return 0;
	}
	if (l->max_basic_leaf < LEAF_TSC_CRYSTAL) {
		snprintf(why, whylen,
			 "leaves 0x15 and 0x16 not listed: the highest basic "
			 "leaf "
			 "is %#x",
			 l->max_basic_leaf);
		return 0;
	}
	if (ratio) {
		snprintf(why, whylen,
			 "leaf 0x15: crystal %u Hz x %u / %u (EBX / EAX)",
			 l->l15_ecx, l->l15_ebx, l->l15_eax);
		return (uint64_t)l->l15_ecx * l->l15_ebx / l->l15_eax;
	}
	if (l->max_basic_leaf >= LEAF_FREQUENCY && l->l16_eax) {
		snprintf(why, whylen,
			 "leaf 0x16: base frequency %u MHz (leaf 0x15 gives "
			 "EAX %u, EBX %u, ECX %u: no crystal ratio)",
			 l->l16_eax, l->l15_eax, l->l15_ebx, l->l15_ecx);
		return (uint64_t)l->l16_eax * 1000000;
	}
	snprintf(why, whylen,
		 "no frequency in leaves 0x15 (EAX %u, EBX %u, ECX %u: no "
		 "crystal ratio) and 0x16 (%s)",
		 l->l15_eax, l->l15_ebx, l->l15_ecx,
		 l->max_basic_leaf >= LEAF_FREQUENCY ? "base 0 MHz"
						     : "not listed");
	return 0;
}
