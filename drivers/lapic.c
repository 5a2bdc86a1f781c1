// SPDX-License-Identifier: MIT
/* Local APIC: ID, IPIs and registers, xAPIC (MMIO) or x2APIC (MSRs). */
#include <stdio.h>

#include "drivers/lapic.h"
#include "base/cpu.h"
#include "base/priv.h"

#define MSR_IA32_APIC_BASE  0x1b
#define APIC_BASE_ENABLE    (1ull << 11)
#define APIC_BASE_X2APIC    (1ull << 10)
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull

#define XAPIC_ID	  0x020
#define XAPIC_ICR_LOW	  0x300
#define XAPIC_ICR_HIGH	  0x310
#define XAPIC_ICR_PENDING (1u << 12) /* delivery status: send pending */

#define MSR_X2APIC_ID	0x802
#define MSR_X2APIC_ICR	0x830
#define MSR_X2APIC_BASE 0x800 /* + xAPIC offset / 16 */

#define APIC_SVR_ENABLE (1u << 8)

/* An APIC accepts an IPI within microseconds; this many reads is ample
 * even when each read traps to a hypervisor. */
#define ICR_MAX_POLLS 100000

static volatile uint32_t *xapic;
static bool x2apic;

bool lapic_x2apic(void)
{
	return x2apic;
}

int lapic_init(uint64_t mmio_base, char *why, size_t whylen)
{
	uint64_t apic_base;

	if (!rdmsr_safe(MSR_IA32_APIC_BASE, &apic_base)) {
		snprintf(why, whylen, "IA32_APIC_BASE cannot be read");
		return -1;
	}
	if (!(apic_base & APIC_BASE_ENABLE)) {
		snprintf(why, whylen,
			 "the local APIC is disabled (IA32_APIC_BASE %#llx)",
			 (unsigned long long)apic_base);
		return -1;
	}
	x2apic = apic_base & APIC_BASE_X2APIC;
	if (!mmio_base)
		mmio_base = apic_base & APIC_BASE_ADDR_MASK;
	xapic = (volatile uint32_t *)(uintptr_t)mmio_base;
	return 0;
}

uint32_t lapic_id(void)
{
	uint64_t id;

	if (x2apic)
		return rdmsr_safe(MSR_X2APIC_ID, &id) ? (uint32_t)id : 0;
	return xapic[XAPIC_ID / 4] >> 24;
}

bool lapic_send_ipi(uint32_t apic_id, uint32_t icr_low)
{
	int polls;

	if (x2apic)
		return wrmsr_safe(MSR_X2APIC_ICR,
				  ((uint64_t)apic_id << 32) | icr_low);
	xapic[XAPIC_ICR_HIGH / 4] = apic_id << 24;
	xapic[XAPIC_ICR_LOW / 4] = icr_low;
	for (polls = 0; polls < ICR_MAX_POLLS; polls++) {
		if (!(xapic[XAPIC_ICR_LOW / 4] & XAPIC_ICR_PENDING))
			return true;
		cpu_relax();
	}
	return false;
}

bool lapic_ready(void)
{
	return xapic || x2apic;
}

uint32_t lapic_read(unsigned int reg)
{
	uint64_t val;

	if (x2apic)
		return rdmsr_safe(MSR_X2APIC_BASE + reg / 16, &val)
			       ? (uint32_t)val
			       : 0;
	return xapic[reg / 4];
}

void lapic_write(unsigned int reg, uint32_t val)
{
	if (x2apic)
		wrmsr_safe(MSR_X2APIC_BASE + reg / 16, val);
	else
		xapic[reg / 4] = val;
}

uint64_t lapic_eoi_register(bool *is_msr)
{
	*is_msr = x2apic;
	return x2apic ? MSR_X2APIC_BASE + LAPIC_EOI / 16
		      : (uint64_t)(uintptr_t)&xapic[LAPIC_EOI / 4];
}

void lapic_accept_interrupts(uint8_t spurious_vector)
{
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_SVR, APIC_SVR_ENABLE | spurious_vector);
}
