/* SPDX-License-Identifier: MIT */
/*
 * kvm-clock: KVM's paravirtual clock.  Each vCPU registers a 32-byte
 * pvclock area by MSR; KVM keeps it filled with a (TSC, ns) pair and the
 * TSC-to-ns scale, and a read turns the current TSC into nanoseconds
 * (hypervisor/pvclock.h).  Present only under KVM (`-accel kvm`).
 */
#ifndef CLOCKBENCH_HYPERVISOR_KVMCLOCK_H
#define CLOCKBENCH_HYPERVISOR_KVMCLOCK_H

#include <stdint.h>

#include "lib/clock.h"
#include "lib/xen_abi.h"

/* CPUs with an area of their own; CPU indices at or above it get none. */

/* "kvm_clock": reads nanoseconds, per CPU, after setup_cpu(). */
extern struct clock kvm_clock;

/**
 * kvm_clock_failed_reads() - reads whose area version stayed odd or kept
 * changing through every retry.  Such a read returns the CPU's last good
 * value (a stall, not a jump), so a report should show this count.
 */
unsigned long kvm_clock_failed_reads(void);

struct pvclock_sample;

/**
 * kvm_clock_sample() - one consistent reading of the calling CPU's area:
 * its version and flags too (PVCLOCK_TSC_STABLE_BIT, GUEST_STOPPED), for
 * the event report.  0, or -1 when the CPU has no area or the version
 * never settled.
 */
int kvm_clock_sample(struct pvclock_sample *s);

/**
 * kvm_clock_area() - CPU @cpu's pvclock record, and the attempts a read of
 * it may make (*@max_tries), for the step monitor (hypervisor/pvclock_step.h);
 * NULL when that CPU has none.
 */
const volatile struct vcpu_time_info *kvm_clock_area(unsigned int cpu,
						     unsigned int *max_tries);

#endif
