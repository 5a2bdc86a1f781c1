// SPDX-License-Identifier: MIT
/* i8254 PIT channel 0 driver. */
#include <stdio.h>

#include "drivers/pit.h"
#include "base/cpu.h"
#include "base/platform.h"

#define PIT_CMD_CH0_LATCH 0x00

#define PIT_PROBE_READS	 10000
#define PIT_DENIED_READS 3 /* latched reads that must all give 0xffff */

static uint64_t pit_read(void)
{
	uint8_t low, high;

	outb(PIT_COMMAND, PIT_CMD_CH0_LATCH);
	low = inb(PIT_CHANNEL0);
	high = inb(PIT_CHANNEL0);
	/* Reload 0 means 65536: the count runs 0 (65536), 65535, ..., 1. */
	return (0x10000u - ((unsigned int)high << 8 | low)) & 0xffff;
}

/* Whether channel 0 reads as all ones (a denied port), latched again and
 * again: a PIT counting at 1.19 MHz cannot show 0xffff every time. */
static bool pit_denied(void)
{
	int i;

	for (i = 0; i < PIT_DENIED_READS; i++) {
		outb(PIT_COMMAND, PIT_CMD_CH0_LATCH);
		if (inb(PIT_CHANNEL0) != 0xff || inb(PIT_CHANNEL0) != 0xff)
			return false;
	}
	return true;
}

static int pit_probe(struct clock *c, const struct probe_env *env)
{
	const char *no_io = platform_port_io_unavailable();
	uint64_t first;
	int i;

	(void)env;
	if (no_io)
		return probe_absent(c, "%s", no_io);
	platform_ports_allow(PIT_CHANNEL0, 1);
	platform_ports_allow(PIT_COMMAND, 1);
	c->ports[0] = PIT_COMMAND;
	c->ports[1] = PIT_CHANNEL0;
	c->nr_ports = 2;
	/* Where another owner decides on ports, look before writing: a
	 * denied PIT reads as all ones, and one that is not ours to program
	 * must not be reprogrammed. */
	if (platform_port_owner() && pit_denied())
		return probe_absent(
			c,
			"denied by %s: channel 0 reads as all ones (%s keeps "
			"the PIT for itself)",
			platform_port_owner(), platform_port_owner());
	outb(PIT_COMMAND, PIT_CMD_CH0_LOHI_MODE2);
	outb(PIT_CHANNEL0, 0);
	outb(PIT_CHANNEL0, 0);

	first = pit_read();
	for (i = 0; i < PIT_PROBE_READS && pit_read() == first; i++)
		;
	if (i == PIT_PROBE_READS)
		return probe_absent(
			c,
			"channel 0 stays at one count for %d reads: no PIT "
			"answers",
			PIT_PROBE_READS);
	c->width_bits = 16;
	c->freq_hz = PIT_HZ;
	snprintf(c->freq_source, sizeof(c->freq_source),
		 "fixed by the PC design");
	c->flags = CLOCK_PORT_IO | CLOCK_MULTI_ACCESS;
	snprintf(c->notes, sizeof(c->notes),
		 "channel 0 programmed as a rate generator over 65536 counts; "
		 "3 port accesses a read");
	return 0;
}

struct clock pit_clock = {
	.name = "pit",
	.description = "i8254 PIT channel 0, latched (I/O ports)",
	.probe = pit_probe,
	.read = pit_read,
	/* Three port accesses of about a microsecond each natively. */
	.native_read_ns_max = 6000,
	/* 1.193182 MHz by the PC design; slow to read and 16 bits wide. */
	.reference_rank = 3,
};
