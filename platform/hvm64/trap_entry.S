/* SPDX-License-Identifier: MIT */
/*
 * Ring 0 entry stubs: exceptions 0-31, the privileged-call gate
 * (PRIV_VECTOR), stray interrupts (the PIC's vectors, the APIC's spurious
 * one) and the wake-up IPI (WAKE_VECTOR).  Each pushes a zero where the CPU pushes no error code,
 * then its vector, and joins trap_common, which saves every general
 * register (the layout of struct trap_frame), calls trap_handle(), and
 * returns with whatever the handler left in the frame.  Ring 0 code uses
 * general registers only (platform/hvm64/ring0.h), so SSE state needs no saving.
 *
 * The timer interrupt being measured (TICK_VECTOR) has a stub of its own,
 * tick_stub, that reads the TSC first and saves only what the C calling
 * convention lets tick_irq_handle() clobber.
 */
#include "boot/boot.h"
#include "base/trap_regs.inc"

	.text
	.altmacro
.macro trap_stub vec
	.balign 16
trap_stub_\vec:
	.if !HAS_ERROR(\vec)
	pushq	$0
	.endif
	pushq	$\vec
	jmp	trap_common
.endm

.set vec, 0
.rept 32
	trap_stub %vec
	.set vec, vec + 1
.endr
	trap_stub %PRIV_VECTOR
.set vec, IRQ_PIC_BASE
.rept IRQ_PIC_COUNT
	trap_stub %vec
	.set vec, vec + 1
.endr
	trap_stub %SPURIOUS_VECTOR
	trap_stub %WAKE_VECTOR

/*
 * TICK_VECTOR, always from ring 3 (ring 0 runs with interrupts off), so
 * the CPU has aligned the stack and pushed SS, RSP, RFLAGS, CS, RIP: nine
 * pushes here leave it 16-byte aligned for the call.
 */
	.balign 16
	.globl tick_stub
tick_stub:
	pushq	%rax
	pushq	%rdx
	rdtsc
	shlq	$32, %rdx
	orq	%rax, %rdx
	pushq	%rcx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	movq	%rdx, %rdi		/* entry TSC */
	leaq	72(%rsp), %rsi		/* the CPU's frame */
	cld
	call	tick_irq_handle
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rcx
	popq	%rdx
	popq	%rax
	iretq

trap_common:
	save_all_regs
	call_with_frame trap_handle
	restore_all_regs
	addq	$16, %rsp		/* vector and error code */
	iretq

.macro stub_addr vec
	.quad trap_stub_\vec
.endm

	.section .rodata
	.balign 8
	.globl trap_stubs
trap_stubs:
.set vec, 0
.rept 32
	stub_addr %vec
	.set vec, vec + 1
.endr
	.globl priv_stub
priv_stub:
	stub_addr %PRIV_VECTOR
	.globl stray_stubs
stray_stubs:
.set vec, IRQ_PIC_BASE
.rept IRQ_PIC_COUNT
	stub_addr %vec
	.set vec, vec + 1
.endr
	stub_addr %SPURIOUS_VECTOR
	.globl wake_stub
wake_stub:
	stub_addr %WAKE_VECTOR
