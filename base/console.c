// SPDX-License-Identifier: MIT
/*
 * Console: the UART behind newlib's stdio, unbuffered; under Xen PV, Xen's
 * console (hypervisor/xen_pv.c).
 */
#include <stdio.h>
#include <string.h>

#include "drivers/uart.h"
#include "hypervisor/xen.h"
#include "platform/pv64/xen_pv.h"
#include "base/config.h"
#include "base/console.h"

void console_init(void)
{
	if (CONFIG_XEN_PV) {
		xen_console_init();
	} else {
		uart_init();
		xen_hvm_console_init();
	}
	/* No stdio buffering: a line is on the wire before the code after
	 * the printf runs, even if that code brings the machine down. */
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

void console_write(const char *buf, size_t len)
{
	if (CONFIG_XEN_PV) {
		xen_console_write(buf, len);
	} else {
		uart_write(buf, len);
		xen_hvm_console_write(buf, len);
	}
}

void console_puts(const char *s)
{
	console_write(s, strlen(s));
}

void console_flush(void)
{
	fflush(stdout);
	if (CONFIG_XEN_PV) {
		xen_console_flush();
	} else {
		uart_flush();
		xen_hvm_console_flush();
	}
}
