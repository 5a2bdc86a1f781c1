// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * The timer interrupt in ring 0 (see base/tick_irq.h).  Built with
 * -mgeneral-regs-only and calls nothing in newlib.  Kept short: under a
 * hypervisor that emulates ring 0, every instruction here is part of what
 * an interrupt costs.
 */
#include "base/tick_irq.h"
#include "lib/tickmath.h"

#define X86_EFLAGS_IF (1ull << 9)

/* Tries at a deadline that the counter passes while it is written. */
#define REARM_TRIES 4

struct tick_irq_state tick_irq;

static uint64_t rdtsc_ring0(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void wrmsr_ring0(uint32_t msr, uint64_t val)
{
	asm volatile("wrmsr" ::"c"(msr), "a"((uint32_t)val),
		     "d"((uint32_t)(val >> 32))
		     : "memory");
}

static uint64_t counter_now(const struct tick_irq_config *c)
{
	if (c->now_mmio)
		return *(volatile uint32_t *)(uintptr_t)c->now_mmio;
	return rdtsc_ring0();
}

static void write_deadline(const struct tick_irq_config *c, uint64_t deadline)
{
	if (c->rearm == TICK_REARM_MSR)
		wrmsr_ring0((uint32_t)c->rearm_target, deadline);
	else
		*(volatile uint32_t *)(uintptr_t)c->rearm_target =
			(uint32_t)deadline;
}

/*
 * The next deadline, past expiries skipped, written.  A TSC deadline that
 * passes while it is written still fires (at once), so it is written once:
 * writing another would leave that interrupt pending and counted against
 * the later deadline.  A 32-bit comparator the counter passed would wait a
 * whole wrap, so it is checked and written again (bounded).
 */
static void rearm(struct tick_irq_state *s)
{
	const struct tick_irq_config *c = &s->config;
	uint64_t deadline = s->deadline, skipped;
	int i;

	for (i = 0; i < REARM_TRIES; i++) {
		deadline =
			tick_next_deadline(deadline, c->period, counter_now(c),
					   c->margin, c->mask, &skipped);
		s->skipped += skipped;
		write_deadline(c, deadline);
		if (c->rearm != TICK_REARM_MMIO32 ||
		    ((deadline - counter_now(c)) & c->mask) <= c->mask / 2)
			break;
	}
	s->deadline = deadline;
}

void tick_irq_record(uint64_t entry_tsc, uint64_t deadline, uint64_t *rflags)
{
	struct tick_irq_state *s = &tick_irq;
	uint64_t n = s->count;

	s->count = n + 1;
	if (entry_tsc > s->give_up_tsc) {
		if (rflags)
			*rflags &= ~X86_EFLAGS_IF;
		s->gave_up = true;
	}
	if (n < s->capacity) {
		struct tick_irq_record *r = &s->records[n];

		r->entry_tsc = entry_tsc;
		r->deadline = deadline;
		r->exit_tsc = rdtsc_ring0();
	}
}

void tick_irq_handle(uint64_t entry_tsc, struct tick_iret_frame *frame)
{
	struct tick_irq_state *s = &tick_irq;
	const struct tick_irq_config *c = &s->config;
	uint64_t deadline = s->deadline;

	if (c->rearm != TICK_REARM_NONE)
		rearm(s);
	if (c->eoi == TICK_EOI_MMIO32)
		*(volatile uint32_t *)(uintptr_t)c->eoi_target = 0;
	else if (c->eoi == TICK_EOI_MSR)
		wrmsr_ring0((uint32_t)c->eoi_target, 0);
	tick_irq_record(entry_tsc, deadline, &frame->rflags);
}
