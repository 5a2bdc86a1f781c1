/* SPDX-License-Identifier: MIT */
/*
 * A pvclock record per CPU, each CPU reading its own: what kvm-clock
 * (hypervisor/kvmclock.c) and Xen's pvclock (hypervisor/xen_pvclock.c)
 * share.  Each driver says where CPU n's record is once it has set it up;
 * a read on a CPU without one, or of a record whose version never settles,
 * gives the last value that CPU read and counts as a bad read.
 */
#ifndef CLOCKBENCH_HYPERVISOR_PVCLOCK_SOURCE_H
#define CLOCKBENCH_HYPERVISOR_PVCLOCK_SOURCE_H

#include <stdint.h>

#include "base/cpu.h"
#include "base/smp.h"
#include "boot/boot.h"
#include "hypervisor/pvclock.h"

struct pvclock_source {
	unsigned int max_tries; /* of the version protocol, per read */
	volatile struct vcpu_time_info *area[MAX_CPUS]; /* NULL: not set up */
	uint64_t last_ns[MAX_CPUS];
	unsigned long bad_reads;
};

/** This CPU's record, as ns (inline: it is the read being measured). */
static inline uint64_t pvclock_source_read(struct pvclock_source *src)
{
	unsigned int cpu = cpu_index();
	struct pvclock_sample s;

	if (!src->area[cpu] || pvclock_read(src->area[cpu], tsc_read_ordered,
					    src->max_tries, &s)) {
		__atomic_fetch_add(&src->bad_reads, 1, __ATOMIC_RELAXED);
		return src->last_ns[cpu];
	}
	src->last_ns[cpu] = s.ns;
	return s.ns;
}

/** Reads so far that gave the last value instead of a fresh one. */
static inline unsigned long
pvclock_source_bad_reads(const struct pvclock_source *src)
{
	return __atomic_load_n(&src->bad_reads, __ATOMIC_RELAXED);
}

#endif
