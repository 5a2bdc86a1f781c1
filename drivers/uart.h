/* SPDX-License-Identifier: MIT */
/*
 * 16550 UART on COM1, 115200 8N1, polled.  Every wait on the hardware is
 * bounded: a UART that never drains is given up on, not waited for.
 */
#ifndef CLOCKBENCH_DRIVERS_UART_H
#define CLOCKBENCH_DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>

/** Program COM1; returns false when no UART answers there. */
bool uart_init(void);

/** Bytes written per wait for an empty transmitter: its FIFO's depth
 * (16 on a 16550A), 1 without a working FIFO. */
unsigned int uart_burst_bytes(void);

/** Write @len bytes, turning "\n" into "\r\n". */
void uart_write(const char *buf, size_t len);

/** A received byte (0-255) if one waits, else -1 at once: polled, one
 * port read when nothing came (the receive path of the event protocol,
 * docs/lifecycle.md). */
int uart_read_byte(void);

/** Bytes written without the transmitter's room (its wait gave up, once
 * and for good): a full FIFO may have dropped them. */
unsigned long uart_unwaited_bytes(void);

/** Wait (bounded) until every byte written has left the transmitter. */
void uart_flush(void);

#endif
