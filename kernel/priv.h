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
#ifndef CLOCKBENCH_KERNEL_PRIV_H
#define CLOCKBENCH_KERNEL_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"
#include "kernel/extable.h"

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
	PRIV_IDLE,	   /* sti; hlt; cli: sleep until an interrupt */
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

/**
 * Read MSR @msr, surviving the #GP an absent MSR raises.  Returns true and
 * stores the value on success; false, with *@val = 0, when it faulted.
 */
static inline bool rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint64_t fault;
	uint64_t v = priv_call(PRIV_RDMSR, msr, 0, &fault);

	*val = fault ? 0 : v;
	return !fault;
}

/** Write MSR @msr; false when the write faulted. */
static inline bool wrmsr_safe(uint32_t msr, uint64_t val)
{
	uint64_t fault;

	priv_call(PRIV_WRMSR, msr, val, &fault);
	return !fault;
}

static inline uint64_t priv_read_cr(unsigned int n)
{
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
	priv_call(PRIV_HALT, 0, 0, NULL);
	__builtin_unreachable();
}

#endif
