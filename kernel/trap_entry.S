/* SPDX-License-Identifier: MIT */
/*
 * Ring 0 entry stubs: exceptions 0-31 and the privileged-call gate
 * (PRIV_VECTOR).  Each pushes a zero where the CPU pushes no error code,
 * then its vector, and joins trap_common, which saves every general
 * register (the layout of struct trap_frame), calls trap_handle(), and
 * returns with whatever the handler left in the frame.  Ring 0 code uses
 * general registers only (kernel/ring0.h), so SSE state needs no saving.
 */
#include "boot/boot.h"
#include "kernel/trap_regs.inc"

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
