/* SPDX-License-Identifier: MIT */
/*
 * PVH head (QEMU -kernel without a multiboot 1 header, Xen PVH guests):
 * the XEN_ELFNOTE_PHYS32_ENTRY note naming the 32-bit entry, and the entry.
 * The loader leaves the address of struct hvm_start_info in EBX; its magic
 * is the structure's first field, which C checks.
 */
#include <xen/elfnote.h>

#include "boot/boot.h"
#include "boot/elfnote.h"

	ELFNOTE(Xen, XEN_ELFNOTE_PHYS32_ENTRY, .quad pvh_entry)

	.section .text.boot32, "ax"
	.code32
	.globl pvh_entry
pvh_entry:
	xorl	%edx, %edx
	movl	%ebx, %esi
	movl	$BOOT_PROTO_PVH, %edi
	jmp	start32
