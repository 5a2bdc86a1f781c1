/* SPDX-License-Identifier: MIT */
/*
 * What the hypervisor's leaves say of the TSC's frequency (pure over a
 * cpuid_fn; host-tested).  The engine asks these and hands the answers to
 * the TSC's probe (struct probe_env), which knows no hypervisor.
 */
#ifndef CLOCKBENCH_HYPERVISOR_HV_TSC_H
#define CLOCKBENCH_HYPERVISOR_HV_TSC_H

#include <stddef.h>
#include <stdint.h>

#include "hypervisor/detect.h"

/**
 * The TSC's frequency in Hz as the first hypervisor leaf that states it
 * says: Xen's leaf base + 3 (guest TSC kHz), else the timing leaf base +
 * 0x10 (TSC kHz: VMware's convention, offered by KVM with invtsc or
 * tsc-frequency set, and others).  0 when none does; @source says which
 * leaf, in words.
 */
uint64_t hv_tsc_frequency(const struct hv_info *hv, cpuid_fn cpuid,
			  char *source, size_t len);

/**
 * Xen's host TSC frequency in Hz (leaf base + 3, sub-leaf 2, as Xen
 * calibrated it): the guest's rate too only while Xen does not emulate
 * rdtsc, so 0 then, and without Xen or the leaf.  @source says so.
 */
uint64_t xen_host_tsc_frequency(const struct hv_info *hv, cpuid_fn cpuid,
				char *source, size_t len);

#endif
