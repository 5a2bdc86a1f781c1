/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the boot heads (assembly), the link script and the C
 * entry: boot protocol numbers, GDT selectors, where the image loads.
 */
#ifndef CLOCKBENCH_BOOT_BOOT_H
#define CLOCKBENCH_BOOT_BOOT_H

/* Which head ran; passed to C as the first argument of kernel_boot(). */
#define BOOT_PROTO_MULTIBOOT1 1
#define BOOT_PROTO_MULTIBOOT2 2
#define BOOT_PROTO_PVH	      3

/* The image runs identity-mapped where it is loaded: at 1 MiB. */
#define KERNEL_LOAD_PADDR 0x100000

/* GDT layout (boot/start32.S builds it, kernel/desc.c adds the TSS). */
#define GDT_SEL_CODE64 0x08
#define GDT_SEL_DATA   0x10
#define GDT_SEL_TSS    0x18

#define PAGE_SIZE	4096
#define LARGE_PAGE_SIZE 0x200000

/* The boot CPU's stack, with one unmapped guard page below it. */
#define BOOT_STACK_SIZE 0x8000

#endif
