// SPDX-License-Identifier: MIT
/*
 * ACPI tables: RSDP, RSDT/XSDT, MADT, FADT and the \_S5_ object.  Pure C:
 * all memory is read through a phys_mapper, and every length is checked
 * against what was mapped before it is trusted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "drivers/acpi.h"

#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36

/* RSDP field offsets (ACPI 6.x, 5.2.5.3). */
#define RSDP_REVISION 15
#define RSDP_RSDT     16
#define RSDP_LENGTH   20
#define RSDP_XSDT     24

#define BDA_EBDA_SEGMENT 0x40e
#define EBDA_SCAN_LEN	 1024
#define BIOS_AREA_START	 0xe0000
#define BIOS_AREA_END	 0x100000

/* MADT layout (5.2.12). */
#define MADT_ENTRIES	    44
#define MADT_TYPE_LAPIC	    0
#define MADT_TYPE_X2APIC    9
#define MADT_LAPIC_FLAGS    4 /* offset in a type 0 entry */
#define MADT_X2APIC_FLAGS   8 /* offset in a type 9 entry */
#define MADT_CPU_ENABLED    (1u << 0)
#define MADT_CPU_ONLINE_CAP (1u << 1)

/* FADT offsets (5.2.9). */
#define FADT_DSDT	40
#define FADT_PM1A_CNT	64
#define FADT_PM1B_CNT	68
#define FADT_X_DSDT	140
#define FADT_X_DSDT_END 148

/* AML opcodes used by \_S5_. */
#define AML_NAME_OP	0x08
#define AML_PACKAGE_OP	0x12
#define AML_ZERO_OP	0x00
#define AML_ONE_OP	0x01
#define AML_BYTE_PREFIX 0x0a

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

void acpi_warn(struct acpi *acpi, const char *fmt, ...)
{
	char text[ACPI_WARNING_LEN];
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A table skipped on every lookup is still one warning. */
	for (i = 0; i < acpi->nr_warnings; i++)
		if (!strcmp(acpi->warnings[i], text))
			return;
	if (acpi->nr_warnings < ACPI_MAX_WARNINGS)
		memcpy(acpi->warnings[acpi->nr_warnings++], text, sizeof(text));
}

int acpi_rsdp_check(const uint8_t *rsdp, size_t len, char *why, size_t whylen)
{
	uint32_t length;

	if (len < RSDP_V1_LEN || memcmp(rsdp, "RSD PTR ", 8)) {
		snprintf(why, whylen, "no \"RSD PTR \" signature");
		return -1;
	}
	if (acpi_checksum(rsdp, RSDP_V1_LEN)) {
		snprintf(why, whylen, "RSDP checksum is wrong");
		return -1;
	}
	if (rsdp[RSDP_REVISION] < 2)
		return 0;
	if (len < RSDP_V2_LEN) {
		snprintf(why, whylen,
			 "revision %u RSDP but only %zu bytes of it are there",
			 rsdp[RSDP_REVISION], len);
		return -1;
	}
	length = get32(rsdp + RSDP_LENGTH);
	if (length < RSDP_V2_LEN || length > len) {
		snprintf(why, whylen,
			 "RSDP length %u is out of bounds (36..%zu)", length,
			 len);
		return -1;
	}
	if (acpi_checksum(rsdp, length)) {
		snprintf(why, whylen, "RSDP extended checksum is wrong");
		return -1;
	}
	return 0;
}

static uint64_t scan_area(const struct phys_mapper *pm, uint64_t start,
			  uint64_t end)
{
	uint64_t at;
	char why[80];

	for (at = start; at + RSDP_V1_LEN <= end; at += 16) {
		const uint8_t *p = phys_map(pm, at, RSDP_V1_LEN);
		size_t avail = end - at < RSDP_V2_LEN ? end - at : RSDP_V2_LEN;

		if (!p || memcmp(p, "RSD PTR ", 8))
			continue;
		p = phys_map(pm, at, avail);
		if (p && acpi_rsdp_check(p, avail, why, sizeof(why)) == 0)
			return at;
	}
	return 0;
}

uint64_t acpi_rsdp_scan(const struct phys_mapper *pm, const char **where)
{
	const uint8_t *bda = phys_map(pm, BDA_EBDA_SEGMENT, 2);
	uint64_t found;

	if (bda) {
		uint64_t ebda = (uint64_t)(bda[0] | bda[1] << 8) << 4;

		if (ebda >= 0x400 && ebda < BIOS_AREA_START) {
			found = scan_area(pm, ebda, ebda + EBDA_SCAN_LEN);
			if (found) {
				*where = "EBDA";
				return found;
			}
		}
	}
	found = scan_area(pm, BIOS_AREA_START, BIOS_AREA_END);
	*where = found ? "BIOS area" : "nowhere";
	return found;
}

/*
 * Map a whole table at @paddr and check it.  Returns it, or NULL with the
 * reason in @why.
 */
