/* SPDX-License-Identifier: MIT */
/*
 * The platform interface: what the platform-neutral code asks of the
 * environment it runs in.  Each environment implements all of it in
 * platform/<env>/, and the code above asks these questions instead of
 * naming an environment:
 *
 *   hvm64  clockbench owns ring 0: bare metal, QEMU, or an HVM or PVH guest
 *          of KVM, Xen, ... (platform/hvm64/).
 *   pv64   a Xen PV guest: Xen owns ring 0, the page tables and the
 *          interrupt controllers, and the kernel asks it through
 *          hypercalls (platform/pv64/).
 *
 * Also the platform's: cpu_cpuid(), irq_disable() and irq_enable()
 * (base/cpu.h), the privileged requests of base/priv.h, the memory map of
 * base/paging.h, the idle CPUs of base/idle.h, and for a guest of Xen
 * xen_hypercall() (hypervisor/hypercall.h) and xen_guest_setup()
 * (hypervisor/xen.h).
 */
#ifndef CLOCKBENCH_BASE_PLATFORM_H
#define CLOCKBENCH_BASE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/options.h"
#include "lib/verdict.h"

struct acpi;
struct boot_info;
struct tick_source;

/* --- the boot information -------------------------------------------- */

/**
 * Complete what the loader left out of @bi from the environment itself: a
 * Xen PVH dom0 gets no memory map in its start info, so it asks Xen.
 */
void platform_boot_info_complete(struct boot_info *bi);

/**
 * Whether the boot memory map lists the addresses phys_mem reads firmware
 * tables at (not under Xen PV: its map is pseudo-physical, the firmware's
 * tables are at machine addresses).
 */
bool platform_memmap_lists_firmware(void);

/** As a guest of Xen, which domain this is: "dom0" (Xen's hardware domain)
 * or "domU"; NULL when Xen's interfaces are not in use here. */
const char *platform_xen_domain(void);

/* --- the console -------------------------------------------------------- */

/** Make the console usable (called first thing). */
void platform_console_init(void);

/** Write @len bytes to the console, in order, without buffering. */
void platform_console_write(const char *buf, size_t len);

/** Wait until everything written is out. */
void platform_console_flush(void);

struct console_loss;
/**
 * Add to @l (lib/consloss.h) every byte a console of this platform gave up
 * on so far, with why: a device that did not take a buffer within its
 * bound, a transmitter that never came ready, a ring never drained.
 */
void platform_console_losses(struct console_loss *l);

/**
 * A byte of the console's input if one waits, else -1 at once (polled):
 * COM1's receiver natively; none yet as a Xen PV guest (its console ring
 * can carry the same host line later) or on the virtio console (the
 * runner keeps COM1 for events).  Where there is none, also says why
 * through platform_console_input_missing().
 */
int platform_console_read_byte(void);

/** Why the console has no input here, or NULL when it has. */
const char *platform_console_input_missing(void);

/**
 * While the guest waits at an event point: answer the toolstack's requests
 * where the platform takes part in the event (a Xen PV domU's suspend, for
 * xl save and restore).  Returns 0 when nothing happened, 1 when the guest
 * was suspended and has resumed (@said says how), -1 when a request could
 * not be answered (@said says why).  Rate-limited by the platform; cheap
 * when there is nothing to do.
 */
int platform_event_poll(char *said, size_t len);

/**
 * How many times the guest came back from a suspend as a new domain (a Xen
 * restore or migration) so far: each other CPU, seeing it change, sets up
 * its own part again with platform_cpu_resumed().  0 where nothing
 * suspends.
 */
unsigned int platform_restores(void);

/**
 * On the calling CPU (not CPU 0, which platform_event_poll() set up again):
 * its own part of a restored domain again (a Xen guest's time record; a PV
 * guest's idle event channels and timer).  0, or -1 with @why.
 */
int platform_cpu_resumed(char *why, size_t whylen);

/** Bytes the console takes per wait for the hardware (a UART's FIFO
 * depth, 1 without one), for the report; 0 where each write goes out
 * whole (a hypervisor's console). */
unsigned int platform_console_burst(void);

/** Which console the output goes to and how, in words, for the report. */
const char *platform_console_words(void);

/* --- ring 0 ------------------------------------------------------------- */

/**
 * Raise @fault (FAULT_NMI, FAULT_DF) in ring 0, for the fault tests; false
 * when ring 0 is not this kernel's (see platform_ring0_owner()).
 */
bool platform_provoke_in_ring0(enum fault_test fault);

/** Who owns ring 0 when it is not this kernel ("Xen"), or NULL. */
const char *platform_ring0_owner(void);

