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

static void check_msr_access(void)
{
	uint64_t efer;
	uint64_t absent = 0;
	bool ok = rdmsr_safe(MSR_EFER, &efer);

	/* boot/start32.S set EFER.LME; the CPU set LMA entering long mode. */
	report(ok && (efer & (EFER_LME | EFER_LMA)) == (EFER_LME | EFER_LMA),
	       "rdmsr_safe reads EFER (0x%x) with long mode on: %s 0x%llx",
	       MSR_EFER, ok ? "value" : "faulted", (unsigned long long)efer);
	if (rdmsr_safe(MSR_ABSENT, &absent))
		report_skip("rdmsr_safe of absent MSR 0x%x returned 0x%llx: "
			    "this hypervisor ignores unknown MSRs, so the #GP "
			    "path is not exercised",
			    MSR_ABSENT, (unsigned long long)absent);
	else
		report(absent == 0,
		       "rdmsr_safe reports absent MSR 0x%x as not supported",
		       MSR_ABSENT);
}

static void check_extable_and_sse(void)
{
	static const uint8_t pattern[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
					     0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98,
					     0x76, 0x54, 0x32, 0x10 };
	uint8_t after[16] __attribute__((aligned(16)));
	uint64_t fault;

	/* Park a value in xmm7, fault, and see that it survived. */
	asm volatile("movdqu %0, %%xmm7" ::"m"(pattern) : "xmm7");
	fault = probe_ud2();
	asm volatile("movdqu %%xmm7, %0" : "=m"(after));

	report(fault == (EXTABLE_FAULTED | X86_EXC_UD),
	       "exception table: ud2 resumes at its fixup and reports #UD (got "
	       "0x%llx)",
	       (unsigned long long)fault);
	report(!memcmp(pattern, after, sizeof(after)),
	       "SSE registers survive an exception");
}

static int compare_ints(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void check_newlib(void)
{
	int values[] = { 5, 3, 9, 1, 7 };
	char text[64];

	snprintf(text, sizeof(text), "%.3f %g %llu", 2.0 / 3.0, sqrt(2.0),
		 (unsigned long long)UINT64_MAX);
	report(!strcmp(text, "0.667 1.41421 18446744073709551615"),
	       "newlib formats floats and 64-bit integers (\"%s\")", text);
	qsort(values, 5, sizeof(values[0]), compare_ints);
	report(values[0] == 1 && values[4] == 9, "newlib qsort sorts");
}

static void check_heap(void)
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
	report(small && !huge && err == ENOMEM,
	       "heap: an allocation past the %u KiB heap fails with ENOMEM and "
	       "the heap still works",
	       HEAP_SIZE / 1024);
	free(small);
}

static void check_stack_guard(void)
{
	uint64_t guard = (uint64_t)(uintptr_t)boot_stack_guard;

	report(!paging_range_mapped(guard, 1) &&
		       paging_range_mapped(guard + PAGE_SIZE, BOOT_STACK_SIZE),
	       "the page below the boot stack is an unmapped guard page");
}

void selftest_run(void)
{
	check_msr_access();
	check_extable_and_sse();
	check_newlib();
	check_heap();
	check_stack_guard();
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
		printf("# provoking %s on purpose (fault=%s); the run must "
		       "fail\n",
		       fault == FAULT_STACK ? "a stack overflow"
					    : "an exception",
		       options_value_name("fault",
					  &(struct options){ .fault = fault }));
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
			"fault=%s needs ring 0, which %s keeps to itself "
			"here",
			options_value_name("fault",
					   &(struct options){ .fault = fault }),
			platform_ring0_owner());
		run_exit(report_end());
	case FAULT_STACK:
		recurse(0);
		break;
	}
	printf("clockbench: fault=%s did not fault\n",
	       options_value_name("fault",
				  &(struct options){ .fault = fault }));
}
