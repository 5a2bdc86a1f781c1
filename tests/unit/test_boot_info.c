// SPDX-License-Identifier: MIT
/*
 * Unit tests: struct boot_info from Multiboot 1, Multiboot 2, PVH and Xen
 * PV start_info structures built in memory (lib/boot_info.c,
 * lib/phys.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <xen/arch-x86/hvm/start_info.h>

#include "lib/xen_abi.h"
#include "lib/boot_info.h"
#include "lib/multiboot.h"

/* Fake physical memory: MEM_SIZE bytes at physical address MEM_BASE. */
#define MEM_BASE 0x10000
#define MEM_SIZE 0x4000

static uint8_t mem[MEM_SIZE] __attribute__((aligned(8)));
static struct boot_info bi;
static char err[256];

static const void *fake_map(void *ctx, uint64_t paddr, size_t len)
{
	(void)ctx;
	if (paddr < MEM_BASE || paddr - MEM_BASE > MEM_SIZE ||
	    len > MEM_SIZE - (paddr - MEM_BASE))
		return NULL;
	return mem + (paddr - MEM_BASE);
}

static const struct phys_mapper fake = { .map = fake_map };

static void *at(uint32_t off)
{
	return mem + off;
}

static uint32_t paddr(uint32_t off)
{
	return MEM_BASE + off;
}

static int setup(void **state)
{
	(void)state;
	memset(mem, 0, sizeof(mem));
	memset(err, 0, sizeof(err));
	return 0;
}

/* --- Multiboot 1 ---------------------------------------------------------- */

static struct mb1_info *mb1_basic(const char *cmdline)
{
	struct mb1_info *mbi = at(0x100);

	mbi->flags = MB1_INFO_CMDLINE | MB1_INFO_LOADER_NAME;
	strcpy(at(0x400), cmdline);
	mbi->cmdline = paddr(0x400);
	strcpy(at(0x600), "qemu");
	mbi->boot_loader_name = paddr(0x600);
	return mbi;
}

static void mb1_add_mmap(struct mb1_info *mbi)
{
	static const struct {
		uint64_t base, len;
		uint32_t type;
	} regions[] = {
		{ 0, 0x9fc00, MEM_RAM },
		{ 0xf0000, 0x10000, MEM_RESERVED },
		{ 0x100000, 0x1f00000, MEM_RAM },
	};
	struct mb1_mmap_entry *e = at(0x800);
	size_t i;

	for (i = 0; i < 3; i++)
		e[i] = (struct mb1_mmap_entry){ .size = 20,
						.base = regions[i].base,
						.length = regions[i].len,
						.type = regions[i].type };
	mbi->flags |= MB1_INFO_MEM_MAP;
	mbi->mmap_addr = paddr(0x800);
	mbi->mmap_length = 3 * sizeof(*e);
}

static void mb1_full(void **state)
{
	struct mb1_info *mbi = mb1_basic("/tmp/clockbench-mb1.elf verbose=1");

	(void)state;
	mb1_add_mmap(mbi);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_string_equal(boot_protocol_name(bi.protocol), "multiboot1");
	assert_string_equal(bi.cmdline, "verbose=1");
	assert_string_equal(bi.loader, "qemu");
	assert_int_equal(bi.nr_memmap, 3);
	assert_int_equal(bi.memmap[2].base, 0x100000);
	assert_int_equal(bi.memmap[1].type, MEM_RESERVED);
	assert_int_equal(bi.ram_bytes, 0x9fc00 + 0x1f00000);
	assert_int_equal(bi.rsdp_copy_len, 0);
	assert_int_equal(bi.rsdp_paddr, 0);
}

static void mb1_options_only_command_line_is_kept(void **state)
{
	(void)state;
	mb1_basic("fault=ud exit=halt");
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_string_equal(bi.cmdline, "fault=ud exit=halt");
	mb1_basic("/boot/clockbench.elf");
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_string_equal(bi.cmdline, "");
}

