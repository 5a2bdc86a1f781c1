/* SPDX-License-Identifier: MIT */
/*
 * Privileged work: what the kernel proper, in ring 3, asks of whoever owns
 * ring 0.  That is clockbench's own ring 0 natively (platform/hvm64/, one
 * software interrupt per request) and Xen for a PV guest (platform/pv64/:
 * Xen emulates the instructions, or reflects their #GP).
 *
 * clockbench runs its kernel proper in ring 3 with IOPL 3: port I/O, MMIO,
 * rdtsc, cpuid and cli work there as in ring 0, and on hypervisors that
 * emulate guest ring 0 instruction by instruction (this project's own
 * nested KVM does) ring 3 is the only place the code, SSE included, runs at
 * the CPU's own speed.  What ring 3 cannot do — MSRs, control registers,
 * halting — it asks for here.
 */
#ifndef CLOCKBENCH_BASE_PRIV_H
#define CLOCKBENCH_BASE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/extable.h"

/**
 * Read MSR @msr, surviving the #GP an absent MSR raises.  Returns true and
 * stores the value on success; false, with *@val = 0, when it faulted.
 */
bool rdmsr_safe(uint32_t msr, uint64_t *val);

/** Write MSR @msr; false when the write faulted. */
bool wrmsr_safe(uint32_t msr, uint64_t val);

/** Control register CR@n (0, 2, 3 or 4). */
uint64_t priv_read_cr(unsigned int n);

/** Stop this CPU for good. */
__attribute__((noreturn)) void priv_halt(void);

/*
 * The instructions themselves, under exception-table entries: ring 0 runs
 * them for ring 3 natively; a Xen PV kernel runs them itself and Xen
 * emulates them (or reflects the #GP, which the fixup turns into a
 * result).  Each returns 0, or EXTABLE_FAULTED | vector.
 */
static inline uint64_t rdmsr_fixup(uint32_t msr, uint64_t *val)
{
	uint32_t lo, hi;
	uint64_t fault;

	asm volatile("1: rdmsr\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : "=a"(lo), "=d"(hi), "=D"(fault)
		     : "c"(msr), "a"(0), "d"(0), "D"(0));
	*val = ((uint64_t)hi << 32) | lo;
	return fault;
}

static inline uint64_t wrmsr_fixup(uint32_t msr, uint64_t val)
{
	uint64_t fault;

	asm volatile("1: wrmsr\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : "=D"(fault)
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)),
		       "D"(0)
		     : "memory");
	return fault;
}

static inline uint64_t read_cr(unsigned int n)
{
	uint64_t val = 0;

	switch (n) {
	case 0:
		asm volatile("mov %%cr0, %0" : "=r"(val));
		break;
	case 2:
		asm volatile("mov %%cr2, %0" : "=r"(val));
		break;
	case 3:
		asm volatile("mov %%cr3, %0" : "=r"(val));
		break;
	case 4:
		asm volatile("mov %%cr4, %0" : "=r"(val));
		break;
	}
	return val;
}

#endif
