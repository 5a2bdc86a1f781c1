/* SPDX-License-Identifier: MIT */
/*
 * The parts of the Multiboot 1 and Multiboot 2 information structures that
 * clockbench reads, as the two specifications lay them out.
 */
#ifndef CLOCKBENCH_LIB_MULTIBOOT_H
#define CLOCKBENCH_LIB_MULTIBOOT_H

#include <stdint.h>

#define MB1_BOOTLOADER_MAGIC 0x2badb002
#define MB2_BOOTLOADER_MAGIC 0x36d76289

/* Multiboot 1 info flags: which fields are valid. */
#define MB1_INFO_MEMORY	     (1u << 0)
#define MB1_INFO_CMDLINE     (1u << 2)
#define MB1_INFO_MEM_MAP     (1u << 6)
#define MB1_INFO_LOADER_NAME (1u << 9)

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower_kib;
	uint32_t mem_upper_kib;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count;
	uint32_t mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length;
	uint32_t mmap_addr;
	uint32_t drives_length;
	uint32_t drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
} __attribute__((packed));

/* Each entry is preceded by its size, which does not count itself. */
struct mb1_mmap_entry {
	uint32_t size;
	uint64_t base;
	uint64_t length;
	uint32_t type;
} __attribute__((packed));

struct mb2_info_header {
	uint32_t total_size;
	uint32_t reserved;
};

struct mb2_tag {
	uint32_t type;
	uint32_t size;
};

#define MB2_TAG_END	    0
#define MB2_TAG_CMDLINE	    1
#define MB2_TAG_LOADER_NAME 2
#define MB2_TAG_BASIC_MEM   4
#define MB2_TAG_MMAP	    6
#define MB2_TAG_ACPI_OLD    14
#define MB2_TAG_ACPI_NEW    15
#define MB2_TAG_ALIGN	    8

struct mb2_tag_basic_mem {
	struct mb2_tag tag;
	uint32_t mem_lower_kib;
	uint32_t mem_upper_kib;
};

struct mb2_tag_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;
	uint32_t entry_version;
};

/* entry_size is a multiple of this (the specification says so). */
#define MB2_MMAP_ENTRY_ALIGN 8

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
	uint32_t reserved;
};

#endif
