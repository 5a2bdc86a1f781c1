/* SPDX-License-Identifier: MIT */
/*
 * The AP trampoline: copied by platform/hvm64/smp.c to AP_TRAMPOLINE, a page below
 * 1 MiB, where a started AP begins in real mode (CS = page number << 8,
 * IP = 0).  It loads the kernel's GDT — whose descriptor the copier writes
 * into ap_trampoline_gdt_descr, since real mode cannot reach the kernel —
 * enters protected mode and jumps to ap_start32 in platform/hvm64/start32.S.
 */
#include "boot/boot.h"

	.section .rodata.trampoline, "a"
	.code16
	.globl ap_trampoline_start, ap_trampoline_end, ap_trampoline_gdt_descr
ap_trampoline_start:
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	lgdtl	ap_trampoline_gdt_descr - ap_trampoline_start
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	$GDT_SEL_CODE32, $ap_start32

	.balign 8
ap_trampoline_gdt_descr:		/* limit, 32-bit base: filled in */
	.word	0
	.long	0
ap_trampoline_end:
	.code64
