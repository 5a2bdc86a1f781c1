/* SPDX-License-Identifier: MIT */
/*
 * Other CPUs: started from the ACPI MADT with INIT, STARTUP, STARTUP, each
 * with its own stacks and TSS, then waiting in ring 3 for work.  A CPU is
 * known by its dense index (0 = the boot CPU); its APIC ID is a field.
 */
#ifndef CLOCKBENCH_ENGINE_SMP_H
#define CLOCKBENCH_ENGINE_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"
#include "drivers/acpi.h"

struct cpu {
	unsigned int index;
	uint32_t apic_id; /* or the vCPU id under Xen PV */
	volatile bool online;
	bool held;   /* kept from starting on purpose (hold_ap=) */
	bool failed; /* did not come online in time */
};

/**
 * Start every enabled CPU the MADT lists, one at a time, waiting at most
 * AP_START_TIMEOUT_MS for each; @hold_apic_id (0 = none) is left off on
 * purpose.  Needs the TSC frequency for its delays.  Prints one line per
 * problem; the run goes on whatever happens.
 */
void smp_start(struct acpi *acpi, uint32_t hold_apic_id, uint64_t tsc_hz);

/** What the hardware calls a CPU here: "APIC ID", or "vCPU" under Xen PV. */
const char *smp_id_name(void);

/** CPUs known (online or not), and CPU @i of them. */
unsigned int smp_nr_cpus(void);
const struct cpu *smp_cpu(unsigned int i);

/** CPUs online, the boot CPU included. */
unsigned int smp_cpus_online(void);

/** The dense index of the CPU running this. */
unsigned int cpu_index(void);

/**
 * Run @fn(@arg) on CPU @cpu and wait for it, at most @timeout_ms.  On the
 * calling CPU it just calls.  Returns false if the CPU is not online or
 * did not finish in time.
 */
bool on_cpu(unsigned int cpu, void (*fn)(void *), void *arg,
	    unsigned int timeout_ms);

/** Start @fn(@arg) on AP @cpu without waiting; false if it cannot take work. */
bool on_cpu_post(unsigned int cpu, void (*fn)(void *), void *arg);

/** Wait, at most @timeout_ms, for the work posted to @cpu to finish. */
bool on_cpu_wait(unsigned int cpu, unsigned int timeout_ms);

/**
 * Run @fn(@arg) on every online CPU at once (the caller's share on the
 * caller) and wait for all, each at most @timeout_ms.  Returns how many
 * CPUs ran it to the end.
 */
unsigned int on_all_cpus(void (*fn)(void *), void *arg,
			 unsigned int timeout_ms);

/* A ticket lock: CPUs get it in the order they asked, spinning with pause. */
struct spinlock {
	unsigned int next, owner;
};

void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/* A rendezvous of @count CPUs, reusable. */
struct smp_barrier {
	unsigned int count;
	unsigned int arrived;
	unsigned int generation;
};

/** Wait until all @b->count CPUs have arrived; false after @timeout_ms. */
bool barrier_wait(struct smp_barrier *b, unsigned int timeout_ms);

/** TSC cycles in a microsecond, as the SMP waits use it. */
uint64_t smp_cycles_per_us(void);

/** The environment lines for the CPUs. */
void smp_print(void);

/** Checks: each CPU came online (unless held) and runs on_cpu() work. */
void smp_checks(void);

#endif
