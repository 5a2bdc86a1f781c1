/* SPDX-License-Identifier: MIT */
/*
 * Interrupt controllers, as far as the tick measurements need them: the
 * 8259 PICs moved to IRQ_PIC_BASE and masked (so nothing arrives on an
 * exception's vector), the boot CPU's local APIC accepting interrupts,
 * and the IOAPICs the MADT lists, every input masked until a timer is
 * routed to CPU 0.  Every timer interrupt goes to CPU 0: the other CPUs
 * never enable interrupts.
 */
#ifndef CLOCKBENCH_DRIVERS_INTC_H
#define CLOCKBENCH_DRIVERS_INTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/acpi.h"
#include "base/tick_irq.h"

/**
 * Set the controllers up once (later calls return the first answer).
 * Returns 0 when CPU 0's local APIC can take interrupts, else -1 with the
 * reason in @why.  Must run on CPU 0.
 */
int intc_init(struct acpi *acpi, char *why, size_t whylen);

/** Whether an IOAPIC can route interrupts; else the reason in @why. */
bool intc_ioapic_ready(char *why, size_t whylen);

/**
 * Whether an IOAPIC in use has an input for GSI @gsi: 0, or -1 with the
 * reason in @why, which names the IOAPIC the MADT gives that input to when
 * it could not be used (it did not answer, or lies where it cannot be
 * reached).
 */
int intc_gsi_check(uint32_t gsi, char *why, size_t whylen);

/** Where ISA IRQ @irq arrives (the MADT's override, else ISA's way). */
void intc_isa_route(unsigned int irq, struct acpi_isa_route *out);

/**
 * Route GSI @gsi to CPU 0 on @vector (fixed delivery, physical
 * destination) with the given trigger and polarity, unmasked.  Returns 0,
 * or -1 with the reason in @why (no IOAPIC has that input: as
 * intc_gsi_check() says it).
 */
int intc_route_gsi(uint32_t gsi, bool level, bool active_low, uint8_t vector,
		   char *why, size_t whylen);

/** Mask GSI @gsi again. */
void intc_mask_gsi(uint32_t gsi);

/** Fill @c's end-of-interrupt fields for CPU 0's local APIC. */
void intc_eoi_config(struct tick_irq_config *c);

/** The boot CPU's APIC ID, as interrupts are addressed to it. */
uint32_t intc_cpu0_apic_id(void);

#endif
