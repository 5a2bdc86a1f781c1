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
#define BOOT_PROTO_XEN_PV     4 /* Xen's start_info, 64-bit PV guest */

/*
 * QEMU's isa-debug-exit device, as tools/clockbench adds it, and what the
 * guest writes to it: QEMU then exits with (value << 1) | 1.
 */
#define ISA_DEBUG_EXIT_PORT  0xf4
#define ISA_DEBUG_EXIT_PASS  1
#define ISA_DEBUG_EXIT_FAIL  2
#define ISA_DEBUG_EXIT_SKIP  3
#define ISA_DEBUG_EXIT_ERROR 4

/* The first serial port, the console (drivers/uart.c; and the 32-bit head
 * writes its last words there before C runs). */
#define COM1_PORT 0x3f8

/* The image runs identity-mapped where it is loaded: at 1 MiB. */
#define KERNEL_LOAD_PADDR 0x100000

/*
 * GDT layout (platform/hvm64/start32.S builds it, platform/hvm64/ring0.c adds the TSS).  The
 * kernel proper runs in ring 3 (see platform/hvm64/ring0.h): its selectors carry
 * RPL 3.
 */
#define GDT_SEL_CODE64	    0x08
#define GDT_SEL_DATA	    0x10
#define GDT_SEL_TSS	    0x18
#define GDT_SEL_USER_DATA   0x28
#define GDT_SEL_USER_CODE64 0x30
#define GDT_SEL_CODE32	    0x38 /* flat 32-bit code, for the AP trampoline */
#define GDT_SEL_CPU_TSS	    0x40 /* CPU i's TSS at GDT_SEL_CPU_TSS + 16 i */
#define USER_DS		    (GDT_SEL_USER_DATA | 3)
#define USER_CS		    (GDT_SEL_USER_CODE64 | 3)

/* Ring 3 runs with IOPL 3 (port I/O, cli/sti) and interrupts off. */
#define USER_RFLAGS 0x3002

/* The gate through which ring 3 asks ring 0 for privileged work. */
#define PRIV_VECTOR 0x80

/*
 * Interrupt vectors.  The 8259 PICs are moved to IRQ_PIC_BASE and masked
 * before interrupts are ever enabled, so those vectors and the local
 * APIC's spurious one only count strays.  TICK_VECTOR is the timer being
 * measured (base/tick_irq.h); WAKE_VECTOR an IPI that wakes a halted
 * CPU.
 */
#define IRQ_PIC_BASE  0x20
#define IRQ_PIC_COUNT 16
#define TICK_VECTOR   0x40
/* Ends an idle CPU's PRIV_IDLE (platform/hvm64/idle.c). */
#define WAKE_VECTOR	0x50
#define SPURIOUS_VECTOR 0xff
/* Not a vector: what a Xen PV event upcall's frame says in place of one. */
#define XEN_EVENT_VECTOR 0x100

#define PAGE_SIZE	4096
#define LARGE_PAGE_SIZE 0x200000

/* Xen's hypercall page: one 32-byte call sequence per hypercall. */
#define XEN_HYPERCALL_SLOT_SIZE 32

/* The boot CPU's stack, with one unmapped guard page below it. */
#define BOOT_STACK_SIZE 0x8000

/* Ring 0's own stack (TSS.RSP0): exceptions and privileged calls. */
#define RING0_STACK_SIZE 0x4000

/* The ring-3 stack fault_report() runs on, whoever hands it the fault. */
#define FAULT_STACK_SIZE 0x4000

/* CPUs clockbench can run, and where the AP trampoline is copied (a page
 * below 1 MiB: an AP starts in real mode at vector << 12). */
#define MAX_CPUS      32
#define AP_TRAMPOLINE 0x8000
#define AP_STACK_SIZE 0x4000

#endif
