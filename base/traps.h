/* SPDX-License-Identifier: MIT */
/*
 * Exceptions as the rest of the kernel sees them.  A fault at an
 * instruction with an exception-table entry resumes at its fixup (see
 * base/extable.h).  Any other exception is recorded by ring 0
 * (platform/hvm64/ring0.c) and reported by fault_report() in ring 3 — name, error
 * code, RIP, CR2, every register — and the run ends as failed.
 */
#ifndef CLOCKBENCH_BASE_TRAPS_H
#define CLOCKBENCH_BASE_TRAPS_H

#include <stdint.h>

#include "lib/x86.h" /* the vectors */

/* What platform/hvm64/trap_entry.S pushes, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	/* Pushed by the CPU. */
	uint64_t rip, cs, rflags, rsp, ss;
};

/* An unexpected exception, as ring 0 saw it. */
struct fault_record {
	struct trap_frame frame;
	uint64_t cr0, cr2, cr3, cr4;
};

/** "#PF page fault" for vector @vector. */
const char *trap_name(unsigned int vector);

/** Report @rec and end the run as failed; runs in ring 3. */
__attribute__((noreturn)) void fault_report(const struct fault_record *rec);

#endif