static void mb1_memory_sizes_without_a_map(void **state)
{
	struct mb1_info *mbi = mb1_basic("x");

	(void)state;
	mbi->flags |= MB1_INFO_MEMORY;
	mbi->mem_lower_kib = 639;
	mbi->mem_upper_kib = 31 * 1024;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_int_equal(bi.nr_memmap, 2);
	assert_int_equal(bi.ram_bytes, (639 + 31 * 1024) * 1024ull);
}

static void mb1_bad_magic(void **state)
{
	(void)state;
	mb1_basic("x");
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1, 0x1234,
					 paddr(0x100), &fake, err, sizeof(err)),
			 -1);
	assert_string_equal(
		err,
		"multiboot1: the loader's magic is 0x00001234, not 0x2badb002");
}

static void mb1_unreadable_pointers(void **state)
{
	struct mb1_info *mbi;

	(void)state;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, 0x200, &fake,
					 err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "info structure at 0x200 cannot be read"));

	mbi = mb1_basic("x");
	mbi->cmdline = 0x90000000;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "command line at 0x90000000"));
}

static void mb1_malformed_map_entry(void **state)
{
	struct mb1_info *mbi = mb1_basic("x");
	struct mb1_mmap_entry *e = at(0x800);

	(void)state;
	mb1_add_mmap(mbi);
	e[1].size = 4; /* smaller than the entry it describes */
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "memory map entry at"));
}

static void long_command_line_is_truncated(void **state)
{
	char *line = at(0x1000);

	(void)state;
	mb1_basic("x");
	memset(line, 'a', 2000);
	line[0] = 'k';
	line[1] = '=';
	line[2000] = '\0';
	((struct mb1_info *)at(0x100))->cmdline = paddr(0x1000);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT1,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_true(bi.cmdline_truncated);
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
}

/* --- Multiboot 2 ---------------------------------------------------------- */

/* Append a tag of @type with @len payload bytes at *@off; 8-byte aligned. */
static void mb2_tag(uint32_t *off, uint32_t type, const void *payload,
		    uint32_t len)
{
	struct mb2_tag *tag = at(*off);

	tag->type = type;
	tag->size = sizeof(*tag) + len;
	if (len)
		memcpy(tag + 1, payload, len);
	*off = (*off + tag->size + 7) & ~7u;
}

static uint32_t mb2_build(bool with_end, bool acpi_new)
{
	uint8_t rsdp[36] = "RSD PTR ";
	struct {
		uint32_t entry_size, entry_version;
		struct mb2_mmap_entry e[2];
	} mmap = { sizeof(struct mb2_mmap_entry),
		   0,
		   { { 0, 0x9fc00, MEM_RAM, 0 },
		     { 0x100000, 0x3f00000, MEM_RAM, 0 } } };
	uint32_t basic[2] = { 639, 1024 };
	uint32_t off = 0x108;

	mb2_tag(&off, MB2_TAG_CMDLINE, "verbose=1", 10);
	mb2_tag(&off, MB2_TAG_LOADER_NAME, "GRUB 2.06", 10);
	mb2_tag(&off, MB2_TAG_BASIC_MEM, basic, sizeof(basic));
	mb2_tag(&off, MB2_TAG_MMAP, &mmap, sizeof(mmap));
	rsdp[15] = 0;
	mb2_tag(&off, MB2_TAG_ACPI_OLD, rsdp, 20);
	if (acpi_new) {
		rsdp[15] = 2;
		mb2_tag(&off, MB2_TAG_ACPI_NEW, rsdp, 36);
	}
	if (with_end)
		mb2_tag(&off, MB2_TAG_END, NULL, 0);
	((struct mb2_info_header *)at(0x100))->total_size = off - 0x100;
	return off - 0x100;
}

static void mb2_full(void **state)
{
	(void)state;
	mb2_build(true, true);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_string_equal(bi.cmdline, "verbose=1");
	assert_string_equal(bi.loader, "GRUB 2.06");
	/* The map replaces the basic sizes. */
	assert_int_equal(bi.nr_memmap, 2);
	assert_int_equal(bi.ram_bytes, 0x9fc00 + 0x3f00000);
	/* The ACPI 2.0 copy wins over the 1.0 one. */
	assert_int_equal(bi.rsdp_copy_len, 36);
	assert_int_equal(bi.rsdp_copy[15], 2);
	assert_memory_equal(bi.rsdp_copy, "RSD PTR ", 8);
}

