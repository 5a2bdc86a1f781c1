// SPDX-License-Identifier: MIT
/* Unit tests: hypervisor detection over a fake CPUID (hypervisor/detect.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hypervisor/detect.h"

#define MAX_LEAVES 4

/* The fake CPU: a hypervisor bit and up to four signature leaves. */
static bool hv_bit;
static uint32_t features_leaf, features_eax;
static struct {
	uint32_t leaf, max;
	const char *sig;
} leaves[MAX_LEAVES];

static struct cpuid_regs fake_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r = { 0 };
	size_t i;

	(void)subleaf;
	if (leaf == 1) {
		r.ecx = hv_bit ? 1u << 31 : 0;
		return r;
	}
	if (features_leaf && leaf == features_leaf) {
		r.eax = features_eax;
		return r;
	}
	for (i = 0; i < MAX_LEAVES; i++) {
		if (leaves[i].sig && leaves[i].leaf == leaf) {
			r.eax = leaves[i].max;
			memcpy(&r.ebx, leaves[i].sig + 0, 4);
			memcpy(&r.ecx, leaves[i].sig + 4, 4);
			memcpy(&r.edx, leaves[i].sig + 8, 4);
			return r;
		}
	}
	/* Like Intel parts: unknown leaves echo the highest basic leaf. */
	r.eax = 0xd;
	r.ebx = 0x12345678;
	return r;
}

static int setup(void **state)
{
	(void)state;
	hv_bit = true;
	features_leaf = 0;
	memset(leaves, 0, sizeof(leaves));
	return 0;
}

static void signatures(void **state)
{
	(void)state;
	assert_int_equal(hv_kind_from_signature("KVMKVMKVM\0\0\0"), HV_KVM);
	assert_int_equal(hv_kind_from_signature("XenVMMXenVMM"), HV_XEN);
	assert_int_equal(hv_kind_from_signature("TCGTCGTCGTCG"), HV_TCG);
	assert_int_equal(hv_kind_from_signature("Microsoft Hv"), HV_HYPERV);
	assert_int_equal(hv_kind_from_signature("VMwareVMware"), HV_VMWARE);
	assert_int_equal(hv_kind_from_signature("NotAHypervsr"), HV_UNKNOWN);
	assert_string_equal(hv_kind_name(HV_KVM), "KVM");
	assert_string_equal(hv_kind_name(HV_HYPERV), "Hyper-V");
	assert_string_equal(hv_kind_name(HV_UNKNOWN), "unknown hypervisor");
}

static void bare_metal(void **state)
{
	struct hv_info info;

	(void)state;
	hv_bit = false;
	leaves[0].leaf = 0x40000000; /* must not be looked at */
	leaves[0].max = 0x40000001;
	leaves[0].sig = "KVMKVMKVM\0\0\0";
	hv_scan(fake_cpuid, &info);
	assert_false(info.present);
	assert_int_equal(info.nr, 0);
	assert_null(hv_primary(&info));
}

static void kvm(void **state)
{
	struct hv_info info;

	(void)state;
	leaves[0].leaf = 0x40000000;
	leaves[0].max = 0x40000001;
	leaves[0].sig = "KVMKVMKVM\0\0\0";
	hv_scan(fake_cpuid, &info);
	assert_true(info.present);
	assert_int_equal(info.nr, 1);
	assert_int_equal(hv_primary(&info)->kind, HV_KVM);
	assert_string_equal(hv_primary(&info)->signature, "KVMKVMKVM");
	assert_int_equal(hv_primary(&info)->max_leaf, 0x40000001);
}

/* Xen with Viridian: Hyper-V at the base, Xen 0x100 above; Xen first. */
static void xen_behind_hyperv(void **state)
{
	struct hv_info info;

	(void)state;
	leaves[0].leaf = 0x40000000;
	leaves[0].max = 0x40000006;
	leaves[0].sig = "Microsoft Hv";
	leaves[1].leaf = 0x40000100;
	leaves[1].max = 0x40000105;
	leaves[1].sig = "XenVMMXenVMM";
	hv_scan(fake_cpuid, &info);
	assert_int_equal(info.nr, 2);
	assert_int_equal(info.found[0].kind, HV_XEN);
	assert_int_equal(info.found[0].base, 0x40000100);
	assert_int_equal(info.found[1].kind, HV_HYPERV);
}

