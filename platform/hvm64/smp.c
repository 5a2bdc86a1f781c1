// SPDX-License-Identifier: MIT
/*
 * Starting the other CPUs where clockbench owns the machine: every enabled
 * CPU the ACPI MADT lists, by INIT, STARTUP, STARTUP to its local APIC.
 * The STARTUP vector points at the real-mode trampoline
 * (platform/hvm64/trampoline.S), copied below 1 MiB, which reaches
 * ap_start32 and then ap_main() in ring 3 on the stacks left here.
 */
#include <stdio.h>
#include <string.h>

#include "base/platform.h"
#include "base/smp.h"
#include "drivers/acpi.h"
#include "drivers/lapic.h"

/* The MP specification's waits. */
#define INIT_WAIT_US	10000
#define STARTUP_WAIT_US 200

extern const char ap_trampoline_start[], ap_trampoline_end[];
extern const char ap_trampoline_gdt_descr[];
extern const uint8_t gdt_descr[];
extern uint64_t ap_boot_ring0_stack, ap_boot_user_stack;
extern uint32_t ap_boot_cpu;

static uint8_t ap_ring0_stacks[MAX_CPUS][RING0_STACK_SIZE]
	__attribute__((aligned(PAGE_SIZE)));

/* Copy the trampoline below 1 MiB and give it the kernel's GDT. */
static bool install_trampoline(void)
{
	size_t len = (size_t)(ap_trampoline_end - ap_trampoline_start);
	uint8_t *page = (uint8_t *)(uintptr_t)AP_TRAMPOLINE;
	size_t descr = (size_t)(ap_trampoline_gdt_descr - ap_trampoline_start);

	if (len > PAGE_SIZE)
		return false;
	memcpy(page, ap_trampoline_start, len);
	/* limit (2 bytes), then the low 32 bits of the base */
	memcpy(page + descr, gdt_descr, 6);
	return true;
}

/* INIT, STARTUP, STARTUP (the second only if needed) to @c's APIC. */
static bool start_apic(struct cpu *c, char *why, size_t whylen)
{
	ap_boot_cpu = c->index;
	ap_boot_ring0_stack = (uint64_t)(uintptr_t)(ap_ring0_stacks[c->index] +
						    RING0_STACK_SIZE);
	ap_boot_user_stack = (uint64_t)(uintptr_t)smp_ap_stack_top(c->index);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	if (!lapic_send_ipi(c->apic_id, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT)) {
		snprintf(why, whylen,
			 "the local APIC did not take the INIT IPI for APIC ID "
			 "%u",
			 c->apic_id);
		return false;
	}
	smp_delay_us(INIT_WAIT_US);
	lapic_send_ipi(c->apic_id, LAPIC_ICR_STARTUP | (AP_TRAMPOLINE >> 12));
	smp_delay_us(STARTUP_WAIT_US);
	if (!c->online) {
		lapic_send_ipi(c->apic_id,
			       LAPIC_ICR_STARTUP | (AP_TRAMPOLINE >> 12));
		smp_delay_us(STARTUP_WAIT_US);
	}
	return true;
}

void platform_start_cpus(struct acpi *acpi, uint32_t hold_id, char *why,
			 size_t whylen)
{
	struct acpi_cpu listed[MAX_CPUS];
	const struct acpi_header *madt;
	uint64_t lapic_base = 0;
	unsigned int count = 0, i;
	uint32_t bsp_id;
	size_t len;

	madt = acpi ? acpi_find(acpi, "APIC", 0, &len) : NULL;
	if (!madt) {
		snprintf(why, whylen,
			 "no ACPI MADT lists the CPUs, so only the boot CPU "
			 "runs");
		return;
	}
	if (acpi_madt_cpus(madt, len, listed, MAX_CPUS, &count, &lapic_base,
			   why, whylen))
		return;
	if (lapic_init(lapic_base, why, whylen))
		return;
	bsp_id = lapic_id();
	if (count > MAX_CPUS)
		snprintf(why, whylen,
			 "the MADT lists %u CPUs; clockbench runs at most %u",
			 count, MAX_CPUS);
	if (!install_trampoline()) {
		snprintf(why, whylen, "no room for the AP trampoline");
		return;
	}
	for (i = 0; i < count && i < MAX_CPUS; i++)
		if (listed[i].enabled && listed[i].apic_id != bsp_id)
			smp_add_cpu(listed[i].apic_id, hold_id, start_apic);
}
