// SPDX-License-Identifier: MIT
/*
 * The platform interface (base/platform.h) where clockbench owns ring 0:
 * bare metal, QEMU, or an HVM or PVH guest.  The console is COM1, and Xen's
 * PV console as well when Xen offers one (a PVH guest has no UART); port
 * I/O is the kernel's own; leaving is QEMU's isa-debug-exit, ACPI
 * power-off, a reset or a halt.
 */
#include <stdio.h>
#include <string.h>

#include "base/console.h"
#include "base/cpu.h"
#include "base/exit.h"
#include "base/platform.h"
#include "base/priv.h"
#include "drivers/acpi_tables.h"
#include "lib/boot_info.h"
#include "drivers/lapic.h"
#include "drivers/uart.h"
#include "drivers/virtio_console.h"
#include "hypervisor/xen.h"
#include "hypervisor/xen_suspend.h"
#include "lib/consloss.h"
#include "lib/stats.h"
#include "platform/hvm64/priv_call.h"
#include "platform/hvm64/ring0.h"

#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_EN	  (1u << 13)

#define RESET_CONTROL_PORT 0xcf9 /* PIIX/ICH reset control register */
#define RESET_CONTROL_HARD 0x06	 /* full reset, CPU reset */
#define KBC_COMMAND_PORT   0x64
#define KBC_PULSE_RESET	   0xfe
#define PORT_SETTLE_READS  100000 /* port reads to wait for a reset */
#define UART_PORTS	   8

/* A port whose reads do nothing (the POST code port: Linux writes it for
 * delays, reads return junk): the probe of how port I/O works here. */
#define PROBE_PORT  0x80
#define ROUND_TRIPS 15

/* ESP at the 32-bit entry, kept by platform/hvm64/start32.S. */
extern uint32_t boot_entry_esp;

static bool iopl_honoured = true;
static int io_bitmap_honoured = -1;

static long port_detours(uint16_t port)
{
	const struct ring0_port_detours *d = &ring0_port_detours;
	unsigned int i;

	for (i = 0; i < RING0_PORTS_COUNTED; i++)
		if (__atomic_load_n(&d->port_plus1[i], __ATOMIC_RELAXED) ==
		    (uint32_t)port + 1)
			return (long)__atomic_load_n(&d->count[i],
						     __ATOMIC_RELAXED);
	return 0;
}

/* Before the port is allowed, a read that raises #GP says IOPL 3 is
 * ignored; after, one that still does says the bitmap is too. */
static void probe_port_io(void)
{
	long before = port_detours(PROBE_PORT);

	inb(PROBE_PORT);
	iopl_honoured = port_detours(PROBE_PORT) == before;
	platform_ports_allow(PROBE_PORT, 1);
	if (iopl_honoured)
		return;
	before = port_detours(PROBE_PORT);
	inb(PROBE_PORT);
	io_bitmap_honoured = port_detours(PROBE_PORT) == before;
}

static char console_words[200];
static enum xen_hvm_console xen_console;
/* COM1 answered (its scratch register kept a value); without it and with
 * Xen's PV console ring (a PVH domU), every byte written there would be a
 * trapped port access for nothing. */
static bool uart_found;

void platform_console_init(void)
{
	char why[120];
	bool uart;

	probe_port_io();
	platform_ports_allow(ISA_DEBUG_EXIT_PORT, 1);
	xen_console = xen_hvm_console_init();
	if (xen_console == XEN_HVM_CONSOLE_IO) {
		snprintf(console_words, sizeof(console_words),
			 "Xen's console (console_io hypercalls, as Xen's "
			 "hardware domain), a write each");
		return;
	}
	platform_ports_allow(COM1_PORT, UART_PORTS);
	uart = uart_found = uart_init();
	if (virtcons_init(why, sizeof(why)) == 0)
		snprintf(
			console_words, sizeof(console_words),
			"virtio console (PCI 00:%02x.0, port 0%s), %u bytes a "
			"notification%s; COM1 %s",
			virtcons_slot(),
			virtcons_assigned_io() >= 0
				? "; the firmware left its I/O BAR unassigned, "
				  "clockbench placed it"
				: "",
			virtcons_burst_bytes(),
			virtcons_can_read() ? ", input on its receive queue"
					    : "",
			uart ? "for ring 0's last words" : "absent");
	else if (uart)
		snprintf(
			console_words, sizeof(console_words),
			"COM1, %u bytes a wait for an empty transmitter%s (%s)",
			uart_burst_bytes(),
			uart_burst_bytes() > 1 ? " (16550A FIFO)" : "", why);
	else
		snprintf(console_words, sizeof(console_words),
			 "no UART answers at COM1 (%s)", why);
	if (xen_console == XEN_HVM_CONSOLE_RING)
		snprintf(console_words + strlen(console_words),
			 sizeof(console_words) - strlen(console_words),
			 "; and Xen's PV console ring");
}

