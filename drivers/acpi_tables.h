/* SPDX-License-Identifier: MIT */
/* The machine's ACPI tables, found once from what the loader handed over. */
#ifndef CLOCKBENCH_DRIVERS_ACPI_TABLES_H
#define CLOCKBENCH_DRIVERS_ACPI_TABLES_H

#include "drivers/acpi.h"
#include "lib/boot_info.h"

/**
 * Find and open the ACPI tables: the RSDP the loader handed over, else a
 * scan of the EBDA and BIOS area.  Returns the tables found, with their
 * warnings, whether they could be opened or not.
 */
struct acpi *acpi_tables_find(const struct boot_info *bi);

/** The tables acpi_tables_find() opened, or NULL when it could not. */
struct acpi *acpi_tables(void);

#endif
