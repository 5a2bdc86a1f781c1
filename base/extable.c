// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * The exception table (base/extable.h), searched by both exception
 * handlers: ring 0's natively, xen_pv_trap() under Xen PV.  Built with
 * general registers only, like ring 0 (see the Makefile).
 */
#include "base/extable.h"
#include "base/traps.h"

extern const struct extable_entry __extable_start[], __extable_end[];

uint64_t extable_fixup(uint64_t rip)
{
	const struct extable_entry *e;

	for (e = __extable_start; e < __extable_end; e++)
		if (e->fault_rip == rip)
			return e->fixup_rip;
	return 0;
}

bool extable_apply(struct trap_frame *f)
{
	uint64_t fixup = extable_fixup(f->rip);

	if (!fixup)
		return false;
	f->rip = fixup;
	f->rdi = EXTABLE_FAULTED | f->vector;
	return true;
}
