// SPDX-License-Identifier: MIT
/*
 * The platform interface (base/platform.h) for a Xen PV guest: ring 0,
 * the interrupt controllers and the ports are Xen's, CPUs are vCPUs, and
 * Xen's own vCPU timers are this platform's tick sources.  The console
 * and leaving are in platform/pv64/xen_pv.c.
 */
#include <stdio.h>

#include "base/platform.h"
#include "base/smp.h"
#include "platform/pv64/xen_pv.h"
#include "platform/pv64/xen_pv_events.h"
#include "hypervisor/xen.h"

/* The vCPU id each CPU was started as (vCPU 0 is the boot CPU). */
static uint32_t started_as[MAX_CPUS];

void xen_pv_record_vcpu(unsigned int cpu, uint32_t vcpu)
{
	started_as[cpu] = vcpu;
}

void platform_describe_privilege(char *buf, size_t len)
{
	if (xen_pv_iopl_rc)
		snprintf(buf, len,
			 "Xen PV guest kernel (ring 3); no port I/O: "
			 "PHYSDEVOP_set_iopl failed (%d)",
			 xen_pv_iopl_rc);
	else
		snprintf(buf, len,
			 "Xen PV guest kernel (ring 3), virtual IOPL 3: Xen "
			 "checks and performs each port access");
}

unsigned long platform_stray_interrupts(void)
{
	return 0; /* events, not vectors: none can stray */
}

void platform_ports_allow(uint16_t first, unsigned int count)
{
	/* Xen decides (PHYSDEVOP_set_iopl and its own I/O ranges). */
	(void)first;
	(void)count;
}

void platform_ports_deny_all(void)
{
	/* No bitmap of ours: Xen performs every access anyway. */
}

struct port_use platform_port_use(uint16_t port)
{
	/* A PV guest's every port access traps to Xen, which performs it if
	 * the port is the guest's; nobody here counts them. */
	(void)port;
	return (struct port_use){ PORT_HYPERVISOR, -1 };
}

bool platform_iopl_honoured(void)
{
	return false;
}

int platform_io_bitmap_honoured(void)
{
	return -1;
}

const char *platform_port_io_words(void)
{
	return xen_pv_iopl_rc ? "none: Xen refused PHYSDEVOP_set_iopl"
			      : "virtual IOPL 3: every port access traps to "
				"Xen, which checks and performs it";
}

uint64_t platform_ring0_round_trip_cycles(void)
{
	return 0; /* ring 0 is Xen's */
}

unsigned int platform_console_burst(void)
{
	return 0; /* a whole write per hypercall or ring update */
}

const char *platform_console_words(void)
{
	return xen_start_info->flags & SIF_INITDOMAIN
		       ? "Xen's console (console_io hypercalls), a write each"
		       : "the Xen PV console ring, drained by dom0's "
			 "xenconsoled";
}

const char *platform_port_io_unavailable(void)
{
	static char why[96];

	if (!xen_pv_iopl_rc)
		return NULL;
	snprintf(why, sizeof(why),
		 "no port I/O: Xen refused PHYSDEVOP_set_iopl (%d)",
		 xen_pv_iopl_rc);
	return why;
}

void platform_boot_info_complete(struct boot_info *bi)
{
	(void)bi; /* start_info says everything: nr_pages */
}

bool platform_memmap_lists_firmware(void)
{
	return false; /* pseudo-physical, the tables machine */
}

const char *platform_xen_domain(void)
{
	return xen_start_info->flags & SIF_INITDOMAIN ? "dom0" : "domU";
}

const char *platform_port_owner(void)
{
	return "Xen";
}

const char *platform_interrupt_controllers_owner(void)
{
	return "Xen owns the interrupt controllers: a PV guest has no local "
	       "APIC, IOAPIC or PIC of its own";
}

const char *platform_cpu_id_name(void)
{
	return "vCPU";
}

uint32_t platform_cpu_id(void)
{
	return started_as[cpu_index()];
}

const char *platform_cpus_note(void)
{
	return "";
}

struct tick_source *const *platform_tick_sources(void)
{
	static struct tick_source *const xen_timers[] = {
		&xen_periodic_tick_source,
		&xen_oneshot_tick_source,
		NULL,
	};

	return xen_timers;
}

const char *platform_end_words(enum exit_method method)
{
	switch (method) {
	case EXIT_HALT:
		return "power-off of the domain (exit=halt: a PV guest cannot "
		       "halt for good)";
	case EXIT_ACPI:
		return "shutdown of the domain (exit=acpi)";
	case EXIT_RESET:
		return "reboot of the domain (exit=reset)";
	default:
		return NULL;
	}
}

/* --- as a guest of Xen ---------------------------------------------------- */

int xen_guest_setup(const struct xen_cpuid_info *x, char *why, size_t whylen)
{
	/* Xen filled the hypercall page and mapped shared_info at start
	 * (platform/pv64/xen_pv.c). */
	(void)x, (void)why, (void)whylen;
	return 0;
}

uint32_t xen_vcpu_id(const struct xen_cpuid_info *x, unsigned int cpu)
{
	/* PV vCPUs are started by id (platform/pv64/smp.c). */
	(void)x;
	return cpu < MAX_CPUS ? started_as[cpu] : cpu;
}
