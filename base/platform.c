// SPDX-License-Identifier: MIT
/* The machine's ACPI tables, and leaving the machine at the end of a run. */
#include <stdio.h>
#include <string.h>

#include "platform/pv64/xen_pv.h"
#include "base/config.h"
#include "base/console.h"
#include "base/cpu.h"
#include "base/platform.h"
#include "base/priv.h"
#include "platform/hvm64/ring0.h"

#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_EN	  (1u << 13)

#define RESET_CONTROL_PORT 0xcf9 /* PIIX/ICH reset control register */
#define RESET_CONTROL_HARD 0x06	 /* full reset, CPU reset */
#define KBC_COMMAND_PORT   0x64
#define KBC_PULSE_RESET	   0xfe
#define PORT_SETTLE_READS  100000 /* port reads to wait for a reset */

static struct acpi acpi_tables;
static bool acpi_ok;
static enum exit_method exit_method = EXIT_AUTO;

struct acpi *platform_acpi_init(const struct boot_info *bi)
{
	const char *where;
	uint64_t rsdp;

	if (bi->rsdp_copy_len) {
		acpi_ok = acpi_open(&acpi_tables, &phys_mem, bi->rsdp_copy,
				    bi->rsdp_copy_len, 0,
				    "the multiboot2 ACPI tag") == 0;
		return &acpi_tables;
	}
	if (bi->rsdp_paddr) {
		acpi_ok = acpi_open(&acpi_tables, &phys_mem, NULL, 0,
				    bi->rsdp_paddr, "hvm_start_info") == 0;
		return &acpi_tables;
	}
	rsdp = acpi_rsdp_scan(&phys_mem, &where);
	if (!rsdp) {
		memset(&acpi_tables, 0, sizeof(acpi_tables));
		acpi_warn(&acpi_tables,
			  "no ACPI RSDP: the loader gave none and none is in "
			  "the EBDA or 0xE0000-0xFFFFF");
		return &acpi_tables;
	}
	acpi_ok = acpi_open(&acpi_tables, &phys_mem, NULL, 0, rsdp, where) == 0;
	return &acpi_tables;
}

struct acpi *platform_acpi(void)
{
	return acpi_ok ? &acpi_tables : NULL;
}

void platform_set_exit_method(enum exit_method method)
{
	exit_method = method;
}

/* Give a power-off or reset request time to act (about 0.1 s natively). */
static void settle(void)
{
	unsigned int i;

	for (i = 0; i < PORT_SETTLE_READS; i++)
		inb(0x80);
}

/* ACPI S5 (soft off): SLP_TYP from \_S5_ and SLP_EN into PM1a/b_CNT. */
static void acpi_power_off(void)
{
	struct acpi_fadt_power power;
	const struct acpi_header *fadt, *dsdt;
	uint8_t typa, typb;
	size_t len;

	if (!acpi_ok)
		return;
	fadt = acpi_find(&acpi_tables, "FACP", 0, &len);
	if (!fadt || acpi_fadt_power(fadt, len, &power) || !power.pm1a_cnt_port)
		return;
	dsdt = phys_map(&phys_mem, power.dsdt_paddr, ACPI_HEADER_LEN);
	if (!dsdt || dsdt->length < ACPI_HEADER_LEN ||
	    !phys_map(&phys_mem, power.dsdt_paddr, dsdt->length))
		return;
	if (acpi_aml_s5((const uint8_t *)dsdt + ACPI_HEADER_LEN,
			dsdt->length - ACPI_HEADER_LEN, &typa, &typb))
		return;
	outw(power.pm1a_cnt_port,
	     (uint16_t)((typa << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
	if (power.pm1b_cnt_port)
		outw(power.pm1b_cnt_port,
		     (uint16_t)((typb << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
	settle();
}

static void machine_reset(void)
{
	outb(RESET_CONTROL_PORT, RESET_CONTROL_HARD);
	settle();
	outb(KBC_COMMAND_PORT, KBC_PULSE_RESET);
	settle();
	/* Last resort: a fault with no IDT is a triple fault. */
	priv_call(PRIV_TRIPLE_FAULT, 0, 0, NULL);
}

bool platform_port_io_emulated(void)
{
	/* A PV guest's every port access traps to Xen, which performs it if
	 * the port is the guest's; natively, ring 0 counts what it did. */
	return CONFIG_XEN_PV || ring0_io_emulations != 0;
}

const char *platform_port_io_unavailable(void)
{
	static char why[96];

	if (!CONFIG_XEN_PV || !xen_pv_iopl_rc)
		return NULL;
	snprintf(why, sizeof(why),
		 "no port I/O: Xen refused PHYSDEVOP_set_iopl (%d)",
		 xen_pv_iopl_rc);
	return why;
}

const char *platform_port_owner(void)
{
	return CONFIG_XEN_PV ? "Xen" : NULL;
}

/*
 * Say how the run ends, after the verdict, whenever that is not by
 * isa-debug-exit: QEMU then ends without the verdict in its status (power
 * off, reset) or does not end at all (halt), and the runner takes the
 * console's verdict once this line follows it
 * (tools/clockbench_lib/console.py: "clockbench: ending the run: ...";
 * a way that starts with "halt" leaves the machine on).
 */
static void announce_end(const char *how)
{
	console_puts("clockbench: ending the run: ");
	console_puts(how);
	console_puts("\n");
	console_flush();
}

/* The way @method ends the run, in words, when it is not isa-debug-exit. */
static const char *end_words(enum exit_method method)
{
	switch (method) {
	case EXIT_HALT:
		return CONFIG_XEN_PV ? "power-off of the domain (exit=halt: a "
				       "PV guest cannot halt for good)"
				     : "halt (exit=halt); the machine stays on";
	case EXIT_ACPI:
		return CONFIG_XEN_PV ? "shutdown of the domain (exit=acpi)"
				     : "ACPI power-off (exit=acpi)";
	case EXIT_RESET:
		return CONFIG_XEN_PV ? "reboot of the domain (exit=reset)"
				     : "reset (exit=reset)";
	default:
		return NULL;
	}
}

void platform_exit(enum verdict verdict)
{
	const char *how = end_words(exit_method);

	printf("clockbench: %s\n", verdict_name(verdict));
	console_flush();
	if (how)
		announce_end(how);
	if (CONFIG_XEN_PV)
		xen_pv_exit(verdict, exit_method);

	switch (exit_method) {
	case EXIT_AUTO:
		outb(ISA_DEBUG_EXIT_PORT, (uint8_t)verdict_exit_code(verdict));
		announce_end("ACPI power-off (exit=auto: isa-debug-exit did "
			     "not end it)");
		acpi_power_off();
		break;
	case EXIT_ISA:
		outb(ISA_DEBUG_EXIT_PORT, (uint8_t)verdict_exit_code(verdict));
		break;
	case EXIT_ACPI:
		acpi_power_off();
		break;
	case EXIT_RESET:
		machine_reset();
		break;
	case EXIT_HALT:
		break;
	}
	if (exit_method != EXIT_HALT)
		announce_end("halt (the machine could not be left that way)");
	priv_halt();
}
