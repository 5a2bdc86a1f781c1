// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/* 16550 UART driver: COM1, 115200 8N1, polled, no interrupts. */
#include <stdint.h>

#include "base/cpu.h"
#include "boot/boot.h" /* COM1_PORT */
#include "drivers/uart.h"

#define UART_THR 0 /* transmit holding (DLAB = 0) */
#define UART_DLL 0 /* divisor latch low (DLAB = 1) */
#define UART_IER 1 /* interrupt enable (DLAB = 0) */
#define UART_DLM 1 /* divisor latch high (DLAB = 1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7

#define LCR_8N1		 0x03
#define LCR_DLAB	 0x80
#define FCR_ENABLE_CLEAR 0x07 /* FIFO on, both FIFOs cleared */
#define MCR_DTR_RTS	 0x03
#define LSR_THRE	 0x20 /* room for another byte */
#define LSR_TEMT	 0x40 /* transmitter completely empty */

#define UART_CLOCK_HZ 115200 /* divisor 1 */

/*
 * One byte at 115200 baud takes 87 us; a port read takes at most a few us
 * even when a hypervisor traps it, so this many polls is well past any
 * working UART.
 */
#define UART_MAX_POLLS 2000000

static bool uart_stuck;

static bool uart_wait(uint8_t lsr_bits)
{
	unsigned long polls;

	if (uart_stuck)
		return false;
	for (polls = 0; polls < UART_MAX_POLLS; polls++) {
		if ((inb(COM1_PORT + UART_LSR) & lsr_bits) == lsr_bits)
			return true;
		cpu_relax();
	}
	uart_stuck = true;
	return false;
}

bool uart_init(void)
{
	unsigned int divisor = UART_CLOCK_HZ / 115200;

	outb(COM1_PORT + UART_SCR, 0xa5);
	if (inb(COM1_PORT + UART_SCR) != 0xa5)
		return false;
	outb(COM1_PORT + UART_IER, 0);
	outb(COM1_PORT + UART_LCR, LCR_DLAB);
	outb(COM1_PORT + UART_DLL, divisor & 0xff);
	outb(COM1_PORT + UART_DLM, divisor >> 8);
	outb(COM1_PORT + UART_LCR, LCR_8N1);
	outb(COM1_PORT + UART_FCR, FCR_ENABLE_CLEAR);
	outb(COM1_PORT + UART_MCR, MCR_DTR_RTS);
	return true;
}

static void uart_putc(char c)
{
	/* Write even when the wait gave up: an emulated UART without a
	 * working LSR still takes bytes. */
	uart_wait(LSR_THRE);
	outb(COM1_PORT + UART_THR, (uint8_t)c);
}

void uart_write(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			uart_putc('\r');
		uart_putc(buf[i]);
	}
}

void uart_flush(void)
{
	uart_wait(LSR_THRE | LSR_TEMT);
}
