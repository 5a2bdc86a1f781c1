// SPDX-License-Identifier: MIT
/*
 * base/priv.h, and the hypercalls of a Xen HVM or PVH guest, through this
 * environment's own ring 0: one request on the privileged-call gate each
 * (platform/hvm64/priv_call.h).
 */
#include "base/platform.h"
#include "base/priv.h"
#include "hypervisor/hypercall.h"
#include "platform/hvm64/priv_call.h"

bool rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint64_t fault, v = priv_call(PRIV_RDMSR, msr, 0, &fault);

	*val = fault ? 0 : v;
	return !fault;
}

bool wrmsr_safe(uint32_t msr, uint64_t val)
{
	uint64_t fault;

	priv_call(PRIV_WRMSR, msr, val, &fault);
	return !fault;
}

uint64_t priv_read_cr(unsigned int n)
{
	return priv_call(PRIV_READ_CR, n, 0, NULL);
}

void priv_halt(void)
{
	priv_call(PRIV_HALT, 0, 0, NULL);
	__builtin_unreachable();
}

/* An HVM guest may make hypercalls only from ring 0. */
long xen_hypercall(unsigned int op, uint64_t a1, uint64_t a2, uint64_t a3,
		   uint64_t a4, uint64_t a5)
{
	struct priv_hypercall call = { op, { a1, a2, a3, a4, a5 } };

	return (long)priv_call(PRIV_HYPERCALL, (uintptr_t)&call, 0, NULL);
}

bool platform_provoke_in_ring0(enum fault_test fault)
{
	switch (fault) {
	case FAULT_NMI:
		/* The NMI gate is ring 0's: raise it from there. */
		priv_call(PRIV_PROVOKE, PRIV_PROVOKE_NMI, 0, NULL);
		return true;
	case FAULT_DF:
		/* A double fault needs an exception in ring 0 on a broken
		 * stack (in ring 3 the CPU would switch to ring 0's). */
		priv_call(PRIV_PROVOKE, PRIV_PROVOKE_DOUBLE_FAULT, 0, NULL);
		return true;
	default:
		return false;
	}
}

const char *platform_ring0_owner(void)
{
	return NULL;
}
