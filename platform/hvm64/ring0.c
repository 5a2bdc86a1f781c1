// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * Ring 0: IDT, TSS, exception dispatch and privileged requests.  Built with
 * -mgeneral-regs-only and calls nothing in newlib (see platform/hvm64/ring0.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"
#include "drivers/uart.h"
#include "hypervisor/hypercall.h"
#include "base/cpu.h"
#include "base/extable.h"
#include "base/platform.h"
#include "base/priv.h"
#include "platform/hvm64/priv_call.h"
#include "platform/hvm64/ring0.h"
#include "lib/iobitmap.h"
#include "lib/verdict.h"

#define NR_VECTORS     256
#define IST_STACK_SIZE 8192

/* IST slots (1-based, as the IDT gate counts them). */
#define IST_DOUBLE_FAULT  1
#define IST_NMI		  2
#define IST_MACHINE_CHECK 3
#define NR_IST		  3

#define GATE_INTERRUPT_64 0x8e /* present, 64-bit interrupt gate */
#define GATE_DPL3	  0x60 /* may be raised by `int` from ring 3 */
#define TSS_AVAILABLE_64  0x89 /* present, 64-bit TSS (available) */

_Static_assert(offsetof(struct trap_frame, rax) == 14 * 8,
	       "struct trap_frame must match the pushes in "
	       "platform/hvm64/trap_entry.S");
_Static_assert(offsetof(struct trap_frame, rip) == 17 * 8,
	       "struct trap_frame must match the CPU's exception frame");

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct descriptor_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const uint64_t trap_stubs[NR_EXCEPTIONS], priv_stub[1];
extern const uint64_t stray_stubs[IRQ_PIC_COUNT + 1], wake_stub[1];
extern const char tick_stub[];
extern uint64_t gdt64[];
extern char ring0_stack_top[], boot_stack_guard[];
extern uint64_t ap_boot_ring0_stack;

/* Every CPU's TSS, and right after them the one I/O permission bitmap
 * they all point at (lib/iobitmap.h): ports ring 0 allowed are ring 3's to
 * use directly, where the hypervisor honours the bitmap. */
static struct {
	struct tss64 tss[MAX_CPUS];
	uint8_t io_bitmap[IOBITMAP_BYTES];
} tss_area;

static struct idt_gate idt[NR_VECTORS];
static uint8_t ist_stacks[MAX_CPUS][NR_IST][IST_STACK_SIZE]
	__attribute__((aligned(16)));
static uint8_t fault_stack[FAULT_STACK_SIZE] __attribute__((aligned(16)));
static struct fault_record fault_record;
static int fault_depth;
struct ring0_port_detours ring0_port_detours;
unsigned long ring0_stray_interrupts;
struct ring0_eoi ring0_wake_eoi;

/* --- privileged instructions (ring 0 only) --------------------------------- */

static __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" ::: "memory");
}

/* --- setup ------------------------------------------------------------------- */

