// SPDX-License-Identifier: MIT
/* IDT, TSS and the exception handler. */
#include <stddef.h>
#include <stdio.h>

#include "boot/boot.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/extable.h"
#include "kernel/paging.h"
#include "kernel/platform.h"
#include "kernel/report.h"
#include "kernel/traps.h"

#define NR_EXCEPTIONS  32
#define IST_STACK_SIZE 8192

/* IST slots (1-based, as the IDT gate counts them). */
#define IST_DOUBLE_FAULT  1
#define IST_NMI		  2
#define IST_MACHINE_CHECK 3
#define NR_IST		  3

#define GATE_INTERRUPT_64 0x8e /* present, DPL 0, 64-bit interrupt gate */
#define TSS_AVAILABLE_64  0x89 /* present, 64-bit TSS (available) */

_Static_assert(
	offsetof(struct trap_frame, rax) == 14 * 8,
	"struct trap_frame must match the pushes in kernel/trap_entry.S");
_Static_assert(offsetof(struct trap_frame, rip) == 17 * 8,
	       "struct trap_frame must match the CPU's exception frame");

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct descriptor_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const uint64_t trap_stubs[NR_EXCEPTIONS];
extern uint64_t gdt64[];
extern const struct extable_entry __extable_start[], __extable_end[];

static struct idt_gate idt[NR_EXCEPTIONS];
static struct tss64 tss;
static uint8_t ist_stacks[NR_IST][IST_STACK_SIZE] __attribute__((aligned(16)));
static int fault_depth;

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

uint64_t extable_fixup(uint64_t rip)
{
	const struct extable_entry *e;

	for (e = __extable_start; e < __extable_end; e++)
		if (e->fault_rip == rip)
			return e->fixup_rip;
	return 0;
}

static void set_gate(unsigned int vector, uint64_t handler, unsigned int ist)
{
	idt[vector] = (struct idt_gate){
		.offset_low = (uint16_t)handler,
		.selector = GDT_SEL_CODE64,
		.ist = (uint8_t)ist,
		.type_attr = GATE_INTERRUPT_64,
		.offset_mid = (uint16_t)(handler >> 16),
		.offset_high = (uint32_t)(handler >> 32),
	};
}

static void tss_install(void)
{
	uint64_t base = (uint64_t)(uintptr_t)&tss;
	uint64_t limit = sizeof(tss) - 1;
	unsigned int i;

	for (i = 0; i < NR_IST; i++)
		tss.ist[i] = (uint64_t)(uintptr_t)(ist_stacks[i + 1] - 16);
	tss.iomap_base = sizeof(tss); /* no I/O permission bitmap */

	gdt64[GDT_SEL_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
				 ((uint64_t)TSS_AVAILABLE_64 << 40) |
				 (((limit >> 16) & 0xf) << 48) |
				 (((base >> 24) & 0xff) << 56);
	gdt64[GDT_SEL_TSS / 8 + 1] = base >> 32;
	asm volatile("ltr %w0" ::"r"(GDT_SEL_TSS) : "memory");
}

void traps_init(void)
{
	struct descriptor_ptr idtr = { sizeof(idt) - 1,
				       (uint64_t)(uintptr_t)idt };
	unsigned int v;

	tss_install();
	for (v = 0; v < NR_EXCEPTIONS; v++) {
		unsigned int ist = v == X86_EXC_DF    ? IST_DOUBLE_FAULT
				   : v == X86_EXC_NMI ? IST_NMI
				   : v == X86_EXC_MC  ? IST_MACHINE_CHECK
						      : 0;

		set_gate(v, trap_stubs[v], ist);
	}
	asm volatile("lidt %0" ::"m"(idtr) : "memory");
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

static void print_registers(const struct trap_frame *f)
{
	printf("  RIP %016llx  CS %04llx  RFLAGS %016llx\n"
	       "  RSP %016llx  SS %04llx  CR2 %016llx\n"
	       "  CR0 %016llx  CR3 %016llx  CR4 %016llx\n",
	       (unsigned long long)f->rip, (unsigned long long)f->cs,
	       (unsigned long long)f->rflags, (unsigned long long)f->rsp,
	       (unsigned long long)f->ss, (unsigned long long)read_cr2(),
	       (unsigned long long)read_cr0(), (unsigned long long)read_cr3(),
	       (unsigned long long)read_cr4());
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

void trap_handle(struct trap_frame *f)
{
	uint64_t fixup = extable_fixup(f->rip);
	char detail[96];

	if (fixup) {
		f->rip = fixup;
		f->rdi = EXTABLE_FAULTED | f->vector;
		return;
	}

	/* A fault while reporting one: say so with no formatting at all. */
	if (fault_depth++) {
		console_puts("\nFAULT: another exception while reporting an "
			     "exception; giving up.\n");
		platform_exit(VERDICT_FAIL);
	}

	describe_error_code(f, detail, sizeof(detail));
	printf("\nFAULT: %s (vector %llu), error code 0x%llx%s\n",
	       trap_name((unsigned int)f->vector),
	       (unsigned long long)f->vector, (unsigned long long)f->error_code,
	       detail);
	print_registers(f);
	if (paging_in_stack_guard(f->rsp) ||
	    ((f->vector == X86_EXC_PF || f->vector == X86_EXC_DF) &&
	     paging_in_stack_guard(read_cr2())))
		printf("  this is a stack overflow: the stack reached the "
		       "guard page below the boot stack\n");
	report(false, "no unexpected exception (%s at RIP 0x%llx)",
	       trap_name((unsigned int)f->vector), (unsigned long long)f->rip);
	report_end();
	platform_exit(VERDICT_FAIL);
}
