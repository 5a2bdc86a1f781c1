// SPDX-License-Identifier: MIT
/*
 * Unit tests: ACPI discovery and parsing (drivers/acpi.c) over tables
 * built in fake physical memory and over real tables captured from QEMU,
 * valid and corrupted, and through a mapper that maps each request apart
 * (as Xen PV does) and lets nothing past it be read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/*
 * A mapper stricter than Xen PV's: every map() call gets pages of its own
 * holding a read-only copy of exactly the bytes asked for, poison before
 * them and an inaccessible page right after them.  Code that reads a table
 * through the mapping of its header faults at the header's end, instead of
 * reading the right bytes by chance as the identity mapping lets it (and as
 * Xen PV does, up to the end of the header's page).
 */
#define POISON 0xa5

struct one_mapping {
	void *base;
	size_t size;
};

struct separate_mapper {
	const struct phys_mapper *from; /* where the bytes are */
	struct phys_mapper pm;
	struct one_mapping *maps;
	unsigned int nr_maps, max_maps;
};

static struct separate_mapper separate;

static const void *separate_map(void *ctx, uint64_t paddr, size_t len)
{
	struct separate_mapper *s = ctx;
	const uint8_t *src = phys_map(s->from, paddr, len);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = len ? (len + page - 1) / page * page : page;
	uint8_t *base;

	if (!src)
		return NULL;
	if (s->nr_maps == s->max_maps) {
		s->max_maps = s->max_maps ? 2 * s->max_maps : 64;
		s->maps = realloc(s->maps, s->max_maps * sizeof(*s->maps));
		assert_non_null(s->maps);
	}
	base = mmap(NULL, data + page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(base != MAP_FAILED);
	s->maps[s->nr_maps++] = (struct one_mapping){ base, data + page };
	memset(base, POISON, data - len);
	memcpy(base + data - len, src, len);
	assert_int_equal(mprotect(base, data, PROT_READ), 0);
	assert_int_equal(mprotect(base + data, page, PROT_NONE), 0);
	return base + data - len;
}

/* Map through @from from now on, each request separately. */
static const struct phys_mapper *separate_over(const struct phys_mapper *from)
{
	separate.from = from;
	separate.pm =
		(struct phys_mapper){ .map = separate_map, .ctx = &separate };
	return &separate.pm;
}

static void separate_release(void)
{
	unsigned int i;

	for (i = 0; i < separate.nr_maps; i++)
		munmap(separate.maps[i].base, separate.maps[i].size);
	free(separate.maps);
	memset(&separate, 0, sizeof(separate));
}

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

/* MADT at @at: two enabled xAPIC CPUs, one online-capable x2APIC, an
 * IOAPIC. */
static uint32_t madt(uint64_t at)
{
	static const uint8_t entries[] = {
		0, 8,  0, 0, 1, 0, 0,	 0, /* LAPIC uid 0 id 0 enabled */
		0, 8,  1, 1, 1, 0, 0,	 0, /* LAPIC uid 1 id 1 enabled */
		0, 8,  2, 2, 0, 0, 0,	 0, /* LAPIC absent */
		1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0, /* IOAPIC */
		9, 16, 0, 0, 0, 1, 0,	 0,    2, 0, 0, 0,
		3, 0,  0, 0, /* x2APIC id 0x100 uid 3 online-capable */
	};
	uint32_t len = 44 + sizeof(entries);

	put32(at + 36, 0xfee00000);
	memcpy(mem + at + 44, entries, sizeof(entries));
	table(at, "APIC", len);
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
	madt(APIC_AT);
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
	/* The RSDP is kept as checked. */
	assert_int_equal(acpi.rsdp_len, 36);
	assert_memory_equal(acpi.rsdp, copy, 36);
}

/* acpi_open() keeps all of an RSDP, so it refuses a longer one in words. */
static void rsdp_longer_than_kept(void **state)
{
	uint8_t copy[40] = { 0 };
	uint32_t length = 40;

	(void)state;
	rsdp(RSDP_AT, 2);
	memcpy(copy, mem + RSDP_AT, 36);
	memcpy(copy + 20, &length, 4);
	copy[32] = 0;
	copy[32] = (uint8_t)-acpi_checksum(copy, 40);
	assert_int_equal(acpi_open(&acpi, &fake, copy, 40, 0, "tag"), -1);
	assert_string_equal(acpi.warnings[0],
			    "RSDP from tag: RSDP length 40 is out of bounds "
			    "(36..36)");
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
	uint32_t len = madt(APIC_AT);

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

static void madt_cpu_list(void **state)
{
	/* Type 5, length 12, reserved, 64-bit address 0x1fee00000. */
	static const uint8_t override[] = {
		5, 12, 0, 0, 0x00, 0x00, 0xe0, 0xfe, 0x01, 0x00, 0x00, 0x00,
	};
	struct acpi_cpu cpus[8];
	unsigned int count = 99;
	uint64_t lapic_base = 0;
	char why[80];
	uint32_t len = madt(APIC_AT);
	const struct acpi_header *h = (const void *)(mem + APIC_AT);

	(void)state;
	assert_int_equal(acpi_madt_cpus(h, len, cpus, 8, &count, &lapic_base,
					why, sizeof(why)),
			 0);
	assert_int_equal(count, 4);
	assert_int_equal(lapic_base, 0xfee00000);
	assert_int_equal(cpus[0].apic_id, 0);
	assert_true(cpus[0].enabled);
	assert_int_equal(cpus[1].uid, 1);
	assert_int_equal(cpus[1].apic_id, 1);
	/* The absent LAPIC is listed, in table order, not enabled. */
	assert_int_equal(cpus[2].apic_id, 2);
	assert_false(cpus[2].enabled);
	assert_false(cpus[2].online_capable);
	assert_false(cpus[2].x2apic);
	/* The x2APIC entry: 32-bit ID @4 and UID @12. */
	assert_int_equal(cpus[3].apic_id, 0x100);
	assert_int_equal(cpus[3].uid, 3);
	assert_true(cpus[3].x2apic);
	assert_false(cpus[3].enabled);
	assert_true(cpus[3].online_capable);

	/* Fewer slots than entries: the count still says how many. */
	memset(cpus, 0xa5, sizeof(cpus));
	assert_int_equal(
		acpi_madt_cpus(h, len, cpus, 2, &count, NULL, why, sizeof(why)),
		0);
	assert_int_equal(count, 4);
	assert_int_equal(cpus[1].apic_id, 1);
	assert_int_equal(cpus[2].apic_id, 0xa5a5a5a5);
	assert_int_equal(
		acpi_madt_cpus(h, len, NULL, 0, &count, NULL, why, sizeof(why)),
		0);
	assert_int_equal(count, 4);

	/* A type 5 entry replaces the header's 32-bit LAPIC address. */
	memcpy(mem + APIC_AT + len, override, sizeof(override));
	assert_int_equal(acpi_madt_cpus(h, len + sizeof(override), NULL, 0,
					&count, &lapic_base, why, sizeof(why)),
			 0);
	assert_int_equal(lapic_base, 0x1fee00000ull);

	/* An entry too short for its type is malformed, not skipped. */
	mem[APIC_AT + 44 + 1] = 6;
	assert_int_equal(
		acpi_madt_cpus(h, len, cpus, 8, &count, NULL, why, sizeof(why)),
		-1);
	assert_string_equal(
		why,
		"MADT type 0 entry at offset 44 is 6 bytes, shorter than 8");
	mem[APIC_AT + 44 + 1] = 8;
	mem[APIC_AT + 68 + 1] = 12 + 16 + 1; /* the IOAPIC runs past the end */
	assert_int_equal(
		acpi_madt_cpus(h, len, cpus, 8, &count, NULL, why, sizeof(why)),
		-1);
	assert_string_equal(why, "MADT entry at offset 68 has length 29");
}

static void madt_interrupt_entries(void **state)
{
	/* ISA IRQ 0 at GSI 2 (conforms), IRQ 9 at GSI 9 level, active low;
	 * a PCI-bus entry that ISA lookups must not take. */
	static const uint8_t overrides[] = {
		2, 10, 0, 0, 2,	 0, 0, 0, 0,	0, /* IRQ0 -> GSI 2 */
		2, 10, 0, 9, 9,	 0, 0, 0, 0x0f, 0, /* IRQ9 level, low */
		2, 10, 1, 4, 20, 0, 0, 0, 0,	0, /* bus 1: not ISA */
	};
	struct acpi_madt_interrupts m;
	struct acpi_isa_route route;
	char why[80];
	uint32_t len = madt(APIC_AT);
	const struct acpi_header *h = (const void *)(mem + APIC_AT);

	(void)state;
	assert_int_equal(acpi_madt_interrupts(h, len, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nr_ioapics, 1);
	assert_int_equal(m.ioapics[0].id, 0);
	assert_int_equal(m.ioapics[0].address, 0xfec00000);
	assert_int_equal(m.ioapics[0].gsi_base, 0);
	assert_int_equal(m.nr_overrides, 0);
	/* No override: ISA's own GSI, active high, edge. */
	acpi_isa_irq_route(&m, 0, &route);
	assert_int_equal(route.gsi, 0);
	assert_false(route.overridden);
	assert_false(route.level);
	assert_false(route.active_low);

	memcpy(mem + APIC_AT + len, overrides, sizeof(overrides));
	len += sizeof(overrides);
	assert_int_equal(acpi_madt_interrupts(h, len, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nr_overrides, 3);
	acpi_isa_irq_route(&m, 0, &route);
	assert_int_equal(route.gsi, 2);
	assert_true(route.overridden);
	assert_false(route.level);
	assert_false(route.active_low);
	acpi_isa_irq_route(&m, 9, &route);
	assert_int_equal(route.gsi, 9);
	assert_true(route.level);
	assert_true(route.active_low);
	acpi_isa_irq_route(&m, 4, &route);
	assert_int_equal(route.gsi, 4);
	assert_false(route.overridden);

	/* An override too short for its fields is malformed. */
	mem[APIC_AT + len - 10 + 1] = 8;
	assert_int_equal(acpi_madt_interrupts(h, len - 2, &m, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "MADT type 2 entry at offset 116 is 8 "
				 "bytes, shorter than 10");
	assert_int_equal(acpi_madt_interrupts(h, 40, &m, why, sizeof(why)), -1);
	assert_string_equal(why, "MADT is 40 bytes, shorter than 44");
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

/* The DSDT as the FADT names it, and what acpi_dsdt() refuses. */
static void dsdt_from_the_fadt(void **state)
{
	size_t len = 0;

	(void)state;
	assert_int_equal(acpi_open(&acpi, &fake, NULL, 0, RSDP_AT, "test"), 0);
	assert_ptr_equal(acpi_dsdt(&acpi, &len), mem + DSDT_AT);
	assert_int_equal(len, 50);
	assert_int_equal(acpi.nr_warnings, 0);

	mem[DSDT_AT + 40] ^= 1;
	assert_null(acpi_dsdt(&acpi, &len));
	assert_string_equal(acpi.warnings[0],
			    "DSDT: DSDT at 0x113000 has a bad checksum");

	put32(DSDT_AT + 4, 0x7fffffff);
	assert_null(acpi_dsdt(&acpi, &len));
	assert_string_equal(acpi.warnings[1],
			    "DSDT: DSDT at 0x113000 claims length 2147483647, "
			    "more than the 1 MiB a table may have");

	put32(DSDT_AT + 4, 50);
	memcpy(mem + DSDT_AT, "SSDT", 4);
	fix_checksum(DSDT_AT, 50, 9);
	assert_null(acpi_dsdt(&acpi, &len));
	assert_string_equal(acpi.warnings[2],
			    "DSDT at 0x113000 has signature SSDT");

	put32(FACP_AT + 40, 0);
	fix_checksum(FACP_AT, 116, 9);
	assert_null(acpi_dsdt(&acpi, &len));
	assert_string_equal(acpi.warnings[3], "DSDT: the FADT names none "
					      "(DSDT and X_DSDT are 0)");

	table(FACP_AT, "FACP", 60);
	assert_null(acpi_dsdt(&acpi, &len));
	assert_string_equal(acpi.warnings[4],
			    "DSDT: the FADT is too short to name one");
}

/*
 * Every table across a 4 KiB page boundary, read through separate
 * mappings: the RSDP (revision 2, 36 bytes), the XSDT and the RSDT, a FADT,
 * a MADT, an HPET table, an 8 KiB SSDT starting at offset 4000 of its
 * page, which runs over two boundaries, and a DSDT whose \_S5_ lies past
 * its first page.
 */
#define CROSS_RSDP_AT  0xf5ff0
#define CROSS_XSDT_AT  0x120fe0
#define CROSS_RSDT_AT  0x121ff0
#define CROSS_FACP_AT  0x122fa0
#define CROSS_APIC_AT  0x123fe0
#define CROSS_HPET_AT  0x124ff0
#define CROSS_SSDT_AT  0x125fa0
#define CROSS_SSDT_LEN 8192
#define CROSS_DSDT_AT  0x128fa0
#define CROSS_DSDT_LEN 400
#define CROSS_ENTRIES  4

static const uint64_t cross_entries[CROSS_ENTRIES] = {
	CROSS_FACP_AT,
	CROSS_APIC_AT,
	CROSS_HPET_AT,
	CROSS_SSDT_AT,
};

static void cross_tables(void)
{
	unsigned int i;

	memcpy(mem + CROSS_RSDP_AT, "RSD PTR ", 8);
	memcpy(mem + CROSS_RSDP_AT + 9, "BOCHS ", 6);
	mem[CROSS_RSDP_AT + 15] = 2;
	put32(CROSS_RSDP_AT + 16, CROSS_RSDT_AT);
	put32(CROSS_RSDP_AT + 20, 36);
	put64(CROSS_RSDP_AT + 24, CROSS_XSDT_AT);
	fix_checksum(CROSS_RSDP_AT, 20, 8);
	fix_checksum(CROSS_RSDP_AT, 36, 32);
	for (i = 0; i < CROSS_ENTRIES; i++) {
		put64(CROSS_XSDT_AT + 36 + 8 * i, cross_entries[i]);
		put32(CROSS_RSDT_AT + 36 + 4 * i, (uint32_t)cross_entries[i]);
	}
	table(CROSS_XSDT_AT, "XSDT", 36 + 8 * CROSS_ENTRIES);
	table(CROSS_RSDT_AT, "RSDT", 36 + 4 * CROSS_ENTRIES);

	/* FADT revision 3: PM1a_CNT, PM_TMR_BLK with its length, flags
	 * (TMR_VAL_EXT) and X_PM_TMR_BLK in I/O space, all past 96 bytes,
	 * where the page ends. */
	put32(CROSS_FACP_AT + 40, CROSS_DSDT_AT);
	put32(CROSS_FACP_AT + 64, 0x604);
	put32(CROSS_FACP_AT + 76, 0x608);
	mem[CROSS_FACP_AT + 91] = 4;
	put32(CROSS_FACP_AT + 112, 1u << 8);
	put64(CROSS_FACP_AT + 140, CROSS_DSDT_AT);
	mem[CROSS_FACP_AT + 208] = 1;
	put64(CROSS_FACP_AT + 212, 0x708);
	table(CROSS_FACP_AT, "FACP", 244);
	mem[CROSS_FACP_AT + 8] = 3;
	fix_checksum(CROSS_FACP_AT, 244, 9);

	madt(CROSS_APIC_AT);

	/* HPET: the block id, base and minimum tick past the page's end. */
	put32(CROSS_HPET_AT + 36, 0x8086a201);
	put64(CROSS_HPET_AT + 44, 0xfed00000);
	mem[CROSS_HPET_AT + 53] = 0x80;
	table(CROSS_HPET_AT, "HPET", 56);

	for (i = 36; i < CROSS_SSDT_LEN; i++)
		mem[CROSS_SSDT_AT + i] = (uint8_t)(i * 7);
	table(CROSS_SSDT_AT, "SSDT", CROSS_SSDT_LEN);

	/* Name (\_S5_, Package (2) { 5, 7 }) 200 bytes in, past the page. */
	memcpy(mem + CROSS_DSDT_AT + 200,
	       (const uint8_t[]){ 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06,
				  0x02, 0x0a, 0x05, 0x0a, 0x07 },
	       13);
	table(CROSS_DSDT_AT, "DSDT", CROSS_DSDT_LEN);
}

/* What acpi_for_each_table() handed over, in order. */
#define MAX_VISITS 16

struct visits {
	struct acpi_table_bytes t[MAX_VISITS];
	unsigned int n;
};

static void record_visit(const struct acpi_table_bytes *t, void *ctx)
{
	struct visits *v = ctx;

	assert_true(v->n < MAX_VISITS);
	v->t[v->n++] = *t;
}

/* Visit @i is table @sig at @paddr, its @len bytes as in @want. */
static void assert_visit(const struct visits *v, unsigned int i,
			 const char *sig, uint64_t paddr, const void *want,
			 size_t len)
{
	assert_true(i < v->n);
	assert_string_equal(v->t[i].signature, sig);
	assert_int_equal(v->t[i].paddr, paddr);
	assert_int_equal(v->t[i].len, len);
	assert_memory_equal(v->t[i].bytes, want, len);
}

static void tables_across_page_boundaries(void **state)
{
	const struct phys_mapper *pm = separate_over(&fake);
	struct acpi_hpet_info hpet;
	struct acpi_pm_timer timer;
	struct acpi_cpu cpus[4];
	uint64_t lapic_base = 0;
	unsigned int i, count;
	struct visits seen;
	uint8_t typa, typb;
	char why[120];
	int pass;

	(void)state;
	cross_tables();
	for (pass = 0; pass < 2; pass++) {
		const struct acpi_header *h;
		size_t len = 0;

		assert_int_equal(
			acpi_open(&acpi, pm, NULL, 0, CROSS_RSDP_AT, "test"),
			0);
		assert_int_equal(acpi.root_is_xsdt, pass == 0);
		assert_int_equal(acpi.nr_entries, CROSS_ENTRIES);
		for (i = 0; i < CROSS_ENTRIES; i++) {
			const uint8_t *at = mem + cross_entries[i];
			uint32_t want;

			memcpy(&want, at + 4, 4);
			h = acpi_entry(&acpi, i, &len);
			assert_non_null(h);
			assert_int_equal(len, want);
			assert_memory_equal(h, at, want);
		}
		/* The RSDT pass: the XSDT's checksum and the fallback. */
		assert_int_equal(acpi.nr_warnings, pass == 0 ? 0 : 2);

		h = acpi_find(&acpi, "SSDT", 0, &len);
		assert_non_null(h);
		assert_int_equal(len, CROSS_SSDT_LEN);
		assert_memory_equal(h, mem + CROSS_SSDT_AT, CROSS_SSDT_LEN);

		h = acpi_find(&acpi, "FACP", 0, &len);
		assert_non_null(h);
		assert_int_equal(
			acpi_fadt_pm_timer(h, len, &timer, why, sizeof(why)),
			0);
		assert_string_equal(timer.source, "X_PM_TMR_BLK");
		assert_int_equal(timer.port, 0x708);
		assert_true(timer.is_32bit);

		h = acpi_find(&acpi, "APIC", 0, &len);
		assert_non_null(h);
		assert_int_equal(acpi_madt_cpus(h, len, cpus, 4, &count,
						&lapic_base, why, sizeof(why)),
				 0);
		assert_int_equal(count, 4);
		assert_int_equal(lapic_base, 0xfee00000);
		assert_int_equal(cpus[3].apic_id, 0x100);

		h = acpi_find(&acpi, "HPET", 0, &len);
		assert_non_null(h);
		assert_int_equal(
			acpi_hpet_parse(h, len, &hpet, why, sizeof(why)), 0);
		assert_int_equal(hpet.base, 0xfed00000);
		assert_int_equal(hpet.min_tick, 0x80);

		h = acpi_dsdt(&acpi, &len);
		assert_non_null(h);
		assert_int_equal(len, CROSS_DSDT_LEN);
		assert_int_equal(acpi_aml_s5((const uint8_t *)h + 36, len - 36,
					     &typa, &typb),
				 0);
		assert_int_equal(typa, 5);
		assert_int_equal(typb, 7);

		/* What acpi_dump=1 prints: every table whole, at its own
		 * address. */
		memset(&seen, 0, sizeof(seen));
		acpi_for_each_table(&acpi, record_visit, &seen);
		assert_int_equal(seen.n, 2 + CROSS_ENTRIES + 1);
		assert_visit(&seen, 0, "RSDP", CROSS_RSDP_AT,
			     mem + CROSS_RSDP_AT, 36);
		if (pass == 0)
			assert_visit(&seen, 1, "XSDT", CROSS_XSDT_AT,
				     mem + CROSS_XSDT_AT,
				     36 + 8 * CROSS_ENTRIES);
		else
			assert_visit(&seen, 1, "RSDT", CROSS_RSDT_AT,
				     mem + CROSS_RSDT_AT,
				     36 + 4 * CROSS_ENTRIES);
		for (i = 0; i < CROSS_ENTRIES; i++) {
			const uint8_t *at = mem + cross_entries[i];
			char sig[5] = { 0 };
			uint32_t want;

			memcpy(sig, at, 4);
			memcpy(&want, at + 4, 4);
			assert_visit(&seen, 2 + i, sig, cross_entries[i], at,
				     want);
		}
		assert_visit(&seen, 2 + CROSS_ENTRIES, "DSDT", CROSS_DSDT_AT,
			     mem + CROSS_DSDT_AT, CROSS_DSDT_LEN);

		/* Again from the RSDT. */
		mem[CROSS_XSDT_AT + 9] ^= 1;
	}
	assert_string_equal(acpi.warnings[0],
			    "XSDT: XSDT at 0x120fe0 has a bad checksum");
}

static int teardown(void **state)
{
	(void)state;
	separate_release();
	return 0;
}

/*
 * Real tables captured from QEMU (tests/fixtures/acpi/, see its README.md),
 * put back at their physical addresses.  Physical memory is modelled as the
 * 4 KiB pages the tables occupy (plus the BIOS area when the RSDP is in it),
 * zero where no table is, and nothing else: an address outside those pages
 * is unreadable, as unmapped memory would be.
 */
#define FIXTURES      "tests/fixtures/acpi/"
#define FX_MAX_TABLES 16
#define FX_PAGE	      4096u

struct fx_table {
	char sig[5];
	uint64_t paddr; /* 0: the RSDP came as a copy */
	uint32_t len;
	uint8_t *data; /* the file's bytes, as captured */
};

struct fx_extent {
	uint64_t start, end; /* page aligned */
	uint8_t *mem;
};

/* What each capture is known to hold (its console.log says the same). */
struct fx_expect {
	const char *dir;
	uint8_t rsdp_revision;
	bool xsdt;
	unsigned int nr_entries;
	uint8_t fadt_revision;
	uint32_t fadt_len;
	const char *pm_source;
	unsigned int cpus;
};

static struct fx_expect expect_pc = {
	.dir = "pc",
	.rsdp_revision = 0,
	.nr_entries = 4, /* FACP APIC HPET WAET */
	.fadt_revision = 1,
	.fadt_len = 116,
	.pm_source = "PM_TMR_BLK",
	.cpus = 1,
};
static struct fx_expect expect_q35 = {
	.dir = "q35",
	.rsdp_revision = 0,
	.nr_entries = 5, /* FACP APIC HPET MCFG WAET */
	.fadt_revision = 3,
	.fadt_len = 244,
	.pm_source = "X_PM_TMR_BLK",
	.cpus = 2, /* captured with -smp 2 */
};
static struct fx_expect expect_q35_uefi = {
	.dir = "q35-uefi",
	.rsdp_revision = 2,
	.xsdt = true,
	.nr_entries = 6, /* FACP APIC HPET MCFG WAET BGRT */
	.fadt_revision = 3,
	.fadt_len = 244,
	.pm_source = "X_PM_TMR_BLK",
	.cpus = 1,
};

struct fixture {
	const struct fx_expect *expect;
	struct fx_table tables[FX_MAX_TABLES];
	unsigned int nr_tables;
	struct fx_extent extents[FX_MAX_TABLES + 1];
	unsigned int nr_extents;
	struct phys_mapper pm;
	struct acpi acpi;
	FILE *layout; /* open while it is read */
};

static const void *fx_map(void *ctx, uint64_t paddr, size_t len)
{
	const struct fixture *fx = ctx;
	unsigned int i;

	for (i = 0; i < fx->nr_extents; i++) {
		const struct fx_extent *e = &fx->extents[i];

		if (paddr >= e->start && paddr < e->end &&
		    len <= e->end - paddr)
			return e->mem + (paddr - e->start);
	}
	return NULL;
}

/* Read table @t's file; a missing or short file fails the test. */
static void fx_read_file(struct fixture *fx, struct fx_table *t,
			 const char *file)
{
	char path[256];
	size_t got;
	FILE *f;

	snprintf(path, sizeof(path), FIXTURES "%s/%s", fx->expect->dir, file);
	t->data = malloc(t->len + 1);
	assert_non_null(t->data);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s: %s (tests run from the repository "
			 "root; tests/fixtures/acpi/README.md says how the "
			 "fixtures are made)",
			 path, strerror(errno));
	got = fread(t->data, 1, t->len + 1, f);
	fclose(f);
	if (got != t->len)
		fail_msg("%s holds %zu bytes, layout.txt says %u", path, got,
			 t->len);
}

/* Add [start, end) to the extents, merging with any it touches. */
static void fx_add_range(struct fixture *fx, uint64_t start, uint64_t end)
{
	unsigned int i;

	start &= ~(uint64_t)(FX_PAGE - 1);
	end = (end + FX_PAGE - 1) & ~(uint64_t)(FX_PAGE - 1);
	for (i = 0; i < fx->nr_extents; i++) {
		struct fx_extent *e = &fx->extents[i];

		if (start <= e->end && end >= e->start) {
			start = start < e->start ? start : e->start;
			end = end > e->end ? end : e->end;
			*e = fx->extents[--fx->nr_extents];
			fx_add_range(fx, start, end);
			return;
		}
	}
	assert_true(fx->nr_extents < FX_MAX_TABLES + 1);
	fx->extents[fx->nr_extents++] = (struct fx_extent){ start, end, NULL };
}

/* One fixture at a time, static so that a failed setup leaks nothing. */
static struct fixture the_fixture;

static void fx_release(struct fixture *fx)
{
	unsigned int i;

	if (fx->layout)
		fclose(fx->layout);
	for (i = 0; i < FX_MAX_TABLES; i++)
		free(fx->tables[i].data);
	for (i = 0; i < fx->nr_extents; i++)
		free(fx->extents[i].mem);
	memset(fx, 0, sizeof(*fx));
}

static int fx_setup(void **state)
{
	struct fixture *fx = &the_fixture;
	char path[256], line[256];
	unsigned int i;

	fx_release(fx);
	fx->expect = *state;
	*state = fx;
	snprintf(path, sizeof(path), FIXTURES "%s/layout.txt", fx->expect->dir);
	fx->layout = fopen(path, "r");
	if (!fx->layout)
		fail_msg("cannot read %s: %s (tests run from the repository "
			 "root; tests/fixtures/acpi/README.md says how the "
			 "fixtures are made)",
			 path, strerror(errno));
	while (fgets(line, sizeof(line), fx->layout)) {
		struct fx_table *t = &fx->tables[fx->nr_tables];
		unsigned long long paddr;
		char file[64];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_true(fx->nr_tables < FX_MAX_TABLES);
		if (sscanf(line, "%4s %llx %u %63s", t->sig, &paddr, &t->len,
			   file) != 4)
			fail_msg("%s: bad line \"%s\"", path, line);
		t->paddr = paddr;
		fx_read_file(fx, t, file);
		fx->nr_tables++;
		if (t->paddr)
			fx_add_range(fx, t->paddr, t->paddr + t->len);
		/* Where firmware puts an RSDP, the area around it is there
		 * too, as the scan expects. */
		if (!strcmp(t->sig, "RSDP") && t->paddr >= 0xe0000 &&
		    t->paddr < 0x100000)
			fx_add_range(fx, 0xe0000, 0x100000);
	}
	fclose(fx->layout);
	fx->layout = NULL;
	assert_true(fx->nr_tables >= 3);
	for (i = 0; i < fx->nr_extents; i++) {
		struct fx_extent *e = &fx->extents[i];

		e->mem = calloc(1, e->end - e->start);
		assert_non_null(e->mem);
	}
	for (i = 0; i < fx->nr_tables; i++) {
		struct fx_table *t = &fx->tables[i];

		if (t->paddr)
			memcpy((uint8_t *)fx_map(fx, t->paddr, t->len), t->data,
			       t->len);
	}
	fx->pm = (struct phys_mapper){ .map = fx_map, .ctx = fx };
	return 0;
}

static int fx_teardown(void **state)
{
	fx_release(*state);
	separate_release();
	return 0;
}

static struct fx_table *fx_table(struct fixture *fx, const char *sig)
{
	unsigned int i;

	for (i = 0; i < fx->nr_tables; i++)
		if (!strcmp(fx->tables[i].sig, sig))
			return &fx->tables[i];
	fail_msg("fixture %s has no %s", fx->expect->dir, sig);
	return NULL;
}

/* The fake physical memory under table @sig, to corrupt it. */
static uint8_t *fx_mem(struct fixture *fx, const char *sig)
{
	struct fx_table *t = fx_table(fx, sig);

	return (uint8_t *)(t->paddr ? fx_map(fx, t->paddr, t->len) : t->data);
}

/* Set table @sig's length field, with a checksum to match when @fix. */
static void fx_set_length(struct fixture *fx, const char *sig, uint32_t len,
			  bool fix)
{
	uint8_t *p = fx_mem(fx, sig);

	memcpy(p + 4, &len, 4);
	if (fix) {
		p[9] = 0;
		p[9] = (uint8_t)-acpi_checksum(p, len);
	}
}

static void fx_fix_checksum(struct fixture *fx, const char *sig)
{
	uint8_t *p = fx_mem(fx, sig);
	uint32_t len;

	memcpy(&len, p + 4, 4);
	fx_set_length(fx, sig, len, true);
}

/* The piece of readable memory that @paddr is in. */
static const struct fx_extent *fx_extent_of(const struct fixture *fx,
					    uint64_t paddr)
{
	static const struct fx_extent none;
	unsigned int i;

	for (i = 0; i < fx->nr_extents; i++)
		if (paddr >= fx->extents[i].start && paddr < fx->extents[i].end)
			return &fx->extents[i];
	fail_msg("0x%llx is not in the fake memory", (unsigned long long)paddr);
	return &none;
}

/* End of the readable memory that @paddr is in. */
static uint64_t fx_extent_end(const struct fixture *fx, uint64_t paddr)
{
	return fx_extent_of(fx, paddr)->end;
}

static const char *fx_root_sig(const struct fixture *fx)
{
	return fx->expect->xsdt ? "XSDT" : "RSDT";
}

/* Index of table @sig in the root table. */
static unsigned int fx_entry_index(struct fixture *fx, const char *sig)
{
	const uint8_t *root = fx_mem(fx, fx_root_sig(fx));
	size_t size = fx->expect->xsdt ? 8 : 4;
	uint64_t want = fx_table(fx, sig)->paddr, paddr = 0;
	unsigned int i;

	for (i = 0; i < fx->expect->nr_entries; i++) {
		memcpy(&paddr, root + 36 + i * size, size);
		if (paddr == want)
			return i;
	}
	fail_msg("%s is not in the %s", sig, fx_root_sig(fx));
	return 0;
}

/* Point root entry @i at @paddr, with a valid root checksum. */
static void fx_set_entry(struct fixture *fx, unsigned int i, uint64_t paddr)
{
	uint8_t *root = fx_mem(fx, fx_root_sig(fx));

	memcpy(root + 36 + i * (fx->expect->xsdt ? 8 : 4), &paddr,
	       fx->expect->xsdt ? 8 : 4);
	fx_fix_checksum(fx, fx_root_sig(fx));
}

/* Open the tables through @pm the way platform.c does for this boot path. */
/* Open the fixture's tables through @pm, checked against the memory map of
 * @described (NULL: none), as the loader would hand the RSDP. */
static int fx_open_within(struct fixture *fx, const struct phys_mapper *pm,
			  const struct boot_info *described)
{
	const struct fx_table *rsdp = fx_table(fx, "RSDP");

	if (!rsdp->paddr)
		return acpi_open_within(&fx->acpi, pm, described, rsdp->data,
					rsdp->len, 0, "multiboot2 ACPI tag");
	return acpi_open_within(&fx->acpi, pm, described, NULL, 0, rsdp->paddr,
				"BIOS area");
}

static int fx_open_through(struct fixture *fx, const struct phys_mapper *pm)
{
	return fx_open_within(fx, pm, NULL);
}

static int fx_open(struct fixture *fx)
{
	return fx_open_through(fx, &fx->pm);
}

/* The one warning the run should have given is @text. */
static void fx_assert_one_warning(const struct fixture *fx, const char *text)
{
	unsigned int i;

	if (fx->acpi.nr_warnings == 1 && !strcmp(fx->acpi.warnings[0], text))
		return;
	for (i = 0; i < fx->acpi.nr_warnings; i++)
		print_error("warning %u: %s\n", i, fx->acpi.warnings[i]);
	fail_msg("expected exactly the warning \"%s\"", text);
}

/*
 * Every table of the capture but @except, the root and the DSDT is still
 * found, at its own address and with its own length.
 */
static void fx_assert_others_found_as(struct fixture *fx, const char *except,
				      bool same_address);

static void fx_assert_others_found(struct fixture *fx, const char *except)
{
	fx_assert_others_found_as(fx, except, true);
}

/* The same, through a mapper of other pointers: the same bytes. */
static void fx_assert_others_readable(struct fixture *fx, const char *except)
{
	fx_assert_others_found_as(fx, except, false);
}

static void fx_assert_others_found_as(struct fixture *fx, const char *except,
				      bool same_address)
{
	unsigned int i;

	for (i = 0; i < fx->nr_tables; i++) {
		const struct fx_table *t = &fx->tables[i];
		const struct acpi_header *h;
		size_t len = 0;

		if (!strcmp(t->sig, except) || !strcmp(t->sig, "RSDP") ||
		    !strcmp(t->sig, "RSDT") || !strcmp(t->sig, "XSDT") ||
		    !strcmp(t->sig, "DSDT"))
			continue;
		h = acpi_find(&fx->acpi, t->sig, 0, &len);
		if (!h)
			fail_msg("%s: %s is no longer found", fx->expect->dir,
				 t->sig);
		if (same_address)
			assert_ptr_equal(h, fx_map(fx, t->paddr, t->len));
		else
			assert_memory_equal(h, t->data, t->len);
		assert_int_equal(len, t->len);
	}
}

static void real_tables_are_found(void **state)
{
	struct fixture *fx = *state;
	const struct fx_expect *x = fx->expect;
	const struct fx_table *rsdp = fx_table(fx, "RSDP");
	const char *where = NULL;
	unsigned int i;

	assert_int_equal(fx_open(fx), 0);
	assert_int_equal(fx->acpi.rsdp_revision, x->rsdp_revision);
	assert_int_equal(fx->acpi.root_is_xsdt, x->xsdt);
	assert_int_equal(fx->acpi.root_paddr,
			 fx_table(fx, fx_root_sig(fx))->paddr);
	assert_int_equal(fx->acpi.nr_entries, x->nr_entries);
	assert_string_equal(fx->acpi.oem_id, "BOCHS ");
	for (i = 0; i < fx->acpi.nr_entries; i++) {
		size_t len = 0;
		const struct acpi_header *h = acpi_entry(&fx->acpi, i, &len);
		char sig[5] = { 0 };

		assert_non_null(h);
		memcpy(sig, h->signature, 4);
		assert_int_equal(fx_entry_index(fx, sig), i);
		assert_int_equal(len, fx_table(fx, sig)->len);
	}
	fx_assert_others_found(fx, "");
	assert_int_equal(fx->acpi.nr_warnings, 0);
	if (rsdp->paddr) {
		assert_int_equal(acpi_rsdp_scan(&fx->pm, &where), rsdp->paddr);
		assert_string_equal(where, "BIOS area");
	}
}

static void real_fadt_pm_timer(void **state)
{
	struct fixture *fx = *state;
	const struct acpi_header *fadt;
	struct acpi_fadt_power power;
	struct acpi_pm_timer timer;
	char why[120] = "";
	size_t len;

	assert_int_equal(fx_open(fx), 0);
	fadt = acpi_find(&fx->acpi, "FACP", 0, &len);
	assert_non_null(fadt);
	assert_int_equal(fadt->revision, fx->expect->fadt_revision);
	assert_int_equal(len, fx->expect->fadt_len);
	assert_int_equal(
		acpi_fadt_pm_timer(fadt, len, &timer, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(timer.port, 0x608);
	assert_false(timer.is_32bit);
	assert_string_equal(timer.source, fx->expect->pm_source);
	assert_int_equal(acpi_fadt_power(fadt, len, &power), 0);
	assert_int_equal(power.pm1a_cnt_port, 0x604);
	assert_int_equal(power.pm1b_cnt_port, 0);
	assert_int_equal(power.dsdt_paddr, fx_table(fx, "DSDT")->paddr);
}

static void real_hpet(void **state)
{
	struct fixture *fx = *state;
	const struct acpi_header *hpet;
	struct acpi_hpet_info info;
	char why[120];
	size_t len;

	assert_int_equal(fx_open(fx), 0);
	hpet = acpi_find(&fx->acpi, "HPET", 0, &len);
	assert_non_null(hpet);
	assert_int_equal(acpi_hpet_parse(hpet, len, &info, why, sizeof(why)),
			 0);
	assert_int_equal(info.base, 0xfed00000);
	assert_int_equal(info.comparators, 3);
	/* Intel's vendor id, 3 comparators, legacy-capable, 64-bit. */
	assert_int_equal(info.block_id, 0x8086a201);
	assert_int_equal(info.number, 0);
	assert_int_equal(info.min_tick, 0);
	assert_int_equal(info.page_protection, 0);
}

static void real_madt_cpus(void **state)
{
	struct fixture *fx = *state;
	struct acpi_cpu cpus[8];
	struct acpi_cpu_count counted;
	const struct acpi_header *madt;
	unsigned int i, count = 0;
	uint64_t lapic_base = 0;
	char why[120];
	size_t len;

	assert_int_equal(fx_open(fx), 0);
	madt = acpi_find(&fx->acpi, "APIC", 0, &len);
	assert_non_null(madt);
	memset(cpus, 0xa5, sizeof(cpus));
	assert_int_equal(acpi_madt_cpus(madt, len, cpus, 8, &count, &lapic_base,
					why, sizeof(why)),
			 0);
	assert_int_equal(count, fx->expect->cpus);
	assert_int_equal(lapic_base, 0xfee00000);
	for (i = 0; i < count; i++) {
		assert_int_equal(cpus[i].apic_id, i);
		assert_int_equal(cpus[i].uid, i);
		assert_true(cpus[i].enabled);
		assert_false(cpus[i].x2apic);
	}
	assert_int_equal(cpus[count].apic_id, 0xa5a5a5a5); /* untouched */
	assert_int_equal(
		acpi_madt_count_cpus(madt, len, &counted, why, sizeof(why)), 0);
	assert_int_equal(counted.enabled, fx->expect->cpus);
	assert_int_equal(counted.online_capable, 0);
	assert_int_equal(counted.x2apic_entries, 0);
}

static void real_madt_interrupts(void **state)
{
	struct fixture *fx = *state;
	const struct acpi_header *madt;
	struct acpi_madt_interrupts m;
	struct acpi_isa_route route;
	char why[120];
	size_t len;

	assert_int_equal(fx_open(fx), 0);
	madt = acpi_find(&fx->acpi, "APIC", 0, &len);
	assert_non_null(madt);
	assert_int_equal(acpi_madt_interrupts(madt, len, &m, why, sizeof(why)),
			 0);
	/* QEMU: one IOAPIC; the PIT's IRQ 0 at GSI 2; PCI-style IRQs 5, 9,
	 * 10 and 11 level-triggered, active high (flags 0xd). */
	assert_int_equal(m.nr_ioapics, 1);
	assert_int_equal(m.ioapics[0].address, 0xfec00000);
	assert_int_equal(m.ioapics[0].gsi_base, 0);
	assert_int_equal(m.nr_overrides, 5);
	acpi_isa_irq_route(&m, 0, &route);
	assert_int_equal(route.gsi, 2);
	assert_true(route.overridden);
	assert_false(route.level);
	assert_false(route.active_low);
	acpi_isa_irq_route(&m, 10, &route);
	assert_int_equal(route.gsi, 10);
	assert_true(route.level);
	assert_false(route.active_low);
	acpi_isa_irq_route(&m, 8, &route);
	assert_int_equal(route.gsi, 8);
	assert_false(route.overridden);
}

static void real_dsdt_s5(void **state)
{
	struct fixture *fx = *state;
	const struct fx_table *t = fx_table(fx, "DSDT");
	const struct acpi_header *dsdt = fx_map(fx, t->paddr, t->len);
	uint8_t a = 0xff, b = 0xff;

	assert_non_null(dsdt);
	assert_memory_equal(dsdt->signature, "DSDT", 4);
	assert_int_equal(dsdt->length, t->len);
	assert_int_equal(acpi_checksum(dsdt, t->len), 0);
	/* QEMU's \_S5_ is Package (4) { 0, 0, 0, 0 }. */
	assert_int_equal(
		acpi_aml_s5((const uint8_t *)dsdt + 36, t->len - 36, &a, &b),
		0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
}

/*
 * The real tables read through separate mappings (separate_map()): each
 * table comes out whole and as captured, the DSDT too (pc's, 6,476 bytes,
 * crosses a page boundary, as QEMU's do).
 */
static void real_tables_through_separate_mappings(void **state)
{
	struct fixture *fx = *state;
	const struct acpi_header *dsdt;
	struct visits seen = { 0 };
	unsigned int i;
	size_t len;

	assert_int_equal(fx_open_through(fx, separate_over(&fx->pm)), 0);
	assert_int_equal(fx->acpi.nr_entries, fx->expect->nr_entries);
	for (i = 0; i < fx->acpi.nr_entries; i++) {
		const struct acpi_header *h = acpi_entry(&fx->acpi, i, &len);
		const struct fx_table *t;
		char sig[5] = { 0 };

		assert_non_null(h);
		memcpy(sig, h->signature, 4);
		t = fx_table(fx, sig);
		assert_int_equal(len, t->len);
		assert_memory_equal(h, t->data, t->len);
	}
	dsdt = acpi_dsdt(&fx->acpi, &len);
	assert_non_null(dsdt);
	assert_int_equal(len, fx_table(fx, "DSDT")->len);
	assert_memory_equal(dsdt, fx_table(fx, "DSDT")->data, len);

	/* acpi_dump=1 made these fixtures: the same tables come out, in the
	 * same order, at the same addresses. */
	acpi_for_each_table(&fx->acpi, record_visit, &seen);
	assert_int_equal(seen.n, fx->nr_tables);
	for (i = 0; i < fx->nr_tables; i++) {
		const struct fx_table *t = &fx->tables[i];

		assert_visit(&seen, i, t->sig, t->paddr, t->data, t->len);
	}
	assert_int_equal(fx->acpi.nr_warnings, 0);
}

/* --- corrupted copies of the real tables --- */

static void fx_expect_skipped(struct fixture *fx, const char *sig,
			      const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Open the corrupted tables: the run goes on, @sig alone is skipped with
 * the warning "<root> entry N: <why> (skipped)" and every other table is
 * still found.
 */
static void fx_expect_skipped(struct fixture *fx, const char *sig,
			      const char *why_fmt, ...)
{
	char why[ACPI_WARNING_LEN], text[ACPI_WARNING_LEN + 40];
	unsigned int i = fx_entry_index(fx, sig);
	va_list ap;
	size_t len;

	va_start(ap, why_fmt);
	vsnprintf(why, sizeof(why), why_fmt, ap);
	va_end(ap);
	snprintf(text, sizeof(text), "%s entry %u: %s (skipped)",
		 fx_root_sig(fx), i, why);
	assert_int_equal(fx_open(fx), 0);
	assert_null(acpi_find(&fx->acpi, sig, 0, &len));
	fx_assert_others_found(fx, sig);
	fx_assert_one_warning(fx, text);
}

static void bad_checksum_is_skipped(void **state)
{
	struct fixture *fx = *state;

	fx_mem(fx, "HPET")[55] ^= 1; /* page protection */
	fx_expect_skipped(fx, "HPET", "HPET at 0x%llx has a bad checksum",
			  (unsigned long long)fx_table(fx, "HPET")->paddr);
}

static void length_below_the_header_is_skipped(void **state)
{
	struct fixture *fx = *state;

	fx_set_length(fx, "WAET", 20, false);
	fx_expect_skipped(fx, "WAET",
			  "WAET at 0x%llx claims length 20, less than its "
			  "36-byte header",
			  (unsigned long long)fx_table(fx, "WAET")->paddr);
}

/* A wild length is refused in words before anything of that length is
 * mapped (else the warning would be that it runs past readable memory). */
static void length_above_the_bound_is_skipped(void **state)
{
	struct fixture *fx = *state;

	fx_set_length(fx, "WAET", 0xffffffff, false);
	fx_expect_skipped(fx, "WAET",
			  "WAET at 0x%llx claims length 4294967295, more than "
			  "the 1 MiB a table may have",
			  (unsigned long long)fx_table(fx, "WAET")->paddr);
}

static void length_beyond_the_table_is_skipped(void **state)
{
	struct fixture *fx = *state;

	/* The 8 bytes after it are summed in (the next table's under
	 * SeaBIOS, zeros under OVMF) and the length byte itself changed:
	 * the checksum fails. */
	fx_set_length(fx, "HPET", 64, false);
	fx_expect_skipped(fx, "HPET", "HPET at 0x%llx has a bad checksum",
			  (unsigned long long)fx_table(fx, "HPET")->paddr);
}

static void length_past_mapped_memory_is_skipped(void **state)
{
	struct fixture *fx = *state;
	uint64_t paddr = fx_table(fx, "HPET")->paddr;
	uint32_t len = (uint32_t)(fx_extent_end(fx, paddr) - paddr) + 16;

	fx_set_length(fx, "HPET", len, false);
	fx_expect_skipped(fx, "HPET",
			  "HPET at 0x%llx: its %u bytes run past readable "
			  "memory",
			  (unsigned long long)paddr, len);
}

/*
 * The fixture's memory as the kernel's identity mapping shows it: the
 * extent holding @sig, then 2 MiB more of the MMIO hole (all ones), all
 * readable; the rest as the fixture maps it.
 */
struct hole_mapper {
	struct fixture *fx;
	uint64_t start, end;
	uint8_t *mem;
};

static struct hole_mapper hole;

static const void *hole_map(void *ctx, uint64_t paddr, size_t len)
{
	const struct hole_mapper *h = ctx;

	if (paddr >= h->start && paddr < h->end && len <= h->end - paddr)
		return h->mem + (paddr - h->start);
	return fx_map(h->fx, paddr, len);
}

/* Start of the readable memory that @paddr is in. */
static uint64_t fx_extent_start(const struct fixture *fx, uint64_t paddr)
{
	return fx_extent_of(fx, paddr)->start;
}

static struct phys_mapper hole_after(struct fixture *fx, const char *sig)
{
	uint64_t at = fx_table(fx, sig)->paddr, end = fx_extent_end(fx, at);

	hole.start = fx_extent_start(fx, at);
	hole.fx = fx;
	hole.end = end + (2u << 20);
	free(hole.mem);
	hole.mem = malloc(hole.end - hole.start);
	assert_non_null(hole.mem);
	memset(hole.mem, 0xff, hole.end - hole.start);
	memcpy(hole.mem, fx_map(fx, hole.start, end - hole.start),
	       end - hole.start);
	return (struct phys_mapper){ .map = hole_map, .ctx = &hole };
}

/* A memory map as SeaBIOS and OVMF give one: RAM up to the extent that
 * holds @sig, which is reserved, and nothing after it but the hole. */
static void fx_memmap(struct fixture *fx, const char *sig, struct boot_info *bi)
{
	uint64_t end = fx_extent_end(fx, fx_table(fx, sig)->paddr);
	uint64_t start = fx_extent_start(fx, fx_table(fx, sig)->paddr);

	memset(bi, 0, sizeof(*bi));
	bi->memmap[bi->nr_memmap++] =
		(struct mem_region){ 0, 0x9fc00, MEM_RAM };
	bi->memmap[bi->nr_memmap++] =
		(struct mem_region){ 0x100000, start - 0x100000, MEM_RAM };
	bi->memmap[bi->nr_memmap++] =
		(struct mem_region){ start, end - start, MEM_RESERVED };
}

/*
 * A MADT claiming 1 MiB, when the hole after it can be read: without a
 * memory map its length can only fail the checksum; with one, the warning
 * says what is wrong, and every other table is still found.
 */
static void length_into_the_hole_is_skipped(void **state)
{
	struct fixture *fx = *state;
	uint64_t paddr = fx_table(fx, "APIC")->paddr;
	char text[ACPI_WARNING_LEN + 40];
	struct phys_mapper pm;
	struct boot_info bi;
	size_t len;

	fx_set_length(fx, "APIC", 1u << 20, false);
	pm = hole_after(fx, "APIC");
	fx_memmap(fx, "APIC", &bi);
	assert_int_equal(fx_open_through(fx, &pm), 0);
	assert_null(acpi_find(&fx->acpi, "APIC", 0, &len));
	snprintf(text, sizeof(text),
		 "%s entry %u: APIC at 0x%llx has a bad checksum (skipped)",
		 fx_root_sig(fx), fx_entry_index(fx, "APIC"),
		 (unsigned long long)paddr);
	fx_assert_one_warning(fx, text);

	assert_int_equal(fx_open_within(fx, &pm, &bi), 0);
	assert_null(acpi_find(&fx->acpi, "APIC", 0, &len));
	fx_assert_others_readable(fx, "APIC");
	snprintf(text, sizeof(text),
		 "%s entry %u: APIC at 0x%llx: its 1048576 bytes run past the "
		 "memory the firmware described, which ends at 0x%llx "
		 "(skipped)",
		 fx_root_sig(fx), fx_entry_index(fx, "APIC"),
		 (unsigned long long)paddr,
		 (unsigned long long)fx_extent_end(fx, paddr));
	fx_assert_one_warning(fx, text);

	/* A map cut short says nothing: the checksum judges again. */
	bi.memmap_truncated = true;
	assert_int_equal(fx_open_within(fx, &pm, &bi), 0);
	assert_null(acpi_find(&fx->acpi, "APIC", 0, &len));
	assert_non_null(strstr(fx->acpi.warnings[0], "bad checksum"));
	free(hole.mem);
	memset(&hole, 0, sizeof(hole));
}

/*
 * The intact tables with that memory map: all found, no warning; and a
 * map that lists the tables' region in two adjoining parts, one that ends
 * short of the last table inside its last page (Xen 4.17's PVH dom0 map
 * does), or none at all (a table outside what the map lists is judged as
 * before), changes nothing.
 */
static void memory_map_keeps_good_tables(void **state)
{
	struct fixture *fx = *state;
	uint64_t start, end, last_end = 0;
	struct boot_info bi;
	unsigned int round, i;

	fx_memmap(fx, "APIC", &bi);
	start = bi.memmap[2].base;
	end = start + bi.memmap[2].size;
	for (i = 0; i < fx->nr_tables; i++)
		if (fx->tables[i].paddr >= start && fx->tables[i].paddr < end &&
		    fx->tables[i].paddr + fx->tables[i].len > last_end)
			last_end = fx->tables[i].paddr + fx->tables[i].len;
	assert_true(last_end > end - FX_PAGE);
	for (round = 0; round < 4; round++) {
		if (round == 1) {
			bi.memmap[2].size = FX_PAGE;
			bi.memmap[bi.nr_memmap++] = (struct mem_region){
				start + FX_PAGE, end - start - FX_PAGE, MEM_ACPI
			};
		} else if (round == 2) {
			bi.nr_memmap = 3;
			bi.memmap[2].size = last_end - 1 - start;
		} else if (round == 3) {
			bi.nr_memmap = 2;
		}
		assert_int_equal(fx_open_within(fx, &fx->pm, &bi), 0);
		fx_assert_others_found(fx, "");
		assert_non_null(acpi_dsdt(&fx->acpi, &(size_t){ 0 }));
		assert_int_equal(fx->acpi.nr_warnings, 0);
	}
}

static void root_entry_to_unmapped_memory_is_skipped(void **state)
{
	struct fixture *fx = *state;
	/* Above 4 GiB where an XSDT can point, below where an RSDT must. */
	uint64_t nowhere = fx->expect->xsdt ? 0x100000000ull : 0x80000000;
	unsigned int i = fx_entry_index(fx, "HPET");
	char text[ACPI_WARNING_LEN];
	size_t len;

	fx_set_entry(fx, i, nowhere);
	assert_int_equal(fx_open(fx), 0);
	assert_null(acpi_find(&fx->acpi, "HPET", 0, &len));
	fx_assert_others_found(fx, "HPET");
	snprintf(text, sizeof(text),
		 "%s entry %u: header at 0x%llx is not readable (skipped)",
		 fx_root_sig(fx), i, (unsigned long long)nowhere);
	fx_assert_one_warning(fx, text);
}

/*
 * A root entry pointing at mapped memory that holds no table.  acpi_find()
 * passes over it without a word (its signature is not the one asked for);
 * acpi_entry(), which the verbose listing uses, rejects it in words.
 */
static void root_entry_to_a_non_table_is_skipped(void **state)
{
	struct fixture *fx = *state;
	const struct fx_table *dsdt = fx_table(fx, "DSDT");
	unsigned int i = fx_entry_index(fx, "HPET");
	char text[ACPI_WARNING_LEN];
	const uint8_t *s5 = NULL;
	uint64_t zeros, at;
	uint32_t claimed;
	size_t len;

	/* Zeros: the end of the pages the root table is in. */
	zeros = fx_extent_end(fx, fx_table(fx, fx_root_sig(fx))->paddr) - 64;
	assert_memory_equal(fx_map(fx, zeros, 64), (uint8_t[64]){ 0 }, 64);
	fx_set_entry(fx, i, zeros);
	assert_int_equal(fx_open(fx), 0);
	assert_null(acpi_find(&fx->acpi, "HPET", 0, &len));
	fx_assert_others_found(fx, "HPET");
	assert_int_equal(fx->acpi.nr_warnings, 0);
	assert_null(acpi_entry(&fx->acpi, i, &len));
	snprintf(text, sizeof(text),
		 "%s entry %u: table at 0x%llx has no printable signature "
		 "(skipped)",
		 fx_root_sig(fx), i, (unsigned long long)zeros);
	fx_assert_one_warning(fx, text);

	/* Inside the DSDT's AML, at the \_S5_ name: "_S5_" reads as a
	 * signature and the package bytes after it (12 06 04 00) as a
	 * length of 263,698 bytes, far past the tables' pages. */
	for (at = 36; at + 8 <= dsdt->len && !s5; at++)
		if (!memcmp(dsdt->data + at, "_S5_", 4))
			s5 = dsdt->data + at;
	assert_non_null(s5);
	at = dsdt->paddr + (uint64_t)(s5 - dsdt->data);
	memcpy(&claimed, s5 + 4, 4);
	assert_true(at + claimed > fx_extent_end(fx, at));
	fx_set_entry(fx, i, at);
	assert_int_equal(fx_open(fx), 0);
	assert_null(acpi_find(&fx->acpi, "HPET", 0, &len));
	fx_assert_others_found(fx, "HPET");
	assert_null(acpi_find(&fx->acpi, "_S5_", 0, &len));
	snprintf(text, sizeof(text),
		 "%s entry %u: _S5_ at 0x%llx: its %u bytes run past readable "
		 "memory (skipped)",
		 fx_root_sig(fx), i, (unsigned long long)at, claimed);
	fx_assert_one_warning(fx, text);
}

static void fadt_too_short_for_x_fields(void **state)
{
	struct fixture *fx = *state;
	uint8_t *fadt = fx_mem(fx, "FACP");
	const struct acpi_header *h;
	struct acpi_pm_timer timer;
	uint64_t other_port = 0x708;
	char why[120];
	size_t len;

	/* With all 244 bytes the X_ field is the one used. */
	memcpy(fadt + 208 + 4, &other_port, 8);
	fx_fix_checksum(fx, "FACP");
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "FACP", 0, &len);
	assert_non_null(h);
	assert_int_equal(acpi_fadt_pm_timer(h, len, &timer, why, sizeof(why)),
			 0);
	assert_int_equal(timer.port, 0x708);
	assert_string_equal(timer.source, "X_PM_TMR_BLK");

	/* Cut before X_PM_TMR_BLK's end (220): PM_TMR_BLK is used and the
	 * bytes past the table are not read. */
	fx_set_length(fx, "FACP", 219, true);
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "FACP", 0, &len);
	assert_non_null(h);
	assert_int_equal(len, 219);
	assert_int_equal(acpi_fadt_pm_timer(h, len, &timer, why, sizeof(why)),
			 0);
	assert_int_equal(timer.port, 0x608);
	assert_false(timer.is_32bit);
	assert_string_equal(timer.source, "PM_TMR_BLK");
	fx_assert_others_found(fx, "FACP");
	assert_int_equal(fx->acpi.nr_warnings, 0);
}

static void fadt_too_short_for_flags(void **state)
{
	struct fixture *fx = *state;
	struct acpi_fadt_power power;
	const struct acpi_header *h;
	struct acpi_pm_timer timer;
	char why[120];
	size_t len;

	fx_set_length(fx, "FACP", 112, true);
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "FACP", 0, &len);
	assert_non_null(h);
	assert_int_equal(acpi_fadt_pm_timer(h, len, &timer, why, sizeof(why)),
			 -1);
	assert_string_equal(why,
			    "FADT is 112 bytes, too short for its flags (116)");
	/* The power-off fields come before the flags and are still read. */
	assert_int_equal(acpi_fadt_power(h, len, &power), 0);
	assert_int_equal(power.pm1a_cnt_port, 0x604);
	fx_assert_others_found(fx, "FACP");
}

/* The PM timer's other refusals, on a copy of a real FADT. */
static void fadt_pm_timer_refusals(void **state)
{
	struct fixture *fx = *state;
	const struct fx_table *t = fx_table(fx, "FACP");
	const struct acpi_header *h = (const void *)t->data;
	struct acpi_pm_timer timer;
	uint32_t flags, port;
	char why[120];

	memcpy(&flags, t->data + 112, 4);
	t->data[91] = 2;
	assert_int_equal(
		acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)), -1);
	assert_string_equal(why, "FADT PM_TMR_LEN is 2, not 4");
	t->data[91] = 4;

	flags |= 1u << 20;
	memcpy(t->data + 112, &flags, 4);
	assert_int_equal(
		acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)), -1);
	assert_string_equal(why, "hardware-reduced ACPI has no PM timer");
	flags &= ~(1u << 20);
	flags |= 1u << 8;
	memcpy(t->data + 112, &flags, 4);
	assert_int_equal(
		acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)), 0);
	assert_true(timer.is_32bit);

	if (t->len >= 220) {
		t->data[208] = 0; /* X_PM_TMR_BLK in system memory */
		assert_int_equal(
			acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)),
			-1);
		assert_string_equal(why, "X_PM_TMR_BLK is in address space 0 "
					 "(system memory); only I/O is "
					 "supported");
		memset(t->data + 208, 0, 12); /* no X_ field: fall back */
		assert_int_equal(
			acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)),
			0);
		assert_string_equal(timer.source, "PM_TMR_BLK");
	}
	port = 0x10000;
	memcpy(t->data + 76, &port, 4);
	assert_int_equal(
		acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)), -1);
	assert_string_equal(
		why, "PM_TMR_BLK 0x10000 is beyond the 64 KiB I/O port space");
	port = 0;
	memcpy(t->data + 76, &port, 4);
	assert_int_equal(
		acpi_fadt_pm_timer(h, t->len, &timer, why, sizeof(why)), -1);
	assert_string_equal(why, "FADT has no PM timer (PM_TMR_BLK is 0)");
}

