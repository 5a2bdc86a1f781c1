// SPDX-License-Identifier: MIT
/* The other CPUs: their table, their start as far as it is common, and
 * giving them work (see base/smp.h). */
#include <stdio.h>

#include "base/cpu.h"
#include "base/platform.h"
#include "base/smp.h"
#include "base/stopwatch.h"

/* A generous bound for an AP to reach ring 3 (its real-mode steps are
 * emulated on some hypervisors). */
#define AP_START_TIMEOUT_MS 1000

struct mailbox {
	void (*volatile fn)(void *arg);
	void *volatile arg;
	volatile unsigned int requested, done;
};

static struct cpu cpus[MAX_CPUS];
static unsigned int nr_cpus = 1;
static struct mailbox mailboxes[MAX_CPUS];
static uint8_t ap_user_stacks[MAX_CPUS][AP_STACK_SIZE]
	__attribute__((aligned(PAGE_SIZE)));
static char start_problem[160];
static const struct smp_idle_ops *idle_ops;

unsigned int cpu_index(void)
{
	uint64_t rsp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t base = (uint64_t)(uintptr_t)ap_user_stacks;

	if (rsp >= base && rsp < base + sizeof(ap_user_stacks))
		return (unsigned int)((rsp - base) / AP_STACK_SIZE);
	return 0;
}

void *smp_ap_stack_top(unsigned int index)
{
	return ap_user_stacks[index] + AP_STACK_SIZE - 8;
}

unsigned int smp_nr_cpus(void)
{
	return nr_cpus;
}

const struct cpu *smp_cpu(unsigned int i)
{
	return i < nr_cpus ? &cpus[i] : NULL;
}

unsigned int smp_cpus_online(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr_cpus; i++)
		n += cpus[i].online;
	return n;
}

const char *smp_start_problem(void)
{
	return start_problem;
}

void smp_delay_us(uint64_t us)
{
	uint64_t end = tsc_read() + stopwatch_cycles((double)us * 1e3);

	while (tsc_read() < end)
		cpu_relax();
}

void smp_set_idle_ops(const struct smp_idle_ops *ops)
{
	idle_ops = ops;
}

void ap_main(unsigned int cpu)
{
	struct mailbox *mb = &mailboxes[cpu];

	__atomic_store_n(&cpus[cpu].online, true, __ATOMIC_RELEASE);
	for (;;) {
		if (__atomic_load_n(&mb->requested, __ATOMIC_ACQUIRE) !=
		    mb->done) {
			mb->fn(mb->arg);
			__atomic_store_n(&mb->done, mb->requested,
					 __ATOMIC_RELEASE);
		} else if (idle_ops) {
			idle_ops->wait(cpu);
		} else {
			cpu_relax();
		}
	}
}

bool on_cpu_post(unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct mailbox *mb = &mailboxes[cpu];

	if (cpu == 0 || cpu >= nr_cpus || !cpus[cpu].online ||
	    mb->requested != __atomic_load_n(&mb->done, __ATOMIC_ACQUIRE))
		return false;
	mb->fn = fn;
	mb->arg = arg;
	__atomic_store_n(&mb->requested, mb->requested + 1, __ATOMIC_RELEASE);
	if (idle_ops)
		idle_ops->kick(cpu);
	return true;
}

bool on_cpu_wait(unsigned int cpu, unsigned int timeout_ms)
{
	struct mailbox *mb = &mailboxes[cpu];
	uint64_t end = tsc_read() + stopwatch_cycles((double)timeout_ms * 1e6);

	while (__atomic_load_n(&mb->done, __ATOMIC_ACQUIRE) != mb->requested) {
		if (tsc_read() > end)
			return false;
		cpu_relax();
	}
	return true;
}

bool on_cpu(unsigned int cpu, void (*fn)(void *), void *arg,
	    unsigned int timeout_ms)
{
	if (cpu == cpu_index()) {
		fn(arg);
		return true;
	}
	return on_cpu_post(cpu, fn, arg) && on_cpu_wait(cpu, timeout_ms);
}

unsigned int on_all_cpus(void (*fn)(void *), void *arg, unsigned int timeout_ms)
{
	unsigned int i, ran = 1;

	for (i = 1; i < nr_cpus; i++)
		on_cpu_post(i, fn, arg);
	fn(arg);
	for (i = 1; i < nr_cpus; i++)
		if (cpus[i].online && on_cpu_wait(i, timeout_ms))
			ran++;
	return ran;
}

void spin_lock(struct spinlock *l)
{
	unsigned int ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

bool barrier_wait(struct smp_barrier *b, unsigned int timeout_ms)
{
	unsigned int generation =
		__atomic_load_n(&b->generation, __ATOMIC_ACQUIRE);
	uint64_t end;

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->count) {
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->generation, generation + 1,
				 __ATOMIC_RELEASE);
		return true;
	}
	end = tsc_read() + stopwatch_cycles((double)timeout_ms * 1e6);
	while (__atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) ==
	       generation) {
		if (tsc_read() > end)
			return false;
		cpu_relax();
	}
	return true;
}

void smp_add_cpu(uint32_t id, uint32_t hold_id,
		 bool (*start)(struct cpu *c, char *why, size_t whylen))
{
	struct cpu *c = &cpus[nr_cpus];
	char why[sizeof(start_problem)];
	uint64_t waited_us;

	if (nr_cpus == MAX_CPUS)
		return;
	*c = (struct cpu){ .index = nr_cpus, .apic_id = id };
	nr_cpus++;
	if (hold_id && c->apic_id == hold_id) {
		c->held = true;
		return;
	}
	printf("# starting CPU %u (%s %u)\n", c->index, platform_cpu_id_name(),
	       c->apic_id);
	why[0] = '\0';
	if (start(c, why, sizeof(why)))
		for (waited_us = 0;
		     waited_us < AP_START_TIMEOUT_MS * 1000ull &&
		     !__atomic_load_n(&c->online, __ATOMIC_ACQUIRE);
		     waited_us += 100)
			smp_delay_us(100);
	else if (why[0])
		printf("clockbench: %s\n", why);
	c->failed = !c->online;
	if (c->failed)
		printf("clockbench: CPU %u (%s %u) did not come online within "
		       "%u ms; left out\n",
		       c->index, platform_cpu_id_name(), c->apic_id,
		       AP_START_TIMEOUT_MS);
}

void smp_start(struct acpi *acpi, uint32_t hold_apic_id)
{
	cpus[0] = (struct cpu){ .index = 0, .online = true };
	if (!stopwatch_hz()) {
		snprintf(start_problem, sizeof(start_problem),
			 "no TSC frequency for the start-up waits");
		return;
	}
	platform_start_cpus(acpi, hold_apic_id, start_problem,
			    sizeof(start_problem));
	cpus[0].apic_id = platform_cpu_id();
}
