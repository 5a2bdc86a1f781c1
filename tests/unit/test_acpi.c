// SPDX-License-Identifier: MIT
/*
 * Unit tests: ACPI discovery and parsing (drivers/acpi.c) over tables
 * built in fake physical memory, valid and corrupted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/acpi.h"

/* Fake physical memory covering 0 - 1.25 MiB (BDA, EBDA, BIOS area). */
#define MEM_SIZE 0x140000
#define RSDP_AT	 0xf5a40
#define RSDT_AT	 0x110000
#define XSDT_AT	 0x110100
#define FACP_AT	 0x111000
#define APIC_AT	 0x112000
#define DSDT_AT	 0x113000
#define EBDA_AT	 0x9fc00

static uint8_t mem[MEM_SIZE];
static struct acpi acpi;

static const void *fake_map(void *ctx, uint64_t paddr, size_t len)
{
	(void)ctx;
	if (paddr == 0 || paddr > MEM_SIZE || len > MEM_SIZE - paddr)
		return NULL;
	return mem + paddr;
}

static const struct phys_mapper fake = { .map = fake_map };

static void put32(uint64_t at, uint32_t v)
{
	memcpy(mem + at, &v, 4);
}

static void put64(uint64_t at, uint64_t v)
{
	memcpy(mem + at, &v, 8);
}

static void fix_checksum(uint64_t at, size_t len, size_t checksum_off)
{
	mem[at + checksum_off] = 0;
	mem[at + checksum_off] = (uint8_t)-acpi_checksum(mem + at, len);
}

static void table(uint64_t at, const char *sig, uint32_t len)
{
	memcpy(mem + at, sig, 4);
	put32(at + 4, len);
	mem[at + 8] = 1;
	memcpy(mem + at + 10, "BOCHS ", 6);
	fix_checksum(at, len, 9);
}

static void rsdp(uint64_t at, uint8_t revision)
{
	memcpy(mem + at, "RSD PTR ", 8);
	memcpy(mem + at + 9, "BOCHS ", 6);
	mem[at + 15] = revision;
	put32(at + 16, RSDT_AT);
	fix_checksum(at, 20, 8);
	if (revision >= 2) {
		put32(at + 20, 36);
		put64(at + 24, XSDT_AT);
		fix_checksum(at, 36, 32);
	}
}

/* MADT: two enabled xAPIC CPUs, one online-capable x2APIC, an IOAPIC. */
static uint32_t madt(void)
{
	static const uint8_t entries[] = {
		0, 8,  0, 0, 1, 0, 0,	 0, /* LAPIC uid 0 id 0 enabled */
		0, 8,  1, 1, 1, 0, 0,	 0, /* LAPIC uid 1 id 1 enabled */
		0, 8,  2, 2, 0, 0, 0,	 0, /* LAPIC absent */
		1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0, /* IOAPIC */
		9, 16, 0, 0, 0, 1, 0,	 0,    2, 0, 0, 0,
		3, 0,  0, 0, /* x2APIC */
	};
	uint32_t len = 44 + sizeof(entries);

	put32(APIC_AT + 36, 0xfee00000);
	memcpy(mem + APIC_AT + 44, entries, sizeof(entries));
	table(APIC_AT, "APIC", len);
	return len;
}

static int setup(void **state)
{
	static const uint8_t aml[] = { 0x10, 0x08, 0x5f, 0x53, 0x35,
				       0x5f, 0x12, 0x06, 0x04, 0x0a,
				       0x05, 0x0a, 0x05, 0x00, 0x00 };

	(void)state;
	memset(mem, 0, sizeof(mem));
	rsdp(RSDP_AT, 0);
	put32(RSDT_AT + 36, FACP_AT);
	put32(RSDT_AT + 40, APIC_AT);
	table(RSDT_AT, "RSDT", 44);
	put64(XSDT_AT + 36, FACP_AT);
	put64(XSDT_AT + 44, APIC_AT);
	table(XSDT_AT, "XSDT", 52);
	put32(FACP_AT + 40, DSDT_AT);
	put32(FACP_AT + 64, 0x604);
	table(FACP_AT, "FACP", 116);
	madt();
	/* A scope opcode and the \_S5_ name inside the DSDT body. */
	memcpy(mem + DSDT_AT + 36, aml + 1, sizeof(aml) - 1);
	table(DSDT_AT, "DSDT", 36 + sizeof(aml) - 1);
	return 0;
}

