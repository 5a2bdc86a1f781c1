// SPDX-License-Identifier: MIT
/* Foundation self-checks and deliberately provoked exceptions. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "base/exit.h"
#include "base/cpu.h"
#include "base/extable.h"
#include "base/libc.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/priv.h"
#include "lib/ktap.h"
#include "engine/selftest.h"
#include "lib/progress.h"
#include "base/traps.h"

/*
 * An MSR no processor or hypervisor defines (KVM's range ends far below
 * it), so reading it must raise #GP.
 */
#define MSR_ABSENT 0x4b564dff

/* Canonical-form violation and a mapped-nowhere address (PML4[1]). */
#define NONCANONICAL_ADDR 0x8000000000000000ull
#define UNMAPPED_ADDR	  0x0000008000000000ull

extern char boot_stack_guard[];

/* Execute ud2 under an exception-table entry; returns what the fixup
 * reported (EXTABLE_FAULTED | vector), or 0 if nothing faulted. */
static uint64_t probe_ud2(void)
{
	uint64_t fault;

	asm volatile("1: ud2\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : "=D"(fault)
		     : "D"(0)
		     : "memory");
	return fault;
}

static void check_msr_access(struct selftest_result *out)
{
	out->efer_msr = MSR_EFER;
	out->efer_read = rdmsr_safe(MSR_EFER, &out->efer);
	out->absent_msr = MSR_ABSENT;
	out->absent_read = rdmsr_safe(MSR_ABSENT, &out->absent_value);
}

static void check_extable_and_sse(struct selftest_result *out)
{
	static const uint8_t pattern[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
					     0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98,
					     0x76, 0x54, 0x32, 0x10 };
	uint8_t after[16] __attribute__((aligned(16)));

	/* Park a value in xmm7, fault, and see that it survived. */
	asm volatile("movdqu %0, %%xmm7" ::"m"(pattern) : "xmm7");
	out->ud2_fault = probe_ud2();
	asm volatile("movdqu %%xmm7, %0" : "=m"(after));
	out->sse_kept = !memcmp(pattern, after, sizeof(after));
}

static int compare_ints(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void check_newlib(struct selftest_result *out)
{
	int values[] = { 5, 3, 9, 1, 7 };

	snprintf(out->newlib_text, sizeof(out->newlib_text), "%.3f %g %llu",
		 2.0 / 3.0, sqrt(2.0), (unsigned long long)UINT64_MAX);
	qsort(values, 5, sizeof(values[0]), compare_ints);
	out->qsort_sorted = values[0] == 1 && values[4] == 9;
}

static void check_heap(struct selftest_result *out)
{
	void *small = malloc(4096);
	void *huge;
	int err;

	heap_quiet_refusals(true);
	errno = 0;
	huge = malloc(2 * HEAP_SIZE);
	err = errno;
	heap_quiet_refusals(false);
	free(small);
	small = malloc(4096);
	out->heap_kib = HEAP_SIZE / 1024;
	out->heap_bounded = small && !huge && err == ENOMEM;
	free(small);
}

static void check_stack_guard(struct selftest_result *out)
{
	uint64_t guard = (uint64_t)(uintptr_t)boot_stack_guard;

	out->guard_unmapped = !paging_range_mapped(guard, 1);
	out->stack_mapped =
		paging_range_mapped(guard + PAGE_SIZE, BOOT_STACK_SIZE);
}

void selftest_run(struct selftest_result *out)
{
	memset(out, 0, sizeof(*out));
	check_msr_access(out);
	check_extable_and_sse(out);
	check_newlib(out);
	check_heap(out);
	check_stack_guard(out);
}

static unsigned long recurse(unsigned long depth)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	if (depth > (1ul << 30)) /* never reached: the stack is far smaller */
		return frame[0];
	return recurse(depth + 1) + frame[0];
}

void selftest_provoke(enum fault_test fault)
{
	if (fault != FAULT_NONE)
		progress(
			"provoking %s on purpose (fault=%s); the run must fail",
			fault == FAULT_STACK ? "a stack overflow"
					     : "an exception",
			options_value_name(
				"fault", &(struct options){ .fault = fault }));
	switch (fault) {
	case FAULT_NONE:
		return;
	case FAULT_DE:
		asm volatile("xorl %%ecx, %%ecx; divl %%ecx" ::
				     : "eax", "ecx", "edx");
		break;
	case FAULT_BP:
		asm volatile("int3");
		break;
	case FAULT_UD:
		asm volatile("ud2");
		break;
	case FAULT_GP:
		asm volatile("movq (%0), %%rax" ::"r"(NONCANONICAL_ADDR)
			     : "rax", "memory");
		break;
	case FAULT_PF:
		asm volatile("movq (%0), %%rax" ::"r"(UNMAPPED_ADDR)
			     : "rax", "memory");
		break;
	case FAULT_NMI:
	case FAULT_DF:
		/* Both are raised in ring 0. */
		if (platform_provoke_in_ring0(fault))
			break;
		report_skip(
			ktap_run(), "fault=%s provokes its exception",
			options_value_name(
				"fault", &(struct options){ .fault = fault }));
		report_info(ktap_run(),
			    "it needs ring 0, which %s keeps to itself here",
			    platform_ring0_owner());
		ktap_print(ktap_run());
		run_exit(ktap_verdict(ktap_run()));
	case FAULT_STACK:
		recurse(0);
		break;
	}
	printf("clockbench: fault=%s did not fault\n",
	       options_value_name("fault",
				  &(struct options){ .fault = fault }));
}
