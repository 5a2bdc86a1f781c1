/* SPDX-License-Identifier: MIT */
/*
 * The timer interrupt being measured, as ring 0 takes it.
 *
 * platform/hvm64/trap_entry.S enters tick_irq_handle() on TICK_VECTOR with the TSC
 * read before anything else.  It acknowledges the interrupt as the tick
 * source configured (an end of interrupt to the local APIC; for a
 * one-shot timer, the next deadline written first), and records the entry
 * TSC, the TSC as it leaves, and the deadline the interrupt was for.
 * Ring 3 (engine/ticks.c and the tick sources) sets the state up while
 * interrupts are off, and reads it afterwards.
 *
 * tick_irq.c is built like ring 0 (general registers only, no newlib),
 * because under kvm-pvm ring 0 is emulated without SSE.
 */
#ifndef CLOCKBENCH_BASE_TICK_IRQ_H
#define CLOCKBENCH_BASE_TICK_IRQ_H

#include <stdbool.h>
#include <stdint.h>

/* How the interrupt is ended. */
enum tick_eoi {
	TICK_EOI_NONE,
	TICK_EOI_MMIO32, /* write 0 to the 32-bit register at eoi_target */
	TICK_EOI_MSR,	 /* write 0 to MSR eoi_target (x2APIC) */
};

/* How a one-shot timer is given its next deadline. */
enum tick_rearm {
	TICK_REARM_NONE,   /* periodic: the hardware repeats */
	TICK_REARM_MSR,	   /* wrmsr rearm_target (IA32_TSC_DEADLINE) */
	TICK_REARM_MMIO32, /* 32-bit write to rearm_target (HPET Tn_CMP) */
};

struct tick_irq_config {
	enum tick_eoi eoi;
	uint64_t eoi_target; /* the EOI register's address, or its MSR */
	enum tick_rearm rearm;
	uint64_t rearm_target; /* the deadline register's MSR or address */
	/* The counter the deadline is compared with: the address of its low
	 * 32 bits (MMIO), or 0 for the TSC. */
	uint64_t now_mmio;
	uint64_t period; /* counts between deadlines */
	uint64_t margin; /* a deadline closer to now than this is skipped */
	uint64_t mask;	 /* the counter's width */
};

/* One interrupt. */
struct tick_irq_record {
	uint64_t entry_tsc; /* first instruction of the entry stub */
	uint64_t exit_tsc;  /* after the end of interrupt, before iretq */
	uint64_t deadline;  /* one-shot: the deadline it was armed for */
};

struct tick_irq_state {
	struct tick_irq_config config;
	/* Past this TSC, the handler clears IF in the interrupted code's
	 * RFLAGS and takes no more: an interrupt that never lets ring 3 run
	 * cannot hang the run. */
	uint64_t give_up_tsc;
	struct tick_irq_record *records; /* the first `capacity` interrupts */
	uint64_t capacity;
	volatile uint64_t count;    /* interrupts taken */
	volatile uint64_t deadline; /* one-shot: the deadline armed now */
	volatile uint64_t skipped;  /* one-shot: expiries passed over */
	volatile bool gave_up;	    /* give_up_tsc was reached */
};

/* The CPU's frame of an interrupt from ring 3. */
struct tick_iret_frame {
	uint64_t rip, cs, rflags, rsp, ss;
};

extern struct tick_irq_state tick_irq;

/** Ring 0: one timer interrupt, entered at @entry_tsc. */
void tick_irq_handle(uint64_t entry_tsc, struct tick_iret_frame *frame);

/**
 * Count and record one interrupt entered at @entry_tsc for @deadline (0
 * for a periodic timer), its exit TSC read last.  Past give_up_tsc, IF is
 * cleared in *@rflags (when given: the interrupted code's flags) and
 * gave_up set.  General registers only: an interrupt path that does not
 * go through tick_irq_handle() (a Xen event-channel upcall) records with
 * it too.
 */
void tick_irq_record(uint64_t entry_tsc, uint64_t deadline, uint64_t *rflags);

#endif
