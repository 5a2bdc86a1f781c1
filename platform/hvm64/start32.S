/* SPDX-License-Identifier: MIT */
/*
 * The common path from a loader's 32-bit protected-mode entry to long mode,
 * shared by every boot head.  Builds an identity map of the low 4 GiB with
 * 2 MiB pages, user-accessible (the top 32 MiB, where the IOAPIC, HPET and
 * LAPIC live, uncached; platform/hvm64/paging.c refines the rest), enables SSE,
 * loads the GDT, sets up ring 0 (ring0_init) and enters
 * kernel_boot(protocol, info_paddr, magic) in ring 3 on the boot stack.
 */
#include "boot/boot.h"
#include "lib/x86.h"

#define RAM_PATTERN 0x5a5aa5a5

/* First 2 MiB page of the uncached window at 0xfe000000. */
#define UNCACHED_FIRST_PDE (0xfe000000 >> 21)


/* Data segment registers: the flat data descriptor (32- or 64-bit code). */
.macro LOAD_DATA_SEGMENTS
	movl	$GDT_SEL_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs
.endm

/*
 * From 32-bit protected mode with the page tables built: CR4 = PAE and SSE
 * alone (a loader may leave other bits set), CR3, EFER.LME, paging with
 * caching on, then a far jump to 64-bit code at \target.
 */
.macro ENTER_LONG_MODE target
	movl	$(X86_CR4_PAE + X86_CR4_OSFXSR + X86_CR4_OSXMMEXCPT), %eax
	movl	%eax, %cr4
	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	%cr0, %eax
	andl	$~(X86_CR0_EM + X86_CR0_TS + X86_CR0_CD + X86_CR0_NW), %eax
	orl	$(X86_CR0_PG + X86_CR0_WP + X86_CR0_MP + X86_CR0_PE), %eax
	movl	%eax, %cr0
	ljmp	$GDT_SEL_CODE64, $\target
.endm

	.section .text.boot32, "ax"
	.code32
/*
 * In: EDI = BOOT_PROTO_*, ESI = physical address of the loader's info
 * structure, EDX = the magic the loader left in EAX.  Interrupts off,
 * paging off, no stack, segment registers, EFLAGS and the control
 * registers' other bits not to be trusted.
 */
	.globl start32
start32:
	movl	%esp, boot_entry_esp	/* kept for the report; no push yet */
	cli
	cld
	lgdt	gdt_descr
	LOAD_DATA_SEGMENTS

	/* Keep the arguments in .data, then zero .bss before anything uses it. */
	movl	%edi, boot_protocol
	movl	%esi, boot_info_paddr
	movl	%edx, boot_magic
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb

	/* The whole image must be RAM: on a machine with less, what is
	 * written past the end is lost, and the stacks (at the end) with it.
	 * The last word must keep two patterns written to it. */
	movl	$(__image_end - 4), %edi
	movl	$RAM_PATTERN, (%edi)
	cmpl	$RAM_PATTERN, (%edi)
	jne	too_little_ram
	notl	(%edi)
	cmpl	$~RAM_PATTERN, (%edi)
	jne	too_little_ram
	movl	$0, (%edi)

	/* No loader promises a stack (Xen's PVH entry leaves ESP = 0) or any
	 * EFLAGS bit beyond IF, TF and VM clear: take the ring-0 stack, now
	 * known to be RAM, and start from EFLAGS = 0 (DF, AC, NT clear). */
	movl	$ring0_stack_top, %esp
	pushl	$0
	popfl

	/* CPUID exists when EFLAGS.ID can be toggled; then ask for long mode. */
	pushfl
	popl	%eax
	movl	%eax, %ecx
	xorl	$(1 << 21), %eax
	pushl	%eax
	popfl
	pushfl
	popl	%eax
	cmpl	%eax, %ecx
	je	no_long_mode
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	no_long_mode
	movl	$0x80000001, %eax
	cpuid
	btl	$29, %edx
	jnc	no_long_mode

	/* PML4[0] -> PDPT, PDPT[0..3] -> 4 page directories of 2 MiB pages. */
	movl	$(boot_pdpt + PTE_P + PTE_W + PTE_U), boot_pml4
	movl	$boot_pd, %eax
	orl	$(PTE_P + PTE_W + PTE_U), %eax
	xorl	%ecx, %ecx
1:	movl	%eax, boot_pdpt(, %ecx, 8)
	addl	$PAGE_SIZE, %eax
	incl	%ecx
	cmpl	$4, %ecx
	jb	1b

	xorl	%ecx, %ecx
1:	movl	%ecx, %eax
	shll	$21, %eax
	orl	$(PTE_P + PTE_W + PTE_U + PTE_PS), %eax
	cmpl	$UNCACHED_FIRST_PDE, %ecx
	jb	2f
	orl	$(PTE_PCD + PTE_PWT), %eax
2:	movl	%eax, boot_pd(, %ecx, 8)
	incl	%ecx
	cmpl	$2048, %ecx
	jb	1b

	ENTER_LONG_MODE start64

/*
 * An application processor, from the trampoline (platform/hvm64/trampoline.S) in
 * 32-bit protected mode with the kernel's GDT: the same long-mode setup as
 * the boot CPU, on the stacks the boot CPU left in ap_boot_*, then ring 0
 * set-up for this CPU and ap_main(cpu) in ring 3.
 */
	.globl ap_start32
ap_start32:
	LOAD_DATA_SEGMENTS
	ENTER_LONG_MODE ap_start64

