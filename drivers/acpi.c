// SPDX-License-Identifier: MIT
/*
 * ACPI tables: RSDP, RSDT/XSDT, MADT, FADT, HPET and the \_S5_ object.  Pure C:
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
#define DESCRIBED_PAGE	 4096 /* memory maps type memory by the page */

/* MADT layout (5.2.12); entry offsets are from the entry's start. */
#define MADT_LAPIC_ADDR		36
#define MADT_ENTRIES		44
#define MADT_TYPE_LAPIC		0
#define MADT_TYPE_LAPIC_ADDRESS 5
#define MADT_TYPE_X2APIC	9
#define MADT_LAPIC_LEN		8
#define MADT_X2APIC_LEN		16
#define MADT_LAPIC_ADDRESS_LEN	12
#define MADT_LAPIC_UID		2
#define MADT_LAPIC_ID		3
#define MADT_LAPIC_FLAGS	4
#define MADT_LAPIC_ADDRESS_ADDR 4
#define MADT_X2APIC_ID		4
#define MADT_X2APIC_FLAGS	8
#define MADT_X2APIC_UID		12
#define MADT_CPU_ENABLED	(1u << 0)
#define MADT_CPU_ONLINE_CAP	(1u << 1)
#define MADT_TYPE_IOAPIC	1
#define MADT_TYPE_OVERRIDE	2
#define MADT_IOAPIC_LEN		12
#define MADT_IOAPIC_ID		2
#define MADT_IOAPIC_ADDR	4
#define MADT_IOAPIC_GSI_BASE	8
#define MADT_OVERRIDE_LEN	10
#define MADT_OVERRIDE_BUS	2
#define MADT_OVERRIDE_SOURCE	3
#define MADT_OVERRIDE_GSI	4
#define MADT_OVERRIDE_FLAGS	8
#define MADT_POLARITY_MASK	0x3 /* MPS INTI flags (5.2.12.5) */
#define MADT_POLARITY_LOW	0x3
#define MADT_TRIGGER_MASK	0xc
#define MADT_TRIGGER_LEVEL	0xc

/* Generic address structure (5.2.3.2): 12 bytes. */
#define GAS_LEN		    12
#define GAS_SPACE_ID	    0
#define GAS_ADDRESS	    4
#define GAS_SPACE_MEMORY    0
#define GAS_SPACE_IO	    1
#define GAS_SPACE_FFH	    0x7f
#define GAS_SPACE_OEM_FIRST 0xc0

/* FADT offsets (5.2.9). */
#define FADT_DSDT	     40
#define FADT_PM1A_CNT	     64
#define FADT_PM1B_CNT	     68
#define FADT_PM_TMR_BLK	     76
#define FADT_PM_TMR_LEN	     91
#define FADT_FLAGS	     112
#define FADT_TMR_VAL_EXT     (1u << 8)
#define FADT_HW_REDUCED_ACPI (1u << 20)
#define FADT_X_DSDT	     140
#define FADT_X_DSDT_END	     148
#define FADT_X_PM_TMR_BLK    208

/* HPET table (IA-PC HPET specification 1.0a, table 3). */
#define HPET_BLOCK_ID	     36
#define HPET_BASE	     40 /* generic address structure */
#define HPET_NUMBER	     52
#define HPET_MIN_TICK	     53
#define HPET_PAGE_PROTECTION 55
#define HPET_TABLE_LEN	     56
#define HPET_BLOCK_LEN	     1024 /* bytes of registers */

/* AML opcodes used by \_S5_. */
#define AML_NAME_OP	0x08
#define AML_PACKAGE_OP	0x12
#define AML_ZERO_OP	0x00
#define AML_ONE_OP	0x01
#define AML_BYTE_PREFIX 0x0a

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

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

/* Memory a firmware table may lie in: what firmware itself uses. */
static bool described_type(uint32_t type)
{
	return type == MEM_RAM || type == MEM_RESERVED || type == MEM_ACPI ||
	       type == MEM_NVS;
}

/*
 * The end of the memory the firmware described that holds @paddr, joining
 * regions that adjoin; @paddr when none holds it, UINT64_MAX when there is
 * no map to judge by.  Memory is typed by the page, so a region counts to
 * the ends of the pages it touches: Xen 4.17 lists a PVH dom0's MADT,
 * XSDT and RSDP as an ACPI region as long as the MADT alone.  The BIOS area
 * counts as described: the RSDP's own place, which not every map lists.
 */