static void checksum_and_rsdp_checks(void **state)
{
	char why[80];

	(void)state;
	assert_int_equal(acpi_checksum(mem + RSDT_AT, 44), 0);
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 20, why, sizeof(why)),
			 0);
	mem[RSDP_AT + 3] = 'x';
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 20, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "no \"RSD PTR \" signature");
	mem[RSDP_AT + 3] = ' ';
	mem[RSDP_AT + 16] ^= 1;
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 20, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "RSDP checksum is wrong");

	rsdp(RSDP_AT, 2);
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 36, why, sizeof(why)),
			 0);
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 20, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "only 20 bytes"));
	mem[RSDP_AT + 30] = 1; /* covered only by the extended checksum */
	assert_int_equal(acpi_rsdp_check(mem + RSDP_AT, 36, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "RSDP extended checksum is wrong");
}

static void scan_finds_the_rsdp(void **state)
{
	const char *where;

	(void)state;
	assert_int_equal(acpi_rsdp_scan(&fake, &where), RSDP_AT);
	assert_string_equal(where, "BIOS area");

	/* One in the EBDA is found first. */
	put32(0x40e, EBDA_AT >> 4);
	rsdp(EBDA_AT + 0x10, 0);
	assert_int_equal(acpi_rsdp_scan(&fake, &where), EBDA_AT + 0x10);
	assert_string_equal(where, "EBDA");

	/* A corrupt one is passed over. */
	memset(mem + RSDP_AT, 0, 20);
	mem[EBDA_AT + 0x18] ^= 0xff;
	assert_int_equal(acpi_rsdp_scan(&fake, &where), 0);
	assert_string_equal(where, "nowhere");
}

static void rsdt_tables_and_cpus(void **state)
{
	const struct acpi_header *h;
	struct acpi_cpu_count cpus;
	char why[80];
	size_t len;

	(void)state;
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), 0);
	assert_false(acpi.root_is_xsdt);
	assert_int_equal(acpi.nr_entries, 2);
	assert_string_equal(acpi.oem_id, "BOCHS ");
	h = acpi_find(&acpi, "APIC", 0, &len);
	assert_non_null(h);
	assert_int_equal(acpi_madt_count_cpus(h, len, &cpus, why, sizeof(why)),
			 0);
	assert_int_equal(cpus.enabled, 2);
	assert_int_equal(cpus.online_capable, 1);
	assert_int_equal(cpus.x2apic_entries, 1);
	assert_null(acpi_find(&acpi, "APIC", 1, &len));
	assert_null(acpi_find(&acpi, "HPET", 0, &len));
	assert_int_equal(acpi.nr_warnings, 0);
}

static void xsdt_preferred_with_fallback(void **state)
{
	uint8_t copy[36];

	(void)state;
	rsdp(RSDP_AT, 2);
	memcpy(copy, mem + RSDP_AT, 36);
	memset(mem + RSDP_AT, 0, 36); /* a copy needs no memory behind it */
	assert_int_equal(acpi_open(&acpi, &fake, copy, 36, 0, "tag"), 0);
	assert_true(acpi.root_is_xsdt);
	assert_int_equal(acpi.nr_entries, 2);
	assert_non_null(acpi_find(&acpi, "FACP", 0, &(size_t){ 0 }));

	mem[XSDT_AT + 40] ^= 1; /* break the XSDT's checksum */
	assert_int_equal(acpi_open(&acpi, &fake, copy, 36, 0, "tag"), 0);
	assert_false(acpi.root_is_xsdt);
	assert_int_equal(acpi.nr_warnings, 2);
	assert_non_null(strstr(acpi.warnings[0],
			       "XSDT: XSDT at 0x110100 has a bad checksum"));
	assert_non_null(strstr(acpi.warnings[1], "falling back"));
}

