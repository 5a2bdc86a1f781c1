/* SPDX-License-Identifier: MIT */
/*
 * Multiboot 1 head: the header QEMU's -kernel loader (and GRUB's
 * "multiboot") looks for in the first 8 KiB, and the 32-bit entry.  The
 * loader leaves its magic in EAX and the info structure's address in EBX.
 */
#include "boot/boot.h"

#define MB1_HEADER_MAGIC 0x1badb002
#define MB1_PAGE_ALIGN   (1 << 0)	/* modules on page boundaries */
#define MB1_MEMORY_INFO  (1 << 1)	/* we want mem_* and the memory map */
#define MB1_FLAGS        (MB1_PAGE_ALIGN | MB1_MEMORY_INFO)

	.section .multiboot, "a"
	.balign 4
	.long MB1_HEADER_MAGIC
	.long MB1_FLAGS
	.long -(MB1_HEADER_MAGIC + MB1_FLAGS)

	.section .text.boot32, "ax"
	.code32
	.globl multiboot1_entry
multiboot1_entry:
	movl	%eax, %edx
	movl	%ebx, %esi
	movl	$BOOT_PROTO_MULTIBOOT1, %edi
	jmp	start32
