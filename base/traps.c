// SPDX-License-Identifier: MIT
/* Reporting an unexpected exception, in ring 3 (see platform/hvm64/ring0.c). */
#include <stdio.h>

#include "base/exit.h"
#include "base/paging.h"
#include "base/platform.h"
#include "lib/ktap.h"
#include "base/traps.h"

static const char *const trap_names[NR_EXCEPTIONS] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI non-maskable interrupt",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range exceeded",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack-segment fault",
	[13] = "#GP general protection fault",
	[14] = "#PF page fault",
	[16] = "#MF x87 floating-point error",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating-point exception",
	[20] = "#VE virtualization exception",
	[21] = "#CP control protection",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security exception",
};

const char *trap_name(unsigned int vector)
{
	if (vector < NR_EXCEPTIONS && trap_names[vector])
		return trap_names[vector];
	return "reserved exception";
}

static void describe_error_code(const struct trap_frame *f, char *buf,
				size_t len)
{
	if (f->vector == X86_EXC_PF)
		snprintf(buf, len, " (%s %s, %s%s)",
			 f->error_code & 1 ? "protection violation on"
					   : "not-present page on",
			 f->error_code & 0x10 ? "instruction fetch"
			 : f->error_code & 2  ? "write"
					      : "read",
			 f->error_code & 4 ? "user" : "supervisor",
			 f->error_code & 8 ? ", reserved bit set" : "");
	else if (f->error_code && f->vector != X86_EXC_DF)
		snprintf(buf, len, " (%s selector index %llu%s)",
			 f->error_code & 2   ? "IDT"
			 : f->error_code & 4 ? "LDT"
					     : "GDT",
			 (unsigned long long)(f->error_code >> 3),
			 f->error_code & 1 ? ", external" : "");
	else
		buf[0] = '\0';
}

static void print_registers(const struct fault_record *rec)
{
	const struct trap_frame *f = &rec->frame;

	printf("  RIP %016llx  CS %04llx  RFLAGS %016llx\n"
	       "  RSP %016llx  SS %04llx  CR2 %016llx\n"
	       "  CR0 %016llx  CR3 %016llx  CR4 %016llx\n",
	       (unsigned long long)f->rip, (unsigned long long)f->cs,
	       (unsigned long long)f->rflags, (unsigned long long)f->rsp,
	       (unsigned long long)f->ss, (unsigned long long)rec->cr2,
	       (unsigned long long)rec->cr0, (unsigned long long)rec->cr3,
	       (unsigned long long)rec->cr4);
	printf("  RAX %016llx  RBX %016llx  RCX %016llx\n"
	       "  RDX %016llx  RSI %016llx  RDI %016llx\n"
	       "  RBP %016llx  R8  %016llx  R9  %016llx\n"
	       "  R10 %016llx  R11 %016llx  R12 %016llx\n"
	       "  R13 %016llx  R14 %016llx  R15 %016llx\n",
	       (unsigned long long)f->rax, (unsigned long long)f->rbx,
	       (unsigned long long)f->rcx, (unsigned long long)f->rdx,
	       (unsigned long long)f->rsi, (unsigned long long)f->rdi,
	       (unsigned long long)f->rbp, (unsigned long long)f->r8,
	       (unsigned long long)f->r9, (unsigned long long)f->r10,
	       (unsigned long long)f->r11, (unsigned long long)f->r12,
	       (unsigned long long)f->r13, (unsigned long long)f->r14,
	       (unsigned long long)f->r15);
}

void fault_report(const struct fault_record *rec)
{
	const struct trap_frame *f = &rec->frame;
	char detail[96];

	describe_error_code(f, detail, sizeof(detail));
	printf("\nFAULT: %s (vector %llu) in ring %llu, error code 0x%llx%s\n",
	       trap_name((unsigned int)f->vector),
	       (unsigned long long)f->vector, (unsigned long long)(f->cs & 3),
	       (unsigned long long)f->error_code, detail);
	print_registers(rec);
	if (paging_in_stack_guard(f->rsp) ||
	    ((f->vector == X86_EXC_PF || f->vector == X86_EXC_DF) &&
	     paging_in_stack_guard(rec->cr2)))
		printf("  this is a stack overflow: the stack reached the "
		       "guard page below the boot stack\n");
	report(ktap_run(), false, "no unexpected exception");
	report_info(ktap_run(), "%s at RIP 0x%llx",
		    trap_name((unsigned int)f->vector),
		    (unsigned long long)f->rip);
	report_figure(ktap_run(), "vector", (double)f->vector);
	ktap_print(ktap_run());
	run_exit(ktap_verdict(ktap_run()));
}
