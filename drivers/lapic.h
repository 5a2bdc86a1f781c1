/* SPDX-License-Identifier: MIT */
/*
 * The local APIC: this CPU's APIC ID, INIT and STARTUP IPIs for starting
 * other CPUs, and its registers for the timer and interrupt delivery
 * (drivers/lapic_timer.c, the tick measurements).  xAPIC through its MMIO
 * page (mapped uncached and reachable from ring 3), x2APIC through MSRs
 * when the firmware left it on.
 */
#ifndef CLOCKBENCH_DRIVERS_LAPIC_H
#define CLOCKBENCH_DRIVERS_LAPIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAPIC_ICR_INIT	  0x00000500u
#define LAPIC_ICR_STARTUP 0x00000600u
#define LAPIC_ICR_ASSERT  0x00004000u /* level: assert */

/* Registers, as xAPIC MMIO offsets (x2APIC: MSR 0x800 + offset / 16). */
#define LAPIC_TPR	    0x080
#define LAPIC_EOI	    0x0b0
#define LAPIC_SVR	    0x0f0
#define LAPIC_LVT_TIMER	    0x320
#define LAPIC_LVT_LINT0	    0x350
#define LAPIC_LVT_ERROR	    0x370
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE  0x3e0

#define LAPIC_LVT_MASKED	 (1u << 16)
#define LAPIC_LVT_TIMER_PERIODIC (1u << 17)
#define LAPIC_LVT_TIMER_DEADLINE (2u << 17)
#define LAPIC_LVT_TIMER_MODE	 (3u << 17)
#define LAPIC_TIMER_DIVIDE_BY_1	 0xb

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

/** Whether lapic_init() found the local APIC. */
bool lapic_ready(void);

/** Register @reg (an xAPIC offset) of this CPU's APIC. */
uint32_t lapic_read(unsigned int reg);
void lapic_write(unsigned int reg, uint32_t val);

/**
 * Where ring 0 writes an end of interrupt: the EOI register's address, or
 * with x2APIC (*@is_msr true) its MSR.
 */
uint64_t lapic_eoi_register(bool *is_msr);

/**
 * Let this CPU's APIC deliver interrupts: software-enabled with
 * @spurious_vector, task priority 0, LINT0 (the 8259's virtual wire) and
 * the error interrupt masked.
 */
void lapic_accept_interrupts(uint8_t spurious_vector);

#endif
