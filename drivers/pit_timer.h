/* SPDX-License-Identifier: MIT */
/* PIT channel 0 as a tick source: mode 2, IRQ 0 through the IOAPIC. */
#ifndef CLOCKBENCH_DRIVERS_PIT_TIMER_H
#define CLOCKBENCH_DRIVERS_PIT_TIMER_H

#include "lib/tick_source.h"

extern struct tick_source pit_tick_source;

#endif
