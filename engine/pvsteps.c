// SPDX-License-Identifier: MIT
/* The pvclock step monitor over a run (see engine/pvsteps.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/smp.h"
#include "base/stopwatch.h"
#include "engine/pvsteps.h"
#include "hypervisor/kvmclock.h"
#include "hypervisor/xen.h"

/* The most an AP may take to set its record up. */
#define SETUP_WAIT_MS 1000

static struct clock *setup_clock;

/* On each AP without a record yet: the clock's own per-CPU setup, which
 * the cross-CPU phase would otherwise run only after the noise spin (it
 * runs it again there, which registers the same record again). */
static void setup_record(void *arg)
{
	unsigned int tries;

	if (cpu_index() != 0 && setup_clock->setup_cpu &&
	    !((struct pvsteps_result *)arg)->area_of(cpu_index(), &tries))
		setup_clock->setup_cpu(setup_clock);
}

void pvsteps_setup(struct pvsteps_result *out)
{
	const volatile struct vcpu_time_info *(*area_of)(unsigned int,
							 unsigned int *) = NULL;
	unsigned int i, watched = 0, no_room = 0;

	memset(out, 0, sizeof(*out));
	out->tsc_hz = (double)stopwatch_hz();
	out->ncpu = smp_nr_cpus() < MAX_CPUS ? smp_nr_cpus() : MAX_CPUS;
	if (kvm_clock.present) {
		out->clock = kvm_clock.name;
		area_of = kvm_clock_area;
	} else if (xen_pvclock.present) {
		out->clock = xen_pvclock.name;
		area_of = xen_pvclock_area;
	} else {
		snprintf(out->reason, sizeof(out->reason),
			 "no pvclock record here: neither kvm-clock nor Xen's "
			 "time record is present");
		return;
	}
	out->area_of = area_of;
	setup_clock = kvm_clock.present ? &kvm_clock : &xen_pvclock;
	if (setup_clock->flags & CLOCK_NEEDS_CPU_SETUP)
		on_all_cpus(setup_record, out, SETUP_WAIT_MS);
	for (i = 0; i < out->ncpu; i++) {
		struct pvsteps_cpu *c = &out->cpu[i];

		c->id = smp_cpu(i)->apic_id;
		c->online = smp_cpu(i)->online;
		if (!c->online)
			continue;
		c->area = area_of(i, &out->max_tries);
		if (!c->area)
			continue;
		c->monitor = malloc(sizeof(*c->monitor));
		if (!c->monitor) {
			no_room++;
			continue;
		}
		pvclock_step_init(c->monitor);
		watched++;
	}
	if (!watched) {
		snprintf(out->reason, sizeof(out->reason),
			 "%s has no record on any online vCPU%s", out->clock,
			 no_room ? ", or the heap had no room for a monitor"
				 : "");
		return;
	}
	out->present = true;
}

void pvsteps_refresh(struct pvsteps_result *r)
{
	unsigned int i;

	if (!r || !r->present)
		return;
	for (i = 0; i < r->ncpu; i++) {
		struct pvsteps_cpu *c = &r->cpu[i];
		const volatile struct vcpu_time_info *area;

		if (!c->monitor)
			continue;
		area = r->area_of(i, &r->max_tries);
		/* A CPU left without a record keeps its last one: its
		 * version stands still and no update is counted. */
		if (area)
			c->area = area;
	}
}

void pvsteps_pause(struct pvsteps_result *r, unsigned int cpu,
		   enum pvsteps_span span)
{
	if (!r || !r->present || cpu >= MAX_CPUS || !r->cpu[cpu].monitor)
		return;
	pvclock_step_pause(r->cpu[cpu].monitor);
	__atomic_fetch_or(&r->spans, span, __ATOMIC_RELAXED);
}