static void hpet_too_short(void **state)
{
	struct fixture *fx = *state;
	const struct acpi_header *h;
	struct acpi_hpet_info info;
	char why[120];
	size_t len;

	fx_set_length(fx, "HPET", 52, true);
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "HPET", 0, &len);
	assert_non_null(h);
	assert_int_equal(len, 52);
	assert_int_equal(acpi_hpet_parse(h, len, &info, why, sizeof(why)), -1);
	assert_string_equal(why, "HPET table is 52 bytes, shorter than 56");
	fx_assert_others_found(fx, "HPET");
	assert_int_equal(fx->acpi.nr_warnings, 0);
}

static void hpet_base_refusals(void **state)
{
	struct fixture *fx = *state;
	uint8_t *hpet = fx_mem(fx, "HPET");
	const struct acpi_header *h;
	struct acpi_hpet_info info;
	uint64_t base;
	char why[120];
	size_t len;

	hpet[40] = 1; /* system I/O */
	fx_fix_checksum(fx, "HPET");
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "HPET", 0, &len);
	assert_non_null(h);
	assert_int_equal(acpi_hpet_parse(h, len, &info, why, sizeof(why)), -1);
	assert_string_equal(why, "HPET base is in address space 1 (system "
				 "I/O); only system memory is supported");
	fx_assert_others_found(fx, "HPET");

	/* The comparator count is all 5 bits of 12:8, plus one. */
	hpet[40] = 0;
	hpet[37] = 0xbf;
	assert_int_equal(acpi_hpet_parse(h, len, &info, why, sizeof(why)), 0);
	assert_int_equal(info.comparators, 32);

	base = 0xfed00100;
	memcpy(hpet + 44, &base, 8);
	assert_int_equal(acpi_hpet_parse(h, len, &info, why, sizeof(why)), -1);
	assert_string_equal(why, "HPET base 0xfed00100 is not 1 KiB aligned");
	base = 0;
	memcpy(hpet + 44, &base, 8);
	assert_int_equal(acpi_hpet_parse(h, len, &info, why, sizeof(why)), -1);
	assert_string_equal(why, "HPET base address is 0");
}

