// SPDX-License-Identifier: MIT
/* Unit tests: CPUID signature decoding (lib/cpuinfo.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/cpuinfo.h"

static void decode(uint32_t eax, unsigned int family, unsigned int model,
		   unsigned int stepping)
{
	unsigned int f, m, s;

	cpu_decode_signature(eax, &f, &m, &s);
	assert_int_equal(f, family);
	assert_int_equal(m, model);
	assert_int_equal(s, stepping);
}

static void signatures(void **state)
{
	(void)state;
	decode(0x00050657, 6, 0x55, 7);	   /* Intel Cascade Lake */
	decode(0x00a20f10, 0x19, 0x21, 0); /* AMD Zen 3 */
	decode(0x00060fb1, 0xf, 0x6b, 1);  /* QEMU TCG "max" */
	decode(0x00000633, 6, 3, 3);	   /* no extended model bits */
	decode(0x000f0543, 5, 4, 3); /* family 5: extended model ignored */
}

static struct cpuid_regs host_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

/* This host's own CPU: a vendor string and a sane decode, whatever it is. */
static void reads_this_cpu(void **state)
{
	struct cpu_info info;

	(void)state;
	cpu_info_fill(&info, host_cpuid);
	assert_int_equal(strlen(info.vendor), 12);
	assert_true(info.max_basic_leaf >= 1);
	assert_true(info.family >= 5);
	assert_true(info.brand[0] != ' ');
}

/* A CPU as QEMU's EPYC model shows it, brand string padded with blanks. */
static uint32_t fake_ext_max;

static struct cpuid_regs fake_cpuid(uint32_t leaf, uint32_t subleaf)
{
	static const char brand[49] =
		"  AMD EPYC Processor                          ";
	struct cpuid_regs r = { 0 };

	(void)subleaf;
	if (leaf == 0) {
		r.eax = 0xd;
		memcpy(&r.ebx, "Auth", 4);
		memcpy(&r.edx, "enti", 4);
		memcpy(&r.ecx, "cAMD", 4);
	} else if (leaf == 1) {
		r.eax = 0x00800f12; /* family 0xf + 8 = 23, model 1, stepping 2 */
	} else if (leaf == 0x80000000u) {
		r.eax = fake_ext_max;
	} else if (leaf >= 0x80000002u && leaf <= 0x80000004u) {
		memcpy(&r, brand + (leaf - 0x80000002u) * 16, 16);
	}
	return r;
}

static void reads_what_cpuid_says(void **state)
{
	struct cpu_info info;

	(void)state;
	fake_ext_max = 0x80000008u;
	cpu_info_fill(&info, fake_cpuid);
	assert_string_equal(info.vendor, "AuthenticAMD");
	assert_int_equal(info.family, 23);
	assert_int_equal(info.model, 1);
	assert_int_equal(info.stepping, 2);
	assert_int_equal(info.max_basic_leaf, 0xd);
	assert_string_equal(info.brand, "AMD EPYC Processor");
	/* No brand leaves, or an extended maximum that is no maximum. */
	fake_ext_max = 0x80000001u;
	cpu_info_fill(&info, fake_cpuid);
	assert_string_equal(info.brand, "");
	fake_ext_max = 0x12345678u;
	cpu_info_fill(&info, fake_cpuid);
	assert_string_equal(info.brand, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(signatures),
		cmocka_unit_test(reads_this_cpu),
		cmocka_unit_test(reads_what_cpuid_says),
	};

	return cmocka_run_group_tests_name("cpuinfo", tests, NULL, NULL);
}
