/* SPDX-License-Identifier: MIT */
/*
 * Checks of the foundation itself (fault-tolerant MSR access, the
 * exception table, SSE state across exceptions, newlib, the heap bound, the
 * stack guard), and the exceptions `fault=` provokes on purpose.
 */
#ifndef CLOCKBENCH_ENGINE_SELFTEST_H
#define CLOCKBENCH_ENGINE_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/options.h"

/* What the foundation's own checks found, for the report. */
struct selftest_result {
	uint32_t efer_msr;
	bool efer_read; /* rdmsr_safe() of EFER did not fault */
	uint64_t efer;
	uint32_t absent_msr; /* an MSR nothing defines */
	bool absent_read;    /* ... and rdmsr_safe() of it did not fault */
	uint64_t absent_value;
	uint64_t ud2_fault; /* what the fixup of a ud2 reported */
	bool sse_kept;	    /* xmm7 survived the exception */
	char newlib_text[64];
	bool qsort_sorted;
	unsigned int heap_kib;
	bool heap_bounded; /* past the heap: ENOMEM, and the heap still works */
	bool guard_unmapped, stack_mapped;
};

/** Run the foundation's checks, into @out. */
void selftest_run(struct selftest_result *out);

/** What newlib must format the figures of the newlib check as. */
#define SELFTEST_NEWLIB_TEXT "0.667 1.41421 18446744073709551615"

/** Provoke the exception @fault names; returns only for FAULT_NONE. */
void selftest_provoke(enum fault_test fault);

#endif
