// SPDX-License-Identifier: MIT
/*
 * CPUID for a Xen PV guest: a plain CPUID is not intercepted and sees the
 * machine (or the hypervisor below Xen), so it asks Xen through the
 * forced-emulation prefix, as Linux does, and sees what Xen offers the
 * guest.  Interrupts on and off are event-upcall masking
 * (platform/pv64/xen_pv.c).
 */
#include "base/cpu.h"
#include "lib/xen_abi.h" /* XEN_CPUID */

struct cpuid_regs cpu_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile(XEN_CPUID
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}