static void rsdp_bad_checksum(void **state)
{
	struct fixture *fx = *state;
	struct fx_table *t = fx_table(fx, "RSDP");
	const char *where = NULL;

	fx_mem(fx, "RSDP")[16] ^= 1; /* the RSDT address */
	assert_int_equal(fx_open(fx), -1);
	if (t->paddr) {
		fx_assert_one_warning(
			fx, "RSDP from BIOS area: RSDP checksum is wrong");
		/* The scan passes it over too. */
		assert_int_equal(acpi_rsdp_scan(&fx->pm, &where), 0);
		assert_string_equal(where, "nowhere");
		return;
	}
	fx_assert_one_warning(
		fx, "RSDP from multiboot2 ACPI tag: RSDP checksum is wrong");
	/* Past the first 20 bytes only the extended checksum covers it. */
	t->data[16] ^= 1;
	t->data[28] ^= 1; /* the XSDT address */
	assert_int_equal(fx_open(fx), -1);
	fx_assert_one_warning(
		fx, "RSDP from multiboot2 ACPI tag: RSDP extended checksum is "
		    "wrong");
}

static void madt_zero_length_entry(void **state)
{
	struct fixture *fx = *state;
	struct acpi_cpu_count counted;
	const struct acpi_header *h;
	struct acpi_cpu cpus[8];
	unsigned int count;
	char why[120];
	size_t len;

	fx_mem(fx, "APIC")[52 + 1] = 0; /* the second entry */
	fx_fix_checksum(fx, "APIC");
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "APIC", 0, &len);
	assert_non_null(h);
	assert_int_equal(
		acpi_madt_cpus(h, len, cpus, 8, &count, NULL, why, sizeof(why)),
		-1);
	assert_string_equal(why, "MADT entry at offset 52 has length 0");
	assert_int_equal(
		acpi_madt_count_cpus(h, len, &counted, why, sizeof(why)), -1);
	assert_string_equal(why, "MADT entry at offset 52 has length 0");
	fx_assert_others_found(fx, "APIC");
	assert_int_equal(fx->acpi.nr_warnings, 0);
}