static uint64_t described_end(const struct acpi *acpi, uint64_t paddr)
{
	const struct boot_info *bi = acpi->described;
	uint64_t end = paddr;
	unsigned int i, step;

	if (!bi || !bi->nr_memmap || bi->memmap_truncated)
		return UINT64_MAX;
	/* Each step moves the end past one region that holds it. */
	for (step = 0; step <= bi->nr_memmap; step++) {
		uint64_t next = end;

		if (end >= BIOS_AREA_START && end < BIOS_AREA_END)
			next = BIOS_AREA_END;
		for (i = 0; i < bi->nr_memmap && next == end; i++) {
			const struct mem_region *r = &bi->memmap[i];
			uint64_t first =
				r->base & ~(uint64_t)(DESCRIBED_PAGE - 1);
			uint64_t last = r->size > UINT64_MAX - r->base
						? UINT64_MAX
						: r->base + r->size;

			if (last <= UINT64_MAX - (DESCRIBED_PAGE - 1))
				last = (last + DESCRIBED_PAGE - 1) &
				       ~(uint64_t)(DESCRIBED_PAGE - 1);
			if (described_type(r->type) && r->size &&
			    first <= end && end < last)
				next = last;
		}
		if (next == end)
			break;
		end = next;
	}
	return end;
}

/*
 * Map a whole table at @paddr and check it: the header is mapped first to
 * learn the length, then the whole table, and only that second mapping is
 * read (under Xen PV the header's mapping ends with its page).  A table
 * that starts in described memory must end in it (acpi_open_within()).
 * Returns it, with its length in *@len, or NULL with the reason in @why.
 */
static const struct acpi_header *map_table(const struct acpi *acpi,
					   uint64_t paddr, size_t *len,
					   char *why, size_t whylen)
{
	const struct phys_mapper *pm = acpi->pm;
	const struct acpi_header *h = phys_map(pm, paddr, ACPI_HEADER_LEN);
	uint64_t described = described_end(acpi, paddr);
	const struct acpi_header *table;
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
	if (h->length < ACPI_HEADER_LEN) {
		snprintf(why, whylen,
			 "%.4s at 0x%llx claims length %u, less than its "
			 "36-byte header",
			 h->signature, (unsigned long long)paddr, h->length);
		return NULL;
	}
	if (h->length > ACPI_TABLE_MAX_LEN) {
		snprintf(
			why, whylen,
			"%.4s at 0x%llx claims length %u, more than the %u MiB "
			"a table may have",
			h->signature, (unsigned long long)paddr, h->length,
			ACPI_TABLE_MAX_LEN >> 20);
		return NULL;
	}
	if (described > paddr && h->length > described - paddr) {
		snprintf(why, whylen,
			 "%.4s at 0x%llx: its %u bytes run past the memory the "
			 "firmware described, which ends at 0x%llx",
			 h->signature, (unsigned long long)paddr, h->length,
			 (unsigned long long)described);
		return NULL;
	}
	table = phys_map(pm, paddr, h->length);
	if (!table) {
		snprintf(
			why, whylen,
			"%.4s at 0x%llx: its %u bytes run past readable memory",
			h->signature, (unsigned long long)paddr, h->length);
		return NULL;
	}
	if (acpi_checksum(table, h->length)) {
		snprintf(why, whylen, "%.4s at 0x%llx has a bad checksum",
			 h->signature, (unsigned long long)paddr);
		return NULL;
	}
	*len = h->length;
	return table;
}

static int open_root(struct acpi *acpi, uint64_t paddr, bool xsdt)
{
	const char *want = xsdt ? "XSDT" : "RSDT";
	const struct acpi_header *h;
	char why[ACPI_WARNING_LEN];
	size_t len;

	h = map_table(acpi, paddr, &len, why, sizeof(why));
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
	acpi->nr_entries = (len - ACPI_HEADER_LEN) / (xsdt ? 8 : 4);
	return 0;
}

int acpi_open(struct acpi *acpi, const struct phys_mapper *pm,
	      const uint8_t *rsdp, size_t rsdp_len, uint64_t rsdp_paddr,
	      const char *rsdp_from)
{
	return acpi_open_within(acpi, pm, NULL, rsdp, rsdp_len, rsdp_paddr,
				rsdp_from);
}

