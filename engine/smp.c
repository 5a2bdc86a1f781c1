// SPDX-License-Identifier: MIT
/* Starting the other CPUs, and giving them work. */
#include <stdio.h>
#include <string.h>

#include "drivers/lapic.h"
#include "drivers/tsc.h"
#include "platform/pv64/xen_pv.h"
#include "base/config.h"
#include "base/cpu.h"
#include "report/report.h"
#include "engine/smp.h"

/* The MP specification's waits, and a generous bound for an AP to reach
 * ring 3 (its real-mode steps are emulated on some hypervisors). */
#define INIT_WAIT_US	    10000
#define STARTUP_WAIT_US	    200
#define AP_START_TIMEOUT_MS 1000

struct mailbox {
	void (*volatile fn)(void *arg);
	void *volatile arg;
	volatile unsigned int requested, done;
};

extern const char ap_trampoline_start[], ap_trampoline_end[];
extern const char ap_trampoline_gdt_descr[];
extern const uint8_t gdt_descr[];
extern uint64_t ap_boot_ring0_stack, ap_boot_user_stack;
extern uint32_t ap_boot_cpu;

void ap_main(unsigned int cpu);

static struct cpu cpus[MAX_CPUS];
static unsigned int nr_cpus = 1;
static struct mailbox mailboxes[MAX_CPUS];
static uint8_t ap_user_stacks[MAX_CPUS][AP_STACK_SIZE]
	__attribute__((aligned(PAGE_SIZE)));
static uint8_t ap_ring0_stacks[MAX_CPUS][RING0_STACK_SIZE]
	__attribute__((aligned(PAGE_SIZE)));
static char start_problem[160];
static uint64_t cycles_per_us;
/* The hardware's name for each CPU as the CPU itself reported it at start
 * (Xen PV: the vCPU id Xen started it with). */
static uint32_t started_as[MAX_CPUS];

unsigned int cpu_index(void)
{
	uint64_t rsp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint64_t base = (uint64_t)(uintptr_t)ap_user_stacks;

	if (rsp >= base && rsp < base + sizeof(ap_user_stacks))
		return (unsigned int)((rsp - base) / AP_STACK_SIZE);
	return 0;
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

static void delay_us(uint64_t us)
{
	uint64_t end = tsc_read() + us * cycles_per_us;

	while (tsc_read() < end)
		cpu_relax();
}

/* Where an AP runs once in ring 3: say it is here, then serve requests. */
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
		}
		cpu_relax();
	}
}

/* Under Xen PV, where VCPUOP_initialise starts an AP: on the stack it was
 * given (which tells cpu_index()), with its vCPU id as the argument. */
static void xen_ap_start(unsigned int vcpu)
{
	unsigned int cpu = cpu_index();

	started_as[cpu] = vcpu;
	xen_pv_ap_setup();
	ap_main(cpu);
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
	return true;
}

bool on_cpu_wait(unsigned int cpu, unsigned int timeout_ms)
{
	struct mailbox *mb = &mailboxes[cpu];
	uint64_t end = tsc_read() + (uint64_t)timeout_ms * 1000 * cycles_per_us;

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
	end = tsc_read() + (uint64_t)timeout_ms * 1000 * cycles_per_us;
	while (__atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) ==
	       generation) {
		if (tsc_read() > end)
			return false;
		cpu_relax();
	}
	return true;
}

uint64_t smp_cycles_per_us(void)
{
	return cycles_per_us;
}

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

/* Start @c under Xen PV; its "APIC ID" is its vCPU id. */
static bool start_vcpu(struct cpu *c)
{
	char why[sizeof(start_problem)];

	/* A stack as a call leaves it: 8 bytes below 16-byte alignment. */
	if (xen_pv_vcpu_up(c->apic_id, xen_ap_start,
			   ap_user_stacks[c->index] + AP_STACK_SIZE - 8, why,
			   sizeof(why))) {
		printf("clockbench: %s\n", why);
		return false;
	}
	return true;
}

/* INIT, STARTUP, STARTUP (the second only if needed) to @c's APIC. */
static bool start_apic(struct cpu *c)
{
	ap_boot_cpu = c->index;
	ap_boot_ring0_stack = (uint64_t)(uintptr_t)(ap_ring0_stacks[c->index] +
						    RING0_STACK_SIZE);
	ap_boot_user_stack = (uint64_t)(uintptr_t)(ap_user_stacks[c->index] +
						   AP_STACK_SIZE) -
			     8;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	if (!lapic_send_ipi(c->apic_id, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT))
		return false;
	delay_us(INIT_WAIT_US);
	lapic_send_ipi(c->apic_id, LAPIC_ICR_STARTUP | (AP_TRAMPOLINE >> 12));
	delay_us(STARTUP_WAIT_US);
	if (!c->online) {
		lapic_send_ipi(c->apic_id,
			       LAPIC_ICR_STARTUP | (AP_TRAMPOLINE >> 12));
		delay_us(STARTUP_WAIT_US);
	}
	return true;
}

/* Start @c and wait, at most AP_START_TIMEOUT_MS, for it to say so. */
static bool start_ap(struct cpu *c)
{
	uint64_t waited_us;

	if (!(CONFIG_XEN_PV ? start_vcpu(c) : start_apic(c)))
		return false;
	for (waited_us = 0; waited_us < AP_START_TIMEOUT_MS * 1000ull &&
			    !__atomic_load_n(&c->online, __ATOMIC_ACQUIRE);
	     waited_us += 100)
		delay_us(100);
	return c->online;
}