static const struct acpi_header *map_table(const struct phys_mapper *pm,
					   uint64_t paddr, char *why,
					   size_t whylen)
{
	const struct acpi_header *h = phys_map(pm, paddr, ACPI_HEADER_LEN);
	unsigned int i;

	if (!h) {
		snprintf(why, whylen, "header at 0x%llx is not readable",
			 (unsigned long long)paddr);
		return NULL;
	}
	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)h->signature[i];

		if (c < 0x20 || c > 0x7e) {
			snprintf(why, whylen,
				 "table at 0x%llx has no printable signature",
				 (unsigned long long)paddr);
			return NULL;
		}
	}
	if (h->length < ACPI_HEADER_LEN || h->length > ACPI_TABLE_MAX_LEN) {
		snprintf(why, whylen, "%.4s at 0x%llx claims length %u",
			 h->signature, (unsigned long long)paddr, h->length);
		return NULL;
	}
	if (!phys_map(pm, paddr, h->length)) {
		snprintf(
			why, whylen,
			"%.4s at 0x%llx: its %u bytes run past readable memory",
			h->signature, (unsigned long long)paddr, h->length);
		return NULL;
	}
	if (acpi_checksum(h, h->length)) {
		snprintf(why, whylen, "%.4s at 0x%llx has a bad checksum",
			 h->signature, (unsigned long long)paddr);
		return NULL;
	}
	return h;
}

static int open_root(struct acpi *acpi, uint64_t paddr, bool xsdt)
{
	const char *want = xsdt ? "XSDT" : "RSDT";
	const struct acpi_header *h;
	char why[ACPI_WARNING_LEN];

	h = map_table(acpi->pm, paddr, why, sizeof(why));
	if (!h) {
		acpi_warn(acpi, "%s: %s", want, why);
		return -1;
	}
	if (memcmp(h->signature, want, 4)) {
		acpi_warn(acpi, "%s at 0x%llx has signature %.4s", want,
			  (unsigned long long)paddr, h->signature);
		return -1;
	}
	acpi->root_paddr = paddr;
	acpi->root_is_xsdt = xsdt;
	acpi->nr_entries = (h->length - ACPI_HEADER_LEN) / (xsdt ? 8 : 4);
	return 0;
}

int acpi_open(struct acpi *acpi, const struct phys_mapper *pm,
	      const uint8_t *rsdp, size_t rsdp_len, uint64_t rsdp_paddr,
	      const char *rsdp_from)
{
	char why[ACPI_WARNING_LEN];
	uint64_t xsdt = 0;

	memset(acpi, 0, sizeof(*acpi));
	acpi->pm = pm;
	acpi->rsdp_from = rsdp_from;
	acpi->rsdp_paddr = rsdp ? 0 : rsdp_paddr;
	if (!rsdp) {
		rsdp_len = RSDP_V2_LEN;
		rsdp = phys_map(pm, rsdp_paddr, rsdp_len);
		if (!rsdp) {
			rsdp_len = RSDP_V1_LEN;
			rsdp = phys_map(pm, rsdp_paddr, rsdp_len);
		}
		if (!rsdp) {
			acpi_warn(acpi,
				  "RSDP at 0x%llx (from %s) is not readable",
				  (unsigned long long)rsdp_paddr, rsdp_from);
			return -1;
		}
	}
	if (acpi_rsdp_check(rsdp, rsdp_len, why, sizeof(why))) {
		acpi_warn(acpi, "RSDP from %s: %s", rsdp_from, why);
		return -1;
	}
	acpi->rsdp_revision = rsdp[RSDP_REVISION];
	memcpy(acpi->oem_id, rsdp + 9, 6);
	if (acpi->rsdp_revision >= 2)
		xsdt = get64(rsdp + RSDP_XSDT);
	if (xsdt && open_root(acpi, xsdt, true) == 0)
		return 0;
	if (xsdt)
		acpi_warn(acpi, "falling back from the XSDT to the RSDT");
	return open_root(acpi, get32(rsdp + RSDP_RSDT), false);
}

static uint64_t root_entry(const struct acpi *acpi, unsigned int i)
{
	size_t size = acpi->root_is_xsdt ? 8 : 4;
	const uint8_t *root = phys_map(acpi->pm, acpi->root_paddr,
				       ACPI_HEADER_LEN + (i + 1) * size);

	if (!root)
		return 0;
	root += ACPI_HEADER_LEN + i * size;
	return acpi->root_is_xsdt ? get64(root) : get32(root);
}

