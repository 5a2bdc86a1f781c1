/* SPDX-License-Identifier: MIT */
/*
 * Exception table: instructions that may fault on purpose (probing an
 * absent MSR) carry an entry naming where execution resumes.  The fault
 * handler then sets RDI to EXTABLE_FAULTED | vector, so the code after the
 * instruction learns that, and which, fault happened.  RDI must be an
 * input/output of the asm, initialised to 0.
 */
#ifndef CLOCKBENCH_BASE_EXTABLE_H
#define CLOCKBENCH_BASE_EXTABLE_H

#define EXTABLE_FAULTED (1ull << 63)

#ifdef __ASSEMBLER__
#define EXTABLE_ENTRY(fault, fixup)   \
	.pushsection __ex_table, "a"; \
	.balign 8;                    \
	.quad fault, fixup;           \
	.popsection
#else
#define EXTABLE_ENTRY(fault, fixup)                                    \
	".pushsection __ex_table, \"a\"\n\t.balign 8\n\t.quad " #fault \
	", " #fixup "\n\t.popsection\n\t"

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

struct extable_entry {
	uint64_t fault_rip;
	uint64_t fixup_rip;
};

/** The fixup address for a fault at @rip, or 0 when @rip has no entry. */
uint64_t extable_fixup(uint64_t rip);

/**
 * If @f faulted at an instruction with an entry, resume it at the fixup
 * with RDI = EXTABLE_FAULTED | vector and return true.
 */
bool extable_apply(struct trap_frame *f);
#endif

#endif
