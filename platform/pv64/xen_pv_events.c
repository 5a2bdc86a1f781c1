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

static uint64_t rdtsc_now(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Xen's system time at TSC @tsc, from vCPU 0's record as Xen keeps it now:
 * Xen rewrites it for the physical CPU the vCPU runs on, and that CPU's
 * time is what Xen's timers expire by (the CPUs' times may disagree by
 * tens of microseconds or more, as the cross-CPU section shows).  Falls
 * back to the record taken at start when this one never settles.
 */
static uint64_t xen_ns_at(uint64_t tsc)
{
	const struct xen_timer_state *t = &xen_timer;
	struct pvclock_sample s;

	if (!pvclock_read_at(&xen_shared_info->vcpu_info[0].time, tsc,
			     RECORD_READ_TRIES, &s))
		return s.ns;
	return t->system_time_ns + pvclock_scale_delta(tsc - t->tsc_timestamp,
						       t->mul_frac, t->shift);
}

/* A one-shot timer's next expiry, past ones skipped, armed. */
static void rearm(void)
{
	struct xen_timer_state *t = &xen_timer;
	struct vcpu_set_singleshot_timer set;
	uint64_t skipped;

	t->deadline_ns = tick_next_deadline(t->deadline_ns, t->period_ns,
					    xen_ns_at(rdtsc_now()),
					    t->margin_ns, ~0ull, &skipped);
	tick_irq.skipped += skipped;
	set.timeout_abs_ns = t->deadline_ns;
	set.flags = 0;
	xen_hypercall_direct(__HYPERVISOR_vcpu_op, VCPUOP_set_singleshot_timer,
			     0, (uintptr_t)&set, 0, 0);
}

/*
 * The TSC value the deadline @deadline_ns fell at, by Xen's clock as it
 * stood at @entry_tsc: entry_tsc less the lateness, in cycles.
 */
static uint64_t deadline_as_tsc(uint64_t deadline_ns, uint64_t entry_tsc)
{
	int64_t late_ns = (int64_t)(xen_ns_at(entry_tsc) - deadline_ns);

	return entry_tsc -
	       (uint64_t)(int64_t)((__int128)late_ns *
				   (int64_t)xen_timer.tsc_hz / NS_PER_S);
}

static void timer_fired(uint64_t entry_tsc, struct trap_frame *f)
{
	uint64_t deadline =
		xen_timer.oneshot
			? deadline_as_tsc(xen_timer.deadline_ns, entry_tsc)
			: 0;

	if (xen_timer.oneshot)
		rearm();
	tick_irq_record(entry_tsc, deadline, &f->rflags);
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
