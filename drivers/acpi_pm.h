/* SPDX-License-Identifier: MIT */
/*
 * The ACPI power-management timer: a 24- or 32-bit up-counter at
 * 3.579545 MHz, read from the I/O port the FADT names.
 */
#ifndef CLOCKBENCH_DRIVERS_ACPI_PM_H
#define CLOCKBENCH_DRIVERS_ACPI_PM_H

#include "lib/clock.h"

/* The ACPI specification fixes the rate (4.7.2.1 Power Management Timer). */
#define ACPI_PM_TIMER_HZ 3579545

extern struct clock acpi_pm_clock;

#endif
