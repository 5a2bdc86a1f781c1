/* SPDX-License-Identifier: MIT */
/*
 * The i8254 PIT, channel 0, as the legacy baseline: programmed as a rate
 * generator over the full 16-bit range and read latched.  It counts down;
 * read() inverts it so that, like every clock here, it counts up.
 */
#ifndef CLOCKBENCH_DRIVERS_PIT_H
#define CLOCKBENCH_DRIVERS_PIT_H

#include "lib/clock.h"

#define PIT_HZ 1193182 /* 14.31818 MHz / 12, as on the original PC */

#define PIT_CHANNEL0 0x40
#define PIT_COMMAND  0x43

/* Command bytes: channel 0, low byte then high byte, mode 2 (rate
 * generator: counts down by one, reloads), binary. */
#define PIT_CMD_CH0_LOHI_MODE2 0x34

extern struct clock pit_clock;

#endif