static void corrupt_tables_are_skipped_with_a_warning(void **state)
{
	size_t len;

	(void)state;
	mem[APIC_AT + 50] ^= 0x40;
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), 0);
	assert_null(acpi_find(&acpi, "APIC", 0, &len));
	assert_null(acpi_find(&acpi, "APIC", 0, &len));
	assert_int_equal(acpi.nr_warnings, 1); /* once, however often asked */
	assert_non_null(strstr(acpi.warnings[0],
			       "APIC at 0x112000 has a bad checksum"));

	/* An entry pointing past readable memory. */
	put32(RSDT_AT + 40, 0x7fff0000);
	fix_checksum(RSDT_AT, 44, 9);
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), 0);
	assert_null(acpi_find(&acpi, "APIC", 0, &len));
	assert_non_null(
		strstr(acpi.warnings[0],
		       "RSDT entry 1: header at 0x7fff0000 is not readable"));

	/* A length running past what is mapped. */
	put32(RSDT_AT + 40, MEM_SIZE - 64);
	fix_checksum(RSDT_AT, 44, 9);
	memcpy(mem + MEM_SIZE - 64, "APIC", 4);
	put32(MEM_SIZE - 60, 4096);
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), 0);
	assert_null(acpi_find(&acpi, "APIC", 0, &len));
	assert_non_null(strstr(acpi.warnings[0], "run past readable memory"));
}

static void bad_root_table(void **state)
{
	(void)state;
	memcpy(mem + RSDT_AT, "XXXX", 4);
	fix_checksum(RSDT_AT, 44, 9);
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), -1);
	assert_string_equal(acpi.warnings[0],
			    "RSDT at 0x110000 has signature XXXX");
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, 0x7fff0000, "pvh"),
			 -1);
	assert_non_null(strstr(acpi.warnings[0], "not readable"));
}

static void malformed_madt(void **state)
{
	struct acpi_cpu_count cpus;
	char why[80];
	uint32_t len = madt();

	(void)state;
	mem[APIC_AT + 44 + 1] = 0; /* first entry of length 0 */
	assert_int_equal(acpi_madt_count_cpus((const void *)(mem + APIC_AT),
					      len, &cpus, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "MADT entry at offset 44 has length 0");
	assert_int_equal(acpi_madt_count_cpus((const void *)(mem + APIC_AT), 40,
					      &cpus, why, sizeof(why)),
			 -1);
}

static void fadt_and_s5(void **state)
{
	static const uint8_t rooted[] = { 0x08, 0x5c, '_',  'S',  '5', '_',
					  0x12, 0x04, 0x02, 0x00, 0x01 };
	static const uint8_t not_a_name[] = { 0x70, '_',  'S',	'5',  '_',
					      0x12, 0x04, 0x02, 0x00, 0x01 };
	struct acpi_fadt_power power;
	uint8_t a = 0xff, b = 0xff;

	(void)state;
	assert_int_equal(
		acpi_fadt_power((const void *)(mem + FACP_AT), 116, &power), 0);
	assert_int_equal(power.pm1a_cnt_port, 0x604);
	assert_int_equal(power.pm1b_cnt_port, 0);
	assert_int_equal(power.dsdt_paddr, DSDT_AT);
	assert_int_equal(
		acpi_fadt_power((const void *)(mem + FACP_AT), 60, &power), -1);

	assert_int_equal(acpi_aml_s5(mem + DSDT_AT + 36, 14, &a, &b), 0);
	assert_int_equal(a, 5);
	assert_int_equal(b, 5);
	assert_int_equal(acpi_aml_s5(rooted, sizeof(rooted), &a, &b), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(acpi_aml_s5(not_a_name, sizeof(not_a_name), &a, &b),
			 -1);
	assert_int_equal(acpi_aml_s5(rooted, 7, &a, &b), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(checksum_and_rsdp_checks, setup),
		cmocka_unit_test_setup(scan_finds_the_rsdp, setup),
		cmocka_unit_test_setup(rsdt_tables_and_cpus, setup),
		cmocka_unit_test_setup(xsdt_preferred_with_fallback, setup),
		cmocka_unit_test_setup(
			corrupt_tables_are_skipped_with_a_warning, setup),
		cmocka_unit_test_setup(bad_root_table, setup),
		cmocka_unit_test_setup(malformed_madt, setup),
		cmocka_unit_test_setup(fadt_and_s5, setup),
	};

	return cmocka_run_group_tests_name("acpi", tests, NULL, NULL);
}
