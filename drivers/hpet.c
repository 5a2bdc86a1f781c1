// SPDX-License-Identifier: MIT
/* HPET main counter driver. */
#include <stdio.h>

#include "base/paging.h"
#include "drivers/acpi.h"
#include "drivers/hpet.h"
#include "lib/counter.h"
#include "lib/phys.h"

#define HPET_MMIO_LEN 1024 /* the register block */

/* A torn read needs the low half to carry between two reads a few
 * hundred ns apart; more than a handful of retries means trouble. */
#define HPET_SPLIT_TRIES 8

static volatile uint32_t *hpet_regs;
static bool hpet_read_only; /* lent read-only (Xen's ro-hpet): never write */
static unsigned long hpet_torn_failures;

static uint32_t reg_read(unsigned int offset)
{
	return hpet_regs[offset / 4];
}

static void reg_write(unsigned int offset, uint32_t val)
{
	hpet_regs[offset / 4] = val;
}

static uint64_t hpet_read_low(void)
{
	return reg_read(HPET_COUNTER);
}

static uint32_t read_half(void *ctx, int high)
{
	(void)ctx;
	return reg_read(HPET_COUNTER + (high ? 4 : 0));
}

volatile uint32_t *hpet_registers(void)
{
	return hpet_clock.present ? hpet_regs : NULL;
}

unsigned long hpet_torn_reads(void)
{
	return hpet_torn_failures;
}

uint64_t hpet_read64(void)
{
	uint64_t value;

	if (!counter_read_split64(read_half, NULL, HPET_SPLIT_TRIES, &value))
		hpet_torn_failures++;
	return value;
}

static int hpet_probe(struct clock *c, const struct probe_env *env)
{
	struct acpi_hpet_info info;
	const struct acpi_header *table;
	uint64_t caps, period_fs;
	char why[CLOCK_TEXT_LEN];
	size_t len;
	bool started = false;

	if (!env->acpi)
		return probe_absent(c, "no ACPI tables, so no HPET table");
	table = acpi_find(env->acpi, "HPET", 0, &len);
	if (!table)
		return probe_absent(c, "no valid ACPI HPET table");
	if (acpi_hpet_parse(table, len, &info, why, sizeof(why)))
		return probe_absent(c, "ACPI HPET table: %s", why);
	hpet_regs = phys_map_device(info.base, HPET_MMIO_LEN, &hpet_read_only);
	if (!hpet_regs)
		return probe_absent(c,
				    "HPET registers at %#llx cannot be mapped",
				    (unsigned long long)info.base);
	caps = ((uint64_t)reg_read(HPET_CAPABILITIES + 4) << 32) |
	       reg_read(HPET_CAPABILITIES);
	period_fs = caps >> HPET_CAP_PERIOD_SHIFT;
	if (caps == ~0ull || period_fs == 0 || period_fs > HPET_MAX_PERIOD_FS)
		return probe_absent(
			c,
			"HPET at %#llx reports period %llu fs (capabilities "
			"%#llx): not a working HPET",
			(unsigned long long)info.base,
			(unsigned long long)period_fs,
			(unsigned long long)caps);
	if (!(reg_read(HPET_CONFIG) & HPET_CONFIG_ENABLE)) {
		if (hpet_read_only)
			return probe_absent(
				c,
				"HPET at %#llx is stopped, and its registers "
				"are lent read-only, so it stays stopped",
				(unsigned long long)info.base);
		reg_write(HPET_CONFIG,
			  reg_read(HPET_CONFIG) | HPET_CONFIG_ENABLE);
		started = true;
	}
	if ((caps & HPET_CAP_COUNT_SIZE_64) && hpet_read64() > hpet_read64())
		return probe_absent(
			c,
			"HPET at %#llx: its 64-bit counter went backwards "
			"between two reads",
			(unsigned long long)info.base);
	c->width_bits = 32;
	c->freq_hz = hpet_hz_from_period(period_fs);
	snprintf(c->freq_source, sizeof(c->freq_source),
		 "capabilities register: period %llu fs",
		 (unsigned long long)period_fs);
	c->flags = 0;
	snprintf(c->notes, sizeof(c->notes),
		 "at %#llx, %s main counter read as its low 32 bits, %llu "
		 "comparators, vendor %#04llx%s",
		 (unsigned long long)info.base,
		 caps & HPET_CAP_COUNT_SIZE_64 ? "64-bit" : "32-bit",
		 (unsigned long long)(((caps >> HPET_CAP_NUM_TIM_SHIFT) &
				       HPET_CAP_NUM_TIM_MASK) +
				      1),
		 (unsigned long long)((caps >> HPET_CAP_VENDOR_SHIFT) & 0xffff),
		 started	  ? "; it was stopped, clockbench started it"
		 : hpet_read_only ? "; mapped read-only (as Xen lends it): "
				    "read, never written"
				  : "");
	return 0;
}

struct clock hpet_clock = {
	.name = "hpet",
	.description = "HPET main counter (MMIO)",
	.probe = hpet_probe,
	.read = hpet_read_low,
	/* Bare-metal HPET reads: 0.5-1.2 us (a RHEL reference measured
	 * clock_gettime with the HPET at 1.2 us a call). */
	.native_read_ns_max = 2000,
	/* Its rate is its capabilities register's: the best reference. */
	.reference_rank = 1,
	.bad_reads = hpet_torn_reads,
	.bad_reads_check = "64-bit reads as halves never kept tearing",
};
