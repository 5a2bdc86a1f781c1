// SPDX-License-Identifier: MIT
/*
 * base/priv.h for a Xen PV guest: the kernel runs the instructions itself
 * and Xen emulates them, or reflects the #GP, which the exception-table
 * fixup turns into a result.  Hypercalls go straight to the page Xen
 * filled.  Ring 0 is Xen's: nothing can be provoked there.
 */
#include "base/platform.h"
#include "base/priv.h"
#include "hypervisor/hypercall.h"
#include "platform/pv64/xen_pv.h"

bool rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint64_t v, fault = rdmsr_fixup(msr, &v);

	*val = fault ? 0 : v;
	return !fault;
}

bool wrmsr_safe(uint32_t msr, uint64_t val)
{
	return !wrmsr_fixup(msr, val);
}

uint64_t priv_read_cr(unsigned int n)
{
	return read_cr(n); /* Xen emulates the read */
}

void priv_halt(void)
{
	xen_pv_halt();
}

long xen_hypercall(unsigned int op, uint64_t a1, uint64_t a2, uint64_t a3,
		   uint64_t a4, uint64_t a5)
{
	return xen_hypercall_direct(op, a1, a2, a3, a4, a5);
}

bool platform_provoke_in_ring0(enum fault_test fault)
{
	(void)fault;
	return false;
}

const char *platform_ring0_owner(void)
{
	return "Xen";
}
