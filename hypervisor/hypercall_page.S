/* SPDX-License-Identifier: MIT */
/*
 * The hypercall page, in every image: Xen overwrites it with one call
 * sequence per hypercall (see hypervisor/hypercall.h).  Until then each
 * byte is a `ret`, so a call made too early returns its argument back in
 * RAX instead of jumping into zeroes, and the first byte tells whether Xen
 * has filled the page.
 */
#include "boot/boot.h"

	.section .text.hypercall_page, "ax", @progbits
	.balign PAGE_SIZE
	.globl hypercall_page
hypercall_page:
	.fill PAGE_SIZE, 1, 0xc3
	.size hypercall_page, PAGE_SIZE
