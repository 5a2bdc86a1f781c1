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

#include "lib/boot_info.h"
#include "lib/phys.h"

#define ACPI_HEADER_LEN 36
/* A length beyond this is taken for corruption, not mapped: large server
 * DSDTs run to a few hundred KiB, and Xen PV's whole window for firmware
 * mappings is 1 MiB. */
#define ACPI_TABLE_MAX_LEN (1u << 20)
#define ACPI_RSDP_MAX_LEN  36 /* all of a revision 2 RSDP */
#define ACPI_MAX_WARNINGS  8
#define ACPI_WARNING_LEN   160

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
	/* The loader's memory map, when it describes the addresses @pm
	 * reads: a table that starts in memory it lists must end there too. */
	const struct boot_info *described;
	uint64_t rsdp_paddr; /* 0 when the RSDP came as a copy */
	const char
		*rsdp_from; /* "multiboot2 tag", "pvh", "EBDA", "BIOS area" */
	uint8_t rsdp_revision;
	uint8_t rsdp[ACPI_RSDP_MAX_LEN]; /* its bytes, as checked */
	size_t rsdp_len;		 /* 20, or its length field */
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
 * An RSDP longer than ACPI_RSDP_MAX_LEN is refused.  Returns 0, or -1 with
 * the reason in the first warning.
 */
int acpi_open(struct acpi *acpi, const struct phys_mapper *pm,
	      const uint8_t *rsdp, size_t rsdp_len, uint64_t rsdp_paddr,
	      const char *rsdp_from);

/**
 * acpi_open() with the memory map of @described (NULL: none), which must
 * list the addresses @pm reads.  A table that starts in memory the map
 * lists (RAM, reserved, ACPI or NVS, each to the ends of the pages it
 * touches, adjoining regions joined; the BIOS area 0xE0000-0xFFFFF always)
 * must end in it too: a length that runs into
 * the unlisted hole below 4 GiB, where devices answer, is refused as such
 * instead of being read.  A map that was cut short says nothing.  @described
 * is kept, not copied: it must outlive @acpi.
 */
