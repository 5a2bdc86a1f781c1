/* SPDX-License-Identifier: MIT */
/*
 * A virtio console (legacy virtio over PCI, port 0): where QEMU offers one
 * (the runner adds it), the console output goes there, a buffer per
 * notification, instead of a trapped port access per byte to the UART.
 */
#ifndef CLOCKBENCH_DRIVERS_VIRTIO_CONSOLE_H
#define CLOCKBENCH_DRIVERS_VIRTIO_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/** Find and set up the device; 0, or -1 with the reason in @why. */
int virtcons_init(char *why, size_t whylen);

/** Whether it takes output: set up, and never stopped answering. */
bool virtcons_ready(void);

/**
 * Write @len bytes; returns how many went out.  Fewer means the device
 * stopped answering (virtcons_ready() is false from then on) while it had
 * the buffer at virtcons_bytes_lost() bytes: those may be lost.
 */
size_t virtcons_write(const char *buf, size_t len);

/** Whether it has a receive queue: the console's input comes here. */
bool virtcons_can_read(void);

/** A byte of the console's input if one waits, else -1 at once (polled;
 * the receive buffer goes back to the device once emptied). */
int virtcons_read_byte(void);

/** Bytes per notification (the buffer's size). */
unsigned int virtcons_burst_bytes(void);

/** The bus 0 slot it was found in. */
unsigned int virtcons_slot(void);

/** The I/O base clockbench gave BAR0 where the firmware had left it
 * unassigned (qboot does), or -1 when the firmware had assigned it. */
int virtcons_assigned_io(void);

/** Bytes of the buffer in flight when the device stopped (0: never). */
unsigned long virtcons_bytes_lost(void);

/** How long a buffer waits for the device, in seconds (0 while the
 * stopwatch does not run yet: the wait is bounded by polls then). */
unsigned int virtcons_wait_s(void);

#endif