static void mb2_old_rsdp_only(void **state)
{
	(void)state;
	mb2_build(true, false);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_int_equal(bi.rsdp_copy_len, 20);
	assert_int_equal(bi.rsdp_copy[15], 0);
}

static void mb2_without_end_tag(void **state)
{
	(void)state;
	mb2_build(false, true);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "no end tag"));
}

static void mb2_tag_past_the_end(void **state)
{
	struct mb2_tag *first = at(0x108);

	(void)state;
	mb2_build(true, true);
	first->size = 0x10000;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "tag 1 at offset 8 has size 65536"));
	first->size = 4; /* smaller than a tag header */
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
}

static void mb2_bad_total_size(void **state)
{
	(void)state;
	mb2_build(true, true);
	((struct mb2_info_header *)at(0x100))->total_size = MEM_SIZE;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "cannot be read"));
	((struct mb2_info_header *)at(0x100))->total_size = 4;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "claims 4 bytes"));
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB1_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "not 0x36d76289"));
}

/*
 * The fuzzer's reproducer: a memory map tag whose entry size, 0xfffffff8,
 * wraps the 32-bit "offset + entry size" below the tag's size.  The parser
 * then read a 24-byte entry past the tag, and the end of the structure,
 * placed here at the end of the fake memory, so that ASan sees any read
 * past it (and then stepped backwards through the tag).
 */
static void mb2_mmap_entry_size_cannot_wrap(void **state)
{
	const uint32_t total = 32, start = MEM_SIZE - total;
	uint32_t mmap_head[2] = { 0xfffffff8, 0 };
	uint32_t off = start + 8;

	(void)state;
	mb2_tag(&off, MB2_TAG_MMAP, mmap_head, sizeof(mmap_head));
	mb2_tag(&off, MB2_TAG_END, NULL, 0);
	assert_int_equal(off, MEM_SIZE);
	((struct mb2_info_header *)at(start))->total_size = total;
	/* A tag too short for one entry of that size holds none. */
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(start),
					 &fake, err, sizeof(err)),
			 0);
	assert_int_equal(bi.nr_memmap, 0);
	assert_int_equal(bi.ram_bytes, 0);
}

/* An entry size off the 8-byte multiple the specification demands, and an
 * info structure off its 8-byte alignment, are refused in words. */
static void mb2_misaligned_map_and_structure(void **state)
{
	struct mb2_tag_mmap *mm;

	(void)state;
	mb2_build(true, true);
	mm = at(0x108 + 24 + 24 + 16); /* after cmdline, loader, sizes */
	assert_int_equal(mm->tag.type, MB2_TAG_MMAP);
	mm->entry_size = 28;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "multiboot2: memory map entry size 28 is "
				 "not a multiple of 8");
	mm->entry_size = sizeof(struct mb2_mmap_entry);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_MULTIBOOT2,
					 MB2_BOOTLOADER_MAGIC, paddr(0x104),
					 &fake, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "multiboot2: the info structure at 0x10104 "
				 "is not 8-byte aligned");
}

/* --- PVH ------------------------------------------------------------------ */

static struct hvm_start_info *pvh_build(void)
{
	struct hvm_start_info *si = at(0x100);
	struct hvm_memmap_table_entry *map = at(0x800);

	si->magic = XEN_HVM_START_MAGIC_VALUE;
	si->version = 1;
	strcpy(at(0x400), "verbose=1 exit=halt");
	si->cmdline_paddr = paddr(0x400);
	si->rsdp_paddr = 0xf5a40;
	map[0] = (struct hvm_memmap_table_entry){ 0, 0x9fc00,
						  XEN_HVM_MEMMAP_TYPE_RAM, 0 };
	map[1] = (struct hvm_memmap_table_entry){ 0xfeffc000, 0x4000,
						  XEN_HVM_MEMMAP_TYPE_RESERVED,
						  0 };
	map[2] = (struct hvm_memmap_table_entry){ 0x100000, 0x1f00000,
						  XEN_HVM_MEMMAP_TYPE_RAM, 0 };
	si->memmap_paddr = paddr(0x800);
	si->memmap_entries = 3;
	return si;
}