void platform_console_write(const char *buf, size_t len)
{
	static const char stopped[] =
		"\nclockbench: the virtio console stopped answering; the "
		"rest goes to COM1 (the last buffer, up to 4096 bytes, may be "
		"lost)\n";
	size_t done = 0;

	if (xen_console == XEN_HVM_CONSOLE_IO) {
		xen_hvm_console_write(buf, len);
		return;
	}
	if (virtcons_ready()) {
		done = virtcons_write(buf, len);
		if (done < len) {
			uart_write(stopped, sizeof(stopped) - 1);
			snprintf(console_words, sizeof(console_words),
				 "COM1: the virtio console stopped answering "
				 "after %lu bytes were in flight",
				 virtcons_bytes_lost());
		}
	}
	/* What the virtio console did not take (all of it without one). */
	if (done < len && (uart_found || xen_console != XEN_HVM_CONSOLE_RING))
		uart_write(buf + done, len - done);
	xen_hvm_console_write(buf, len);
}

void platform_console_flush(void)
{
	uart_flush();
	xen_hvm_console_flush();
}

void platform_console_losses(struct console_loss *l)
{
	char why[CONSLOSS_WHY_LEN];

	snprintf(why, sizeof(why),
		 "the virtio console did not take a %lu-byte buffer within "
		 "%u s (the host read its console too slowly, or the device "
		 "stopped); the rest went to COM1",
		 virtcons_bytes_lost(), virtcons_wait_s());
	consloss_dropped(l, virtcons_bytes_lost(), why);
	consloss_dropped(l, uart_unwaited_bytes(),
			 "COM1's transmitter never came ready, so bytes went "
			 "to a FIFO that may have been full");
	consloss_dropped(l, xen_hvm_console_lost(),
			 "Xen's console ring was not drained in time, or its "
			 "indexes were inconsistent");
}

int platform_console_read_byte(void)
{
	/* QEMU's stdio chardev, shared by both, hands its input to the
	 * virtio console where there is one. */
	/* A Xen domU (PVH or HVM): the host's line comes through the PV
	 * console ring, which dom0's clockbench-domu writes. */
	if (xen_console == XEN_HVM_CONSOLE_RING)
		return xen_hvm_console_read_byte();
	if (virtcons_can_read())
		return virtcons_read_byte();
	return uart_found ? uart_read_byte() : -1;
}

int platform_event_poll(char *said, size_t len)
{
	/* Under Xen, xl save's suspend request; QEMU's events need nothing. */
	return xen_hvm_event_poll(said, len);
}

unsigned int platform_restores(void)
{
	return xen_suspend_restores();
}

int platform_cpu_resumed(char *why, size_t whylen)
{
	/* A PVH or HVM domU's other CPUs keep their local APICs (Xen saves
	 * them); each registers its time record's area anew. */
	return xen_suspend_cpu_resumed(why, whylen);
}

const char *platform_console_input_missing(void)
{
	if (xen_console == XEN_HVM_CONSOLE_IO)
		return "Xen's console_io has no input for clockbench yet";
	if (!uart_found && !virtcons_can_read() &&
	    xen_console != XEN_HVM_CONSOLE_RING)
		return "no UART answers at COM1 and the virtio console has "
		       "no receive queue";
	return NULL;
}

unsigned int platform_console_burst(void)
{
	if (xen_console == XEN_HVM_CONSOLE_IO)
		return 0; /* a whole write per hypercall */
	return virtcons_ready() ? virtcons_burst_bytes() : uart_burst_bytes();
}

const char *platform_console_words(void)
{
	return console_words;
}

void platform_describe_privilege(char *buf, size_t len)
{
	snprintf(buf, len, "ring 3 (IOPL 3), with its own ring 0");
}

/* The round trip less the empty bracket: where the hypervisor emulates
 * rdtsc (Xen's HVM and PVH guests under TCG), the bracket alone takes
 * ~10^5 cycles, which says nothing about ring 0. */
