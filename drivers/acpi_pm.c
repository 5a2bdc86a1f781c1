// SPDX-License-Identifier: MIT
/* ACPI PM timer driver. */
#include <stdio.h>

#include "drivers/acpi.h"
#include "drivers/acpi_pm.h"
#include "base/cpu.h"
#include "base/platform.h"

/* Reads to wait for the timer to tick (it ticks every 279 ns). */
#define PM_PROBE_READS 10000

static uint16_t pm_port;
static uint32_t pm_mask;

static uint64_t acpi_pm_read(void)
{
	return inl(pm_port) & pm_mask;
}

static int acpi_pm_probe(struct clock *c, const struct probe_env *env)
{
	struct acpi_pm_timer timer;
	const struct acpi_header *fadt;
	char why[CLOCK_TEXT_LEN];
	const char *no_io = platform_port_io_unavailable();
	uint32_t first;
	size_t len;
	int i;

	if (!env->acpi)
		return probe_absent(c, "no ACPI tables, so no FADT");
	fadt = acpi_find(env->acpi, "FACP", 0, &len);
	if (!fadt)
		return probe_absent(c, "no valid FADT");
	if (acpi_fadt_pm_timer(fadt, len, &timer, why, sizeof(why)))
		return probe_absent(c, "%s", why);
	/* acpi_fadt_pm_timer() refuses ports past 0xffff. */
	pm_port = (uint16_t)timer.port;
	pm_mask = timer.is_32bit ? 0xffffffffu : 0xffffffu;

	if (no_io)
		return probe_absent(c, "%s", no_io);
	platform_ports_allow(pm_port, 4);
	c->ports[0] = pm_port;
	c->nr_ports = 1;
	first = inl(pm_port);
	if (first == 0xffffffffu && platform_port_owner())
		return probe_absent(
			c,
			"denied by %s: port %#x reads as all ones (%s keeps "
			"the PM timer for itself)",
			platform_port_owner(), pm_port, platform_port_owner());
	if (first == 0xffffffffu)
		return probe_absent(
			c, "port %#x reads as all ones: no timer answers there",
			pm_port);
	for (i = 0; i < PM_PROBE_READS && inl(pm_port) == first; i++)
		;
	if (i == PM_PROBE_READS)
		return probe_absent(
			c,
			"port %#x stays at %#x for %d reads: the timer is "
			"stopped",
			pm_port, first, PM_PROBE_READS);
	c->width_bits = timer.is_32bit ? 32 : 24;
	c->freq_hz = ACPI_PM_TIMER_HZ;
	snprintf(c->freq_source, sizeof(c->freq_source),
		 "fixed by the ACPI specification");
	c->flags = CLOCK_PORT_IO;
	snprintf(c->notes, sizeof(c->notes), "port %#x from the FADT's %s",
		 pm_port, timer.source);
	return 0;
}

struct clock acpi_pm_clock = {
	.name = "acpi_pm",
	.description = "ACPI PM timer (I/O port)",
	.probe = acpi_pm_probe,
	.read = acpi_pm_read,
	/* One port read on a chipset bus: about a microsecond natively. */
	.native_read_ns_max = 3000,
	/* 3.579545 MHz by the ACPI specification; coarser than the HPET. */
	.reference_rank = 2,
};
