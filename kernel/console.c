// SPDX-License-Identifier: MIT
/* Console: the UART behind newlib's stdio, unbuffered. */
#include <stdio.h>
#include <string.h>

#include "drivers/uart.h"
#include "kernel/console.h"

void console_init(void)
{
	uart_init();
	/* No stdio buffering: a line is on the wire before the code after
	 * the printf runs, even if that code brings the machine down. */
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

void console_write(const char *buf, size_t len)
{
	uart_write(buf, len);
}

void console_puts(const char *s)
{
	console_write(s, strlen(s));
}

void console_flush(void)
{
	fflush(stdout);
	uart_flush();
}
