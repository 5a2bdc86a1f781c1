/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instructions as named helpers: CPUID, MSRs (plain and
 * fault-tolerant), port I/O, control registers and barriers.  Every asm
 * statement declares each register it writes.
 */
#ifndef CLOCKBENCH_KERNEL_CPU_H
#define CLOCKBENCH_KERNEL_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/extable.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/** CPUID leaf @leaf, sub-leaf @subleaf. */
static inline struct cpuid_regs cpuid_count(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

static inline struct cpuid_regs cpuid(uint32_t leaf)
{
	return cpuid_count(leaf, 0);
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t val)
{
	asm volatile("wrmsr" ::"c"(msr), "a"((uint32_t)val),
		     "d"((uint32_t)(val >> 32))
		     : "memory");
}

/**
 * Read MSR @msr, surviving the #GP an absent MSR raises.  Returns true and
 * stores the value on success; returns false, leaving *@val at 0, when the
 * read faulted.  The fault handler reports the fault explicitly through
 * RDI (see kernel/extable.h), so no value of the MSR can be mistaken for a
 * fault.
 */
static inline bool rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo, hi;
	uint64_t fault;

	asm volatile("1: rdmsr\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : "=a"(lo), "=d"(hi), "=D"(fault)
		     : "c"(msr), "a"(0), "d"(0), "D"(0));
	*val = fault ? 0 : ((uint64_t)hi << 32) | lo;
	return !fault;
}

/** Write MSR @msr; false when the write faulted (absent MSR, bad value). */
static inline bool wrmsr_safe(uint32_t msr, uint64_t val)
{
	uint64_t fault;

	asm volatile("1: wrmsr\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : "=D"(fault)
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)),
		       "D"(0)
		     : "memory");
	return !fault;
}

static inline void outb(uint16_t port, uint8_t val)
{
	asm volatile("outb %0, %1" ::"a"(val), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t val)
{
	asm volatile("outw %0, %1" ::"a"(val), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t val)
{
	asm volatile("outl %0, %1" ::"a"(val), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t val;

	asm volatile("inb %1, %0" : "=a"(val) : "Nd"(port));
	return val;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t val;

	asm volatile("inw %1, %0" : "=a"(val) : "Nd"(port));
	return val;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t val;

	asm volatile("inl %1, %0" : "=a"(val) : "Nd"(port));
	return val;
}

#define DEFINE_READ_CR(n)                                       \
	static inline uint64_t read_cr##n(void)                 \
	{                                                       \
		uint64_t val;                                   \
		asm volatile("mov %%cr" #n ", %0" : "=r"(val)); \
		return val;                                     \
	}
DEFINE_READ_CR(0)
DEFINE_READ_CR(2)
DEFINE_READ_CR(3)
DEFINE_READ_CR(4)
#undef DEFINE_READ_CR

static inline void write_cr3(uint64_t val)
{
	asm volatile("mov %0, %%cr3" ::"r"(val) : "memory");
}

static inline void invlpg(const void *va)
{
	asm volatile("invlpg (%0)" ::"r"(va) : "memory");
}

/** Compiler barrier: no memory access moves across it at compile time. */
static inline void barrier(void)
{
	asm volatile("" ::: "memory");
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

/** Stop this CPU for good: interrupts off, halt, and halt again on NMI. */
static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" ::: "memory");
}

#define X86_CR0_PE (1u << 0)
#define X86_CR0_MP (1u << 1)
#define X86_CR0_EM (1u << 2)
#define X86_CR0_WP (1u << 16)
#define X86_CR0_PG (1u << 31)

#define X86_CR4_PAE	   (1u << 5)
#define X86_CR4_OSFXSR	   (1u << 9)
#define X86_CR4_OSXMMEXCPT (1u << 10)

#define MSR_IA32_TSC 0x00000010
#define MSR_EFER     0xc0000080
#define EFER_LME     (1u << 8)
#define EFER_LMA     (1u << 10)

#endif