uint64_t platform_ring0_round_trip_cycles(void)
{
	uint64_t trips[ROUND_TRIPS], empty[ROUND_TRIPS], t0;
	struct stats_summary trip, bracket;
	unsigned int i;

	for (i = 0; i < ROUND_TRIPS; i++) {
		t0 = tsc_read_ordered();
		empty[i] = tsc_read_ordered() - t0;
		t0 = tsc_read_ordered();
		priv_read_cr(0);
		trips[i] = tsc_read_ordered() - t0;
	}
	stats_summarize(trips, ROUND_TRIPS, &trip);
	stats_summarize(empty, ROUND_TRIPS, &bracket);
	return trip.p50 > bracket.p50 ? trip.p50 - bracket.p50 : 1;
}

unsigned long platform_stray_interrupts(void)
{
	return ring0_stray_interrupts;
}

static bool ports_denied; /* port_io=trap */

void platform_ports_allow(uint16_t first, unsigned int count)
{
	/* Refused only for a range past 0xffff: those accesses keep the #GP
	 * path, which the port's count then shows. */
	if (!ports_denied)
		priv_call(PRIV_IO_ALLOW, first, count, NULL);
}

void platform_ports_deny_all(void)
{
	ports_denied = true;
	priv_call(PRIV_IO_DENY_ALL, 0, 0, NULL);
}

struct port_use platform_port_use(uint16_t port)
{
	long detours = port_detours(port);

	return (struct port_use){ detours ? PORT_RING0 : PORT_NATIVE, detours };
}

bool platform_iopl_honoured(void)
{
	return iopl_honoured;
}

int platform_io_bitmap_honoured(void)
{
	return io_bitmap_honoured;
}

const char *platform_port_io_words(void)
{
	if (iopl_honoured)
		return "IOPL 3 honoured: ring 3 does port I/O natively";
	if (ports_denied)
		return "IOPL 3 ignored by the hypervisor, and port_io=trap "
		       "allows no port in the TSS I/O permission bitmap: each "
		       "port access raises #GP and ring 0 performs it";
	if (io_bitmap_honoured == 1)
		return "IOPL 3 ignored by the hypervisor, the TSS I/O "
		       "permission bitmap honoured: ring 3 uses the ports it "
		       "was given natively";
	return "the hypervisor honours neither IOPL 3 nor the TSS I/O "
	       "permission bitmap: each port access raises #GP and ring 0 "
	       "performs it";
}

const char *platform_port_io_unavailable(void)
{
	return NULL;
}

void platform_boot_info_complete(struct boot_info *bi)
{
	bi->entry_esp_known = true;
	bi->entry_esp = boot_entry_esp;
	if (!bi->nr_memmap)
		xen_hvm_memory_map(bi);
}

bool platform_memmap_lists_firmware(void)
{
	return true;
}

const char *platform_xen_domain(void)
{
	if (!xen_hvm_can_shutdown())
		return NULL;
	return xen_hvm_is_hardware_domain() ? "dom0" : "domU";
}

const char *platform_port_owner(void)
{
	/* Xen gives its hardware domain every port but its own. */
	return xen_hvm_is_hardware_domain() ? "Xen" : NULL;
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
	platform_ports_allow(power.pm1a_cnt_port, 2);
	if (power.pm1b_cnt_port)
		platform_ports_allow(power.pm1b_cnt_port, 2);
	dsdt = acpi_dsdt(tables, &len);
	if (!dsdt || acpi_aml_s5((const uint8_t *)dsdt + ACPI_HEADER_LEN,
				 len - ACPI_HEADER_LEN, &typa, &typb))
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
	platform_ports_allow(RESET_CONTROL_PORT, 1);
	platform_ports_allow(KBC_COMMAND_PORT, 1);
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
		/* A guest of Xen ends its domain, as a PV guest does: power
		 * off after PASS or SKIP, crash after FAIL or ERROR. */
		if (xen_hvm_can_shutdown()) {
			bool failed = verdict == VERDICT_FAIL ||
				      verdict == VERDICT_ERROR;

			run_announce_end(
				failed ? "crash of the domain (exit=auto: "
					 "isa-debug-exit did not end it)"
				       : "power-off of the domain (exit=auto: "
					 "isa-debug-exit did not end it)");
			xen_hvm_shutdown(failed);
		}
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
