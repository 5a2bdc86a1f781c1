// SPDX-License-Identifier: MIT
/* Parking idle CPUs in hlt, woken by an IPI (see base/idle.h). */
#include <stdio.h>

#include "base/cpu.h"
#include "base/idle.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "boot/boot.h"
#include "drivers/lapic.h"
#include "platform/hvm64/priv_call.h"
#include "platform/hvm64/ring0.h"

/* A woken CPU is back within microseconds; a hypervisor that emulates
 * ring 0 may take milliseconds.  One more IPI, then it is given up on. */
#define WAKE_TIMEOUT_MS 200
#define PARK_TIMEOUT_MS 200

static volatile bool parking;
static bool parked[MAX_CPUS];
static volatile bool halting[MAX_CPUS];

/* On the parked CPU: let its APIC take the wake-up IPI, then halt until
 * parking ends (an interrupt that arrives before hlt ends it at once). */
static void park_here(void *arg)
{
	(void)arg;
	lapic_accept_interrupts(SPURIOUS_VECTOR);
	__atomic_store_n(&halting[cpu_index()], true, __ATOMIC_RELEASE);
	while (__atomic_load_n(&parking, __ATOMIC_ACQUIRE))
		priv_idle();
	__atomic_store_n(&halting[cpu_index()], false, __ATOMIC_RELEASE);
}

/* Until every parked CPU is on its way to hlt (bounded): measurements
 * that start sooner would share the host with their spinning. */
static void wait_halting(void)
{
	uint64_t end = tsc_read() + stopwatch_cycles(PARK_TIMEOUT_MS * 1e6);
	unsigned int i;

	for (i = 1; i < smp_nr_cpus(); i++)
		while (parked[i] &&
		       !__atomic_load_n(&halting[i], __ATOMIC_ACQUIRE) &&
		       tsc_read() < end)
			cpu_relax();
}

unsigned int idle_park_others(void)
{
	unsigned int i, n = 0;
	bool is_msr;
	uint64_t eoi;

	if (!lapic_ready() || smp_nr_cpus() < 2)
		return 0;
	eoi = lapic_eoi_register(&is_msr);
	ring0_wake_eoi =
		(struct ring0_eoi){ .mmio = is_msr ? 0 : eoi,
				    .msr = is_msr ? (uint32_t)eoi : 0 };
	__atomic_store_n(&parking, true, __ATOMIC_RELEASE);
	for (i = 1; i < smp_nr_cpus(); i++) {
		parked[i] =
			smp_cpu(i)->online && on_cpu_post(i, park_here, NULL);
		n += parked[i];
	}
	wait_halting();
	return n;
}

unsigned int idle_unpark_others(void)
{
	unsigned int i, lost = 0;

	__atomic_store_n(&parking, false, __ATOMIC_RELEASE);
	for (i = 1; i < smp_nr_cpus(); i++)
		if (parked[i])
			lapic_send_ipi(smp_cpu(i)->apic_id,
				       WAKE_VECTOR | LAPIC_ICR_ASSERT);
	for (i = 1; i < smp_nr_cpus(); i++) {
		if (!parked[i])
			continue;
		parked[i] = false;
		if (on_cpu_wait(i, WAKE_TIMEOUT_MS))
			continue;
		lapic_send_ipi(smp_cpu(i)->apic_id,
			       WAKE_VECTOR | LAPIC_ICR_ASSERT);
		if (on_cpu_wait(i, WAKE_TIMEOUT_MS))
			continue;
		printf("clockbench: CPU %u (APIC ID %u) did not wake from "
		       "idle within %u ms\n",
		       i, smp_cpu(i)->apic_id, 2 * WAKE_TIMEOUT_MS);
		lost++;
	}
	return lost;
}
