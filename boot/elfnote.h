/* SPDX-License-Identifier: MIT */
/*
 * ELFNOTE(name, type, desc): one ELF note in assembly, 4-byte aligned as
 * the loaders (Xen's libelf, QEMU's PVH loader) expect.  The note types come
 * from libxen-dev's <xen/elfnote.h>.
 */
#ifndef CLOCKBENCH_BOOT_ELFNOTE_H
#define CLOCKBENCH_BOOT_ELFNOTE_H

#define ELFNOTE(name, type, desc)                 \
	.pushsection .note.name, "a", @note;      \
	.balign 4;                                \
	.long 2f - 1f;                            \
	.long 4f - 3f;                            \
	.long type;                               \
1:	.asciz #name;                             \
2:	.balign 4;                                \
3:	desc;                                     \
4:	.balign 4;                                \
	.popsection

#endif