/* The string at \msg on COM1 (no stack: clobbers eax, edx, esi). */
.macro PUTS msg
	movl	$\msg, %esi
	movw	$COM1_PORT, %dx
1:	lodsb
	testb	%al, %al
	jz	2f
	outb	%al, %dx
	jmp	1b
2:
.endm

/* Without long mode there is nothing to run: say so on COM1 and stop. */
no_long_mode:
	PUTS	no_long_mode_msg
	jmp	stop

/* Too little RAM for the image: say so with the minimum in MiB (at most
 * three digits), end the run as failed, and stop. */
too_little_ram:
	PUTS	too_little_ram_msg
	movl	$__image_min_ram_mib, %eax
	movl	$100, %ecx		/* the digit's place */
	xorl	%edi, %edi		/* set once a digit is printed */
1:	xorl	%edx, %edx
	divl	%ecx			/* eax = this digit, edx = the rest */
	movl	%edx, %esi
	orl	%eax, %edi
	cmpl	$1, %ecx
	je	2f			/* the last digit, even 0 */
	testl	%edi, %edi
	jz	3f			/* no leading zeros */
2:	addb	$'0', %al
	movw	$COM1_PORT, %dx
	outb	%al, %dx
3:	movl	%ecx, %eax
	xorl	%edx, %edx
	movl	$10, %ecx
	divl	%ecx
	movl	%eax, %ecx
	movl	%esi, %eax
	testl	%ecx, %ecx
	jnz	1b
	PUTS	too_little_ram_end_msg
	movb	$ISA_DEBUG_EXIT_FAIL, %al
	movw	$ISA_DEBUG_EXIT_PORT, %dx
	outb	%al, %dx
stop:
	cli
	hlt
	jmp	stop

	.code64
ap_start64:
	LOAD_DATA_SEGMENTS
	movq	ap_boot_ring0_stack(%rip), %rsp
	xorl	%ebp, %ebp
	movl	ap_boot_cpu(%rip), %edi
	call	ap_ring0_init
	movl	ap_boot_cpu(%rip), %edi
	pushq	$USER_DS
	pushq	ap_boot_user_stack(%rip)
	pushq	$USER_RFLAGS
	pushq	$USER_CS
	pushq	$ap_main
	iretq

start64:
	LOAD_DATA_SEGMENTS
	movq	$ring0_stack_top, %rsp
	xorl	%ebp, %ebp
	call	ring0_init

	/* iretq into ring 3: kernel_boot(protocol, info_paddr, magic), with
	 * the stack aligned as at any function entry. */
	movl	boot_protocol(%rip), %edi
	movl	boot_info_paddr(%rip), %esi
	movl	boot_magic(%rip), %edx
	pushq	$USER_DS
	pushq	$(boot_stack_top - 8)
	pushq	$USER_RFLAGS
	pushq	$USER_CS
	pushq	$kernel_boot
	iretq

	.section .rodata
no_long_mode_msg:
	.asciz "clockbench: this CPU does not support long mode (x86-64); stopping.\r\n"
too_little_ram_msg:
	.asciz "\r\nclockbench: too little RAM: the image does not fit; boot it with at least "
too_little_ram_end_msg:
	.asciz " MiB.\r\nclockbench: FAIL\r\n"

	.data
	.balign 16
	.globl gdt64
gdt64:
	.quad 0
	.quad 0x00af9a000000ffff	/* GDT_SEL_CODE64: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* GDT_SEL_DATA: flat data */
	.quad 0, 0			/* GDT_SEL_TSS: unused (see GDT_SEL_CPU_TSS) */
	.quad 0x00cff2000000ffff	/* GDT_SEL_USER_DATA: flat data, DPL 3 */
	.quad 0x00affa000000ffff	/* GDT_SEL_USER_CODE64: 64-bit code, DPL 3 */
	.quad 0x00cf9a000000ffff	/* GDT_SEL_CODE32: flat 32-bit code, DPL 0 */
	.skip 16 * MAX_CPUS		/* GDT_SEL_CPU_TSS: one TSS per CPU */
gdt64_end:
	.balign 8
	.word 0, 0, 0
	.globl gdt_descr
gdt_descr:				/* limit, then a 64-bit base */
	.word gdt64_end - gdt64 - 1
	.quad gdt64

	/* Set by the boot CPU before it starts each AP (platform/hvm64/smp.c). */
	.balign 8
	.globl ap_boot_cpu, ap_boot_ring0_stack, ap_boot_user_stack
ap_boot_ring0_stack:	.quad 0
ap_boot_user_stack:	.quad 0
ap_boot_cpu:		.long 0

	.globl boot_protocol, boot_info_paddr, boot_magic, boot_entry_esp
boot_entry_esp:	.long 0
boot_protocol:	.long 0
boot_info_paddr: .long 0
boot_magic:	.long 0

	.section .bss.pagetables, "aw", @nobits
	.balign PAGE_SIZE
	.globl boot_pml4, boot_pdpt, boot_pd
boot_pml4:	.skip PAGE_SIZE
boot_pdpt:	.skip PAGE_SIZE
boot_pd:	.skip 4 * PAGE_SIZE

	.section .bss.stack, "aw", @nobits
	.balign PAGE_SIZE
	.globl boot_stack_guard, boot_stack_top, ring0_stack_top
boot_stack_guard: .skip PAGE_SIZE
	.skip BOOT_STACK_SIZE
boot_stack_top:
	.skip RING0_STACK_SIZE
ring0_stack_top:
