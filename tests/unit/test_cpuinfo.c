// SPDX-License-Identifier: MIT
/* Unit tests: CPUID signature decoding (kernel/cpuinfo.c). */
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

/* This host's own CPU: a vendor string and a sane decode, whatever it is. */
static void reads_this_cpu(void **state)
{
	struct cpu_info info;

	(void)state;
	cpu_info_read(&info);
	assert_int_equal(strlen(info.vendor), 12);
	assert_true(info.max_basic_leaf >= 1);
	assert_true(info.family >= 5);
	assert_true(info.brand[0] != ' ');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(signatures),
		cmocka_unit_test(reads_this_cpu),
	};

	return cmocka_run_group_tests_name("cpuinfo", tests, NULL, NULL);
}
