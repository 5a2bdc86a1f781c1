/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instructions that ring 3 may execute, as named helpers: CPUID,
 * port I/O (the kernel runs with IOPL 3), cli and barriers.  Privileged
 * work (MSRs, control registers, halting) goes through kernel/priv.h.
 * Every asm statement declares each register it writes.
 */
#ifndef CLOCKBENCH_BASE_CPU_H
#define CLOCKBENCH_BASE_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "hypervisor/xen_abi.h" /* XEN_CPUID */
#include "base/config.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/**
 * CPUID leaf @leaf, sub-leaf @subleaf.  A Xen PV guest's plain CPUID is
 * not intercepted and sees the machine (or the hypervisor below Xen), so
 * there it asks Xen, as Linux does, and sees what Xen offers the guest.
 */
static inline struct cpuid_regs cpuid_count(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	if (CONFIG_XEN_PV)
		asm volatile(XEN_CPUID /* Xen's forced-emulation prefix */
			     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx),
			       "=d"(r.edx)
			     : "a"(leaf), "c"(subleaf));
	else
		asm volatile("cpuid"
			     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx),
			       "=d"(r.edx)
			     : "a"(leaf), "c"(subleaf));
	return r;
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

/** Compiler barrier: no memory access moves across it at compile time. */
static inline void barrier(void)
{
	asm volatile("" ::: "memory");
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

/* Xen PV: interrupts are event upcalls, masked per vCPU
 * (hypervisor/xen_pv.c). */
void xen_pv_irq_disable(void);
void xen_pv_irq_enable(void);

/*
 * Natively allowed in ring 3 because the kernel runs with IOPL 3 (where
 * the hypervisor ignores IOPL, ring 0 performs them: kernel/ring0.c).  A
 * Xen PV guest masks event delivery instead (Xen makes cli/sti no-ops).
 */
static inline void irq_disable(void)
{
	if (CONFIG_XEN_PV)
		xen_pv_irq_disable();
	else
		asm volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	if (CONFIG_XEN_PV)
		xen_pv_irq_enable();
	else
		asm volatile("sti" ::: "memory");
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
