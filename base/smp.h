/* SPDX-License-Identifier: MIT */
/*
 * Other CPUs: found and started by the platform (platform_start_cpus():
 * the MADT's CPUs by INIT, STARTUP, STARTUP natively, the domain's vCPUs
 * under Xen PV), each on its own stacks, then waiting in ring 3 for work.
 * A CPU is known by its dense index (0 = the boot CPU); the hardware's id
 * for it (APIC ID, vCPU id) is a field.
 */
#ifndef CLOCKBENCH_BASE_SMP_H
#define CLOCKBENCH_BASE_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"

struct acpi;

struct cpu {
	unsigned int index;
	uint32_t apic_id; /* the hardware's id: APIC ID, or vCPU id */
	volatile bool online;
	bool held;   /* kept from starting on purpose (hold_ap=) */
	bool failed; /* did not come online in time */
};

/**
 * Start every CPU the platform finds, one at a time, waiting at most
 * AP_START_TIMEOUT_MS for each; the one with id @hold_apic_id (0 = none)
 * is left off on purpose.  Needs the stopwatch's rate for its delays.
 * Prints one line per problem; the run goes on whatever happens.
 */
void smp_start(struct acpi *acpi, uint32_t hold_apic_id);

/**
 * For the platform: CPU number next, with hardware id @id, started by
 * @start (which returns false, with the reason in @why, when it could not
 * start it) unless @hold_id says to hold it back, then waited for at most
 * AP_START_TIMEOUT_MS.
 */
void smp_add_cpu(uint32_t id, uint32_t hold_id,
		 bool (*start)(struct cpu *c, char *why, size_t whylen));

/** For the platform: where AP @index starts in ring 3 (its stack top, as a
 * call leaves it, 8 bytes below 16-byte alignment). */
void *smp_ap_stack_top(unsigned int index);

/** Where an AP runs once in ring 3: it says it is online, then serves
 * on_cpu() requests for good. */
__attribute__((noreturn)) void ap_main(unsigned int cpu);

/*
 * How an idle AP waits for on_cpu() work, where the platform has better
 * than spinning (a Xen PV vCPU blocks in Xen until an event): wait(cpu)
 * runs on AP @cpu whenever its mailbox is empty and returns when work may
 * have come, or after a bound of its own; kick(cpu) runs on the CPU that
 * has just posted work to AP @cpu, and must make a wait() that has begun,
 * or is about to, return.  Without them idle APs spin.
 */
struct smp_idle_ops {
	void (*wait)(unsigned int cpu);
	void (*kick)(unsigned int cpu);
};

/** For the platform, before it starts any AP: how idle APs wait. */
void smp_set_idle_ops(const struct smp_idle_ops *ops);

/** Microseconds of busy waiting (by the stopwatch's rate). */
void smp_delay_us(uint64_t us);

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

/** Why some CPUs were not found or started, in words ("" when none). */
const char *smp_start_problem(void);

#endif
