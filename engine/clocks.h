/* SPDX-License-Identifier: MIT */
/*
 * The clock table: every clock clockbench knows, probed once, in the order
 * reports list them.  Also the measurements every clock shares: whether it
 * advances, and its rate against a reference clock.
 */
#ifndef CLOCKBENCH_ENGINE_CLOCKS_H
#define CLOCKBENCH_ENGINE_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "lib/clockrate.h"

/**
 * Probe every clock: first all but the probe_late ones, then those, handed
 * the best reference found (env->reference) so that they can calibrate
 * against it; then set the stopwatch (base/stopwatch.h) from the table's
 * stopwatch clock, and env->stopwatch.  Fills in the hypervisor's word on
 * the TSC (env->hv_tsc_hz, ...) first.
 */
void clocks_probe(struct probe_env *env);

/** The clock the table names as the stopwatch, present or not. */
const struct clock *clocks_stopwatch(void);

/** The clock table, NULL-terminated, in report order. */
struct clock *const *clocks_all(void);

/**
 * The present clock with an independently known frequency that other
 * clocks are best measured against: the lowest reference_rank (HPET,
 * then the ACPI PM timer, then the PIT).  NULL when there is none.
 */
const struct clock *clocks_reference(void);

/**
 * The best reference for @c: the present one of lowest reference_rank that
 * reads neither @c's counter nor the clock @c was calibrated against (any,
 * when @c is NULL); NULL if none.
 */
const struct clock *clocks_reference_for(const struct clock *c);

#endif
