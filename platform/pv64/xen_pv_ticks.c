// SPDX-License-Identifier: MIT
/*
 * Tick sources of a Xen PV guest: Xen's periodic vCPU timer
 * (VCPUOP_set_periodic_timer, "xen_periodic") and its one-shot timer
 * re-armed at each event (VCPUOP_set_singleshot_timer, "xen_oneshot"),
 * both delivered as VIRQ_TIMER on an event channel of vCPU 0.  Natively
 * (and in an HVM guest of Xen, which has a local APIC) they are absent.
 */
#include <stdint.h>
#include <stdio.h>

#include <xen/callback.h>
#include <xen/event_channel.h>
#include <xen/vcpu.h>

#include <xen/errno.h>

#include "base/stopwatch.h"
#include "drivers/tsc.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/pvclock.h"
#include "hypervisor/xen.h"
#include "platform/pv64/xen_pv_events.h"

#define PVCLOCK_TRIES	  100
#define ONESHOT_MARGIN_NS 20000 /* nearer than this: the next one */

static bool bound;
static char bind_problem[TICK_TEXT_LEN];

static int register_callback(uint16_t type, const void *address)
{
	struct callback_register cb = {
		.type = type,
		.flags = CALLBACKF_mask_events,
		.address = (uintptr_t)address,
	};

	return (int)HYPERCALL2(__HYPERVISOR_callback_op, CALLBACKOP_register,
			       &cb);
}

/* Once for both sources: the upcall, VIRQ_TIMER's channel, Xen's default
 * periodic timer off. */
static int bind_timer(char *why, size_t whylen)
{
	struct evtchn_bind_virq bind = { .virq = VIRQ_TIMER, .vcpu = 0 };
	struct evtchn_unmask unmask;
	int rc;

	if (bound)
		return 0;
	if (bind_problem[0]) {
		snprintf(why, whylen, "%s", bind_problem);
		return -1;
	}
	rc = register_callback(CALLBACKTYPE_event, xen_event_entry);
	if (!rc)
		rc = register_callback(CALLBACKTYPE_failsafe,
				       xen_failsafe_entry);
	if (rc) {
		snprintf(bind_problem, sizeof(bind_problem),
			 "Xen refused the event callback (CALLBACKOP_register: "
			 "%d)",
			 rc);
		goto fail;
	}
	/* Xen gives every PV vCPU a 100 Hz periodic timer of its own. */
	HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_stop_periodic_timer, 0, NULL);
	rc = (int)HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_bind_virq,
			     &bind);
	if (rc) {
		snprintf(bind_problem, sizeof(bind_problem),
			 "Xen refused to bind VIRQ_TIMER (EVTCHNOP_bind_virq: "
			 "%d)",
			 rc);
		goto fail;
	}
	xen_timer.port = bind.port;
	unmask.port = bind.port;
	HYPERCALL2(__HYPERVISOR_event_channel_op, EVTCHNOP_unmask, &unmask);
	bound = true;
	return 0;
fail:
	snprintf(why, whylen, "%s", bind_problem);
	return -1;
}

int xen_pv_timer_resume(char *why, size_t whylen)
{
	struct vcpu_set_singleshot_timer set = { .flags = 0 };
	int rc;

	if (!bound)
		return 0;
	bound = false;
	if (bind_timer(why, whylen))
		return -1;
	if (!xen_timer.oneshot)
		return 0;
	/* The deadline armed before, in Xen's system time, which a restore
	 * on this host carries on: it fires at once when it has passed. */
	set.timeout_abs_ns = xen_timer.deadline_ns;
	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_set_singleshot_timer,
			     0, &set);
	if (rc) {
		snprintf(why, whylen,
			 "Xen refused the one-shot timer again "
			 "(VCPUOP_set_singleshot_timer: %d)",
			 rc);
		return -1;
	}
	return 0;
}

static int xen_timer_probe(struct tick_source *s, const struct probe_env *env)
{
	(void)env;
	if (bind_timer(s->absent_reason, sizeof(s->absent_reason)))
		return -1;
	snprintf(s->notes, sizeof(s->notes),
		 "VIRQ_TIMER on event channel %u of vCPU 0; Xen's default "
		 "100 Hz periodic timer stopped",
		 xen_timer.port);
	return 0;
}

/* CPU 0's record now: the mapping between Xen's ns and the TSC. */
static int snapshot(struct pvclock_sample *ps, char *why, size_t whylen)
{
	if (pvclock_read(&xen_shared_info->vcpu_info[0].time, tsc_read_ordered,
			 PVCLOCK_TRIES, ps)) {
		snprintf(why, whylen,
			 "vCPU 0's time record never settled (version %u)",
			 ps->version);
		return -1;
	}
	xen_timer.start = *ps;
	return 0;
}

