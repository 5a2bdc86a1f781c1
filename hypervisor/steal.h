/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor's own account of steal time, where it keeps one for us
 * (lib/steal.h): KVM's steal-time record, registered per CPU with
 * MSR_KVM_STEAL_TIME when CPUID 0x40000001 offers KVM_FEATURE_STEAL_TIME,
 * or Xen's runstate area, registered per vCPU with
 * VCPUOP_register_runstate_memory_area, in every Xen guest type.  Under
 * TCG, or any other hypervisor, there is none.
 */
#ifndef CLOCKBENCH_HYPERVISOR_STEAL_H
#define CLOCKBENCH_HYPERVISOR_STEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypervisor/detect.h"
#include "lib/steal.h"

/**
 * Which record this hypervisor (@hv) keeps, set up for the run (Xen: its
 * hypercalls and the update flag), and in @why which, in words, or why
 * there is none (STEAL_NONE).
 */
enum steal_kind steal_choose(const struct hv_info *hv, char *why,
			     size_t whylen);

/**
 * Register the calling CPU's record (dense index @cpu): 0, or -1 with the
 * reason in @why.
 */
int steal_setup_cpu(unsigned int cpu, char *why, size_t whylen);

/**
 * The record for a phase on the calling CPU (dense index @cpu): whose
 * (steal_choose() for @hv; NULL: no hypervisor information), registered
 * and read once into *@first.  Into @s; returns @s->ok.
 */
bool steal_open(const struct hv_info *hv, unsigned int cpu,
		struct steal_setup *s, uint64_t *first);

/** The calling CPU's (@cpu) steal time so far, in ns: 0, or -1 when its
 * record never settled. */
int steal_read_cpu(unsigned int cpu, uint64_t *steal_ns);

/**
 * The calling CPU's (@cpu) steal time now, in ns, as steal_read_cpu() reads
 * it, or @last, the last good read, when the record never settled, which
 * adds one to *@failed: a spin that reads the record again and again goes
 * on through a read it could not trust.  Inline: the noise phase's spin
 * calls it before every clock read.
 */
static inline uint64_t steal_read_or_last(unsigned int cpu, uint64_t last,
					  uint64_t *failed)
{
	uint64_t steal;

	if (steal_read_cpu(cpu, &steal)) {
		(*failed)++;
		return last;
	}
	return steal;
}

/** Stop the calling CPU's record being written (KVM: the MSR cleared;
 * Xen keeps a registered area until the domain ends, and it is ours). */
void steal_stop_cpu(unsigned int cpu);

#endif
