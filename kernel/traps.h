/* SPDX-License-Identifier: MIT */
/*
 * Exceptions: the IDT and TSS, and what happens on a fault.  A fault at an
 * instruction with an exception-table entry resumes at its fixup (see
 * kernel/extable.h); any other exception is reported with its name, error
 * code, RIP, CR2 and every register, and ends the run as failed.
 */
#ifndef CLOCKBENCH_KERNEL_TRAPS_H
#define CLOCKBENCH_KERNEL_TRAPS_H

#include <stdint.h>

/* What kernel/trap_entry.S pushes, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	/* Pushed by the CPU. */
	uint64_t rip, cs, rflags, rsp, ss;
};

#define X86_EXC_DE  0
#define X86_EXC_NMI 2
#define X86_EXC_BP  3
#define X86_EXC_UD  6
#define X86_EXC_DF  8
#define X86_EXC_GP  13
#define X86_EXC_PF  14
#define X86_EXC_MC  18

/** Install the GDT's TSS (with IST stacks for #DF, NMI, #MC) and the IDT. */
void traps_init(void);

/** "#PF page fault" for vector @vector. */
const char *trap_name(unsigned int vector);

/** Called by kernel/trap_entry.S for every exception. */
void trap_handle(struct trap_frame *frame);

#endif