static void pvh_full(void **state)
{
	(void)state;
	pvh_build();
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_PVH, 0, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_string_equal(boot_protocol_name(bi.protocol), "pvh");
	/* PVH passes only the options, so nothing is dropped. */
	assert_string_equal(bi.cmdline, "verbose=1 exit=halt");
	assert_int_equal(bi.rsdp_paddr, 0xf5a40);
	assert_int_equal(bi.nr_memmap, 3);
	assert_int_equal(bi.memmap[1].type, MEM_RESERVED);
	assert_int_equal(bi.ram_bytes, 0x9fc00 + 0x1f00000);
}

static void pvh_version_0_has_no_map(void **state)
{
	(void)state;
	pvh_build()->version = 0;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_PVH, 0, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_int_equal(bi.nr_memmap, 0);
	assert_string_equal(bi.cmdline, "verbose=1 exit=halt");
}

static void pvh_bad_magic_and_map(void **state)
{
	struct hvm_start_info *si = pvh_build();

	(void)state;
	si->memmap_entries = 1000; /* runs past readable memory */
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_PVH, 0, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "memory map entry"));
	si->magic = 0xdeadbeef;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_PVH, 0, paddr(0x100),
					 &fake, err, sizeof(err)),
			 -1);
	assert_string_equal(
		err, "pvh: hvm_start_info magic is 0xdeadbeef, not 0x336ec578");
}

static void memory_map_overflow_is_flagged(void **state)
{
	struct hvm_start_info *si = pvh_build();
	struct hvm_memmap_table_entry *map = at(0x800);
	unsigned int i;

	(void)state;
	for (i = 0; i < BOOT_MEMMAP_MAX + 5; i++)
		map[i] = (struct hvm_memmap_table_entry){
			(uint64_t)i << 20, 1 << 20, XEN_HVM_MEMMAP_TYPE_RAM, 0
		};
	si->memmap_entries = BOOT_MEMMAP_MAX + 5;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_PVH, 0, paddr(0x100),
					 &fake, err, sizeof(err)),
			 0);
	assert_int_equal(bi.nr_memmap, BOOT_MEMMAP_MAX);
	assert_true(bi.memmap_truncated);
	/* RAM is still counted in full. */
	assert_int_equal(bi.ram_bytes, (uint64_t)(BOOT_MEMMAP_MAX + 5) << 20);
}

/* Whether a range lies in RAM: one region, adjoining ones, a gap, a hole. */
static void ram_covers(void **state)
{
	static const struct mem_region map[] = {
		{ 0, 0x9fc00, MEM_RAM },
		{ 0x9fc00, 0x400, MEM_RESERVED },
		{ 0x100000, 0x300000, MEM_RAM },
		{ 0x400000, 0x200000, MEM_RAM }, /* adjoins the one before */
		{ 0x600000, 0x100000, MEM_ACPI },
		{ 0x800000, 0x100000, MEM_RAM },
	};

	(void)state;
	memset(&bi, 0, sizeof(bi));
	/* No map: nothing says otherwise. */
	assert_true(boot_info_ram_covers(&bi, 0x100000, 0x7c0000));
	memcpy(bi.memmap, map, sizeof(map));
	bi.nr_memmap = sizeof(map) / sizeof(map[0]);
	assert_true(boot_info_ram_covers(&bi, 0x100000, 0x400000));
	assert_true(boot_info_ram_covers(&bi, 0x100000, 0x600000));
	assert_true(boot_info_ram_covers(&bi, 0x0, 0x9fc00));
	/* Into ACPI tables, across a reserved page, past the end. */
	assert_false(boot_info_ram_covers(&bi, 0x100000, 0x7c0000));
	assert_false(boot_info_ram_covers(&bi, 0x9f000, 0xa0000));
	assert_false(boot_info_ram_covers(&bi, 0x800000, 0x900001));
	assert_false(boot_info_ram_covers(&bi, 0xa00000, 0xa00001));
	/* An empty range is always covered. */
	assert_true(boot_info_ram_covers(&bi, 0x650000, 0x650000));
	/* A map cut short cannot say. */
	bi.memmap_truncated = true;
	assert_true(boot_info_ram_covers(&bi, 0x100000, 0x7c0000));
}

