// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * The CPU instructions of base/cpu.h that depend on the environment, as
 * the kernel runs them here: in ring 3 with IOPL 3, so CPUID, cli and sti
 * are plain instructions (where a hypervisor ignores IOPL, ring 0 performs
 * cli and sti: platform/hvm64/ring0.c).
 */
#include "base/cpu.h"

struct cpuid_regs cpu_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}