int acpi_open_within(struct acpi *acpi, const struct phys_mapper *pm,
		     const struct boot_info *described, const uint8_t *rsdp,
		     size_t rsdp_len, uint64_t rsdp_paddr,
		     const char *rsdp_from)
{
	char why[ACPI_WARNING_LEN];
	uint64_t xsdt = 0;

	memset(acpi, 0, sizeof(*acpi));
	acpi->pm = pm;
	acpi->described = described;
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
	/* The RSDP is kept whole: its length check refuses a longer one. */
	if (rsdp_len > ACPI_RSDP_MAX_LEN)
		rsdp_len = ACPI_RSDP_MAX_LEN;
	if (acpi_rsdp_check(rsdp, rsdp_len, why, sizeof(why))) {
		acpi_warn(acpi, "RSDP from %s: %s", rsdp_from, why);
		return -1;
	}
	acpi->rsdp_revision = rsdp[RSDP_REVISION];
	acpi->rsdp_len = acpi->rsdp_revision >= 2 ? get32(rsdp + RSDP_LENGTH)
						  : RSDP_V1_LEN;
	memcpy(acpi->rsdp, rsdp, acpi->rsdp_len);
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
	h = map_table(acpi, paddr, len, why, sizeof(why));
	if (!h) {
		acpi_warn(acpi, "%s entry %u: %s (skipped)",
			  acpi->root_is_xsdt ? "XSDT" : "RSDT", i, why);
		return NULL;
	}
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

/* The DSDT, and where it is. */
static const struct acpi_header *find_dsdt(struct acpi *acpi, uint64_t *paddr,
					   size_t *len)
{
	const struct acpi_header *fadt, *dsdt;
	struct acpi_fadt_power power;
	char why[ACPI_WARNING_LEN];
	size_t fadt_len;

	fadt = acpi_find(acpi, "FACP", 0, &fadt_len);
	if (!fadt) {
		acpi_warn(acpi, "DSDT: there is no valid FADT to name it");
		return NULL;
	}
	if (acpi_fadt_power(fadt, fadt_len, &power)) {
		acpi_warn(acpi, "DSDT: the FADT is too short to name one");
		return NULL;
	}
	if (!power.dsdt_paddr) {
		acpi_warn(acpi, "DSDT: the FADT names none (DSDT and X_DSDT "
				"are 0)");
		return NULL;
	}
	dsdt = map_table(acpi, power.dsdt_paddr, len, why, sizeof(why));
	if (!dsdt) {
		acpi_warn(acpi, "DSDT: %s", why);
		return NULL;
	}
	if (memcmp(dsdt->signature, "DSDT", 4)) {
		acpi_warn(acpi, "DSDT at 0x%llx has signature %.4s",
			  (unsigned long long)power.dsdt_paddr,
			  dsdt->signature);
		return NULL;
	}
	*paddr = power.dsdt_paddr;
	return dsdt;
}

const struct acpi_header *acpi_dsdt(struct acpi *acpi, size_t *len)
{
	uint64_t paddr;

	return find_dsdt(acpi, &paddr, len);
}

static void visit_table(void (*visit)(const struct acpi_table_bytes *t,
				      void *ctx),
			void *ctx, const char *sig, uint64_t paddr,
			const void *bytes, size_t len)
{
	struct acpi_table_bytes t = { .paddr = paddr,
				      .bytes = bytes,
				      .len = len };

	memcpy(t.signature, sig, 4);
	visit(&t, ctx);
}

void acpi_for_each_table(struct acpi *acpi,
			 void (*visit)(const struct acpi_table_bytes *t,
				       void *ctx),
			 void *ctx)
{
	const struct acpi_header *h;
	char why[ACPI_WARNING_LEN];
	uint64_t paddr;
	unsigned int i;
	size_t len;

	visit_table(visit, ctx, "RSDP", acpi->rsdp_paddr, acpi->rsdp,
		    acpi->rsdp_len);
	/* acpi_open() checked the root table; it is mapped again whole. */
	h = map_table(acpi, acpi->root_paddr, &len, why, sizeof(why));
	if (h)
		visit_table(visit, ctx, h->signature, acpi->root_paddr, h, len);
	for (i = 0; i < acpi->nr_entries; i++) {
		h = acpi_entry(acpi, i, &len);
		if (h)
			visit_table(visit, ctx, h->signature,
				    root_entry(acpi, i), h, len);
	}
	h = find_dsdt(acpi, &paddr, &len);
	if (h)
		visit_table(visit, ctx, "DSDT", paddr, h, len);
}

/* Bytes an entry of @type needs for the fields read here. */
static size_t madt_entry_min_len(uint8_t type)
{
	switch (type) {
	case MADT_TYPE_LAPIC:
		return MADT_LAPIC_LEN;
	case MADT_TYPE_X2APIC:
		return MADT_X2APIC_LEN;
	case MADT_TYPE_LAPIC_ADDRESS:
		return MADT_LAPIC_ADDRESS_LEN;
	default:
		return 2;
	}
}

/*
 * Walk the entries of a MADT, handing each processor entry to @visit.
 * Every entry's length is checked, not only the processors', because one
 * bad length makes every later entry unreadable.
 */
/*
 * The entry at @off of a @len-byte MADT: its length must keep it inside
 * the table and be at least @need, its type's size.  0, or -1 with the
 * reason in @why.
 */
static int madt_entry_check(const uint8_t *e, size_t off, size_t len,
			    size_t need, char *why, size_t whylen)
{
	size_t elen = e[1];

	if (elen < 2 || elen > len - off) {
		snprintf(why, whylen, "MADT entry at offset %zu has length %zu",
			 off, elen);
		return -1;
	}
	if (elen < need) {
		snprintf(why, whylen,
			 "MADT type %u entry at offset %zu is %zu bytes, "
			 "shorter than %zu",
			 e[0], off, elen, need);
		return -1;
	}
	return 0;
}

static int madt_walk(const struct acpi_header *madt, size_t len,
		     void (*visit)(const struct acpi_cpu *cpu, void *ctx),
		     void *ctx, uint64_t *lapic_base, char *why, size_t whylen)
{
	const uint8_t *p = (const uint8_t *)madt;
	size_t off, elen;

	if (len < MADT_ENTRIES) {
		snprintf(why, whylen, "MADT is %zu bytes, shorter than 44",
			 len);
		return -1;
	}
	if (lapic_base)
		*lapic_base = get32(p + MADT_LAPIC_ADDR);
	for (off = MADT_ENTRIES; off + 2 <= len; off += elen) {
		const uint8_t *e = p + off;
		size_t need = madt_entry_min_len(e[0]);
		struct acpi_cpu cpu = { 0 };
		uint32_t flags;

		elen = e[1];
		if (madt_entry_check(e, off, len, need, why, whylen))
			return -1;
		switch (e[0]) {
		case MADT_TYPE_LAPIC:
			cpu.uid = e[MADT_LAPIC_UID];
			cpu.apic_id = e[MADT_LAPIC_ID];
			flags = get32(e + MADT_LAPIC_FLAGS);
			break;
		case MADT_TYPE_X2APIC:
			cpu.apic_id = get32(e + MADT_X2APIC_ID);
			cpu.uid = get32(e + MADT_X2APIC_UID);
			cpu.x2apic = true;
			flags = get32(e + MADT_X2APIC_FLAGS);
			break;
		case MADT_TYPE_LAPIC_ADDRESS:
			/* Replaces the 32-bit address in the header. */
			if (lapic_base)
				*lapic_base =
					get64(e + MADT_LAPIC_ADDRESS_ADDR);
			continue;
		default:
			continue;
		}
		cpu.enabled = flags & MADT_CPU_ENABLED;
		cpu.online_capable = flags & MADT_CPU_ONLINE_CAP;
		visit(&cpu, ctx);
	}
	return 0;
}

static void count_one(const struct acpi_cpu *cpu, void *ctx)
{
	struct acpi_cpu_count *count = ctx;

	if (cpu->enabled)
		count->enabled++;
	else if (cpu->online_capable)
		count->online_capable++;
	if (cpu->x2apic && (cpu->enabled || cpu->online_capable))
		count->x2apic_entries++;
}

int acpi_madt_count_cpus(const struct acpi_header *madt, size_t len,
			 struct acpi_cpu_count *count, char *why, size_t whylen)
{
	memset(count, 0, sizeof(*count));
	return madt_walk(madt, len, count_one, count, NULL, why, whylen);
}

struct cpu_list {
	struct acpi_cpu *cpus;
	unsigned int max;
	unsigned int count;
};

static void list_one(const struct acpi_cpu *cpu, void *ctx)
{
	struct cpu_list *list = ctx;

	if (list->count < list->max)
		list->cpus[list->count] = *cpu;
	list->count++;
}

int acpi_madt_cpus(const struct acpi_header *madt, size_t len,
		   struct acpi_cpu *cpus, unsigned int max, unsigned int *count,
		   uint64_t *lapic_base, char *why, size_t whylen)
{
	struct cpu_list list = { .cpus = cpus, .max = cpus ? max : 0 };
	int ret =
		madt_walk(madt, len, list_one, &list, lapic_base, why, whylen);

	if (count)
		*count = list.count;
	return ret;
}

/*
 * The interrupt controller entries of a MADT: IOAPICs (type 1) and ISA
 * interrupt source overrides (type 2).  The same length checks as
 * madt_walk(), plus each of these two types' own length.
 */
int acpi_madt_interrupts(const struct acpi_header *madt, size_t len,
			 struct acpi_madt_interrupts *out, char *why,
			 size_t whylen)
{
	const uint8_t *p = (const uint8_t *)madt;
	size_t off, elen;

	memset(out, 0, sizeof(*out));
	if (len < MADT_ENTRIES) {
		snprintf(why, whylen, "MADT is %zu bytes, shorter than 44",
			 len);
		return -1;
	}
	for (off = MADT_ENTRIES; off + 2 <= len; off += elen) {
		const uint8_t *e = p + off;
		size_t need = e[0] == MADT_TYPE_IOAPIC	   ? MADT_IOAPIC_LEN
			      : e[0] == MADT_TYPE_OVERRIDE ? MADT_OVERRIDE_LEN
							   : 2;

		elen = e[1];
		if (madt_entry_check(e, off, len, need, why, whylen))
			return -1;
		if (e[0] == MADT_TYPE_IOAPIC) {
			if (out->nr_ioapics < ACPI_MAX_IOAPICS) {
				struct acpi_ioapic *io =
					&out->ioapics[out->nr_ioapics];

				io->id = e[MADT_IOAPIC_ID];
				io->address = get32(e + MADT_IOAPIC_ADDR);
				io->gsi_base = get32(e + MADT_IOAPIC_GSI_BASE);
			}
			out->nr_ioapics++;
		} else if (e[0] == MADT_TYPE_OVERRIDE) {
			if (out->nr_overrides < ACPI_MAX_OVERRIDES) {
				struct acpi_irq_override *o =
					&out->overrides[out->nr_overrides];

				o->bus = e[MADT_OVERRIDE_BUS];
				o->source_irq = e[MADT_OVERRIDE_SOURCE];
				o->gsi = get32(e + MADT_OVERRIDE_GSI);
				o->flags = get16(e + MADT_OVERRIDE_FLAGS);
			}
			out->nr_overrides++;
		}
	}
	return 0;
}

void acpi_isa_irq_route(const struct acpi_madt_interrupts *m, unsigned int irq,
			struct acpi_isa_route *out)
{
	unsigned int i, n = m->nr_overrides < ACPI_MAX_OVERRIDES
				    ? m->nr_overrides
				    : ACPI_MAX_OVERRIDES;

	/* ISA's own conventions: GSI = IRQ, active high, edge. */
	*out = (struct acpi_isa_route){ .gsi = irq };
	for (i = 0; i < n; i++) {
		const struct acpi_irq_override *o = &m->overrides[i];

		if (o->bus != 0 || o->source_irq != irq)
			continue;
		out->gsi = o->gsi;
		out->overridden = true;
		out->active_low =
			(o->flags & MADT_POLARITY_MASK) == MADT_POLARITY_LOW;
		out->level =
			(o->flags & MADT_TRIGGER_MASK) == MADT_TRIGGER_LEVEL;
		return;
	}
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

/* Name of a generic address structure's address space id (5.2.3.2). */
static const char *gas_space_name(uint8_t id)
{
	static const char *const names[] = {
		"system memory",       "system I/O", "PCI configuration",
		"embedded controller", "SMBus",	     "CMOS",
		"PCI BAR target",      "IPMI",	     "GPIO",
		"generic serial bus",  "PCC",
	};

	if (id < sizeof(names) / sizeof(names[0]))
		return names[id];
	if (id == GAS_SPACE_FFH)
		return "functional fixed hardware";
	return id >= GAS_SPACE_OEM_FIRST ? "OEM defined" : "reserved";
}

int acpi_fadt_pm_timer(const struct acpi_header *fadt, size_t len,
		       struct acpi_pm_timer *out, char *why, size_t whylen)
{
	const uint8_t *p = (const uint8_t *)fadt;
	uint32_t flags;
	uint64_t port;
	uint8_t tmr_len;

	memset(out, 0, sizeof(*out));
	if (len < FADT_FLAGS + 4) {
		snprintf(why, whylen,
			 "FADT is %zu bytes, too short for its flags (%u)", len,
			 FADT_FLAGS + 4);
		return -1;
	}
	flags = get32(p + FADT_FLAGS);
	if (flags & FADT_HW_REDUCED_ACPI) {
		snprintf(why, whylen, "hardware-reduced ACPI has no PM timer");
		return -1;
	}
	/* The X_ field, when the FADT is long enough to have it, is the one
	 * meant to be used; an older, shorter FADT just lacks it. */
	if (len >= FADT_X_PM_TMR_BLK + GAS_LEN &&
	    get64(p + FADT_X_PM_TMR_BLK + GAS_ADDRESS)) {
		const uint8_t *gas = p + FADT_X_PM_TMR_BLK;

		out->source = "X_PM_TMR_BLK";
		port = get64(gas + GAS_ADDRESS);
		if (gas[GAS_SPACE_ID] != GAS_SPACE_IO) {
			snprintf(why, whylen,
				 "X_PM_TMR_BLK is in address space %u (%s); "
				 "only I/O is supported",
				 gas[GAS_SPACE_ID],
				 gas_space_name(gas[GAS_SPACE_ID]));
			return -1;
		}
	} else {
		out->source = "PM_TMR_BLK";
		port = get32(p + FADT_PM_TMR_BLK);
		if (!port) {
			snprintf(why, whylen,
				 "FADT has no PM timer (PM_TMR_BLK is 0)");
			return -1;
		}
	}
	/* Both forms describe the same 4-byte register. */
	tmr_len = p[FADT_PM_TMR_LEN];
	if (tmr_len != 4) {
		snprintf(why, whylen, "FADT PM_TMR_LEN is %u, not 4", tmr_len);
		return -1;
	}
	if (port > 0xffff - 3) {
		snprintf(why, whylen,
			 "%s 0x%llx is beyond the 64 KiB I/O port space",
			 out->source, (unsigned long long)port);
		return -1;
	}
	out->port = (uint32_t)port;
	out->is_32bit = flags & FADT_TMR_VAL_EXT;
	return 0;
}

int acpi_hpet_parse(const struct acpi_header *hpet, size_t len,
		    struct acpi_hpet_info *out, char *why, size_t whylen)
{
	const uint8_t *p = (const uint8_t *)hpet;
	uint8_t space;

	memset(out, 0, sizeof(*out));
	if (len < HPET_TABLE_LEN) {
		snprintf(why, whylen,
			 "HPET table is %zu bytes, shorter than %u", len,
			 HPET_TABLE_LEN);
		return -1;
	}
	space = p[HPET_BASE + GAS_SPACE_ID];
	out->base = get64(p + HPET_BASE + GAS_ADDRESS);
	out->block_id = get32(p + HPET_BLOCK_ID);
	out->number = p[HPET_NUMBER];
	out->min_tick = get16(p + HPET_MIN_TICK);
	out->page_protection = p[HPET_PAGE_PROTECTION];
	out->comparators = ((out->block_id >> 8) & 0x1f) + 1;
	if (space != GAS_SPACE_MEMORY) {
		snprintf(why, whylen,
			 "HPET base is in address space %u (%s); only system "
			 "memory is supported",
			 space, gas_space_name(space));
		return -1;
	}
	if (!out->base) {
		snprintf(why, whylen, "HPET base address is 0");
		return -1;
	}
	/* The register block is 1 KiB and must start on its own boundary. */
	if (out->base & (HPET_BLOCK_LEN - 1)) {
		snprintf(why, whylen, "HPET base 0x%llx is not 1 KiB aligned",
			 (unsigned long long)out->base);
		return -1;
	}
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
