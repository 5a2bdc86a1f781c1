/* SPDX-License-Identifier: MIT */
/*
 * ACPI table discovery and parsing, pure C over a phys_mapper.  Every table
 * is checked (signature, length bounds, checksum) before a field of it is
 * read; what is wrong goes into the warnings, in words, and the table is
 * treated as absent.
 */
#ifndef CLOCKBENCH_DRIVERS_ACPI_H
#define CLOCKBENCH_DRIVERS_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/phys.h"

#define ACPI_HEADER_LEN 36
#define ACPI_TABLE_MAX_LEN \
	(16u << 20) /* sanity bound, far above any real table */
#define ACPI_MAX_WARNINGS 8
#define ACPI_WARNING_LEN  160

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi {
	const struct phys_mapper *pm;
	uint64_t rsdp_paddr; /* 0 when the RSDP came as a copy */
	const char
		*rsdp_from; /* "multiboot2 tag", "pvh", "EBDA", "BIOS area" */
	uint8_t rsdp_revision;
	char oem_id[7];
	uint64_t root_paddr; /* the XSDT or RSDT in use */
	bool root_is_xsdt;
	unsigned int nr_entries;
	char warnings[ACPI_MAX_WARNINGS][ACPI_WARNING_LEN];
	unsigned int nr_warnings;
};

/** Sum of @len bytes modulo 256; a valid table sums to 0. */
uint8_t acpi_checksum(const void *p, size_t len);

/**
 * Check an RSDP of @len readable bytes: signature, the 20-byte checksum and,
 * for revision 2 and later, its length and extended checksum.  Returns 0 or
 * -1 with the reason in @why.
 */
int acpi_rsdp_check(const uint8_t *rsdp, size_t len, char *why, size_t whylen);

/**
 * Search the first KiB of the EBDA and 0xE0000-0xFFFFF for a valid RSDP.
 * Returns its physical address or 0; *@where names the area.
 */
uint64_t acpi_rsdp_scan(const struct phys_mapper *pm, const char **where);

/**
 * Open the tables from an RSDP (a copy of @rsdp_len bytes, or found at
 * @rsdp_paddr when @rsdp is NULL), preferring a valid XSDT over the RSDT.
 * Returns 0, or -1 with the reason in the first warning.
 */
int acpi_open(struct acpi *acpi, const struct phys_mapper *pm,
	      const uint8_t *rsdp, size_t rsdp_len, uint64_t rsdp_paddr,
	      const char *rsdp_from);

/**
 * Root table entry @i, checked in full, or NULL (with a warning) when it is
 * unreadable or invalid.  *@len receives its length.
 */
const struct acpi_header *acpi_entry(struct acpi *acpi, unsigned int i,
				     size_t *len);

/**
 * The @instance'th valid table with signature @sig (4 characters), or NULL.
 * *@len receives its length.  Invalid tables on the way are skipped with a
 * warning (once per table).
 */
const struct acpi_header *acpi_find(struct acpi *acpi, const char *sig,
				    unsigned int instance, size_t *len);

/** Add a warning (formatted) to @acpi. */
void acpi_warn(struct acpi *acpi, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* MADT: processors the firmware lists. */
struct acpi_cpu_count {
	unsigned int enabled;	     /* usable now */
	unsigned int online_capable; /* may be brought online later */
	unsigned int x2apic_entries; /* of the above, listed as x2APIC */
};

/** Count processor entries of a MADT of @len bytes; -1 when malformed. */
int acpi_madt_count_cpus(const struct acpi_header *madt, size_t len,
			 struct acpi_cpu_count *count, char *why,
			 size_t whylen);

/* What the FADT tells about power-off. */
struct acpi_fadt_power {
	uint32_t pm1a_cnt_port;
	uint32_t pm1b_cnt_port;
	uint64_t dsdt_paddr;
};

/** Read the PM1 control ports and the DSDT address; -1 when too short. */
int acpi_fadt_power(const struct acpi_header *fadt, size_t len,
		    struct acpi_fadt_power *out);

/**
 * Find the \_S5_ package in AML and return its first two values (SLP_TYPa
 * and SLP_TYPb) — enough for the simple packages firmware writes.  Returns
 * 0, or -1 when there is none or it is not of that simple shape.
 */
int acpi_aml_s5(const uint8_t *aml, size_t len, uint8_t *slp_typa,
		uint8_t *slp_typb);

#endif