static void set_gate(unsigned int vector, uint64_t handler, unsigned int ist,
		     unsigned int dpl_bits)
{
	struct idt_gate *g = &idt[vector];

	g->offset_low = (uint16_t)handler;
	g->selector = GDT_SEL_CODE64;
	g->ist = (uint8_t)ist;
	g->type_attr = (uint8_t)(GATE_INTERRUPT_64 | dpl_bits);
	g->offset_mid = (uint16_t)(handler >> 16);
	g->offset_high = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

/* CPU @cpu's TSS: its ring-0 stack and IST stacks, in its GDT slot. */
static void tss_install(unsigned int cpu, uint64_t rsp0)
{
	struct tss64 *t = &tss_area.tss[cpu];
	uint64_t base = (uint64_t)(uintptr_t)t;
	struct iobitmap_tss io;
	uint64_t limit;
	unsigned int sel = GDT_SEL_CPU_TSS + 16 * cpu;
	unsigned int i;

	t->rsp[0] = rsp0;
	for (i = 0; i < NR_IST; i++)
		t->ist[i] = (uint64_t)(uintptr_t)(ist_stacks[cpu][i] +
						  IST_STACK_SIZE - 16);
	/* The layout is fixed at build time; a TSS that could not reach the
	 * bitmap would just have none (every port takes the #GP path). */
	if (iobitmap_tss_layout(offsetof(typeof(tss_area), tss[cpu]),
				sizeof(*t),
				offsetof(typeof(tss_area), io_bitmap), &io)) {
		t->iomap_base = io.iomap_base;
		limit = io.limit;
	} else {
		t->iomap_base = sizeof(*t);
		limit = sizeof(*t) - 1;
	}

	gdt64[sel / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
			 ((uint64_t)TSS_AVAILABLE_64 << 40) |
			 (((limit >> 16) & 0xf) << 48) |
			 (((base >> 24) & 0xff) << 56);
	gdt64[sel / 8 + 1] = base >> 32;
	asm volatile("ltr %w0" ::"r"(sel) : "memory");
}

static void load_idt(void)
{
	struct descriptor_ptr idtr = { sizeof(idt) - 1,
				       (uint64_t)(uintptr_t)idt };

	asm volatile("lidt %0" ::"m"(idtr) : "memory");
}

void ap_ring0_init(unsigned int cpu)
{
	tss_install(cpu, ap_boot_ring0_stack);
	load_idt();
}

void ring0_init(void)
{
	unsigned int v;

	iobitmap_deny_all(tss_area.io_bitmap);
	tss_install(0, (uint64_t)(uintptr_t)ring0_stack_top);
	for (v = 0; v < NR_EXCEPTIONS; v++) {
		unsigned int ist = v == X86_EXC_DF    ? IST_DOUBLE_FAULT
				   : v == X86_EXC_NMI ? IST_NMI
				   : v == X86_EXC_MC  ? IST_MACHINE_CHECK
						      : 0;

		/* int3 stays usable from ring 3, as on any OS. */
		set_gate(v, trap_stubs[v], ist,
			 v == X86_EXC_BP ? GATE_DPL3 : 0);
	}
	set_gate(PRIV_VECTOR, priv_stub[0], 0, GATE_DPL3);
	for (v = 0; v < IRQ_PIC_COUNT; v++)
		set_gate(IRQ_PIC_BASE + v, stray_stubs[v], 0, 0);
	set_gate(SPURIOUS_VECTOR, stray_stubs[IRQ_PIC_COUNT], 0, 0);
	set_gate(TICK_VECTOR, (uint64_t)(uintptr_t)tick_stub, 0, 0);
	set_gate(WAKE_VECTOR, wake_stub[0], 0, 0);
	load_idt();
}

/* --- dispatch ----------------------------------------------------------------- */

static void provoke(uint64_t what)
{
	uint64_t guard_middle =
		(uint64_t)(uintptr_t)boot_stack_guard + PAGE_SIZE / 2;

	if (what == PRIV_PROVOKE_DOUBLE_FAULT)
		/* #UD cannot be delivered on a stack in the guard page, nor
		 * can the #PF that raises: a double fault. */
		asm volatile("movq %0, %%rsp; ud2" ::"r"(guard_middle)
			     : "memory");
	else if (what == PRIV_PROVOKE_NMI)
		asm volatile("int $2");
}

/* One more access to @port performed by ring 0 (any CPU). */
static void count_detour(uint16_t port)
{
	struct ring0_port_detours *d = &ring0_port_detours;
	unsigned int i;

	for (i = 0; i < RING0_PORTS_COUNTED; i++) {
		uint32_t want = (uint32_t)port + 1;
		uint32_t key =
			__atomic_load_n(&d->port_plus1[i], __ATOMIC_RELAXED);

		/* Claim a free slot; when another CPU claimed it first, key
		 * becomes what that CPU wrote. */
		if (!key && __atomic_compare_exchange_n(
				    &d->port_plus1[i], &key, want, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			key = want;
		if (key != want)
			continue;
		__atomic_fetch_add(&d->count[i], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&d->other_ports, 1, __ATOMIC_RELAXED);
}

/* rep outsb (the UART's bursts, base/cpu.h's outsb()): RCX bytes from
 * [RSI] to port DX, leaving RSI past them and RCX 0 as the CPU would. */
static void emulate_rep_outsb(struct trap_frame *f)
{
	const uint8_t *src = (const uint8_t *)(uintptr_t)f->rsi;
	uint16_t port = (uint16_t)f->rdx;

	for (; f->rcx; f->rcx--) {
		count_detour(port);
		outb(port, *src++);
	}
	f->rsi = (uint64_t)(uintptr_t)src;
}

/*
 * Ring 3 runs with IOPL 3, so in, out, cli and sti work there natively.
 * Some hypervisors that run guest ring 3 directly (this project's nested
 * KVM is one) do not honour a guest's IOPL: the instruction raises #GP
 * unless the TSS I/O bitmap allows the port.  Then ring 0 performs it on
 * ring 3's behalf and steps over it.  Returns false when the instruction
 * at @f->rip is not one of these.
 */
static bool emulate_io(struct trap_frame *f)
{
	const uint8_t *ip = (const uint8_t *)(uintptr_t)f->rip;
	unsigned int len = 1, size = 4;
	uint16_t port;
	uint32_t val;
	bool is_in;

	if ((f->cs & 3) != 3 || f->error_code != 0)
		return false;
	if (ip[0] == 0xf3 && ip[1] == 0x6e) {
		emulate_rep_outsb(f);
		f->rip += 2;
		return true;
	}
	if (ip[0] == 0x66) {
		size = 2;
		ip++;
		len++;
	}
	switch (ip[0]) {
	case 0xfa: /* cli: ring 3 runs with IF as its frame says */
		f->rflags &= ~(uint64_t)(1u << 9);
		f->rip += len;
		return true;
	case 0xfb: /* sti */
		f->rflags |= 1u << 9;
		f->rip += len;
		return true;
	case 0xe4:
	case 0xe5:
	case 0xe6:
	case 0xe7:
		port = ip[1];
		len++;
		break;
	case 0xec:
	case 0xed:
	case 0xee:
	case 0xef:
		port = (uint16_t)f->rdx;
		break;
	default:
		return false;
	}
	if (!(ip[0] & 1))
		size = 1;
	count_detour(port);
	is_in = !(ip[0] & 2);
	if (is_in) {
		val = size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
		if (size == 4)
			f->rax = val; /* a 32-bit write zero-extends */
		else
			f->rax = (f->rax &
				  ~(uint64_t)(size == 1 ? 0xff : 0xffff)) |
				 val;
	} else if (size == 1) {
		outb(port, (uint8_t)f->rax);
	} else if (size == 2) {
		outw(port, (uint16_t)f->rax);
	} else {
		outl(port, (uint32_t)f->rax);
	}
	f->rip += len;
	return true;
}

/* `int $PRIV_VECTOR` from ring 3 that the hypervisor turned into #UD. */
#define PRIV_INT_LEN 2
static bool is_priv_int(const struct trap_frame *f)
{
	const uint8_t *ip = (const uint8_t *)(uintptr_t)f->rip;

	return (f->cs & 3) == 3 && ip[0] == 0xcd && ip[1] == PRIV_VECTOR;
}

static void priv_request(struct trap_frame *f)
{
	uint64_t val = 0;

	f->rdx = 0;
	switch (f->rax) {
	case PRIV_RDMSR:
		f->rdx = rdmsr_fixup((uint32_t)f->rdi, &val);
		f->rax = f->rdx ? 0 : val;
		break;
	case PRIV_WRMSR:
		f->rdx = wrmsr_fixup((uint32_t)f->rdi, f->rsi);
		break;
	case PRIV_READ_CR:
		f->rax = read_cr((unsigned int)f->rdi);
		break;
	case PRIV_FLUSH_TLB:
		asm volatile("mov %%cr3, %%rax; mov %%rax, %%cr3" ::
				     : "rax", "memory");
		break;
	case PRIV_HALT:
		halt_forever();
	case PRIV_TRIPLE_FAULT: {
		struct descriptor_ptr none = { 0, 0 };

		asm volatile("lidt %0; int3" ::"m"(none));
		break;
	}
	case PRIV_PROVOKE:
		provoke(f->rdi);
		break;
	case PRIV_HYPERCALL: {
		const struct priv_hypercall *h =
			(const struct priv_hypercall *)(uintptr_t)f->rdi;

		f->rax = (uint64_t)xen_hypercall_direct(
			(unsigned int)h->op, h->args[0], h->args[1], h->args[2],
			h->args[3], h->args[4]);
		break;
	}
	case PRIV_IO_ALLOW:
		f->rdx = !iobitmap_allow(tss_area.io_bitmap, (uint32_t)f->rdi,
					 (uint32_t)f->rsi);
		break;
	case PRIV_IO_DENY_ALL:
		iobitmap_deny_all(tss_area.io_bitmap);
		break;
	case PRIV_CPUID: {
		struct priv_cpuid *c = (struct priv_cpuid *)(uintptr_t)f->rdi;

		asm volatile("cpuid"
			     : "=a"(c->eax), "=b"(c->ebx), "=c"(c->ecx),
			       "=d"(c->edx)
			     : "a"(c->leaf), "c"(c->subleaf));
		break;
	}
	case PRIV_IDLE:
		/* The interrupt that ends hlt is taken here, in ring 0. */
		asm volatile("sti; hlt; cli" ::: "memory");
		break;
	default:
		f->rdx = PRIV_BAD_REQUEST;
		break;
	}
}

static void ring0_puts(const char *s)
{
	size_t len = 0;

	while (s[len])
		len++;
	uart_write(s, len);
}

/* newlib's printf is not for ring 0: this is the one number formatter. */
static void ring0_put_hex(uint64_t v)
{
	char digits[19] = "0x";
	int i;

	for (i = 0; i < 16; i++)
		digits[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	digits[18] = '\0';
	ring0_puts(digits);
}

/*
 * Keep the exception and resume in ring 3 at fault_report(), on a stack of
 * its own (the faulting one may be the problem).
 */
static void hand_to_ring3(struct trap_frame *f)
{
	const uint64_t *src = (const uint64_t *)f;
	uint64_t *dst = (uint64_t *)&fault_record.frame;
	size_t i;

	for (i = 0; i < sizeof(*f) / sizeof(uint64_t); i++)
		dst[i] = src[i];
	fault_record.cr0 = read_cr(0);
	fault_record.cr2 = read_cr(2);
	fault_record.cr3 = read_cr(3);
	fault_record.cr4 = read_cr(4);

	f->rdi = (uint64_t)(uintptr_t)&fault_record;
	f->rip = (uint64_t)(uintptr_t)fault_report;
	f->cs = USER_CS;
	f->ss = USER_DS;
	f->rflags = USER_RFLAGS;
	f->rsp = (uint64_t)(uintptr_t)(fault_stack + FAULT_STACK_SIZE) - 8;
}

void trap_handle(struct trap_frame *f)
{

	if (f->vector == PRIV_VECTOR) {
		priv_request(f);
		return;
	}
	if (f->vector == X86_EXC_UD && is_priv_int(f)) {
		f->rip += PRIV_INT_LEN;
		priv_request(f);
		return;
	}
	if (f->vector == X86_EXC_GP && emulate_io(f))
		return;
	if (f->vector == WAKE_VECTOR) {
		if (ring0_wake_eoi.mmio)
			*(volatile uint32_t *)(uintptr_t)ring0_wake_eoi.mmio =
				0;
		else if (ring0_wake_eoi.msr)
			wrmsr_fixup(ring0_wake_eoi.msr, 0);
		return;
	}
	/* A PIC interrupt (they are masked) or the APIC's spurious vector:
	 * neither takes an end of interrupt at the local APIC. */
	if (f->vector >= IRQ_PIC_BASE && f->vector != PRIV_VECTOR) {
		ring0_stray_interrupts++;
		return;
	}
	if (extable_apply(f))
		return;
	/* A fault while reporting one: say so without ring 3, and stop. */
	if (fault_depth++) {
		ring0_puts("\nFAULT: vector ");
		ring0_put_hex(f->vector);
		ring0_puts(" at RIP ");
		ring0_put_hex(f->rip);
		ring0_puts(" (CR2 ");
		ring0_put_hex(read_cr(2));
		ring0_puts(") while reporting vector ");
		ring0_put_hex(fault_record.frame.vector);
		ring0_puts(" at RIP ");
		ring0_put_hex(fault_record.frame.rip);
		ring0_puts("; giving up.\nclockbench: FAIL\n");
		uart_flush();
		outb(ISA_DEBUG_EXIT_PORT,
		     (uint8_t)verdict_exit_code(VERDICT_FAIL));
		halt_forever();
	}
	hand_to_ring3(f);
}
