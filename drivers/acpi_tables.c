// SPDX-License-Identifier: MIT
/* The machine's ACPI tables (see drivers/acpi_tables.h). */
#include <string.h>

#include "base/paging.h"
#include "base/platform.h"
#include "drivers/acpi_tables.h"

static struct acpi acpi_tables_found;
static bool acpi_ok;

struct acpi *acpi_tables_find(const struct boot_info *bi)
{
	const struct boot_info *described =
		platform_memmap_lists_firmware() ? bi : NULL;
	const char *where;
	uint64_t rsdp;

	if (bi->rsdp_copy_len) {
		acpi_ok = acpi_open_within(&acpi_tables_found, &phys_mem,
					   described, bi->rsdp_copy,
					   bi->rsdp_copy_len, 0,
					   "the multiboot2 ACPI tag") == 0;
		return &acpi_tables_found;
	}
	if (bi->rsdp_paddr) {
		acpi_ok = acpi_open_within(&acpi_tables_found, &phys_mem,
					   described, NULL, 0, bi->rsdp_paddr,
					   "hvm_start_info") == 0;
		return &acpi_tables_found;
	}
	rsdp = acpi_rsdp_scan(&phys_mem, &where);
	if (!rsdp) {
		memset(&acpi_tables_found, 0, sizeof(acpi_tables_found));
		acpi_warn(&acpi_tables_found,
			  "no ACPI RSDP: the loader gave none and none is in "
			  "the EBDA or 0xE0000-0xFFFFF");
		return &acpi_tables_found;
	}
	acpi_ok = acpi_open_within(&acpi_tables_found, &phys_mem, described,
				   NULL, 0, rsdp, where) == 0;
	return &acpi_tables_found;
}

struct acpi *acpi_tables(void)
{
	return acpi_ok ? &acpi_tables_found : NULL;
}