/**
 * The environment line about privilege, in words: the ring the kernel runs
 * in and how its port I/O is done.
 */
void platform_describe_privilege(char *buf, size_t len);

/**
 * A privileged request's round trip, ring 3 to ring 0 and back, in TSC
 * cycles (median of a few; 0 where ring 0 is not this kernel's).  Where a
 * hypervisor emulates guest ring 0 (kvm-pvm) it costs microseconds.
 */
uint64_t platform_ring0_round_trip_cycles(void);

/** Interrupts taken on no vector in use (masked PICs, spurious APIC). */
unsigned long platform_stray_interrupts(void);

/* --- port I/O ----------------------------------------------------------- */

/* How the kernel's in and out instructions on a port are carried out. */
enum port_path {
	/* The instruction runs as it is: IOPL 3, or the TSS I/O permission
	 * bitmap, lets ring 3 use the port. */
	PORT_NATIVE,
	/* It raises #GP and ring 0 performs it: the hypervisor honours
	 * neither IOPL nor the bitmap (or the port was never allowed). */
	PORT_RING0,
	/* The hypervisor performs every access (Xen, for a PV guest). */
	PORT_HYPERVISOR,
};

/* What the accesses to one port have been so far. */
struct port_use {
	enum port_path path;
	/* Accesses that took the PORT_RING0 detour (counted by ring 0);
	 * -1 where nobody counts them (PORT_HYPERVISOR). */
	long detours;
};

/**
 * Let the kernel use ports @first .. @first + @count - 1 directly where it
 * can (the TSS I/O permission bitmap, for a hypervisor that ignores IOPL
 * but honours the bitmap); nothing to do where someone else owns ring 0.
 * Every driver allows its ports before it touches them.
 */
void platform_ports_allow(uint16_t first, unsigned int count);

/**
 * Take every port back from ring 3 and allow none from now on (port_io=
 * trap): where IOPL 3 is ignored, each access then takes the #GP path.
 */
void platform_ports_deny_all(void);

/** How the accesses to @port have been carried out so far. */
struct port_use platform_port_use(uint16_t port);

/** How port I/O was found to work here, in words, for the environment
 * section ("IOPL 3 ignored by the hypervisor; the TSS I/O permission
 * bitmap honoured: ports ring 3 was given are used natively"). */
const char *platform_port_io_words(void);

/** Whether IOPL 3 alone lets ring 3 do port I/O (false on kvm-pvm and for
 * a Xen PV guest). */
bool platform_iopl_honoured(void);

/** Whether the TSS I/O permission bitmap lets ring 3 use a port IOPL does
 * not: 1 yes, 0 no, -1 not tried (IOPL sufficed, or no ring 0 of ours). */
int platform_io_bitmap_honoured(void);

/** Why this kernel cannot do port I/O at all, or NULL when it can try. */
const char *platform_port_io_unavailable(void);

/**
 * Who decides which ports the kernel may use, when it is not the kernel:
 * "Xen" for a PV guest (a denied port reads as all ones), else NULL.
 */
const char *platform_port_owner(void);

/** Who owns the interrupt controllers, when not the kernel ("Xen: a PV
 * guest has no local APIC, IOAPIC or PIC of its own"), else NULL. */
const char *platform_interrupt_controllers_owner(void);

/* --- other CPUs --------------------------------------------------------- */

/** What the hardware calls a CPU here: "APIC ID", or "vCPU". */
const char *platform_cpu_id_name(void);

/** The hardware's id of the CPU running this (APIC ID, vCPU id). */
uint32_t platform_cpu_id(void);

/**
 * Find the CPUs besides the boot CPU (the firmware's MADT, or the vCPUs
 * the hypervisor gave the domain) and start each through smp_add_cpu()
 * (base/smp.h), but the one whose id is @hold_id (0: none).  Says in @why
 * what kept it from finding or starting them, if anything did.
 */
void platform_start_cpus(struct acpi *acpi, uint32_t hold_id, char *why,
			 size_t whylen);

/** What the CPU line adds about the interrupt controller (", x2APIC"). */
const char *platform_cpus_note(void);

/* --- timer interrupts ------------------------------------------------- */

/** Tick sources of the platform's own (Xen's vCPU timers), after the
 * machine's; NULL-terminated, maybe empty. */
struct tick_source *const *platform_tick_sources(void);

/* --- leaving ------------------------------------------------------------ */

/**
 * How @method ends the run here, in words, when that is not through
 * isa-debug-exit (see run_exit()); NULL when it is.
 */
const char *platform_end_words(enum exit_method method);

/** Leave the machine after @verdict the way @method says. */
__attribute__((noreturn)) void platform_leave(enum verdict verdict,
					      enum exit_method method);

#endif
