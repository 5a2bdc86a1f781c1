// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * The Xen PV environment (build/pv64/ only): what the native kernel gets
 * from its own ring 0 and the machine, a PV kernel asks of Xen.  Started by
 * boot/head-xenpv.S on the boot stack with start_info's address.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <xen/errno.h>
#include <xen/physdev.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
#include "hypervisor/xen_console.h"
#include "lib/consloss.h"
#include "platform/pv64/xen_pv.h"
#include "platform/pv64/xen_pv_events.h"
#include "base/cpu.h"
#include "base/entry.h"
#include "base/extable.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/priv.h"
#include "base/smp.h"
#include "base/traps.h"

#define IOPL_ALL 3 /* PHYSDEVOP_set_iopl: ports as in ring 0 */

/* Trap-table flags: the privilege that may raise the vector with `int`
 * (bits 0-1), and bit 2, "mask events on entry" (xen/arch-x86/xen.h). */
#define TRAP_DPL0	 0
#define TRAP_DPL3	 3
#define TRAP_MASK_EVENTS 4
#define RFLAGS_IOPL1	 0x1000 /* a new vCPU's RFLAGS, as Linux sets */
extern const uint64_t xen_trap_stubs[NR_EXCEPTIONS];

const struct start_info *xen_start_info;
int xen_pv_iopl_rc;

/* Xen's shared_info page, mapped by machine address at start. */
static struct trap_info trap_table[NR_EXCEPTIONS + 1];
static uint8_t fault_stack[FAULT_STACK_SIZE] __attribute__((aligned(16)));
static struct fault_record fault_record;
static int fault_depth;

/* --- console -------------------------------------------------------------- */

static void console_io_write(const char *buf, size_t len)
{
	HYPERCALL3(__HYPERVISOR_console_io, CONSOLEIO_write, len, buf);
}

/* A domU's PV console ring; dom0 writes through console_io. */
static struct xencons console = {
	.kick = xen_evtchn_notify,
	.relax = xen_sched_yield,
	.max_spins = XENCONS_WAIT_SPINS,
};

void platform_console_init(void)
{
	const struct start_info *si = xen_start_info;
	int rc;

	if (si->flags & SIF_INITDOMAIN)
		return;
	console.evtchn = si->console.domU.evtchn;
	console.ring =
		xen_pv_map(si->console.domU.mfn << 12, PAGE_SIZE, PTE_W, &rc);
	console.broken = !console.ring || !xencons_sane(console.ring);
}

static size_t broken_lost; /* bytes not written: the ring's indexes broke */

void platform_console_write(const char *buf, size_t len)
{
	static const char ring_stuck[] =
		"clockbench: the PV console ring is stuck; output lost\n";

	if (!console.ring) {
		console_io_write(buf, len);
		return;
	}
	/* Nobody drains the ring: say so where Xen might still show it. */
	if (console.broken)
		broken_lost += len;
	else if (xencons_write(&console, buf, len))
		console_io_write(ring_stuck, sizeof(ring_stuck) - 1);
}

void platform_console_losses(struct console_loss *l)
{
	consloss_dropped(l, console.lost_total + broken_lost,
			 "Xen's console ring was not drained in time, or its "
			 "indexes were inconsistent");
}

void platform_console_flush(void)
{
	if (console.ring)
		xencons_flush(&console);
}

void xen_pv_console_resume(void)
{
	if (console.ring)
		console.evtchn = xen_start_info->console.domU.evtchn;
}

int platform_console_read_byte(void)
{
	return console.ring ? xencons_read_byte(&console) : -1;
}

const char *platform_console_input_missing(void)
{
	if (xen_start_info->flags & SIF_INITDOMAIN)
		return "as Xen's dom0 clockbench writes Xen's console_io, "
		       "which has no input for it";
	if (!console.ring)
		return "the PV console ring could not be mapped";
	if (console.in_broken)
		return "the PV console ring's input indexes are inconsistent";
	return NULL;
}

/* --- exceptions -------------------------------------------------------------- */

