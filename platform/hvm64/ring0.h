/* SPDX-License-Identifier: MIT */
/*
 * Ring 0: the IDT, the TSS, exception entry and the privileged-call gate.
 *
 * Everything here runs in ring 0 and is built with general registers only
 * (-mgeneral-regs-only) and without calls into newlib: a hypervisor that
 * emulates guest ring 0 may not emulate SSE.  An exception nobody expected
 * is recorded and handed to ring 3 (fault_report() in base/traps.c),
 * which formats it; ring 0 itself prints only when that fails.
 */
#ifndef CLOCKBENCH_PLATFORM_HVM64_RING0_H
#define CLOCKBENCH_PLATFORM_HVM64_RING0_H

#include <stdint.h>

#include "base/traps.h"

/*
 * The in and out instructions ring 0 performed for ring 3 because they
 * raised #GP (the hypervisor honoured neither IOPL 3 nor the TSS I/O
 * permission bitmap, or the port was never allowed), by port: the first
 * RING0_PORTS_COUNTED ports each get a count (port_plus1 0 = a free slot),
 * the rest one between them.  All 0 natively and on TCG.
 */
#define RING0_PORTS_COUNTED 16
struct ring0_port_detours {
	uint32_t port_plus1[RING0_PORTS_COUNTED];
	unsigned long count[RING0_PORTS_COUNTED];
	unsigned long other_ports;
};
extern struct ring0_port_detours ring0_port_detours;

/* Interrupts ring 0 took on a vector nothing uses: a PIC interrupt (the
 * PICs are masked) or the local APIC's spurious vector. */
extern unsigned long ring0_stray_interrupts;

/* Where ring 0 ends a WAKE_VECTOR interrupt: the local APIC's EOI register
 * (xAPIC, the same address on every CPU) or MSR (x2APIC); set by ring 3
 * before any CPU idles (platform/hvm64/idle.c). */
struct ring0_eoi {
	uint64_t mmio;
	uint32_t msr;
};
extern struct ring0_eoi ring0_wake_eoi;

/** Install the TSS (RSP0 and IST stacks) and the IDT; ring 0 only. */
void ring0_init(void);

/** An AP's TSS (on the ring-0 stack in ap_boot_ring0_stack) and the IDT. */
void ap_ring0_init(unsigned int cpu);

/** Called by platform/hvm64/trap_entry.S for every exception and request. */
void trap_handle(struct trap_frame *frame);

#endif
