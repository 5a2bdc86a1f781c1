/* SPDX-License-Identifier: MIT */
/*
 * HPET timer 0 as a tick source (periodic, or one-shot re-armed by the
 * handler), its interrupt routed through the IOAPIC to CPU 0.
 */
#ifndef CLOCKBENCH_DRIVERS_HPET_TIMER_H
#define CLOCKBENCH_DRIVERS_HPET_TIMER_H

#include "lib/tick_source.h"

extern struct tick_source hpet_tick_source;

#endif
