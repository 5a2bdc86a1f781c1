/* SPDX-License-Identifier: MIT */
/*
 * The stopwatch every measurement times with: the TSC read ordered
 * (lfence; rdtsc), counted in cycles at one frequency, set once, when the
 * clock the table names as the stopwatch has been probed (engine/clocks.c).
 * Until then the rate is 0 and nothing can be turned into time.
 */
#ifndef CLOCKBENCH_BASE_STOPWATCH_H
#define CLOCKBENCH_BASE_STOPWATCH_H

#include <stdint.h>

#include "base/cpu.h"

/** Set the stopwatch's rate, in cycles a second (once, by the engine). */
void stopwatch_set_hz(uint64_t hz);

/** Cycles a second; 0 while unknown. */
uint64_t stopwatch_hz(void);

/** The stopwatch now, in cycles. */
static inline uint64_t stopwatch_read(void)
{
	return tsc_read_ordered();
}

/** @cycles in ns (0 while the rate is unknown). */
double stopwatch_ns(double cycles);

/** @ns in cycles, saturating at UINT64_MAX (0 while the rate is unknown). */
uint64_t stopwatch_cycles(double ns);

#endif
