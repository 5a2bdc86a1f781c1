/* SPDX-License-Identifier: MIT */
/*
 * Console bytes in bursts: what a transmitter with room for N bytes takes
 * next, with "\n" sent as "\r\n".  The UART driver waits once for an empty
 * FIFO and then writes a whole burst (16 bytes on a 16550A, 1 on an 8250),
 * instead of polling before every byte.  Pure: the host tests it.
 */
#ifndef CLOCKBENCH_LIB_TXBURST_H
#define CLOCKBENCH_LIB_TXBURST_H

#include <stdbool.h>
#include <stddef.h>

/* Where a write stands: its bytes, how far it got, and whether the "\r"
 * of the "\n" at pos has gone out already (a burst of 1 splits them). */
struct txburst {
	const char *buf;
	size_t len, pos;
	bool cr_sent;
};

/** Start a write of @len bytes of @buf. */
void txburst_start(struct txburst *t, const char *buf, size_t len);

/**
 * The next burst, at most @room bytes, into @out; returns its length, 0
 * when every byte has been given out (or @room is 0).
 */
size_t txburst_next(struct txburst *t, char *out, size_t room);

#endif
