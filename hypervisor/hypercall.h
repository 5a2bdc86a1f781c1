/* SPDX-License-Identifier: MIT */
/*
 * Xen hypercalls: a call to hypercall_page + 32 * op, arguments in RDI,
 * RSI, RDX, R10 and R8, the result in RAX.  Xen fills the page: a PV
 * guest's at domain build (XEN_ELFNOTE_HYPERCALL_PAGE), an HVM guest's when
 * it writes the page's address to the MSR that CPUID leaf base + 2 names.
 * Until then every slot is a `ret` (hypervisor/hypercall_page.S), which
 * xen_hypercall_page_ready() recognises.
 *
 * A PV kernel calls the page itself.  An HVM guest must call it from ring
 * 0, which clockbench's native kernel proper is not, so there the call goes
 * through its ring 0: xen_hypercall() is the platform's.
 */
#ifndef CLOCKBENCH_HYPERVISOR_HYPERCALL_H
#define CLOCKBENCH_HYPERVISOR_HYPERCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"

extern uint8_t hypercall_page[PAGE_SIZE];

/** Whether Xen has filled the hypercall page (its first slot is no `ret`). */
bool xen_hypercall_page_ready(void);

/** EVTCHNOP_send: notify the other end of event channel @port. */
void xen_evtchn_notify(uint32_t port);

/** SCHEDOP_yield: let Xen run another vCPU or domain on this CPU now. */
void xen_sched_yield(void);

/** Hypercall @op with five arguments, made from the current privilege. */
static inline long xen_hypercall_direct(unsigned int op, uint64_t a1,
					uint64_t a2, uint64_t a3, uint64_t a4,
					uint64_t a5)
{
	register uint64_t r10 asm("r10") = a4;
	register uint64_t r8 asm("r8") = a5;
	long ret;

	asm volatile(
		"call *%[entry]"
		: "=a"(ret), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8)
		: [entry] "r"(hypercall_page + op * XEN_HYPERCALL_SLOT_SIZE)
		: "rcx", "r11", "memory");
	return ret;
}

/**
 * Hypercall @op as this environment makes it (the platform's): directly as
 * a PV kernel, through ring 0 as an HVM or PVH guest.
 */
long xen_hypercall(unsigned int op, uint64_t a1, uint64_t a2, uint64_t a3,
		   uint64_t a4, uint64_t a5);

#define HYPERCALL1(op, a) xen_hypercall(op, (uint64_t)(a), 0, 0, 0, 0)
#define HYPERCALL2(op, a, b) \
	xen_hypercall(op, (uint64_t)(a), (uint64_t)(b), 0, 0, 0)
#define HYPERCALL3(op, a, b, c) \
	xen_hypercall(op, (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), 0, 0)
#define HYPERCALL4(op, a, b, c, d)                                     \
	xen_hypercall(op, (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), \
		      (uint64_t)(d), 0)

#endif
