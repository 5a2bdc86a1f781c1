/* SPDX-License-Identifier: MIT */
/*
 * The local APIC timer as tick sources: periodic mode, its rate measured
 * against the TSC, and TSC-deadline mode (when CPUID offers it), re-armed
 * by each interrupt's handler.
 */
#ifndef CLOCKBENCH_DRIVERS_LAPIC_TIMER_H
#define CLOCKBENCH_DRIVERS_LAPIC_TIMER_H

#include "lib/tick_source.h"

extern struct tick_source lapic_tick_source, tsc_deadline_tick_source;

#endif