/* --- Xen PV start_info ------------------------------------------------------ */

/* start_info is on a page of its own, as Xen places it. */
#define XEN_SI_OFF 0x1000

/* start_info as Xen 4.17 filled it for a dom0 here (flags 0x303 seen). */
static struct start_info *xen_pv_build(uint32_t flags)
{
	struct start_info *si = at(XEN_SI_OFF);

	_Static_assert(XEN_SI_OFF + sizeof(struct start_info) <= MEM_SIZE,
		       "start_info fits the fake memory");
	strcpy(si->magic, "xen-3.0-x86_64");
	si->nr_pages = 32768; /* 128 MiB */
	si->shared_info = 0x1fbff000;
	si->flags = flags;
	si->pt_base = 0x5e9000;
	si->nr_pt_frames = 6;
	si->mfn_list = 0x5a9000;
	si->console.domU.mfn = 0x1234;
	si->console.domU.evtchn = 3;
	strcpy((char *)si->cmd_line, "/boot/clockbench-xenpv.elf verbose=1");
	return si;
}

static void xen_pv_dom0(void **state)
{
	(void)state;
	xen_pv_build(SIF_PRIVILEGED | SIF_INITDOMAIN | 0x300);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 0);
	assert_string_equal(boot_protocol_name(bi.protocol), "xen-pv");
	assert_string_equal(bi.cmdline, "verbose=1");
	assert_string_equal(bi.loader, "Xen (dom0)");
	assert_true(bi.xen.dom0);
	assert_true(bi.xen.privileged);
	assert_string_equal(bi.xen.magic, "xen-3.0-x86_64");
	assert_int_equal(bi.xen.shared_info_maddr, 0x1fbff000);
	/* dom0's console union holds info_off/size, not a ring. */
	assert_int_equal(bi.xen.console_mfn, 0);
	assert_int_equal(bi.nr_memmap, 1);
	assert_int_equal(bi.ram_bytes, 128ull << 20);
	assert_int_equal(bi.rsdp_paddr, 0);
}

static void xen_pv_domu(void **state)
{
	(void)state;
	xen_pv_build(0);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 0);
	assert_string_equal(bi.loader, "Xen (domU)");
	assert_false(bi.xen.dom0);
	assert_int_equal(bi.xen.console_mfn, 0x1234);
	assert_int_equal(bi.xen.console_evtchn, 3);
}

static void xen_pv_full_command_line_is_truncated(void **state)
{
	struct start_info *si = xen_pv_build(SIF_INITDOMAIN);

	(void)state;
	/* A full cmd_line need not be terminated. */
	memset(si->cmd_line, 'a', sizeof(si->cmd_line));
	memcpy(si->cmd_line, "x=", 2);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 0);
	assert_true(bi.cmdline_truncated);
	assert_int_equal(strlen(bi.cmdline), sizeof(bi.cmdline) - 1);
}

static void xen_pv_bad_start_info(void **state)
{
	struct start_info *si = xen_pv_build(SIF_INITDOMAIN);

	(void)state;
	strcpy(si->magic, "xen-3.0-x86_32p");
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 -1);
	assert_string_equal(err, "xen-pv: start_info magic is "
				 "\"xen-3.0-x86_32p\", not \"xen-3.0-x86_64\"");
	memset(si->magic, 'x', sizeof(si->magic)); /* unterminated */
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 -1);
	xen_pv_build(SIF_INITDOMAIN)->shared_info = 0x1fbff800;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "is not a page"));
	xen_pv_build(SIF_INITDOMAIN)->nr_pages = 0;
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF), &fake, err,
					 sizeof(err)),
			 -1);
	assert_string_equal(err,
			    "xen-pv: start_info gives the domain no pages");
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(MEM_SIZE), &fake, err,
					 sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "cannot be read"));
	/* Off its page, its 64-bit fields would be misaligned too. */
	xen_pv_build(SIF_INITDOMAIN);
	assert_int_equal(boot_info_parse(&bi, BOOT_PROTO_XEN_PV, 0,
					 paddr(XEN_SI_OFF + 8), &fake, err,
					 sizeof(err)),
			 -1);
	assert_string_equal(err, "xen-pv: start_info at 0x11008 is not page "
				 "aligned");
}

