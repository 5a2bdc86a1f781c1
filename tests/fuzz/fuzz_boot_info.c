// SPDX-License-Identifier: MIT
/*
 * Fuzz target: one boot protocol's loader structure (lib/boot_info.c), the
 * protocol chosen when it is built (FUZZ_PROTOCOL: BOOT_PROTO_MULTIBOOT1,
 * _MULTIBOOT2, _PVH or _XEN_PV, one target each), then what the kernel does
 * next with the result: the options on its command line (lib/options.c)
 * and, for a multiboot2 copy or a PVH address, the ACPI RSDP.
 *
 * Input: a little-endian u16, the offset of the loader's structure, then
 * the memory it lies in, at physical address FUZZ_MEM_BASE, read through
 * fuzz_phys.h's mapper, which lets nothing past a mapping be read.
 */
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.h"
#include "lib/boot_info.h"
#include "lib/multiboot.h"
#include "lib/options.h"
#include "tests/fuzz/fuzz_phys.h"

#ifndef FUZZ_PROTOCOL
#error "FUZZ_PROTOCOL names the boot protocol this target parses"
#endif

#define FUZZ_MEM_BASE 0x10000

static struct fuzz_phys phys;

static uint32_t protocol_magic(int protocol)
{
	switch (protocol) {
	case BOOT_PROTO_MULTIBOOT1:
		return MB1_BOOTLOADER_MAGIC;
	case BOOT_PROTO_MULTIBOOT2:
		return MB2_BOOTLOADER_MAGIC;
	default:
		return 0;
	}
}

static void check_text(const char *s, size_t size)
{
	if (!memchr(s, '\0', size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct boot_info bi;
	static struct options opts;
	static struct acpi acpi;
	char err[256], opt_err[256];
	uint64_t info;
	unsigned int i;

	fuzz_phys_reset(&phys);
	info = FUZZ_MEM_BASE + fuzz_take(&data, &size, 2);
	fuzz_phys_add(&phys, FUZZ_MEM_BASE, data, size);
	if (boot_info_parse(&bi, FUZZ_PROTOCOL, protocol_magic(FUZZ_PROTOCOL),
			    info, &phys.pm, err, sizeof(err))) {
		if (!err[0])
			abort(); /* a failure always says why */
		check_text(err, sizeof(err));
		return 0;
	}
	if (err[0] || bi.protocol != FUZZ_PROTOCOL ||
	    bi.nr_memmap > BOOT_MEMMAP_MAX ||
	    bi.rsdp_copy_len > sizeof(bi.rsdp_copy))
		abort();
	check_text(bi.cmdline, sizeof(bi.cmdline));
	check_text(bi.loader, sizeof(bi.loader));
	check_text(bi.xen.magic, sizeof(bi.xen.magic));
	for (i = 0; i < bi.nr_memmap; i++)
		mem_type_name(bi.memmap[i].type);
	boot_info_ram_covers(&bi, 0x100000, 0x200000);

	if (options_parse(bi.cmdline, &opts, opt_err, sizeof(opt_err)) &&
	    !opt_err[0])
		abort();
	if (bi.rsdp_copy_len)
		acpi_open_within(
			&acpi, &phys.pm, &bi,
			fuzz_phys_copy(&phys, bi.rsdp_copy, bi.rsdp_copy_len),
			bi.rsdp_copy_len, 0, "the multiboot2 ACPI tag");
	else if (bi.rsdp_paddr)
		acpi_open_within(&acpi, &phys.pm, &bi, NULL, 0, bi.rsdp_paddr,
				 "hvm_start_info");
	return 0;
}
