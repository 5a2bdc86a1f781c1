/* SPDX-License-Identifier: MIT */
/*
 * The console: where newlib's stdout and stderr go.  Natively that is the
 * COM1 UART.  Writes are unbuffered, so every byte is out before the next
 * statement runs, and console_flush() waits for the hardware to drain.
 */
#ifndef CLOCKBENCH_BASE_CONSOLE_H
#define CLOCKBENCH_BASE_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

void console_init(void);
void console_write(const char *buf, size_t len);
void console_puts(const char *s);
void console_flush(void);

/**
 * Print, as the run ends, how many bytes were written to the console and
 * how many of them a console had to give up on (lib/consloss.h), in one
 * line: "clockbench: console: ...".
 */
void console_say_losses(void);

/** The bytes a console gave up on so far (may be lost; see above). */
uint64_t console_lost_bytes(void);

#endif
