// SPDX-License-Identifier: MIT
/*
 * The platform interface (base/platform.h) where clockbench owns ring 0:
 * bare metal, QEMU, or an HVM or PVH guest.  The console is COM1, and Xen's
 * PV console as well when Xen offers one (a PVH guest has no UART); port
 * I/O is the kernel's own; leaving is QEMU's isa-debug-exit, ACPI
 * power-off, a reset or a halt.
 */
#include <stdio.h>

#include "base/console.h"
#include "base/cpu.h"
#include "base/exit.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/priv.h"
#include "drivers/acpi_tables.h"
#include "drivers/lapic.h"
#include "drivers/uart.h"
#include "hypervisor/xen.h"
#include "platform/hvm64/priv_call.h"
#include "platform/hvm64/ring0.h"

#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_EN	  (1u << 13)

#define RESET_CONTROL_PORT 0xcf9 /* PIIX/ICH reset control register */
#define RESET_CONTROL_HARD 0x06	 /* full reset, CPU reset */
#define KBC_COMMAND_PORT   0x64
#define KBC_PULSE_RESET	   0xfe
#define PORT_SETTLE_READS  100000 /* port reads to wait for a reset */

void platform_console_init(void)
{
	uart_init();
	xen_hvm_console_init();
}

void platform_console_write(const char *buf, size_t len)
{
	uart_write(buf, len);
	xen_hvm_console_write(buf, len);
}

void platform_console_flush(void)
{
	uart_flush();
	xen_hvm_console_flush();
}

void platform_describe_privilege(char *buf, size_t len)
{
	/* The console has done port I/O by now: did IOPL 3 work in ring 3? */
	snprintf(buf, len, "ring 3, IOPL 3%s",
		 ring0_io_emulations ? " not honoured by the hypervisor: ring "
				       "0 performs port I/O"
				     : "");
}

unsigned long platform_stray_interrupts(void)
{
	return ring0_stray_interrupts;
}

bool platform_port_io_emulated(void)
{
	/* Ring 0 counts what it performed for ring 3. */
	return ring0_io_emulations != 0;
}

const char *platform_port_io_detour(void)
{
	return platform_port_io_emulated() ? "the hypervisor ignores IOPL, so "
					     "ring 0 performs it"
					   : NULL;
}

const char *platform_port_io_unavailable(void)
{
	return NULL;
}

const char *platform_port_owner(void)
{
	return NULL;
}

const char *platform_interrupt_controllers_owner(void)
{
	return NULL;
}

const char *platform_cpu_id_name(void)
{
	return "APIC ID";
}

uint32_t platform_cpu_id(void)
{
	/* Before the local APIC is found (no MADT): the boot CPU, 0. */
	return lapic_ready() ? lapic_id() : 0;
}

const char *platform_cpus_note(void)
{
	return lapic_x2apic() ? ", x2APIC" : "";
}

struct tick_source *const *platform_tick_sources(void)
{
	static struct tick_source *const none[] = { NULL };

	return none;
}

/* --- leaving -------------------------------------------------------------- */

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
	struct acpi *tables = acpi_tables();
	struct acpi_fadt_power power;
	const struct acpi_header *fadt, *dsdt;
	uint8_t typa, typb;
	size_t len;

	if (!tables)
		return;
	fadt = acpi_find(tables, "FACP", 0, &len);
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

const char *platform_end_words(enum exit_method method)
{
	switch (method) {
	case EXIT_HALT:
		return "halt (exit=halt); the machine stays on";
	case EXIT_ACPI:
		return "ACPI power-off (exit=acpi)";
	case EXIT_RESET:
		return "reset (exit=reset)";
	default:
		return NULL;
	}
}

void platform_leave(enum verdict verdict, enum exit_method method)
{
	switch (method) {
	case EXIT_AUTO:
		outb(ISA_DEBUG_EXIT_PORT, (uint8_t)verdict_exit_code(verdict));
		run_announce_end(
			"ACPI power-off (exit=auto: isa-debug-exit did "
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
	if (method != EXIT_HALT)
		run_announce_end(
			"halt (the machine could not be left that way)");
	priv_halt();
}
