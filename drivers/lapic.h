/* SPDX-License-Identifier: MIT */
/*
 * The local APIC, as far as starting other CPUs needs it: this CPU's APIC
 * ID and sending INIT and STARTUP IPIs.  xAPIC through its MMIO page
 * (mapped uncached and reachable from ring 3), x2APIC through MSRs when
 * the firmware left it on.
 */
#ifndef CLOCKBENCH_DRIVERS_LAPIC_H
#define CLOCKBENCH_DRIVERS_LAPIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAPIC_ICR_INIT	  0x00000500u
#define LAPIC_ICR_STARTUP 0x00000600u
#define LAPIC_ICR_ASSERT  0x00004000u /* level: assert */

/**
 * Find the local APIC of this CPU: enabled, in xAPIC mode at @mmio_base
 * (from the MADT) or in x2APIC mode.  Returns 0, or -1 with the reason.
 */
int lapic_init(uint64_t mmio_base, char *why, size_t whylen);

/** Whether the APIC is in x2APIC mode. */
bool lapic_x2apic(void);

/** This CPU's APIC ID. */
uint32_t lapic_id(void);

/**
 * Send an IPI with command @icr_low to APIC ID @apic_id and wait (bounded)
 * for the APIC to accept it.  Returns false when it never did.
 */
bool lapic_send_ipi(uint32_t apic_id, uint32_t icr_low);

#endif
