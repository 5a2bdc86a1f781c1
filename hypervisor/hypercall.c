// SPDX-License-Identifier: MIT
/* Has Xen filled the hypercall page yet? */
#include "hypervisor/hypercall.h"

#define RET_OPCODE 0xc3

bool xen_hypercall_page_ready(void)
{
	/* hypervisor/hypercall_page.S fills the page with `ret`. */
	return hypercall_page[0] != RET_OPCODE;
}