static void fill_start(struct tick_start *out, bool oneshot, uint64_t period_ns,
		       uint64_t t0, uint64_t t1)
{
	double tsc_hz = (double)stopwatch_hz();

	out->oneshot = oneshot;
	out->programmed_hz = (double)NS_PER_S / (double)period_ns;
	out->t0_tsc = t0;
	out->period_cycles = (double)period_ns * tsc_hz / NS_PER_S;
	/* Xen's ns against our TSC ns: both come from the same TSC here, at
	 * rates that agree within the calibration's bound. */
	out->grid_ppm = 0;
	out->arm_cycles = t1 - t0;
}

static enum tick_start_result periodic_start(struct tick_source *s,
					     unsigned int rate_hz,
					     struct tick_start *out, char *why,
					     size_t whylen)
{
	struct vcpu_set_periodic_timer set;
	uint64_t t0, t1;
	int rc;

	(void)s;
	set.period_ns = (uint64_t)((double)NS_PER_S / rate_hz + 0.5);
	xen_timer.oneshot = false;
	t0 = tsc_read_ordered();
	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_set_periodic_timer, 0,
			     &set);
	t1 = tsc_read_ordered();
	if (rc) {
		snprintf(why, whylen,
			 "Xen refused a periodic timer of %llu ns "
			 "(VCPUOP_set_periodic_timer: %d)",
			 (unsigned long long)set.period_ns, rc);
		return rc == -XEN_EINVAL ? TICK_UNREACHABLE : TICK_FAILED;
	}
	fill_start(out, false, set.period_ns, t0, t1);
	/* Xen sends each next event a period after it sent the last (the
	 * first at once), an instant the guest never sees. */
	out->no_expiries = true;
	snprintf(out->notes, sizeof(out->notes),
		 "VCPUOP_set_periodic_timer, period %llu ns; Xen times each "
		 "event from the last one it sent",
		 (unsigned long long)set.period_ns);
	return TICK_STARTED;
}

static void periodic_stop(struct tick_source *s)
{
	(void)s;
	HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_stop_periodic_timer, 0, NULL);
}

static enum tick_start_result oneshot_start(struct tick_source *s,
					    unsigned int rate_hz,
					    struct tick_start *out, char *why,
					    size_t whylen)
{
	struct vcpu_set_singleshot_timer set = { .flags = 0 };
	struct pvclock_sample ps;
	uint64_t t0, t1;
	int rc;

	(void)s;
	if (snapshot(&ps, why, whylen))
		return TICK_FAILED;
	xen_timer.oneshot = true;
	xen_timer.period_ns = (uint64_t)((double)NS_PER_S / rate_hz + 0.5);
	xen_timer.margin_ns = ONESHOT_MARGIN_NS;
	t0 = tsc_read_ordered();
	xen_timer.deadline_ns =
		ps.ns +
		pvclock_scale_delta(t0 - ps.tsc, ps.mul_frac, ps.shift) +
		xen_timer.period_ns;
	xen_timer.deadline_tsc = pvclock_tsc_for_ns(&ps, xen_timer.deadline_ns);
	set.timeout_abs_ns = xen_timer.deadline_ns;
	rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_set_singleshot_timer,
			     0, &set);
	t1 = tsc_read_ordered();
	if (rc) {
		snprintf(why, whylen,
			 "Xen refused a one-shot timer (VCPUOP_set_singleshot_"
			 "timer: %d)",
			 rc);
		return TICK_FAILED;
	}
	fill_start(out, true, xen_timer.period_ns, t0, t1);
	snprintf(out->notes, sizeof(out->notes),
		 "VCPUOP_set_singleshot_timer re-armed by each event, every "
		 "%llu ns of Xen's system time (lateness by the record "
		 "that set each deadline)",
		 (unsigned long long)xen_timer.period_ns);
	return TICK_STARTED;
}

static void oneshot_stop(struct tick_source *s)
{
	(void)s;
	xen_timer.oneshot = false;
	HYPERCALL3(__HYPERVISOR_vcpu_op, VCPUOP_stop_singleshot_timer, 0, NULL);
}

/* The upcall records each deadline as a TSC value already, found by the
 * reading of vCPU 0's record that chose the deadline
 * (platform/pv64/xen_pv_events.c). */
static uint64_t oneshot_deadline_tsc(const struct tick_source *s,
				     uint64_t deadline_tsc)
{
	(void)s;
	return deadline_tsc;
}

struct tick_source xen_periodic_tick_source = {
	.name = "xen_periodic",
	.description = "Xen's periodic vCPU timer (VIRQ_TIMER event)",
	.probe = xen_timer_probe,
	.start = periodic_start,
	.stop = periodic_stop,
};

struct tick_source xen_oneshot_tick_source = {
	.name = "xen_oneshot",
	.description = "Xen's one-shot vCPU timer, re-armed per event",
	.probe = xen_timer_probe,
	.start = oneshot_start,
	.stop = oneshot_stop,
	.deadline_tsc = oneshot_deadline_tsc,
};
