// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * 16550 UART driver: COM1, 115200 8N1, polled, no interrupts.  Output goes
 * in bursts: one wait for an empty transmitter, then as many bytes as its
 * FIFO holds (16 on a 16550A, found at init; 1 on an 8250 or a 16550 whose
 * FIFO does not work), so a byte costs one port access, not two.
 */
#include <stdint.h>

#include "base/cpu.h"
#include "boot/boot.h" /* COM1_PORT */
#include "drivers/uart.h"
#include "lib/txburst.h"

#define UART_THR 0 /* transmit holding (DLAB = 0) */
#define UART_RBR 0 /* receive buffer (DLAB = 0, read) */
#define UART_DLL 0 /* divisor latch low (DLAB = 1) */
#define UART_IER 1 /* interrupt enable (DLAB = 0) */
#define UART_DLM 1 /* divisor latch high (DLAB = 1) */
#define UART_FCR 2 /* FIFO control (write) */
#define UART_IIR 2 /* interrupt identification (read) */
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7

#define LCR_8N1	 0x03
#define LCR_DLAB 0x80
/* FIFO on, both FIFOs cleared, receive trigger at 14 bytes: QEMU hands its
 * UART up to the trigger level's bytes at a time, one at a time at level 1,
 * which under a busy vCPU took milliseconds a byte of the host's line. */
#define FCR_ENABLE_CLEAR 0xc7
#define MCR_DTR_RTS	 0x03
#define IIR_FIFO_MASK	 0xc0 /* both set: a working 16-byte FIFO */
#define LSR_DR		 0x01 /* a received byte waits in RBR */
#define LSR_THRE	 0x20 /* transmit holding register (or FIFO) empty */
#define LSR_TEMT	 0x40 /* transmitter completely empty */

#define UART_CLOCK_HZ 115200 /* divisor 1 */

/*
 * One byte at 115200 baud takes 87 us; a port read takes at most a few us
 * even when a hypervisor traps it, so this many polls is well past any
 * working UART.
 */
#define UART_MAX_POLLS 2000000

#define FIFO_16550A_BYTES 16

static bool uart_stuck;
static unsigned long unwaited_bytes; /* written after a wait gave up */
static unsigned int burst_bytes = 1;

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
	/* A 16550A answers a FIFO enable with both IIR bits set; an 8250 or
	 * 16450 has no FIFO, and a 16550's (one bit) is broken. */
	burst_bytes =
		(inb(COM1_PORT + UART_IIR) & IIR_FIFO_MASK) == IIR_FIFO_MASK
			? FIFO_16550A_BYTES
			: 1;
	return true;
}

unsigned int uart_burst_bytes(void)
{
	return burst_bytes;
}

void uart_write(const char *buf, size_t len)
{
	char burst[FIFO_16550A_BYTES];
	struct txburst t;
	size_t n;

	txburst_start(&t, buf, len);
	while ((n = txburst_next(&t, burst, burst_bytes))) {
		/* Write even when the wait gave up: an emulated UART without
		 * a working LSR still takes bytes, but a full FIFO drops
		 * them, so they are counted as maybe lost. */
		if (!uart_wait(LSR_THRE))
			unwaited_bytes += n;
		outsb(COM1_PORT + UART_THR, burst, n);
	}
}

unsigned long uart_unwaited_bytes(void)
{
	return unwaited_bytes;
}

void uart_flush(void)
{
	uart_wait(LSR_THRE | LSR_TEMT);
}

int uart_read_byte(void)
{
	if (uart_stuck || !(inb(COM1_PORT + UART_LSR) & LSR_DR))
		return -1;
	return inb(COM1_PORT + UART_RBR);
}
