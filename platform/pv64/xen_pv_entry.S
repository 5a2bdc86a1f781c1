/* SPDX-License-Identifier: MIT */
/*
 * Xen PV exception entry: Xen bounces an exception to the handler the trap
 * table names with RCX and R11 on top of a frame shaped like the CPU's
 * (error code, RIP, CS, RFLAGS, RSP, SS), since it may have arrived there
 * by SYSRET.  Each stub restores those two, pushes a zero where there is
 * no error code, then its vector, and joins the common path, which saves
 * every general register (struct trap_frame, as platform/hvm64/trap_entry.S lays
 * it out natively), calls xen_pv_trap() and returns through the iret
 * hypercall: the frame plus a flags word of 0 (not a SYSRET return).
 */
#define __ASSEMBLY__ /* the Xen headers ask for it in assembly */
#include <xen/xen.h>

#include "boot/boot.h"
#include "base/trap_regs.inc"

	.text
	.altmacro
.macro xen_trap_stub vec
	.balign 16
xen_trap_stub_\vec:
	popq	%rcx
	popq	%r11
	.if !HAS_ERROR(\vec)
	pushq	$0
	.endif
	pushq	$\vec
	jmp	xen_trap_common
.endm

.set vec, 0
.rept 32
	xen_trap_stub %vec
	.set vec, vec + 1
.endr

xen_trap_common:
	save_all_regs
	call_with_frame xen_pv_trap
	restore_all_regs
	addq	$16, %rsp		/* vector and error code */
	pushq	$0			/* iret flags: not in a syscall */
	jmp	hypercall_page + __HYPERVISOR_iret * XEN_HYPERCALL_SLOT_SIZE

.macro stub_addr vec
	.quad xen_trap_stub_\vec
.endm

	.section .rodata
	.balign 8
	.globl xen_trap_stubs
xen_trap_stubs:
.set vec, 0
.rept 32
	stub_addr %vec
	.set vec, vec + 1
.endr

/*
 * The event upcall (CALLBACKTYPE_event): Xen enters it like an exception,
 * RCX and R11 on top and no error code, with events masked.  The TSC is
 * read once the registers are saved, and xen_pv_event(frame, tsc) sees
 * which channels fired; the iret hypercall restores the event mask from
 * the frame's RFLAGS.IF.
 */
	.text
	.globl xen_event_entry
xen_event_entry:
	popq	%rcx
	popq	%r11
	pushq	$0			/* no error code */
	pushq	$XEN_EVENT_VECTOR
	save_all_regs
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, %rsi		/* entry TSC */
	call_with_frame xen_pv_event
	restore_all_regs
	addq	$16, %rsp
	pushq	$0
	jmp	hypercall_page + __HYPERVISOR_iret * XEN_HYPERCALL_SLOT_SIZE

/*
 * The failsafe callback: Xen could not restore a segment register on the
 * way back to the guest.  clockbench loads none, so this is a bug: say so
 * and end the run.
 */
	.globl xen_failsafe_entry
xen_failsafe_entry:
	andq	$~15, %rsp
	call	xen_pv_failsafe
	ud2
