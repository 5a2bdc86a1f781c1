// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * The CPU instructions of base/cpu.h that depend on the environment, as
 * the kernel runs them here: in ring 3 with IOPL 3, so cli and sti are plain
 * instructions (where a hypervisor ignores IOPL, ring 0 performs them:
 * platform/hvm64/ring0.c).  CPUID is asked of ring 0: a hypervisor that runs
 * guest ring 3 natively (kvm-pvm on AMD, which has no CPUID faulting) would
 * let ring 3 read the host's leaves, and the VM's -cpu model (qemu64 without
 * rdtscp, -kvmclock) would not show.  It is called a few dozen times a run,
 * never in a measurement loop.
 */
#include "base/cpu.h"
#include "platform/hvm64/priv_call.h"

struct cpuid_regs cpu_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct priv_cpuid c = { .leaf = leaf, .subleaf = subleaf };
	uint16_t cs;

	asm volatile("mov %%cs, %0" : "=r"(cs));
	if ((cs & 3) == 0) /* ring 0 itself */
		asm volatile("cpuid"
			     : "=a"(c.eax), "=b"(c.ebx), "=c"(c.ecx),
			       "=d"(c.edx)
			     : "a"(leaf), "c"(subleaf));
	else
		priv_call(PRIV_CPUID, (uintptr_t)&c, 0, NULL);
	return (struct cpuid_regs){
		.eax = c.eax, .ebx = c.ebx, .ecx = c.ecx, .edx = c.edx
	};
}

void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}
