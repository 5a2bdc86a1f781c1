/* SPDX-License-Identifier: MIT */
/*
 * Multiboot 2 head (GRUB's "multiboot2", on BIOS and UEFI): the header,
 * which must lie 8-byte aligned in the first 32 KiB, and the 32-bit entry.
 * GRUB leaves its magic in EAX and the tag list's address in EBX.
 */
#include "boot/boot.h"

#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_ARCH_I386    0
#define MB2_TAG_END      0

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	.balign 8
	.word MB2_TAG_END, 0
	.long 8
mb2_header_end:

	.section .text.boot32, "ax"
	.code32
	.globl multiboot2_entry
multiboot2_entry:
	movl	%eax, %edx
	movl	%ebx, %esi
	movl	$BOOT_PROTO_MULTIBOOT2, %edi
	jmp	start32