/*
 * The real MADT with every processor's enabled flag cleared, as the
 * madt-no-cpus boot test patches it (issue 19): still a valid table, whose
 * count of enabled CPUs is 0 and whose list holds each CPU as disabled, so
 * nothing is started and the report says the firmware listed none.
 */
static void madt_with_no_enabled_cpu(void **state)
{
	struct fixture *fx = *state;
	uint8_t *p = fx_mem(fx, "APIC");
	struct acpi_cpu_count counted;
	const struct acpi_header *h;
	struct acpi_cpu cpus[8];
	unsigned int count = 0, i;
	uint32_t flags, off;
	char why[120];
	size_t len;

	for (off = 44; off + 2 <= fx_table(fx, "APIC")->len; off += p[off + 1])
		if (p[off] == 0) {
			memcpy(&flags, p + off + 4, 4);
			flags &= ~1u;
			memcpy(p + off + 4, &flags, 4);
		}
	fx_fix_checksum(fx, "APIC");
	assert_int_equal(fx_open(fx), 0);
	h = acpi_find(&fx->acpi, "APIC", 0, &len);
	assert_non_null(h);
	assert_int_equal(
		acpi_madt_count_cpus(h, len, &counted, why, sizeof(why)), 0);
	assert_int_equal(counted.enabled, 0);
	assert_int_equal(counted.online_capable, 0);
	assert_int_equal(
		acpi_madt_cpus(h, len, cpus, 8, &count, NULL, why, sizeof(why)),
		0);
	assert_int_equal(count, fx->expect->cpus);
	for (i = 0; i < count; i++)
		assert_false(cpus[i].enabled);
	assert_int_equal(fx->acpi.nr_warnings, 0);
}

