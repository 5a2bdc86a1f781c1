// SPDX-License-Identifier: MIT
/*
 * Normalising Multiboot 1, Multiboot 2 and PVH start information into
 * struct boot_info.  Pure C over a phys_mapper: the host unit tests feed it
 * structures built in memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <xen/arch-x86/hvm/start_info.h>

#include "lib/xen_abi.h"
#include "lib/boot_info.h"
#include "lib/error.h"
#include "lib/multiboot.h"

/* The largest Multiboot 2 tag list we accept (GRUB's are a few KiB). */
#define MB2_INFO_MAX (1u << 20)

const char *boot_protocol_name(int protocol)
{
	switch (protocol) {
	case BOOT_PROTO_MULTIBOOT1:
		return "multiboot1";
	case BOOT_PROTO_MULTIBOOT2:
		return "multiboot2";
	case BOOT_PROTO_PVH:
		return "pvh";
	case BOOT_PROTO_XEN_PV:
		return "xen-pv";
	default:
		return "unknown";
	}
}

const char *mem_type_name(uint32_t type)
{
	static const char *const names[] = {
		[MEM_RAM] = "RAM",
		[MEM_RESERVED] = "reserved",
		[MEM_ACPI] = "ACPI",
		[MEM_NVS] = "ACPI NVS",
		[MEM_UNUSABLE] = "unusable",
		[MEM_DISABLED] = "disabled",
		[MEM_PERSISTENT] = "persistent",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "other";
}

bool boot_info_ram_covers(const struct boot_info *bi, uint64_t start,
			  uint64_t end)
{
	unsigned int i, step;

	if (!bi->nr_memmap || bi->memmap_truncated)
		return true;
	/* Each step moves start past one RAM region that holds it. */
	for (step = 0; step < bi->nr_memmap && start < end; step++)
		for (i = 0; i < bi->nr_memmap; i++) {
			const struct mem_region *r = &bi->memmap[i];

			if (r->type == MEM_RAM && r->base <= start &&
			    start - r->base < r->size) {
				start = r->base + r->size;
				break;
			}
		}
	return start >= end;
}

static void add_region(struct boot_info *bi, uint64_t base, uint64_t size,
		       uint32_t type)
{
	if (type == MEM_RAM)
		bi->ram_bytes += size;
	if (bi->nr_memmap == BOOT_MEMMAP_MAX) {
		bi->memmap_truncated = true;
		return;
	}
	bi->memmap[bi->nr_memmap++] =
		(struct mem_region){ .base = base, .size = size, .type = type };
}

void boot_info_set_e820(struct boot_info *bi, const struct e820_entry *map,
			unsigned int n, const char *source)
{
	unsigned int i;

	bi->nr_memmap = 0;
	bi->ram_bytes = 0;
	bi->memmap_truncated = false;
	for (i = 0; i < n; i++)
		add_region(bi, map[i].addr, map[i].size, map[i].type);
	bi->memmap_source = source;
}

/*
 * Multiboot loaders put the image path first ("/boot/clockbench.elf
 * fault=ud"); options are all key=value, so a first word without '=' is
 * the path and is dropped.
 */
static void drop_image_path(char *cmdline)
{
	size_t word = strcspn(cmdline, " \t");

	if (word == 0 || memchr(cmdline, '=', word))
		return;
	word += strspn(cmdline + word, " \t");
	memmove(cmdline, cmdline + word, strlen(cmdline + word) + 1);
}

static int copy_cmdline(struct boot_info *bi, const struct phys_mapper *pm,
			uint64_t paddr, const char *what, char *err,
			size_t errlen)
{
	int truncated;

	if (phys_copy_string(pm, paddr, bi->cmdline, sizeof(bi->cmdline),
			     &truncated) < 0)
		return error_set(
			err, errlen,
			"%s: the command line at 0x%llx cannot be read", what,
			(unsigned long long)paddr);
	bi->cmdline_truncated = truncated;
	return 0;
}

static int parse_mb1(struct boot_info *bi, uint32_t magic, uint64_t paddr,
		     const struct phys_mapper *pm, char *err, size_t errlen)
{
	const struct mb1_info *mbi;
	int truncated;

	if (magic != MB1_BOOTLOADER_MAGIC)
		return error_set(
			err, errlen,
			"multiboot1: the loader's magic is 0x%08x, not 0x%08x",
			magic, MB1_BOOTLOADER_MAGIC);
	mbi = phys_map(pm, paddr, sizeof(*mbi));
	if (!mbi)
		return error_set(
			err, errlen,
			"multiboot1: the info structure at 0x%llx cannot "
			"be read",
			(unsigned long long)paddr);

	if ((mbi->flags & MB1_INFO_CMDLINE) &&
	    copy_cmdline(bi, pm, mbi->cmdline, "multiboot1", err, errlen))
		return -1;
	drop_image_path(bi->cmdline);
	if (mbi->flags & MB1_INFO_LOADER_NAME)
		phys_copy_string(pm, mbi->boot_loader_name, bi->loader,
				 sizeof(bi->loader), &truncated);

	if (mbi->flags & MB1_INFO_MEM_MAP) {
		uint64_t pos = mbi->mmap_addr;
		uint64_t end = pos + mbi->mmap_length;

		while (pos < end) {
			const struct mb1_mmap_entry *e =
				phys_map(pm, pos, sizeof(*e));

			if (!e || pos + sizeof(*e) > end ||
			    e->size < sizeof(*e) - sizeof(e->size))
				return error_set(
					err, errlen,
					"multiboot1: memory map entry at "
					"0x%llx is malformed or unreadable",
					(unsigned long long)pos);
			add_region(bi, e->base, e->length, e->type);
			pos += e->size + sizeof(e->size);
		}
	} else if (mbi->flags & MB1_INFO_MEMORY) {
		add_region(bi, 0, (uint64_t)mbi->mem_lower_kib << 10, MEM_RAM);
		add_region(bi, 1u << 20, (uint64_t)mbi->mem_upper_kib << 10,
			   MEM_RAM);
	}
	return 0;
}

static int parse_mb2_mmap(struct boot_info *bi, const struct mb2_tag *tag,
			  char *err, size_t errlen)
{
	const struct mb2_tag_mmap *mm = (const void *)tag;
	uint32_t off;

	if (tag->size < sizeof(*mm) ||
	    mm->entry_size < sizeof(struct mb2_mmap_entry))
		return error_set(
			err, errlen,
			"multiboot2: memory map tag has entry size %u in a "
			"tag of %u bytes",
			tag->size >= sizeof(*mm) ? mm->entry_size : 0,
			tag->size);
	/* The specification makes it one; any other puts the 64-bit fields
	 * of the entries after the first off their alignment. */
	if (mm->entry_size % MB2_MMAP_ENTRY_ALIGN)
		return error_set(
			err, errlen,
			"multiboot2: memory map entry size %u is not a "
			"multiple of %u",
			mm->entry_size, MB2_MMAP_ENTRY_ALIGN);
	/* Bounded by what is left of the tag, so that a huge entry size
	 * cannot wrap the 32-bit sum past it. */
	for (off = sizeof(*mm); mm->entry_size <= tag->size - off;
	     off += mm->entry_size) {
		const struct mb2_mmap_entry *e =
			(const void *)((const uint8_t *)tag + off);

		add_region(bi, e->base, e->length, e->type);
	}
	return 0;
}

static void copy_rsdp(struct boot_info *bi, const struct mb2_tag *tag)
{
	size_t len = tag->size - sizeof(*tag);

	if (len > sizeof(bi->rsdp_copy))
		len = sizeof(bi->rsdp_copy);
	memcpy(bi->rsdp_copy, tag + 1, len);
	bi->rsdp_copy_len = len;
}

static int parse_mb2(struct boot_info *bi, uint32_t magic, uint64_t paddr,
		     const struct phys_mapper *pm, char *err, size_t errlen)
{
	const struct mb2_info_header *hdr;
	const uint8_t *base;
	uint32_t off;
	bool have_mmap = false, have_new_rsdp = false, ended = false;

	if (magic != MB2_BOOTLOADER_MAGIC)
		return error_set(
			err, errlen,
			"multiboot2: the loader's magic is 0x%08x, not 0x%08x",
			magic, MB2_BOOTLOADER_MAGIC);
	/* Its tags hold 64-bit fields and are aligned to 8 from its start. */
	if (paddr % MB2_TAG_ALIGN)
		return error_set(err, errlen,
				 "multiboot2: the info structure at 0x%llx is "
				 "not %u-byte aligned",
				 (unsigned long long)paddr, MB2_TAG_ALIGN);
	hdr = phys_map(pm, paddr, sizeof(*hdr));
	if (!hdr)
		return error_set(
			err, errlen,
			"multiboot2: the info structure at 0x%llx cannot "
			"be read",
			(unsigned long long)paddr);
	if (hdr->total_size < sizeof(*hdr) + sizeof(struct mb2_tag) ||
	    hdr->total_size > MB2_INFO_MAX)
		return error_set(
			err, errlen,
			"multiboot2: the info structure claims %u bytes",
			hdr->total_size);
	base = phys_map(pm, paddr, hdr->total_size);
	if (!base)
		return error_set(
			err, errlen,
			"multiboot2: the %u-byte info structure at 0x%llx "
			"cannot be read",
			hdr->total_size, (unsigned long long)paddr);

	for (off = sizeof(*hdr);
	     off + sizeof(struct mb2_tag) <= hdr->total_size;
	     off = (off + ((const struct mb2_tag *)(base + off))->size +
		    MB2_TAG_ALIGN - 1) &
		   ~(MB2_TAG_ALIGN - 1)) {
		const struct mb2_tag *tag = (const void *)(base + off);
		const struct mb2_tag_basic_mem *mem = (const void *)tag;
		size_t payload;

		if (tag->size < sizeof(*tag) ||
		    tag->size > hdr->total_size - off)
			return error_set(
				err, errlen,
				"multiboot2: tag %u at offset %u has size "
				"%u, outside the %u-byte structure",
				tag->type, off, tag->size, hdr->total_size);
		payload = tag->size - sizeof(*tag);
		switch (tag->type) {
		case MB2_TAG_END:
			ended = true;
			break;
		case MB2_TAG_CMDLINE:
			bi->cmdline_truncated = payload > sizeof(bi->cmdline);
			snprintf(bi->cmdline, sizeof(bi->cmdline), "%.*s",
				 (int)payload, (const char *)(tag + 1));
			drop_image_path(bi->cmdline);
			break;
		case MB2_TAG_LOADER_NAME:
			snprintf(bi->loader, sizeof(bi->loader), "%.*s",
				 (int)payload, (const char *)(tag + 1));
			break;
		case MB2_TAG_BASIC_MEM:
			if (have_mmap || tag->size < sizeof(*mem))
				break;
			add_region(bi, 0, (uint64_t)mem->mem_lower_kib << 10,
				   MEM_RAM);
			add_region(bi, 1u << 20,
				   (uint64_t)mem->mem_upper_kib << 10, MEM_RAM);
			break;
		case MB2_TAG_MMAP:
			/* The map supersedes the basic lower/upper sizes. */
			bi->nr_memmap = 0;
			bi->ram_bytes = 0;
			bi->memmap_truncated = false;
			have_mmap = true;
			if (parse_mb2_mmap(bi, tag, err, errlen))
				return -1;
			break;
		case MB2_TAG_ACPI_NEW:
			have_new_rsdp = true;
			copy_rsdp(bi, tag);
			break;
		case MB2_TAG_ACPI_OLD:
			if (!have_new_rsdp)
				copy_rsdp(bi, tag);
			break;
		}
		if (ended)
			break;
	}
	if (!ended)
		return error_set(
			err, errlen,
			"multiboot2: the tag list has no end tag within %u "
			"bytes",
			hdr->total_size);
	return 0;
}

static int parse_pvh(struct boot_info *bi, uint64_t paddr,
		     const struct phys_mapper *pm, char *err, size_t errlen)
{
	const void *mapped = phys_map(pm, paddr, sizeof(struct hvm_start_info));
	struct hvm_start_info copy, *si = &copy;
	uint32_t i;

	if (!mapped)
		return error_set(err, errlen,
				 "pvh: hvm_start_info at 0x%llx cannot be read",
				 (unsigned long long)paddr);
	/* The ABI gives no alignment for it or the memory map, and their
	 * fields are 64-bit: both are read through copies. */
	memcpy(&copy, mapped, sizeof(copy));
	if (si->magic != XEN_HVM_START_MAGIC_VALUE)
		return error_set(
			err, errlen,
			"pvh: hvm_start_info magic is 0x%08x, not 0x%08x",
			si->magic, XEN_HVM_START_MAGIC_VALUE);
	if (si->cmdline_paddr &&
	    copy_cmdline(bi, pm, si->cmdline_paddr, "pvh", err, errlen))
		return -1;
	bi->rsdp_paddr = si->rsdp_paddr;
	/* Version 0 ends before the memory map fields. */
	if (si->version < 1 || si->memmap_entries == 0)
		return 0;
	for (i = 0; i < si->memmap_entries; i++) {
		struct hvm_memmap_table_entry entry;
		uint64_t at =
			si->memmap_paddr +
			(uint64_t)i * sizeof(struct hvm_memmap_table_entry);
		const void *e = phys_map(pm, at, sizeof(entry));

		if (!e)
			return error_set(
				err, errlen,
				"pvh: memory map entry %u of %u at 0x%llx "
				"cannot be read",
				i, si->memmap_entries, (unsigned long long)at);
		memcpy(&entry, e, sizeof(entry));
		add_region(bi, entry.addr, entry.size, entry.type);
	}
	return 0;
}

/* start_info's magic is "xen-<version>-<platform>"; this image is x86_64. */
#define XEN_START_MAGIC_PREFIX "xen-3.0-"
#define XEN_START_PLATFORM     "x86_64"

static int parse_xen_pv(struct boot_info *bi, uint64_t vaddr,
			const struct phys_mapper *pm, char *err, size_t errlen)
{
	const struct start_info *si;
	struct boot_xen_pv *x = &bi->xen;
	size_t len;

	/* Xen lays out every bootstrap element on a page of its own. */
	if (vaddr % PAGE_SIZE)
		return error_set(err, errlen,
				 "xen-pv: start_info at 0x%llx is not page "
				 "aligned",
				 (unsigned long long)vaddr);
	si = phys_map(pm, vaddr, sizeof(*si));
	if (!si)
		return error_set(err, errlen,
				 "xen-pv: start_info at 0x%llx cannot be read",
				 (unsigned long long)vaddr);
	len = strnlen(si->magic, sizeof(si->magic));
	if (len == sizeof(si->magic) ||
	    strncmp(si->magic, XEN_START_MAGIC_PREFIX,
		    strlen(XEN_START_MAGIC_PREFIX)) ||
	    strcmp(si->magic + strlen(XEN_START_MAGIC_PREFIX),
		   XEN_START_PLATFORM))
		return error_set(err, errlen,
				 "xen-pv: start_info magic is \"%.*s\", not "
				 "\"" XEN_START_MAGIC_PREFIX XEN_START_PLATFORM
				 "\"",
				 (int)len, si->magic);
	if (si->nr_pages == 0)
		return error_set(
			err, errlen,
			"xen-pv: start_info gives the domain no pages");
	if (si->shared_info == 0 || si->shared_info % PAGE_SIZE)
		return error_set(err, errlen,
				 "xen-pv: shared_info machine address 0x%llx "
				 "is not a page",
				 (unsigned long long)si->shared_info);
	memcpy(x->magic, si->magic, len);
	x->magic[len] = '\0';
	x->flags = si->flags;
	x->dom0 = si->flags & SIF_INITDOMAIN;
	x->privileged = si->flags & SIF_PRIVILEGED;
	x->nr_pages = si->nr_pages;
	x->shared_info_maddr = si->shared_info;
	x->mfn_list = si->mfn_list;
	x->pt_base = si->pt_base;
	x->nr_pt_frames = si->nr_pt_frames;
	if (!x->dom0) {
		x->console_mfn = si->console.domU.mfn;
		x->console_evtchn = si->console.domU.evtchn;
	}

	/* cmd_line need not be terminated when it is full. */
	len = strnlen((const char *)si->cmd_line, sizeof(si->cmd_line));
	bi->cmdline_truncated = len >= sizeof(bi->cmdline);
	if (bi->cmdline_truncated)
		len = sizeof(bi->cmdline) - 1;
	memcpy(bi->cmdline, si->cmd_line, len);
	bi->cmdline[len] = '\0';
	drop_image_path(bi->cmdline);

	snprintf(bi->loader, sizeof(bi->loader), "Xen (%s%s)",
		 x->dom0 ? "dom0" : "domU",
		 x->privileged && !x->dom0 ? ", privileged" : "");
	/* A PV guest's memory is pseudo-physical frames 0..nr_pages-1. */
	add_region(bi, 0, si->nr_pages * PAGE_SIZE, MEM_RAM);
	return 0;
}

int boot_info_parse(struct boot_info *bi, int protocol, uint32_t magic,
		    uint64_t info_paddr, const struct phys_mapper *pm,
		    char *err, size_t errlen)
{
	memset(bi, 0, sizeof(*bi));
	bi->protocol = protocol;
	err[0] = '\0';
	switch (protocol) {
	case BOOT_PROTO_MULTIBOOT1:
		return parse_mb1(bi, magic, info_paddr, pm, err, errlen);
	case BOOT_PROTO_MULTIBOOT2:
		return parse_mb2(bi, magic, info_paddr, pm, err, errlen);
	case BOOT_PROTO_PVH:
		return parse_pvh(bi, info_paddr, pm, err, errlen);
	case BOOT_PROTO_XEN_PV:
		return parse_xen_pv(bi, info_paddr, pm, err, errlen);
	default:
		return error_set(err, errlen, "unknown boot protocol %d",
				 protocol);
	}
}