static void set_trap_table(void)
{
	unsigned int v;

	for (v = 0; v < NR_EXCEPTIONS; v++)
		trap_table[v] = (struct trap_info){
			.vector = (uint8_t)v,
			/* int3 from anywhere; the rest only by the CPU. */
			.flags = (v == X86_EXC_BP ? TRAP_DPL3 : TRAP_DPL0) |
				 TRAP_MASK_EVENTS,
			.cs = FLAT_KERNEL_CS,
			.address = xen_trap_stubs[v],
		};
	/* trap_table[NR_EXCEPTIONS] stays zero: the terminator. */
	HYPERCALL1(__HYPERVISOR_set_trap_table, trap_table);
}

static __attribute__((noreturn)) void crash_now(const char *why)
{
	struct sched_shutdown crash = { .reason = SHUTDOWN_crash };

	console_io_write(why, strlen(why));
	for (;;)
		HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &crash);
}

/* From platform/pv64/xen_pv_entry.S, with every register saved in @f. */
void xen_pv_trap(struct trap_frame *f);
void xen_pv_trap(struct trap_frame *f)
{
	unsigned int vcpu = cpu_index();

	if (extable_apply(f))
		return;
	if (__atomic_add_fetch(&fault_depth, 1, __ATOMIC_ACQ_REL) > 1)
		crash_now("\nclockbench: an exception while reporting an "
			  "exception; crashing the domain\n");
	fault_record.frame = *f;
	/* Xen keeps the event mask in the CS slot's upper bits. */
	fault_record.frame.cs &= 0xffff;
	/* Xen keeps a PV vCPU's CR2 in its vcpu_info. */
	fault_record.cr2 =
		xen_shared_info ? xen_shared_info->vcpu_info[vcpu].arch.cr2 : 0;
	fault_record.cr0 = read_cr(0);
	fault_record.cr3 = read_cr(3);
	fault_record.cr4 = read_cr(4);
	/* Report on a stack of our own: this one may be what overflowed. */
	asm volatile("movq %0, %%rsp\n\t"
		     "call fault_report" ::"r"(fault_stack + FAULT_STACK_SIZE),
		     "D"(&fault_record)
		     : "memory");
	__builtin_unreachable();
}

/* From platform/pv64/xen_pv_entry.S: Xen could not return to the guest. */
void xen_pv_failsafe(void);
void xen_pv_failsafe(void)
{
	crash_now("\nclockbench: Xen's failsafe callback: a segment could not "
		  "be restored on return to the guest\n");
}

/* --- event delivery (interrupts, for a PV guest) ------------------------------ */

void irq_disable(void)
{
	xen_shared_info->vcpu_info[cpu_index()].evtchn_upcall_mask = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void irq_enable(void)
{
	volatile struct vcpu_info *v = &xen_shared_info->vcpu_info[cpu_index()];

	v->evtchn_upcall_mask = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* An event that came while masked waits for Xen's next return to
	 * the guest: any hypercall makes one. */
	if (v->evtchn_upcall_pending)
		HYPERCALL2(__HYPERVISOR_xen_version, 0, NULL);
}

/* --- leaving ------------------------------------------------------------------ */

static void shutdown(unsigned int reason)
{
	struct sched_shutdown arg = { .reason = reason };

	HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &arg);
}

void xen_pv_halt(void)
{
	/* A PV guest cannot stop its vCPU for good without ending: power
	 * off, which ends the domain (as dom0, Xen halts the machine). */
	shutdown(SHUTDOWN_poweroff);
	for (;;)
		HYPERCALL2(__HYPERVISOR_sched_op, SCHEDOP_yield, NULL);
}

void platform_leave(enum verdict verdict, enum exit_method method)
{
	/* As dom0 with port privilege the isa-debug-exit port reaches QEMU
	 * (Xen denies only the ports it keeps for itself). */
	if ((method == EXIT_AUTO || method == EXIT_ISA) && !xen_pv_iopl_rc)
		outb(ISA_DEBUG_EXIT_PORT, (uint8_t)verdict_exit_code(verdict));
	switch (method) {
	case EXIT_HALT:
		xen_pv_halt();
	case EXIT_RESET:
		shutdown(SHUTDOWN_reboot);
		break;
	default:
		shutdown(verdict == VERDICT_FAIL || verdict == VERDICT_ERROR
				 ? SHUTDOWN_crash
				 : SHUTDOWN_poweroff);
		break;
	}
	crash_now("clockbench: SCHEDOP_shutdown returned; crashing the "
		  "domain\n");
}

