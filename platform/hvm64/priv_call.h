/* SPDX-License-Identifier: MIT */
/*
 * The privileged-call gate of this environment's own ring 0
 * (platform/hvm64/ring0.c): how ring 3 asks it for the work of base/priv.h
 * and for what only this platform needs (TLB flushes, idling, provoked
 * faults, Xen hypercalls of an HVM guest).
 */
#ifndef CLOCKBENCH_PLATFORM_HVM64_PRIV_CALL_H
#define CLOCKBENCH_PLATFORM_HVM64_PRIV_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"

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
	PRIV_IO_ALLOW,	   /* RDI first port, RSI count -> RDX 1 if refused */
	PRIV_IO_DENY_ALL,  /* every port back to ring 0 in the I/O bitmap */
	PRIV_CPUID,	   /* RDI struct priv_cpuid *: its leaf -> its regs */
};

/* CPUID as ring 0 sees it: a hypervisor that runs guest ring 3 natively
 * (kvm-pvm on a CPU without CPUID faulting, as AMD's) lets a ring-3 CPUID
 * read the host's own leaves, not the VM's. */
struct priv_cpuid {
	uint32_t leaf, subleaf;
	uint32_t eax, ebx, ecx, edx;
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

#endif
