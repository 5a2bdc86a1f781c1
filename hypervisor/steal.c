// SPDX-License-Identifier: MIT
/* The hypervisor's account of steal time, registered and read (see
 * hypervisor/steal.h; the records' protocols are lib/steal.c's). */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/priv.h"
#include "boot/boot.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/steal.h"
#include "hypervisor/xen.h"
#include "lib/steal.h"

/* CPUID 0x40000001 (the KVM leaf's base + 1): KVM's feature bits in EAX. */
#define KVM_FEATURES_LEAF_OFFSET 1

static enum steal_kind kind;
static struct xen_cpuid_info xen_cpuid;
/* KVM wants each record 64-byte aligned and never crossing a page; Xen
 * takes any address, and gets the same alignment. */
static volatile struct kvm_steal_time kvm_records[MAX_CPUS]
	__attribute__((aligned(64)));
static volatile struct vcpu_runstate_info xen_records[MAX_CPUS]
	__attribute__((aligned(64)));
static bool registered[MAX_CPUS];

static enum steal_kind choose_kvm(const struct hv_leaf *kvm, char *why,
				  size_t whylen)
{
	uint32_t features;

	if (kvm->max_leaf && kvm->max_leaf < kvm->base + 1) {
		snprintf(why, whylen,
			 "KVM at %#x lists no features leaf (max leaf %#x): "
			 "no steal-time record",
			 kvm->base, kvm->max_leaf);
		return STEAL_NONE;
	}
	features = cpuid(kvm->base + KVM_FEATURES_LEAF_OFFSET).eax;
	if (!(features & (1u << KVM_FEATURE_STEAL_TIME))) {
		snprintf(why, whylen,
			 "KVM does not offer steal time (CPUID %#x EAX %#x, "
			 "bit %u clear)",
			 kvm->base + KVM_FEATURES_LEAF_OFFSET, features,
			 KVM_FEATURE_STEAL_TIME);
		return STEAL_NONE;
	}
	snprintf(why, whylen, "KVM steal-time record (MSR %#x)",
		 MSR_KVM_STEAL_TIME);
	return STEAL_KVM;
}

static enum steal_kind choose_xen(const struct hv_leaf *xen, char *why,
				  size_t whylen)
{
	long rc;

	xen_cpuid_read(xen, cpu_cpuid, &xen_cpuid);
	if (xen_guest_setup(&xen_cpuid, why, whylen))
		return STEAL_NONE;
	/* Xen then flags a record it is rewriting (XEN_RUNSTATE_UPDATE);
	 * without it, a torn read shows as a changed state_entry_time. */
	rc = HYPERCALL2(__HYPERVISOR_vm_assist, VMASST_CMD_enable,
			VMASST_TYPE_runstate_update_flag);
	if (rc)
		snprintf(
			why, whylen,
			"Xen runstate area, without its update flag (vm_assist "
			"refused it: %ld): a torn read shows as a changed "
			"entry time",
			rc);
	else
		snprintf(why, whylen,
			 "Xen runstate area, with its update flag");
	return STEAL_XEN;
}

enum steal_kind steal_choose(const struct hv_info *hv, char *why, size_t whylen)
{
	const struct hv_leaf *primary = hv_primary(hv);

	why[0] = '\0';
	kind = STEAL_NONE;
	if (!primary)
		snprintf(why, whylen,
			 "no steal interface: no hypervisor says it is there");
	else if (primary->kind == HV_KVM)
		kind = choose_kvm(primary, why, whylen);
	else if (primary->kind == HV_XEN)
		kind = choose_xen(primary, why, whylen);
	else
		snprintf(why, whylen, "no steal interface: %s keeps none",
			 hv_kind_name(primary->kind));
	return kind;
}

int steal_setup_cpu(unsigned int cpu, char *why, size_t whylen)
{
	uint64_t steal;

	if (cpu >= MAX_CPUS || kind == STEAL_NONE) {
		snprintf(why, whylen, "no steal interface");
		return -1;
	}
	if (kind == STEAL_KVM) {
		memset((void *)&kvm_records[cpu], 0, sizeof(kvm_records[cpu]));
		if (!wrmsr_safe(MSR_KVM_STEAL_TIME,
				(uintptr_t)&kvm_records[cpu] |
					KVM_MSR_ENABLED)) {
			snprintf(why, whylen,
				 "writing MSR_KVM_STEAL_TIME (%#x) faulted",
				 MSR_KVM_STEAL_TIME);
			return -1;
		}
	} else {
		struct vcpu_register_runstate_memory_area reg;
		uint32_t vcpu = xen_vcpu_id(&xen_cpuid, cpu);
		long rc;

		memset((void *)&xen_records[cpu], 0, sizeof(xen_records[cpu]));
		reg.addr.v = (struct vcpu_runstate_info *)&xen_records[cpu];
		rc = HYPERCALL3(__HYPERVISOR_vcpu_op,
				VCPUOP_register_runstate_memory_area, vcpu,
				&reg);
		if (rc) {
			snprintf(why, whylen,
				 "VCPUOP_register_runstate_memory_area for "
				 "vCPU %u failed: %ld",
				 vcpu, rc);
			return -1;
		}
	}
	registered[cpu] = true;
	/* A record Xen or KVM filled in reads settled. */
	if (steal_read_cpu(cpu, &steal)) {
		snprintf(why, whylen,
			 "the %s never settled after registering it",
			 steal_kind_name(kind));
		return -1;
	}
	return 0;
}

bool steal_open(const struct hv_info *hv, unsigned int cpu,
		struct steal_setup *s, uint64_t *first)
{
	memset(s, 0, sizeof(*s));
	if (!hv) {
		snprintf(s->words, sizeof(s->words),
			 "no steal interface: no hypervisor information");
		return false;
	}
	s->kind = steal_choose(hv, s->words, sizeof(s->words));
	if (s->kind == STEAL_NONE)
		return false;
	s->ok = !steal_setup_cpu(cpu, s->why, sizeof(s->why));
	if (s->ok && steal_read_cpu(cpu, first)) {
		s->ok = false;
		snprintf(s->why, sizeof(s->why),
			 "its steal record never settled");
	}
	return s->ok;
}

int steal_read_cpu(unsigned int cpu, uint64_t *steal_ns)
{
	if (cpu >= MAX_CPUS || !registered[cpu])
		return -1;
	if (kind == STEAL_KVM)
		return steal_read_kvm(&kvm_records[cpu], STEAL_READ_MAX_TRIES,
				      steal_ns);
	return steal_read_xen(&xen_records[cpu], STEAL_READ_MAX_TRIES,
			      steal_ns);
}

void steal_stop_cpu(unsigned int cpu)
{
	if (cpu < MAX_CPUS && registered[cpu] && kind == STEAL_KVM) {
		wrmsr_safe(MSR_KVM_STEAL_TIME, 0);
		registered[cpu] = false;
	}
}
