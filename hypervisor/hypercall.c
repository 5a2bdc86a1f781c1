// SPDX-License-Identifier: MIT
/* Has Xen filled the hypercall page yet?  Two calls every guest makes. */
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/sched.h>

#include "hypervisor/hypercall.h"

#define RET_OPCODE 0xc3

bool xen_hypercall_page_ready(void)
{
	/* hypervisor/hypercall_page.S fills the page with `ret`. */
	return hypercall_page[0] != RET_OPCODE;
}

void xen_evtchn_notify(uint32_t port)
{
	struct evtchn_send send = { .port = port };

	HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_send, &send);
}

void xen_sched_yield(void)
{
	HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_yield, 0);
}