/* A CPU in the table, numbered next; started unless held. */
static void add_cpu(uint32_t id, uint32_t hold_id)
{
	struct cpu *c = &cpus[nr_cpus];

	*c = (struct cpu){ .index = nr_cpus, .apic_id = id };
	nr_cpus++;
	if (hold_id && c->apic_id == hold_id) {
		c->held = true;
		return;
	}
	printf("# starting CPU %u (%s %u)\n", c->index, smp_id_name(),
	       c->apic_id);
	c->failed = !start_ap(c);
	if (c->failed)
		printf("clockbench: CPU %u (%s %u) did not come online within "
		       "%u ms; left out\n",
		       c->index, smp_id_name(), c->apic_id,
		       AP_START_TIMEOUT_MS);
}

/* Xen PV: the vCPUs Xen gave the domain, found by asking for each id. */
static void xen_start_vcpus(uint32_t hold_id)
{
	uint32_t vcpu;

	for (vcpu = 1; vcpu < MAX_CPUS; vcpu++) {
		char why[sizeof(start_problem)];

		if (xen_pv_vcpu_exists(vcpu, why, sizeof(why)) <= 0) {
			if (why[0])
				snprintf(start_problem, sizeof(start_problem),
					 "%s", why);
			break;
		}
		add_cpu(vcpu, hold_id);
	}
}

const char *smp_id_name(void)
{
	return CONFIG_XEN_PV ? "vCPU" : "APIC ID";
}

void smp_start(struct acpi *acpi, uint32_t hold_apic_id, uint64_t tsc_hz)
{
	struct acpi_cpu listed[MAX_CPUS];
	const struct acpi_header *madt;
	uint64_t lapic_base = 0;
	unsigned int count = 0, i;
	uint32_t bsp_id;
	size_t len;

	cpus[0] = (struct cpu){ .index = 0, .online = true };
	cycles_per_us = tsc_hz / 1000000;
	if (CONFIG_XEN_PV) {
		if (cycles_per_us)
			xen_start_vcpus(hold_apic_id);
		else
			snprintf(start_problem, sizeof(start_problem),
				 "no TSC frequency for the start-up waits");
		return;
	}
	madt = acpi ? acpi_find(acpi, "APIC", 0, &len) : NULL;
	if (!madt) {
		snprintf(start_problem, sizeof(start_problem),
			 "no ACPI MADT lists the CPUs, so only the boot CPU "
			 "runs");
		return;
	}
	if (acpi_madt_cpus(madt, len, listed, MAX_CPUS, &count, &lapic_base,
			   start_problem, sizeof(start_problem)))
		return;
	if (lapic_init(lapic_base, start_problem, sizeof(start_problem)))
		return;
	bsp_id = lapic_id();
	cpus[0].apic_id = bsp_id;
	if (count > MAX_CPUS)
		snprintf(start_problem, sizeof(start_problem),
			 "the MADT lists %u CPUs; clockbench runs at most %u",
			 count, MAX_CPUS);
	if (!cycles_per_us || !install_trampoline()) {
		snprintf(start_problem, sizeof(start_problem),
			 "no TSC frequency or no room for the AP trampoline");
		return;
	}
	for (i = 0; i < count && i < MAX_CPUS && nr_cpus < MAX_CPUS; i++)
		if (listed[i].enabled && listed[i].apic_id != bsp_id)
			add_cpu(listed[i].apic_id, hold_apic_id);
}

struct whoami {
	unsigned int index;
	uint32_t apic_id;
};

static void report_whoami(void *arg)
{
	struct whoami *w = arg;

	w->index = cpu_index();
	w->apic_id = CONFIG_XEN_PV ? started_as[w->index] : lapic_id();
}

void smp_print(void)
{
	unsigned int i;

	printf("  %-16s %u online of %u started or listed%s%s%s\n", "cpus",
	       smp_cpus_online(), nr_cpus,
	       !CONFIG_XEN_PV && lapic_x2apic() ? ", x2APIC" : "",
	       start_problem[0] ? "; " : "", start_problem);
	for (i = 0; i < nr_cpus; i++)
		printf("  %-16s CPU %u: %s %u, %s\n", "", i, smp_id_name(),
		       cpus[i].apic_id,
		       cpus[i].online ? "online"
		       : cpus[i].held ? "held back on purpose (hold_ap)"
				      : "did not start");
}

void smp_checks(void)
{
	unsigned int i;

	for (i = 1; i < nr_cpus; i++) {
		struct whoami w = { ~0u, ~0u };
		bool ran;

		if (cpus[i].held) {
			report_skip("CPU %u (%s %u) held back by hold_ap", i,
				    smp_id_name(), cpus[i].apic_id);
			continue;
		}
		if (!cpus[i].online) {
			report(false, "CPU %u (%s %u) came online", i,
			       smp_id_name(), cpus[i].apic_id);
			continue;
		}
		ran = on_cpu(i, report_whoami, &w, 1000);
		report(ran && w.index == i && w.apic_id == cpus[i].apic_id,
		       "on_cpu(%u) ran on CPU %u with %s %u (expected %u)", i,
		       w.index, smp_id_name(), w.apic_id, cpus[i].apic_id);
	}
}
