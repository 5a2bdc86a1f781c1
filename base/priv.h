/* SPDX-License-Identifier: MIT */
/*
 * Privileged work asked of ring 0 through the PRIV_VECTOR gate.
 *
 * clockbench runs its kernel proper in ring 3 with IOPL 3: port I/O, MMIO,
 * rdtsc, cpuid and cli work there as in ring 0, and on hypervisors that
 * emulate guest ring 0 instruction by instruction (this project's own
 * nested KVM does) ring 3 is the only place the code, SSE included, runs at
 * the CPU's own speed.  What ring 3 cannot do — MSRs, control registers,
 * halting — it asks of ring 0 here, one software interrupt per request.
 */
#ifndef CLOCKBENCH_BASE_PRIV_H
#define CLOCKBENCH_BASE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"
#include "base/config.h"
#include "base/extable.h"

/*
 * Requests: `int $PRIV_VECTOR` with the request in RAX, arguments in RDI
 * and RSI; results in RAX and RDX.  Hypervisors that run guest ring 3
 * directly may turn the software interrupt into #UD; ring 0 recognises the
 * instruction there and serves the request all the same.
 */
enum priv_op {
	PRIV_RDMSR,	   /* RDI msr -> RAX value, RDX fault */
	PRIV_WRMSR,	   /* RDI msr, RSI value -> RDX fault */
	PRIV_READ_CR,	   /* RDI 0, 2, 3 or 4 -> RAX value */
	PRIV_FLUSH_TLB,	   /* reload CR3 */
	PRIV_HALT,	   /* cli; hlt for good */
	PRIV_TRIPLE_FAULT, /* reset by triple fault */
	PRIV_PROVOKE,	   /* RDI: PRIV_PROVOKE_* in ring 0 (fault tests) */
	PRIV_HYPERCALL,	   /* RDI struct priv_hypercall * -> RAX result */
	PRIV_IDLE,	   /* sti; hlt; cli: sleep until an interrupt */
};

/* A Xen hypercall for ring 0 to make (HVM guests may make them only from
 * ring 0; see hypervisor/hypercall.h). */
struct priv_hypercall {
	uint64_t op;
	uint64_t args[5];
};

#define PRIV_PROVOKE_DOUBLE_FAULT 1 /* an exception on a guard-page stack */
#define PRIV_PROVOKE_NMI	  2 /* int $2 through the NMI gate */

/* RDX for a request ring 0 does not know. */
#define PRIV_BAD_REQUEST (1ull << 62)

#define PRIV_STR2(x) #x
#define PRIV_STR(x)  PRIV_STR2(x)

/** Make request @op; *@rdx (if given) receives the second result. */
static inline uint64_t priv_call(enum priv_op op, uint64_t a1, uint64_t a2,
				 uint64_t *rdx)
{
	uint64_t rax = op, out;

	asm volatile("int $" PRIV_STR(PRIV_VECTOR)
		     : "+a"(rax), "=d"(out), "+D"(a1), "+S"(a2)
		     :
		     : "memory");
	if (rdx)
		*rdx = out;
	return rax;
}

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

/* Xen PV: halting is Xen's business (hypervisor/xen_pv.c). */
__attribute__((noreturn)) void xen_pv_halt(void);

/**
 * Read MSR @msr, surviving the #GP an absent MSR raises.  Returns true and
 * stores the value on success; false, with *@val = 0, when it faulted.
 */
static inline bool rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint64_t fault, v;

	if (CONFIG_XEN_PV)
		fault = rdmsr_fixup(msr, &v);
	else
		v = priv_call(PRIV_RDMSR, msr, 0, &fault);
	*val = fault ? 0 : v;
	return !fault;
}

/** Write MSR @msr; false when the write faulted. */
static inline bool wrmsr_safe(uint32_t msr, uint64_t val)
{
	uint64_t fault;

	if (CONFIG_XEN_PV)
		fault = wrmsr_fixup(msr, val);
	else
		priv_call(PRIV_WRMSR, msr, val, &fault);
	return !fault;
}

static inline uint64_t priv_read_cr(unsigned int n)
{
	if (CONFIG_XEN_PV)
		return read_cr(n); /* Xen emulates the read */
	return priv_call(PRIV_READ_CR, n, 0, NULL);
}

static inline void priv_flush_tlb(void)
{
	priv_call(PRIV_FLUSH_TLB, 0, 0, NULL);
}

/** Sleep until an interrupt (WAKE_VECTOR) arrives, with interrupts on
 * only while halted. */
static inline void priv_idle(void)
{
	priv_call(PRIV_IDLE, 0, 0, NULL);
}

static inline __attribute__((noreturn)) void priv_halt(void)
{
	if (CONFIG_XEN_PV)
		xen_pv_halt();
	priv_call(PRIV_HALT, 0, 0, NULL);
	__builtin_unreachable();
}

#endif