/* --- other vCPUs ------------------------------------------------------------- */

static struct vcpu_guest_context vcpu_context;

int xen_pv_vcpu_exists(unsigned int vcpu, char *why, size_t whylen)
{
	int rc =
		(int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_is_up, vcpu, NULL);

	why[0] = '\0';
	if (rc >= 0)
		return 1;
	if (rc == -XEN_ENOENT)
		return 0;
	snprintf(why, whylen, "VCPUOP_is_up(%u) failed: %d", vcpu, rc);
	return -1;
}

int xen_pv_vcpu_up(unsigned int vcpu, void (*entry)(unsigned int),
		   void *stack_top, char *why, size_t whylen)
{
	struct vcpu_guest_context *ctx = &vcpu_context;
	unsigned int v;
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	/* The failsafe callback masks events, as CALLBACKF_mask_events asks
	 * of the boot vCPU's (platform/pv64/xen_pv_ticks.c). */
	ctx->flags = VGCF_in_kernel | VGCF_failsafe_disables_events;
	ctx->user_regs.rip = (uintptr_t)entry;
	ctx->user_regs.rsp = (uintptr_t)stack_top;
	ctx->user_regs.rdi = vcpu;
	ctx->user_regs.cs = FLAT_KERNEL_CS;
	ctx->user_regs.ss = FLAT_KERNEL_SS;
	ctx->user_regs.rflags = RFLAGS_IOPL1;
	ctx->kernel_ss = FLAT_KERNEL_SS;
	ctx->kernel_sp = (uintptr_t)stack_top;
	ctx->ctrlreg[3] = read_cr(3); /* a machine address under PV */
	/* An idle AP blocks until an event, which Xen delivers through the
	 * upcall (platform/pv64/idle.c). */
	ctx->event_callback_eip = (uintptr_t)xen_event_entry;
	ctx->failsafe_callback_eip = (uintptr_t)xen_failsafe_entry;
	for (v = 0; v < NR_EXCEPTIONS; v++)
		ctx->trap_ctxt[v] = trap_table[v];
	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_initialise, vcpu,
			     ctx);
	if (rc) {
		snprintf(why, whylen, "VCPUOP_initialise(%u) failed: %d", vcpu,
			 rc);
		return rc;
	}
	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_up, vcpu, NULL);
	if (rc)
		snprintf(why, whylen, "VCPUOP_up(%u) failed: %d", vcpu, rc);
	return rc;
}

static int set_iopl(void)
{
	struct physdev_set_iopl iopl = { .iopl = IOPL_ALL };

	return (int)HYPERCALL2(__HYPERVISOR_physdev_op, PHYSDEVOP_set_iopl,
			       &iopl);
}

void xen_pv_ap_setup(void)
{
	set_iopl();
	/* Events stay masked except while the AP blocks (idle.c). */
	irq_disable();
}

/* --- start ---------------------------------------------------------------------- */

void xen_pv_start(const struct start_info *si)
{
	static const char no_shared_info[] =
		"clockbench: cannot map shared_info\n";
	volatile void *shared;
	int rc;

	xen_start_info = si;
	/* Without a filled hypercall page there is no way to say anything:
	 * ud2 with no trap table makes Xen crash the domain, loudly. */
	if (!xen_hypercall_page_ready())
		asm volatile("ud2");
	set_trap_table();
	shared = xen_pv_map(si->shared_info, PAGE_SIZE, PTE_W, &rc);
	if (!shared)
		crash_now(no_shared_info);
	xen_shared_info = shared;
	xen_pv_iopl_rc = set_iopl();
	if ((uintptr_t)si > UINT32_MAX)
		crash_now("clockbench: start_info lies above 4 GiB\n");
	kernel_boot(BOOT_PROTO_XEN_PV, (uint32_t)(uintptr_t)si, 0);
}