static void bit_set_but_no_signature(void **state)
{
	struct hv_info info;

	(void)state;
	leaves[0].leaf = 0x40000000;
	leaves[0].max = 0x3; /* a max leaf outside its own block: not real */
	leaves[0].sig = "KVMKVMKVM\0\0\0";
	hv_scan(fake_cpuid, &info);
	assert_true(info.present);
	assert_int_equal(info.nr, 0);
}

static void unknown_signature_is_kept(void **state)
{
	struct hv_info info;

	(void)state;
	leaves[0].leaf = 0x40000000;
	leaves[0].max = 0x40000010;
	leaves[0].sig = "SomeNewHV!!!";
	hv_scan(fake_cpuid, &info);
	assert_int_equal(info.nr, 1);
	assert_int_equal(info.found[0].kind, HV_UNKNOWN);
	assert_string_equal(info.found[0].signature, "SomeNewHV!!!");
}

static void features_in_words(void **state)
{
	struct hv_leaf kvm = { 0x40000000, 0x40000001, "KVMKVMKVM", HV_KVM };
	struct hv_leaf xen = { 0x40000100, 0x40000105, "XenVMMXenVMM", HV_XEN };
	struct hv_leaf tcg = { 0x40000000, 0x40000001, "TCGTCGTCGTCG", HV_TCG };
	char buf[256];

	(void)state;
	features_leaf = 0x40000001;
	features_eax = 0x01007afb; /* seen with -accel kvm -cpu host */
	hv_describe_features(&kvm, fake_cpuid, buf, sizeof(buf));
	assert_string_equal(buf, "KVM features 0x01007afb: clocksource "
				 "nop_io_delay clocksource2 async_pf "
				 "steal_time pv_eoi pv_unhalt pv_tlb_flush "
				 "pv_send_ipi poll_control "
				 "pv_sched_yield async_pf_int "
				 "clocksource_stable_bit");
	features_leaf = 0x40000101;
	features_eax = (4 << 16) | 17;
	hv_describe_features(&xen, fake_cpuid, buf, sizeof(buf));
	assert_string_equal(buf, "Xen 4.17");
	hv_describe_features(&tcg, fake_cpuid, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* A truncating buffer stays terminated. */
	features_leaf = 0x40000001;
	features_eax = 0xffffffff;
	hv_describe_features(&kvm, fake_cpuid, buf, 20);
	assert_int_equal(strlen(buf), 19);
}

static void missing_hypervisor_in_words(void **state)
{
	struct hv_info info = { .present = true, .nr = 1 };
	char buf[160];

	(void)state;
	info.found[0].kind = HV_XEN;
	hv_describe_missing(&info, "KVM", "kvm-clock", buf, sizeof(buf));
	assert_string_equal(buf,
			    "no KVM signature in the hypervisor leaves "
			    "(the hypervisor is Xen): kvm-clock needs KVM");
	info.nr = 0;
	hv_describe_missing(&info, "Xen", "xen_pvclock", buf, sizeof(buf));
	assert_string_equal(buf,
			    "no Xen signature in the hypervisor leaves (no "
			    "hypervisor found): xen_pvclock needs Xen");
	hv_describe_missing(NULL, "Xen", "xen_pvclock", buf, sizeof(buf));
	assert_non_null(strstr(buf, "no hypervisor found"));
}

static void find_by_kind(void **state)
{
	struct hv_info info = { .present = true, .nr = 2 };

	(void)state;
	info.found[0].kind = HV_HYPERV;
	info.found[1].kind = HV_KVM;
	assert_ptr_equal(hv_find(&info, HV_KVM), &info.found[1]);
	assert_null(hv_find(&info, HV_XEN));
	assert_null(hv_find(NULL, HV_KVM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(signatures, setup),
		cmocka_unit_test_setup(bare_metal, setup),
		cmocka_unit_test_setup(kvm, setup),
		cmocka_unit_test_setup(xen_behind_hyperv, setup),
		cmocka_unit_test_setup(bit_set_but_no_signature, setup),
		cmocka_unit_test_setup(unknown_signature_is_kept, setup),
		cmocka_unit_test_setup(features_in_words, setup),
		cmocka_unit_test(missing_hypervisor_in_words),
		cmocka_unit_test(find_by_kind),
	};

	return cmocka_run_group_tests_name("detect", tests, NULL, NULL);
}
