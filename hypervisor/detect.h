/* SPDX-License-Identifier: MIT */
/*
 * Which hypervisor, if any, runs us: CPUID.1:ECX[31] says there is one,
 * and the leaves from 0x40000000 in steps of 0x100 name it by a 12-byte
 * signature.  Several may answer (KVM or Xen with a Hyper-V interface);
 * all are kept, the hypervisor itself first, compatibility interfaces
 * after it.
 */
#ifndef CLOCKBENCH_HYPERVISOR_DETECT_H
#define CLOCKBENCH_HYPERVISOR_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/cpuinfo.h"

#define HV_LEAF_FIRST 0x40000000u
#define HV_LEAF_LAST  0x40010000u
#define HV_LEAF_STEP  0x100u
#define HV_MAX_FOUND  4

enum hv_kind {
	HV_UNKNOWN,
	HV_KVM,
	HV_XEN,
	HV_TCG,
	HV_HYPERV,
	HV_VMWARE,
	HV_BHYVE,
	HV_ACRN,
	HV_QNX,
	HV_PARALLELS,
};

struct hv_leaf {
	uint32_t base;	   /* the leaf that answered with the signature */
	uint32_t max_leaf; /* its EAX: the highest leaf of this interface */
	char signature[13];
	enum hv_kind kind;
};

struct hv_info {
	bool present; /* CPUID.1:ECX[31] */
	unsigned int nr;
	struct hv_leaf found[HV_MAX_FOUND];
};

/** The kind of hypervisor that uses the 12-byte @signature. */
enum hv_kind hv_kind_from_signature(const char *signature);

/** "KVM", "Xen", "TCG", "Hyper-V", "VMware", ... */
const char *hv_kind_name(enum hv_kind kind);

/** Scan the hypervisor leaves through @cpuid into @info. */
void hv_scan(cpuid_fn cpuid, struct hv_info *info);

/**
 * What @leaf's interface offers, in words, from its feature leaves read
 * through @cpuid: KVM's feature bits (base + 1), Xen's version (base + 1).
 * Empty for kinds it does not decode.
 */
void hv_describe_features(const struct hv_leaf *leaf, cpuid_fn cpuid, char *buf,
			  size_t len);

/** The interface of @kind among those found (NULL @info: none), or NULL. */
const struct hv_leaf *hv_find(const struct hv_info *info, enum hv_kind kind);

/** The hypervisor proper (not a compatibility interface), or NULL. */
const struct hv_leaf *hv_primary(const struct hv_info *info);

/**
 * Why a paravirtual @clock that needs hypervisor @want ("KVM", "Xen") is
 * absent, given what @info found, into @buf: "no KVM signature in the
 * hypervisor leaves (the hypervisor is Xen): kvm-clock needs KVM".
 */
void hv_describe_missing(const struct hv_info *info, const char *want,
			 const char *clock, char *buf, size_t len);

#endif