const struct acpi_header *acpi_entry(struct acpi *acpi, unsigned int i,
				     size_t *len)
{
	uint64_t paddr = i < acpi->nr_entries ? root_entry(acpi, i) : 0;
	const struct acpi_header *h;
	char why[ACPI_WARNING_LEN];

	if (!paddr) {
		acpi_warn(acpi, "%s entry %u is unreadable or null (skipped)",
			  acpi->root_is_xsdt ? "XSDT" : "RSDT", i);
		return NULL;
	}
	h = map_table(acpi->pm, paddr, why, sizeof(why));
	if (!h) {
		acpi_warn(acpi, "%s entry %u: %s (skipped)",
			  acpi->root_is_xsdt ? "XSDT" : "RSDT", i, why);
		return NULL;
	}
	*len = h->length;
	return h;
}

const struct acpi_header *acpi_find(struct acpi *acpi, const char *sig,
				    unsigned int instance, size_t *len)
{
	unsigned int i;

	for (i = 0; i < acpi->nr_entries; i++) {
		uint64_t paddr = root_entry(acpi, i);
		const struct acpi_header *h =
			paddr ? phys_map(acpi->pm, paddr, ACPI_HEADER_LEN)
			      : NULL;

		/* Only a table that might be the one asked for is checked
		 * in full (and warned about); unreadable entries always. */
		if (h && memcmp(h->signature, sig, 4))
			continue;
		h = acpi_entry(acpi, i, len);
		if (h && instance-- == 0)
			return h;
	}
	return NULL;
}

int acpi_madt_count_cpus(const struct acpi_header *madt, size_t len,
			 struct acpi_cpu_count *count, char *why, size_t whylen)
{
	const uint8_t *p = (const uint8_t *)madt;
	size_t off = MADT_ENTRIES;

	memset(count, 0, sizeof(*count));
	if (len < MADT_ENTRIES) {
		snprintf(why, whylen, "MADT is %zu bytes, shorter than 44",
			 len);
		return -1;
	}
	while (off + 2 <= len) {
		uint8_t type = p[off], elen = p[off + 1];
		uint32_t flags;

		if (elen < 2 || off + elen > len) {
			snprintf(why, whylen,
				 "MADT entry at offset %zu has length %u", off,
				 elen);
			return -1;
		}
		if (type == MADT_TYPE_LAPIC && elen >= 8)
			flags = get32(p + off + MADT_LAPIC_FLAGS);
		else if (type == MADT_TYPE_X2APIC && elen >= 16)
			flags = get32(p + off + MADT_X2APIC_FLAGS);
		else
			flags = 0;
		if (flags & MADT_CPU_ENABLED)
			count->enabled++;
		else if (flags & MADT_CPU_ONLINE_CAP)
			count->online_capable++;
		if (type == MADT_TYPE_X2APIC &&
		    (flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAP)))
			count->x2apic_entries++;
		off += elen;
	}
	return 0;
}

int acpi_fadt_power(const struct acpi_header *fadt, size_t len,
		    struct acpi_fadt_power *out)
{
	const uint8_t *p = (const uint8_t *)fadt;

	if (len < FADT_PM1B_CNT + 4)
		return -1;
	out->pm1a_cnt_port = get32(p + FADT_PM1A_CNT);
	out->pm1b_cnt_port = get32(p + FADT_PM1B_CNT);
	out->dsdt_paddr = get32(p + FADT_DSDT);
	if (len >= FADT_X_DSDT_END && get64(p + FADT_X_DSDT))
		out->dsdt_paddr = get64(p + FADT_X_DSDT);
	return 0;
}

/* One small integer of a package: ZeroOp, OneOp or BytePrefix n. */
static int aml_small_int(const uint8_t *p, const uint8_t *end, uint8_t *val)
{
	if (p >= end)
		return -1;
	if (*p == AML_ZERO_OP || *p == AML_ONE_OP) {
		*val = *p;
		return 1;
	}
	if (*p == AML_BYTE_PREFIX && p + 1 < end) {
		*val = p[1];
		return 2;
	}
	return -1;
}

int acpi_aml_s5(const uint8_t *aml, size_t len, uint8_t *slp_typa,
		uint8_t *slp_typb)
{
	size_t i;

	for (i = 0; i + 4 <= len; i++) {
		const uint8_t *p = aml + i + 4, *end = aml + len;
		int used;

		if (memcmp(aml + i, "_S5_", 4))
			continue;
		/* NameOp, optionally a root prefix, then the name. */
		if (!(i >= 1 && aml[i - 1] == AML_NAME_OP) &&
		    !(i >= 2 && aml[i - 1] == '\\' &&
		      aml[i - 2] == AML_NAME_OP))
			continue;
		if (p >= end || *p++ != AML_PACKAGE_OP)
			continue;
		/* PkgLength: bits 7:6 of the lead byte count extra bytes. */
		if (p >= end)
			return -1;
		p += 1 + (*p >> 6);
		p++; /* NumElements */
		used = aml_small_int(p, end, slp_typa);
		if (used < 0)
			return -1;
		p += used;
		used = aml_small_int(p, end, slp_typb);
		if (used < 0)
			*slp_typb = 0;
		return 0;
	}
	return -1;
}
