/* SPDX-License-Identifier: MIT */
/*
 * Xen PV head (64-bit PV guest, dom0 or domU): the notes Xen's loader
 * needs, and the entry.  Xen starts the guest in long mode, in ring 3 with
 * its flat kernel selectors, RSI pointing at start_info, events masked and
 * no trap table; the image is mapped at its link addresses (VIRT_BASE 0).
 */
#include <xen/elfnote.h>

#include "boot/boot.h"
#include "boot/elfnote.h"

	ELFNOTE(Xen, XEN_ELFNOTE_GUEST_OS, .asciz "clockbench")
	ELFNOTE(Xen, XEN_ELFNOTE_GUEST_VERSION, .asciz "0")
	ELFNOTE(Xen, XEN_ELFNOTE_XEN_VERSION, .asciz "xen-3.0")
	ELFNOTE(Xen, XEN_ELFNOTE_LOADER, .asciz "generic")
	ELFNOTE(Xen, XEN_ELFNOTE_VIRT_BASE, .quad 0)
	ELFNOTE(Xen, XEN_ELFNOTE_PADDR_OFFSET, .quad 0)
	ELFNOTE(Xen, XEN_ELFNOTE_ENTRY, .quad xenpv_entry)
	ELFNOTE(Xen, XEN_ELFNOTE_HYPERCALL_PAGE, .quad hypercall_page)

	.text
	.code64
	.globl xenpv_entry
xenpv_entry:
	cld
	leaq	boot_stack_top(%rip), %rsp
	movq	%rsi, %rdi		/* start_info */
	call	xen_pv_start		/* does not return */
	ud2

	/* The boot stack, with a guard page below it that xen_pv_start()
	 * unmaps (the same symbols as the native heads' stack). */
	.section .bss.stack, "aw", @nobits
	.balign PAGE_SIZE
	.globl boot_stack_guard, boot_stack_top
boot_stack_guard: .skip PAGE_SIZE
	.skip BOOT_STACK_SIZE
boot_stack_top:
