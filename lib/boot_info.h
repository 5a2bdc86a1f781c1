/* SPDX-License-Identifier: MIT */
/*
 * struct boot_info: what every boot protocol tells the kernel, in one
 * shape.  Each head passes its protocol number, the loader's magic and the
 * physical address of the loader's structure; boot_info_parse() checks and
 * copies what it needs, so nothing later reads loader memory again.
 */
#ifndef CLOCKBENCH_LIB_BOOT_INFO_H
#define CLOCKBENCH_LIB_BOOT_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"
#include "lib/phys.h"

#define BOOT_CMDLINE_MAX 1024
#define BOOT_MEMMAP_MAX	 64
#define BOOT_LOADER_MAX	 64
#define ACPI_RSDP_V2_LEN 36

/* Memory map entry types, numbered as ACPI (and every protocol here) does. */
enum mem_type {
	MEM_RAM = 1,
	MEM_RESERVED = 2,
	MEM_ACPI = 3,
	MEM_NVS = 4,
	MEM_UNUSABLE = 5,
	MEM_DISABLED = 6,
	MEM_PERSISTENT = 7,
};

struct mem_region {
	uint64_t base;
	uint64_t size;
	uint32_t type; /* enum mem_type, or whatever else the loader said */
};

/* What a Xen PV guest learns from start_info, beyond the common fields. */
struct boot_xen_pv {
	char magic[32];		    /* "xen-3.0-x86_64" */
	uint32_t flags;		    /* SIF_* */
	bool dom0;		    /* SIF_INITDOMAIN */
	bool privileged;	    /* SIF_PRIVILEGED */
	uint64_t nr_pages;	    /* pages this domain owns */
	uint64_t shared_info_maddr; /* machine address of shared_info */
	uint64_t mfn_list;	    /* virtual address of the p2m list */
	uint64_t pt_base;	    /* virtual address of the boot L4 table */
	uint64_t nr_pt_frames;
	/* domU: the console ring's machine frame and event channel; dom0
	 * has none and writes through console_io. */
	uint64_t console_mfn;
	uint32_t console_evtchn;
};

struct boot_info {
	int protocol; /* BOOT_PROTO_* */
	char cmdline
		[BOOT_CMDLINE_MAX]; /* options only, without an image path */
	bool cmdline_truncated;
	char loader[BOOT_LOADER_MAX]; /* boot loader name, "" when not given */
	struct mem_region memmap[BOOT_MEMMAP_MAX];
	unsigned int nr_memmap;
	bool memmap_truncated;
	uint64_t ram_bytes; /* sum of MEM_RAM regions (or mem_lower/upper) */
	/* ESP as the loader left it at the 32-bit entry (the platform's
	 * boot code keeps it), when known. */
	bool entry_esp_known;
	uint32_t entry_esp;
	/* Who gave the memory map when the loader did not ("Xen's
	 * XENMEM_memory_map"), or NULL. */
	const char *memmap_source;
	/* ACPI RSDP: multiboot 2 hands a copy, PVH an address; neither for
	 * multiboot 1, where it must be searched for. */
	uint8_t rsdp_copy[ACPI_RSDP_V2_LEN];
	size_t rsdp_copy_len;
	uint64_t rsdp_paddr;
	struct boot_xen_pv xen; /* BOOT_PROTO_XEN_PV only */
};

/** The protocol's name as reports print it: "multiboot1", "pvh", ... */
const char *boot_protocol_name(int protocol);

/**
 * Fill @bi from the loader structure at @info_paddr, read through @pm (for
 * BOOT_PROTO_XEN_PV, the virtual address of start_info).
 * Returns 0, or -1 with one sentence in @err saying what was wrong (bad
 * magic, a structure that runs past what is mapped, a malformed tag).
 */
int boot_info_parse(struct boot_info *bi, int protocol, uint32_t magic,
		    uint64_t info_paddr, const struct phys_mapper *pm,
		    char *err, size_t errlen);

/**
 * Whether the memory map lists [@start, @end) as RAM, in one region or in
 * several that adjoin.  True when the map cannot say otherwise: the loader
 * gave none, or it was cut short.
 */
bool boot_info_ram_covers(const struct boot_info *bi, uint64_t start,
			  uint64_t end);

/* One entry of a memory map in the BIOS E820 layout, as Xen's
 * XENMEM_memory_map returns them (20 bytes, packed). */
struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
} __attribute__((packed));

/**
 * Take @n entries of an E820-layout memory map as @bi's memory map, for a
 * boot whose loader gave none (a Xen PVH dom0); @source says who gave it.
 */
void boot_info_set_e820(struct boot_info *bi, const struct e820_entry *map,
			unsigned int n, const char *source);

/** Short name of a memory type: "RAM", "reserved", "ACPI", ... */
const char *mem_type_name(uint32_t type);

#endif
