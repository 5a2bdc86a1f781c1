/* SPDX-License-Identifier: MIT */
/*
 * The HPET main counter, found through the ACPI HPET table.  Its period is
 * read from the capabilities register, never assumed; a stopped counter is
 * started.  Reads take the low 32 bits, as Linux's clocksource does, so
 * that the measured cost is what an OS pays; hpet_read64() reads all 64
 * bits without tearing, for long intervals.
 */
#ifndef CLOCKBENCH_DRIVERS_HPET_H
#define CLOCKBENCH_DRIVERS_HPET_H

#include <stdint.h>

#include "lib/clock.h"

extern struct clock hpet_clock;

/* Capabilities register fields (HPET specification 2.3.4). */
/* Registers (offsets in the register block) and the config bits. */
#define HPET_CAPABILITIES  0x000
#define HPET_CONFIG	   0x010
#define HPET_COUNTER	   0x0f0
#define HPET_T0_CONFIG	   0x100
#define HPET_T0_CMP	   0x108
#define HPET_CONFIG_ENABLE (1u << 0)
#define HPET_CONFIG_LEGACY (1u << 1)

#define HPET_CAP_REV_MASK      0xffull
#define HPET_CAP_NUM_TIM_SHIFT 8
#define HPET_CAP_NUM_TIM_MASK  0x1full
#define HPET_CAP_COUNT_SIZE_64 (1ull << 13)
#define HPET_CAP_LEGACY_ROUTE  (1ull << 15)
#define HPET_CAP_VENDOR_SHIFT  16
#define HPET_CAP_PERIOD_SHIFT  32
#define HPET_MAX_PERIOD_FS     100000000ull /* 100 ns: 10 MHz at least */

/** The counter frequency for a period of @period_fs femtoseconds. */
static inline uint64_t hpet_hz_from_period(uint64_t period_fs)
{
	return period_fs ? (1000000000000000ull + period_fs / 2) / period_fs
			 : 0;
}

/**
 * All 64 bits of the main counter, as two 32-bit halves with torn reads
 * retried (a bounded number of times; hpet_torn_reads() counts the reads
 * that kept tearing).
 */
uint64_t hpet_read64(void);

/** The register block of the HPET the clock found; NULL when absent. */
volatile uint32_t *hpet_registers(void);

/** How many hpet_read64() calls gave up on a consistent pair. */
unsigned long hpet_torn_reads(void);

#endif
