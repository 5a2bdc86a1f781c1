/* SPDX-License-Identifier: MIT */
/*
 * The pvclock step monitor over a run (hypervisor/pvclock_step.h): each
 * vCPU's kvm-clock record (else its Xen time record) is polled where the
 * run already spins on every vCPU, the noise phase's spin (engine/noise.c,
 * every PVSTEPS_NOISE_POLL_EVERY reads) and each lifecycle event's wait
 * (engine/lifecycle.c, every round), and every update seen there is
 * counted with the step it made.  The report judges it (report/pvsteps.c).
 */
#ifndef CLOCKBENCH_ENGINE_PVSTEPS_H
#define CLOCKBENCH_ENGINE_PVSTEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cpu.h"
#include "boot/boot.h"
#include "hypervisor/pvclock_step.h"

/* The noise spin polls the record's version once in this many TSC reads:
 * one load more in 64 back-to-back TSC reads. */
#define PVSTEPS_NOISE_POLL_EVERY 64

/* Where the watch ran (a bit each). */
enum pvsteps_span {
	PVSTEPS_SPAN_NOISE = 1 << 0,
	PVSTEPS_SPAN_LIFECYCLE = 1 << 1,
};

struct pvsteps_cpu {
	bool online;
	uint32_t id; /* the hardware's (struct cpu.apic_id) */
	/* NULL: none, not even after the clock's per-CPU setup ran here */
	const volatile struct vcpu_time_info *area;
	/* From the heap (about 7 KiB): NULL when it had no room, or no
	 * area. */
	struct pvclock_step_monitor *monitor;
};

struct pvsteps_result {
	bool present;		/* a record to watch on some vCPU */
	char reason[160];	/* why not, when not */
	const char *clock;	/* "kvm_clock" or "xen_pvclock" */
	unsigned int max_tries; /* of the version protocol, per read */
	unsigned int spans;	/* enum pvsteps_span bits */
	double tsc_hz;
	unsigned int ncpu;
	/* Where a CPU's record is now (kvm_clock_area, xen_pvclock_area):
	 * a restored domain may have it elsewhere. */
	const volatile struct vcpu_time_info *(*area_of)(unsigned int cpu,
							 unsigned int *tries);
	struct pvsteps_cpu cpu[MAX_CPUS];
};

/** Find each vCPU's record and give each a monitor, into @out. */
void pvsteps_setup(struct pvsteps_result *out);

/** On CPU @cpu, at TSC @tsc (just read): one poll of its record.  A
 * no-op where @r is NULL or the CPU has no monitor. */
static inline void pvsteps_poll(struct pvsteps_result *r, unsigned int cpu,
				uint64_t tsc)
{
	struct pvsteps_cpu *c;

	if (!r || !r->present || cpu >= MAX_CPUS)
		return;
	c = &r->cpu[cpu];
	if (c->monitor)
		pvclock_step_poll(c->monitor, c->area, tsc, tsc_read_ordered,
				  r->max_tries);
}

/** After a suspend and resume: each watched CPU's record looked up
 * again, where the resumed platform registered it. */
void pvsteps_refresh(struct pvsteps_result *r);

/** On CPU @cpu: the watch stops until its next poll (@span says which
 * span it covered). */
void pvsteps_pause(struct pvsteps_result *r, unsigned int cpu,
		   enum pvsteps_span span);

#endif
