/* SPDX-License-Identifier: MIT */
/*
 * The machine as a whole: its ACPI tables, and how a run leaves it
 * (isa-debug-exit, ACPI power-off, reset, halt).
 */
#ifndef CLOCKBENCH_BASE_PLATFORM_H
#define CLOCKBENCH_BASE_PLATFORM_H

#include <stdbool.h>

#include "boot/boot.h"
#include "drivers/acpi.h"
#include "lib/boot_info.h"
#include "lib/options.h"
#include "lib/verdict.h"

/**
 * Find and open the ACPI tables: the RSDP the loader handed over, else a
 * scan of the EBDA and BIOS area.  Returns the tables, or NULL when the
 * machine has none (warnings, if any, are in the returned struct or
 * printed by the caller through platform_acpi_warnings()).
 */
struct acpi *platform_acpi_init(const struct boot_info *bi);

/** The tables found by platform_acpi_init(), or NULL. */
struct acpi *platform_acpi(void);

/** Choose how platform_exit() leaves the machine (default EXIT_AUTO). */
void platform_set_exit_method(enum exit_method method);

/**
 * Whether port I/O is performed by someone else on our behalf (ring 0 when
 * the hypervisor ignores IOPL; Xen for a PV guest), which adds an
 * exception round trip to every port read.
 */
bool platform_port_io_emulated(void);

/**
 * Why this kernel cannot do port I/O at all (a Xen domU without I/O
 * privilege), or NULL when it can try.
 */
const char *platform_port_io_unavailable(void);

/**
 * Who decides which ports the kernel may use, when it is not the kernel:
 * "Xen" for a PV guest (a denied port reads as all ones), else NULL.
 */
const char *platform_port_owner(void);

/**
 * End the run: print "clockbench: VERDICT", drain the console, then leave
 * the machine the chosen way, first saying how ("clockbench: ending the
 * run: ...") unless isa-debug-exit ends it.  Never returns; halts when
 * nothing else worked.
 */
__attribute__((noreturn)) void platform_exit(enum verdict verdict);

#endif
