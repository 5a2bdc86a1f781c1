// SPDX-License-Identifier: MIT
/*
 * Unit tests: what the hypervisor's leaves say of the TSC's frequency
 * (hypervisor/hv_tsc.c), over a fake CPUID with KVM's or Xen's leaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hypervisor/hv_tsc.h"
#include "hypervisor/xen.h"

#define BASE 0x40000000u

/* The fake CPU: one hypervisor's signature at BASE, its highest leaf, the
 * timing leaf's kHz (base + 0x10), and Xen's time leaf (base + 3). */
static const char *signature;
static uint32_t max_leaf, timing_khz, xen_flags, xen_guest_khz, xen_host_khz;

static struct cpuid_regs fake_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r = { 0 };

	if (leaf == 1) {
		r.ecx = 1u << 31;
	} else if (leaf == BASE && signature) {
		r.eax = max_leaf;
		memcpy(&r.ebx, signature + 0, 4);
		memcpy(&r.ecx, signature + 4, 4);
		memcpy(&r.edx, signature + 8, 4);
	} else if (leaf == BASE + 0x10 && leaf <= max_leaf) {
		r.eax = timing_khz;
	} else if (leaf == BASE + XEN_LEAF_TIME && leaf <= max_leaf) {
		if (subleaf == 0) {
			r.eax = xen_flags;
			r.ecx = xen_guest_khz;
		} else if (subleaf == 2) {
			r.eax = xen_host_khz;
		}
	}
	return r;
}

static int setup(void **state)
{
	(void)state;
	signature = NULL;
	max_leaf = timing_khz = xen_flags = xen_guest_khz = xen_host_khz = 0;
	return 0;
}

static uint64_t guest_hz(char *source, size_t len)
{
	struct hv_info hv;

	hv_scan(fake_cpuid, &hv);
	return hv_tsc_frequency(&hv, fake_cpuid, source, len);
}

static uint64_t host_hz(char *source, size_t len)
{
	struct hv_info hv;

	hv_scan(fake_cpuid, &hv);
	return xen_host_tsc_frequency(&hv, fake_cpuid, source, len);
}

/* KVM with invtsc: its timing leaf. */
static void kvm_timing_leaf(void **state)
{
	char source[96];

	(void)state;
	signature = "KVMKVMKVM\0\0\0";
	max_leaf = BASE + 0x10;
	timing_khz = 2100000;
	assert_int_equal(guest_hz(source, sizeof(source)), 2100000000ull);
	assert_string_equal(source, "KVM CPUID leaf 0x40000010");
	assert_int_equal(host_hz(source, sizeof(source)), 0);
	assert_string_equal(source, "");
}

/* KVM without it: the leaf is not listed, or says 0. */
static void kvm_without_timing_leaf(void **state)
{
	char source[96];

	(void)state;
	signature = "KVMKVMKVM\0\0\0";
	max_leaf = BASE + 1;
	timing_khz = 2100000; /* above max_leaf: never read */
	assert_int_equal(guest_hz(source, sizeof(source)), 0);
	assert_string_equal(source, "");
	max_leaf = BASE + 0x10;
	timing_khz = 0;
	assert_int_equal(guest_hz(source, sizeof(source)), 0);
}

/* Xen: the guest's kHz from base + 3.0, the host's from base + 3.2, the
 * latter only while Xen does not emulate rdtsc. */
static void xen_time_leaf(void **state)
{
	char source[128];

	(void)state;
	signature = "XenVMMXenVMM";
	max_leaf = BASE + 5;
	xen_guest_khz = 2300000;
	xen_host_khz = 2299998;
	assert_int_equal(guest_hz(source, sizeof(source)), 2300000000ull);
	assert_string_equal(source, "Xen CPUID leaf 0x40000003");
	assert_int_equal(host_hz(source, sizeof(source)), 2299998000ull);
	assert_non_null(strstr(source, "Xen's host TSC kHz (CPUID leaf "
				       "0x40000003.2"));
	xen_flags = XEN_TSC_EMULATED;
	assert_int_equal(host_hz(source, sizeof(source)), 0);
	/* As a PV dom0: sub-leaf 0 all zero, no guest kHz. */
	xen_flags = 0;
	xen_guest_khz = 0;
	assert_int_equal(guest_hz(source, sizeof(source)), 0);
	assert_int_equal(host_hz(source, sizeof(source)), 2299998000ull);
}

/* No hypervisor at all. */
static void none(void **state)
{
	char source[96] = "stale";

	(void)state;
	assert_int_equal(
		hv_tsc_frequency(NULL, fake_cpuid, source, sizeof(source)), 0);
	assert_string_equal(source, "");
	assert_int_equal(guest_hz(source, sizeof(source)), 0);
	assert_int_equal(host_hz(source, sizeof(source)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(kvm_timing_leaf, setup),
		cmocka_unit_test_setup(kvm_without_timing_leaf, setup),
		cmocka_unit_test_setup(xen_time_leaf, setup),
		cmocka_unit_test_setup(none, setup),
	};

	return cmocka_run_group_tests_name("hv_tsc", tests, NULL, NULL);
}