static void unknown_protocol(void **state)
{
	(void)state;
	assert_int_equal(boot_info_parse(&bi, 99, 0, paddr(0x100), &fake, err,
					 sizeof(err)),
			 -1);
	assert_string_equal(err, "unknown boot protocol 99");
	assert_string_equal(boot_protocol_name(99), "unknown");
	assert_string_equal(mem_type_name(MEM_NVS), "ACPI NVS");
	assert_string_equal(mem_type_name(1234), "other");
}

/* A PVH dom0's start info has no memory map: Xen's E820 map replaces
 * whatever was there, with who gave it. */
static void e820_map_from_xen(void **state)
{
	static const struct e820_entry map[] = {
		{ 0, 0x9f000, MEM_RAM },
		{ 0xf0000, 0x10000, MEM_RESERVED },
		{ 0x100000, 0x7f00000, MEM_RAM },
		{ 0xfc000000, 0x1000, MEM_ACPI },
	};

	(void)state;
	assert_int_equal(sizeof(map[0]), 20);
	bi.nr_memmap = 1;
	bi.ram_bytes = 1;
	boot_info_set_e820(&bi, map, 4, "Xen (XENMEM_memory_map)");
	assert_int_equal(bi.nr_memmap, 4);
	assert_int_equal(bi.ram_bytes, 0x9f000 + 0x7f00000);
	assert_int_equal(bi.memmap[3].base, 0xfc000000);
	assert_int_equal(bi.memmap[3].type, MEM_ACPI);
	assert_false(bi.memmap_truncated);
	assert_string_equal(bi.memmap_source, "Xen (XENMEM_memory_map)");
	assert_true(boot_info_ram_covers(&bi, 0x100000, 0x200000));
	assert_false(boot_info_ram_covers(&bi, 0x9f000, 0x100000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(mb1_full, setup),
		cmocka_unit_test_setup(mb1_options_only_command_line_is_kept,
				       setup),
		cmocka_unit_test_setup(mb1_memory_sizes_without_a_map, setup),
		cmocka_unit_test_setup(mb1_bad_magic, setup),
		cmocka_unit_test_setup(mb1_unreadable_pointers, setup),
		cmocka_unit_test_setup(mb1_malformed_map_entry, setup),
		cmocka_unit_test_setup(long_command_line_is_truncated, setup),
		cmocka_unit_test_setup(mb2_full, setup),
		cmocka_unit_test_setup(mb2_old_rsdp_only, setup),
		cmocka_unit_test_setup(mb2_without_end_tag, setup),
		cmocka_unit_test_setup(mb2_tag_past_the_end, setup),
		cmocka_unit_test_setup(mb2_bad_total_size, setup),
		cmocka_unit_test_setup(mb2_mmap_entry_size_cannot_wrap, setup),
		cmocka_unit_test_setup(mb2_misaligned_map_and_structure, setup),
		cmocka_unit_test_setup(pvh_full, setup),
		cmocka_unit_test_setup(pvh_version_0_has_no_map, setup),
		cmocka_unit_test_setup(pvh_bad_magic_and_map, setup),
		cmocka_unit_test_setup(memory_map_overflow_is_flagged, setup),
		cmocka_unit_test_setup(ram_covers, setup),
		cmocka_unit_test_setup(xen_pv_dom0, setup),
		cmocka_unit_test_setup(xen_pv_domu, setup),
		cmocka_unit_test_setup(xen_pv_full_command_line_is_truncated,
				       setup),
		cmocka_unit_test_setup(xen_pv_bad_start_info, setup),
		cmocka_unit_test_setup(unknown_protocol, setup),
		cmocka_unit_test_setup(e820_map_from_xen, setup),
	};

	return cmocka_run_group_tests_name("boot_info", tests, NULL, NULL);
}