int acpi_open_within(struct acpi *acpi, const struct phys_mapper *pm,
		     const struct boot_info *described, const uint8_t *rsdp,
		     size_t rsdp_len, uint64_t rsdp_paddr,
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

/**
 * The DSDT the FADT names (X_DSDT when set, else DSDT), checked in full as
 * acpi_entry() checks a table and with signature "DSDT", or NULL with a
 * warning.  *@len receives its length.
 */
const struct acpi_header *acpi_dsdt(struct acpi *acpi, size_t *len);

/* One table as acpi_for_each_table() hands it over. */
struct acpi_table_bytes {
	char signature[5]; /* "RSDP" for the RSDP */
	uint64_t paddr;	   /* 0 for an RSDP that came as a copy */
	const uint8_t *bytes;
	size_t len; /* all readable through @bytes */
};

/**
 * Hand @visit every table that can be read, in this order: the RSDP, the
 * root table, each valid root entry, then the DSDT.  Each table's bytes
 * come from one mapping of its whole length; invalid ones are left out,
 * with the warnings acpi_entry() and acpi_dsdt() give.
 */
void acpi_for_each_table(struct acpi *acpi,
			 void (*visit)(const struct acpi_table_bytes *t,
				       void *ctx),
			 void *ctx);

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

/* One processor entry of the MADT (type 0 LAPIC or type 9 x2APIC). */
struct acpi_cpu {
	uint32_t apic_id;    /* the local APIC (or x2APIC) ID, not an index */
	uint32_t uid;	     /* ACPI processor UID */
	bool enabled;	     /* usable now */
	bool online_capable; /* absent now, may be hot-added */
	bool x2apic;	     /* listed as a type 9 entry */
};

/**
 * List the processor entries of a MADT of @len bytes, in table order and
 * including disabled ones: up to @max go into @cpus, *@count receives how
 * many the table lists (which may exceed @max).  *@lapic_base receives the
 * local APIC's physical address (@36, or a type 5 override).  @cpus may be
 * NULL when @max is 0; @count and @lapic_base may be NULL.  Returns 0, or -1
 * with the reason in @why when the table is malformed (an entry's length is
 * below 2, runs past the table, or is short for its type).
 */
int acpi_madt_cpus(const struct acpi_header *madt, size_t len,
		   struct acpi_cpu *cpus, unsigned int max, unsigned int *count,
		   uint64_t *lapic_base, char *why, size_t whylen);

/* MADT: the IOAPICs and how ISA IRQs reach them. */
#define ACPI_MAX_IOAPICS   8
#define ACPI_MAX_OVERRIDES 16

struct acpi_ioapic {
	uint8_t id;
	uint32_t address;  /* physical address of its registers */
	uint32_t gsi_base; /* the GSI of its input 0 */
};

/* A type 2 entry: ISA IRQ @source_irq arrives at GSI @gsi. */
struct acpi_irq_override {
	uint8_t bus; /* 0: ISA */
	uint8_t source_irq;
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags: polarity bits 1:0, trigger 3:2 */
};

struct acpi_madt_interrupts {
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned int nr_ioapics; /* listed; only the first 8 are kept */
	struct acpi_irq_override overrides[ACPI_MAX_OVERRIDES];
	unsigned int nr_overrides; /* listed; only the first 16 are kept */
};

/**
 * The IOAPIC and interrupt source override entries of a MADT of @len
 * bytes, in table order.  Returns 0, or -1 with the reason in @why when
 * the table is malformed (as acpi_madt_cpus() judges it, and an IOAPIC
 * entry shorter than 12 bytes or an override shorter than 10).
 */
int acpi_madt_interrupts(const struct acpi_header *madt, size_t len,
			 struct acpi_madt_interrupts *out, char *why,
			 size_t whylen);

/* Where an ISA IRQ arrives and how it signals. */
struct acpi_isa_route {
	uint32_t gsi;
	bool active_low; /* else active high */
	bool level;	 /* else edge */
	bool overridden; /* an override said so; else ISA's defaults */
};

/**
 * The route of ISA IRQ @irq: an override's GSI, polarity and trigger
 * ("conforms to the bus" meaning ISA's active high, edge), else GSI @irq,
 * active high, edge.
 */
void acpi_isa_irq_route(const struct acpi_madt_interrupts *m, unsigned int irq,
			struct acpi_isa_route *out);

/* What the FADT tells about power-off. */
struct acpi_fadt_power {
	uint32_t pm1a_cnt_port;
	uint32_t pm1b_cnt_port;
	uint64_t dsdt_paddr;
};

/** Read the PM1 control ports and the DSDT address; -1 when too short. */
int acpi_fadt_power(const struct acpi_header *fadt, size_t len,
		    struct acpi_fadt_power *out);

/* The ACPI PM timer as the FADT describes it (3,579,545 Hz, counts up). */
struct acpi_pm_timer {
	uint32_t port;	    /* I/O port of the 32-bit timer register */
	bool is_32bit;	    /* FADT flag TMR_VAL_EXT; otherwise 24 bits count */
	const char *source; /* "X_PM_TMR_BLK" or "PM_TMR_BLK" */
};

/**
 * Read the PM timer from a FADT of @len bytes.  X_PM_TMR_BLK is preferred
 * when the FADT is long enough to hold it (220 bytes) and its address is not
 * 0; a FADT shorter than that simply has none.  Returns 0 when the FADT
 * describes a usable timer in I/O space, else -1 with the reason in @why
 * (no timer, PM_TMR_LEN not 4, hardware-reduced ACPI, not an I/O port, the
 * FADT too short for its flags at 112).
 */
int acpi_fadt_pm_timer(const struct acpi_header *fadt, size_t len,
		       struct acpi_pm_timer *out, char *why, size_t whylen);

/* What the ACPI "HPET" table says about one HPET block. */
struct acpi_hpet_info {
	uint64_t base;		  /* physical address of the register block */
	uint32_t block_id;	  /* event timer block id: vendor, counts */
	uint8_t number;		  /* HPET sequence number */
	uint16_t min_tick;	  /* minimum clock tick, in counter periods */
	uint8_t page_protection;  /* OEM page protection attribute */
	unsigned int comparators; /* block id bits 12:8, plus one */
};

/**
 * Parse an HPET table of @len bytes.  Returns 0, or -1 with the reason in
 * @why: shorter than 56 bytes, base not in system memory (address space 0),
 * base 0, or base not 1 KiB aligned (the register block is 1 KiB).
 */
int acpi_hpet_parse(const struct acpi_header *hpet, size_t len,
		    struct acpi_hpet_info *out, char *why, size_t whylen);

/**
 * Find the \_S5_ package in AML and return its first two values (SLP_TYPa
 * and SLP_TYPb) — enough for the simple packages firmware writes.  Returns
 * 0, or -1 when there is none or it is not of that simple shape.
 */
int acpi_aml_s5(const uint8_t *aml, size_t len, uint8_t *slp_typa,
		uint8_t *slp_typb);

#endif
