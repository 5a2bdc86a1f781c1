/* SPDX-License-Identifier: MIT */
/*
 * One link script for every native image: loaded and run identity-mapped
 * at KERNEL_LOAD_PADDR.  The loader headers come first (multiboot wants
 * them near the start of the file), then 32-bit boot code, 64-bit code.
 */
#include "boot/boot.h"

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)

PHDRS
{
	text PT_LOAD FLAGS(5);
	rodata PT_LOAD FLAGS(4);
	data PT_LOAD FLAGS(6);
	note PT_NOTE FLAGS(4);
}

SECTIONS
{
	. = KERNEL_LOAD_PADDR;
	__image_start = .;

	.text : {
		KEEP(*(.multiboot))
		*(.text.boot32)
		*(.text .text.*)
	} :text

	. = ALIGN(PAGE_SIZE);
	.rodata : {
		*(.rodata .rodata.*)
	} :rodata
	.note.Xen : {
		KEEP(*(.note.Xen))
	} :rodata :note
	__ex_table : {
		__extable_start = .;
		KEEP(*(__ex_table))
		__extable_end = .;
	} :rodata

	. = ALIGN(PAGE_SIZE);
	.data : {
		*(.data .data.*)
	} :data
	.bss : {
		__bss_start = .;
		*(.bss .bss.*)
		*(COMMON)
		. = ALIGN(PAGE_SIZE);
		__bss_end = .;
	} :data
	__image_end = .;
	/* The least RAM, in whole MiB, that holds the image (platform/hvm64/start32.S
	 * says so when a machine has less). */
	__image_min_ram_mib = (__image_end + 0xfffff) >> 20;

	/DISCARD/ : {
		*(.note.GNU-stack)
		*(.note.gnu.*)
		*(.comment)
		*(.eh_frame)
	}
}
