// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/*
 * Xen PV event delivery (build/pv64/ only): the upcall Xen makes when an
 * event channel fires, which for a PV guest stands where an interrupt
 * would.  platform/pv64/xen_pv_entry.S enters xen_pv_event() with the TSC
 * read first, on whichever vCPU the event is for: vCPU 0's timer ticks,
 * and an idle AP's wake-up and bound (platform/pv64/idle.c).  Built with
 * general registers only, like every handler that returns to the code it
 * interrupted; calls nothing in newlib.
 */
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/vcpu.h>

#include "base/cpu.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/pvclock.h"
#include "hypervisor/xen.h"
#include "platform/pv64/xen_pv_events.h"
#include "base/smp.h"
#include "base/tick_irq.h"
#include "lib/tickmath.h"
#include "base/traps.h"

#define BITS_PER_WORD	  64
#define RECORD_READ_TRIES 100

struct xen_timer_state xen_timer;

/*
 * Xen's system time now, from vCPU 0's record read with the TSC inside its
 * version protocol, so that the TSC never precedes the record's stamp.
 * Xen rewrites the record for the physical CPU the vCPU runs on, and that
 * CPU's time is what a timer armed there expires by (the CPUs' times may
 * disagree by milliseconds, as the cross-CPU section shows).  The record
 * taken at start, carried forward, when this one never settles.
 */
static void xen_now(struct pvclock_sample *s)
{
	const struct pvclock_sample *start = &xen_timer.start;

	if (!pvclock_read(&xen_shared_info->vcpu_info[0].time, tsc_read_ordered,
			  RECORD_READ_TRIES, s))
		return;
	*s = *start;
	s->tsc = tsc_read_ordered();
	s->ns = start->ns + pvclock_scale_delta(s->tsc - start->tsc,
						start->mul_frac, start->shift);
}

/*
 * A one-shot timer's next expiry, past ones skipped, armed; and the TSC it
 * falls at by the same reading of Xen's clock that chose it.  The event's
 * lateness is measured against that TSC, so nothing Xen does to the
 * record before the event (a calibration, a move to another physical CPU)
 * enters the arithmetic.
 */
static void rearm(void)
{
	struct xen_timer_state *t = &xen_timer;
	struct vcpu_set_singleshot_timer set;
	struct pvclock_sample now;
	uint64_t skipped;

	xen_now(&now);
	t->deadline_ns =
		tick_next_deadline(t->deadline_ns, t->period_ns, now.ns,
				   t->margin_ns, ~0ull, &skipped);
	t->deadline_tsc = pvclock_tsc_for_ns(&now, t->deadline_ns);
	tick_irq.skipped += skipped;
	set.timeout_abs_ns = t->deadline_ns;
	set.flags = 0;
	xen_hypercall_direct(__HYPERVISOR_vcpu_op, VCPUOP_set_singleshot_timer,
			     0, (uintptr_t)&set, 0, 0);
}

static void timer_fired(uint64_t entry_tsc, struct trap_frame *f)
{
	uint64_t deadline_tsc = xen_timer.oneshot ? xen_timer.deadline_tsc : 0;

	if (xen_timer.oneshot)
		rearm();
	tick_irq_record(entry_tsc, deadline_tsc, &f->rflags);
}

/*
 * Whether @port is one this vCPU takes: CPU 0's the timer being measured,
 * an AP's its wake-up and its own VIRQ_TIMER.  The pending bits are the
 * domain's, shared by all vCPUs: one vCPU clearing another's would lose
 * that one's event (an AP's wake-up, say).
 */
static bool port_is_mine(unsigned int cpu, uint32_t port)
{
	if (cpu == 0)
		return port == xen_timer.port;
	return port == xen_idle_ports[cpu].ipi ||
	       port == xen_idle_ports[cpu].timer;
}

void xen_pv_event(struct trap_frame *f, uint64_t entry_tsc);
void xen_pv_event(struct trap_frame *f, uint64_t entry_tsc)
{
	volatile struct shared_info *s = xen_shared_info;
	unsigned int cpu = cpu_index();
	volatile struct vcpu_info *v = &s->vcpu_info[cpu];
	unsigned long sel;

	v->evtchn_upcall_pending = 0;
	sel = __atomic_exchange_n(&v->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
	while (sel) {
		unsigned int w = (unsigned int)__builtin_ctzl(sel);
		unsigned long bits = s->evtchn_pending[w] & ~s->evtchn_mask[w];

		sel &= sel - 1;
		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzl(bits);
			uint32_t port = w * BITS_PER_WORD + bit;

			bits &= bits - 1;
			if (!port_is_mine(cpu, port))
				continue;
			__atomic_fetch_and(&s->evtchn_pending[w], ~(1ul << bit),
					   __ATOMIC_SEQ_CST);
			if (cpu == 0)
				timer_fired(entry_tsc, f);
		}
	}
}