#define FX_TEST(fixture_name, fn, expect)                             \
	{                                                             \
		.name = fixture_name ": " #fn, .test_func = fn,       \
		.setup_func = fx_setup, .teardown_func = fx_teardown, \
		.initial_state = &expect,                             \
	}
#define FX_TEST_ALL(fn)                                               \
	FX_TEST("pc", fn, expect_pc), FX_TEST("q35", fn, expect_q35), \
		FX_TEST("q35-uefi", fn, expect_q35_uefi)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(checksum_and_rsdp_checks, setup),
		cmocka_unit_test_setup(scan_finds_the_rsdp, setup),
		cmocka_unit_test_setup(rsdt_tables_and_cpus, setup),
		cmocka_unit_test_setup(xsdt_preferred_with_fallback, setup),
		cmocka_unit_test_setup(rsdp_longer_than_kept, setup),
		cmocka_unit_test_setup(
			corrupt_tables_are_skipped_with_a_warning, setup),
		cmocka_unit_test_setup(bad_root_table, setup),
		cmocka_unit_test_setup(malformed_madt, setup),
		cmocka_unit_test_setup(madt_cpu_list, setup),
		cmocka_unit_test_setup(madt_interrupt_entries, setup),
		cmocka_unit_test_setup(fadt_and_s5, setup),
		cmocka_unit_test_setup(dsdt_from_the_fadt, setup),
		cmocka_unit_test_setup_teardown(tables_across_page_boundaries,
						setup, teardown),
		FX_TEST_ALL(real_tables_are_found),
		FX_TEST_ALL(real_fadt_pm_timer),
		FX_TEST_ALL(real_hpet),
		FX_TEST_ALL(real_madt_cpus),
		FX_TEST_ALL(real_madt_interrupts),
		FX_TEST_ALL(real_dsdt_s5),
		FX_TEST_ALL(real_tables_through_separate_mappings),
		FX_TEST_ALL(bad_checksum_is_skipped),
		FX_TEST_ALL(length_below_the_header_is_skipped),
		FX_TEST_ALL(length_above_the_bound_is_skipped),
		FX_TEST_ALL(length_beyond_the_table_is_skipped),
		FX_TEST_ALL(length_past_mapped_memory_is_skipped),
		FX_TEST_ALL(length_into_the_hole_is_skipped),
		FX_TEST_ALL(memory_map_keeps_good_tables),
		FX_TEST_ALL(root_entry_to_unmapped_memory_is_skipped),
		FX_TEST_ALL(root_entry_to_a_non_table_is_skipped),
		FX_TEST("q35", fadt_too_short_for_x_fields, expect_q35),
		FX_TEST("q35-uefi", fadt_too_short_for_x_fields,
			expect_q35_uefi),
		FX_TEST_ALL(fadt_too_short_for_flags),
		FX_TEST_ALL(fadt_pm_timer_refusals),
		FX_TEST_ALL(hpet_too_short),
		FX_TEST_ALL(hpet_base_refusals),
		FX_TEST_ALL(rsdp_bad_checksum),
		FX_TEST_ALL(madt_zero_length_entry),
		FX_TEST_ALL(madt_with_no_enabled_cpu),
	};

	return cmocka_run_group_tests_name("acpi", tests, NULL, NULL);
}
