// SPDX-License-Identifier: MIT
/*
 * Fuzz target: ACPI (drivers/acpi.c) over fake physical memory that lets
 * nothing past a mapping be read (fuzz_phys.h), through the calls the
 * kernel makes: finding the RSDP (a loader's copy, an address, or the BIOS
 * area scan), opening the RSDT or XSDT, every entry, the MADT's CPUs and
 * interrupts, the FADT's PM timer and power-off ports, the HPET table, the
 * DSDT's \_S5_, and every table's bytes as acpi_dump=1 walks them.
 *
 * Input: one byte choosing where the RSDP comes from (0: region 0's bytes
 * are a loader's copy of it; 1: at region 0's address; 2: the scan), then
 * regions, each a little-endian u64 physical address, a u32 length and
 * that many bytes (the last one cut at the end of the input).
 */
#include <sanitizer/asan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.h"
#include "tests/fuzz/fuzz_phys.h"

#define LISTED_CPUS_MAX 64

static struct fuzz_phys phys;

/* Every byte a table hands over must be readable (asked of ASan in one
 * call: a loop over them would cost more than the parsing). */
static void visit(const struct acpi_table_bytes *t, void *ctx)
{
	unsigned int *tables = ctx;

	if (strlen(t->signature) != 4 ||
	    __asan_region_is_poisoned((void *)t->bytes, t->len))
		abort();
	(*tables)++;
}

static void check_text(const char *s, size_t size)
{
	if (!memchr(s, '\0', size))
		abort();
}

static void madt(struct acpi *acpi)
{
	struct acpi_cpu cpus[LISTED_CPUS_MAX];
	struct acpi_cpu_count count;
	struct acpi_madt_interrupts irqs;
	struct acpi_isa_route route;
	const struct acpi_header *h;
	unsigned int listed, irq;
	uint64_t lapic_base;
	char why[160];
	size_t len;

	h = acpi_find(acpi, "APIC", 0, &len);
	if (!h)
		return;
	if (acpi_madt_count_cpus(h, len, &count, why, sizeof(why)))
		check_text(why, sizeof(why));
	if (acpi_madt_cpus(h, len, cpus, LISTED_CPUS_MAX, &listed, &lapic_base,
			   why, sizeof(why)) == 0 &&
	    count.enabled + count.online_capable > listed)
		abort();
	acpi_madt_cpus(h, len, NULL, 0, NULL, NULL, why, sizeof(why));
	if (acpi_madt_interrupts(h, len, &irqs, why, sizeof(why)) == 0)
		for (irq = 0; irq < 16; irq++)
			acpi_isa_irq_route(&irqs, irq, &route);
}

static void fadt_hpet_dsdt(struct acpi *acpi)
{
	struct acpi_fadt_power power;
	struct acpi_pm_timer timer;
	struct acpi_hpet_info hpet;
	const struct acpi_header *h;
	uint8_t typa, typb;
	char why[160];
	size_t len;

	h = acpi_find(acpi, "FACP", 0, &len);
	if (h) {
		acpi_fadt_power(h, len, &power);
		if (acpi_fadt_pm_timer(h, len, &timer, why, sizeof(why)) == 0 &&
		    timer.port > 0xffff - 3)
			abort();
	}
	h = acpi_find(acpi, "HPET", 0, &len);
	if (h && acpi_hpet_parse(h, len, &hpet, why, sizeof(why)) == 0 &&
	    (hpet.base == 0 || hpet.base % 1024))
		abort();
	h = acpi_dsdt(acpi, &len);
	if (h)
		acpi_aml_s5((const uint8_t *)h + ACPI_HEADER_LEN,
			    len - ACPI_HEADER_LEN, &typa, &typb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi acpi;
	unsigned int mode, i, tables = 0;
	const uint8_t *copy = NULL;
	size_t copy_len = 0, len;
	uint64_t rsdp_paddr = 0;
	const char *where = "the fuzzer";

	fuzz_phys_reset(&phys);
	mode = fuzz_take(&data, &size, 1) % 3;
	while (size) {
		uint64_t paddr = fuzz_take(&data, &size, 8);

		len = fuzz_take(&data, &size, 4);
		if (len > size)
			len = size;
		if (phys.nr_regions == 0 && mode == 0) {
			copy = fuzz_phys_copy(&phys, data, len);
			copy_len = len;
			mode = 3; /* region 0 taken as the copy */
		} else {
			if (phys.nr_regions == 0)
				rsdp_paddr = paddr;
			if (!fuzz_phys_add(&phys, paddr, data, len))
				break;
		}
		data += len;
		size -= len;
	}

	if (mode == 2)
		rsdp_paddr = acpi_rsdp_scan(&phys.pm, &where);
	if (mode == 0 || (mode == 2 && !rsdp_paddr))
		return 0;
	if (acpi_open(&acpi, &phys.pm, copy, copy_len, copy ? 0 : rsdp_paddr,
		      where) == 0) {
		for (i = 0; i < acpi.nr_entries && i < 256; i++)
			acpi_entry(&acpi, i, &len);
		madt(&acpi);
		fadt_hpet_dsdt(&acpi);
		acpi_for_each_table(&acpi, visit, &tables);
		if (tables < 2)
			abort(); /* the RSDP and the root table it opened */
	} else if (acpi.nr_warnings == 0) {
		abort(); /* a failure always says why */
	}
	if (acpi.nr_warnings > ACPI_MAX_WARNINGS)
		abort();
	for (i = 0; i < acpi.nr_warnings; i++)
		check_text(acpi.warnings[i], sizeof(acpi.warnings[i]));
	return 0;
}
