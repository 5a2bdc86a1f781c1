/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instructions that ring 3 may execute, as named helpers: CPUID,
 * port I/O (the kernel runs with IOPL 3), interrupts off and on, barriers.
 * Those whose way depends on the environment are the platform's
 * (base/platform.h).  Privileged work (MSRs, control registers, halting)
 * goes through base/priv.h.
 * Every asm statement declares each register it writes.
 */
#ifndef CLOCKBENCH_BASE_CPU_H
#define CLOCKBENCH_BASE_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/cpuinfo.h"
#include "lib/x86.h"

/**
 * CPUID leaf @leaf, sub-leaf @subleaf, as this environment must execute it
 * (the platform's: a Xen PV guest asks Xen, which a plain CPUID would not
 * reach).  A cpuid_fn.
 */
struct cpuid_regs cpu_cpuid(uint32_t leaf, uint32_t subleaf);

static inline struct cpuid_regs cpuid_count(uint32_t leaf, uint32_t subleaf)
{
	return cpu_cpuid(leaf, subleaf);
}

static inline struct cpuid_regs cpuid(uint32_t leaf)
{
	return cpuid_count(leaf, 0);
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

/* @count bytes from @buf to @port, in one string instruction: a
 * hypervisor that emulates port I/O can take them in one exit. */
static inline void outsb(uint16_t port, const void *buf, unsigned long count)
{
	asm volatile("rep outsb"
		     : "+S"(buf), "+c"(count)
		     : "d"(port)
		     : "memory");
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

/** rdtsc, not ordered against anything. */
static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/** lfence; rdtsc: earlier instructions complete before the TSC is read. */
static inline uint64_t tsc_read_ordered(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/** rdtscp; TSC_AUX (the CPU's number as the OS set it) into *@aux. */
static inline uint64_t tsc_read_rdtscp(uint32_t *aux)
{
	uint32_t lo, hi, c;

	asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c)::"memory");
	*aux = c;
	return ((uint64_t)hi << 32) | lo;
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

/**
 * Interrupts off and on for the CPU running this, as the platform does it
 * (cli and sti natively, where the kernel runs with IOPL 3; a Xen PV guest
 * masks its event upcalls instead).
 */
void irq_disable(void);
void irq_enable(void);

#endif
