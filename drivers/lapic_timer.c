// SPDX-License-Identifier: MIT
/*
 * Tick sources of the local APIC timer: periodic mode ("lapic") and
 * TSC-deadline mode ("tsc_deadline"), both on CPU 0's own APIC.
 */
#include <math.h>
#include <stdio.h>

#include "base/stopwatch.h"
#include "boot/boot.h"
#include "drivers/intc.h"
#include "drivers/lapic.h"
#include "drivers/lapic_timer.h"
#include "drivers/tsc.h"
#include "lib/clockrate.h"
#include "base/priv.h"
#include "base/tick_irq.h"
#include "base/timing.h"

/* Long enough that brackets of a few register reads are small next to
 * it; the rate measurement repeats itself when they are not. */
#define CALIBRATION_NS 20000000ull

#define LAPIC_TIMER_MAX_COUNT 0xffffffffull

static double timer_hz, timer_ppm, timer_interval_s;

/* The current count, turned into a 32-bit counter that counts up (the
 * timer runs periodic from 0xffffffff, so it wraps like one). */
static uint64_t lapic_timer_up(void)
{
	return LAPIC_TIMER_MAX_COUNT - lapic_read(LAPIC_TIMER_CURRENT);
}

static struct clock lapic_timer_counter = {
	.name = "lapic_timer",
	.read = lapic_timer_up,
	.width_bits = 32,
};

static void timer_off(void)
{
	lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_TIMER_INITIAL, 0);
}

/* The timer's rate at divide-by-1, against the TSC: not architectural, so
 * measured (masked, periodic over the full count). */
static int calibrate(const struct clock *stopwatch, char *why, size_t whylen)
{
	struct clock_rate rate;
	char err[CLOCK_TEXT_LEN];
	int ret;

	if (!stopwatch) {
		snprintf(why, whylen,
			 "its timer could not be measured: no TSC frequency");
		return -1;
	}
	lapic_write(LAPIC_LVT_TIMER,
		    LAPIC_LVT_MASKED | LAPIC_LVT_TIMER_PERIODIC | TICK_VECTOR);
	lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_TIMER_DIVIDE_BY_1);
	lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)LAPIC_TIMER_MAX_COUNT);
	ret = clock_measure_rate_best(&lapic_timer_counter, stopwatch,
				      CALIBRATION_NS, &rate, err, sizeof(err));
	timer_off();
	if (ret) {
		snprintf(why, whylen, "its timer could not be measured: %s",
			 err);
		return -1;
	}
	timer_hz = rate.hz;
	timer_ppm = rate.uncertainty_ppm;
	timer_interval_s = rate.interval_s;
	return 0;
}

static int lapic_probe(struct tick_source *s, const struct probe_env *env)
{
	enum timing_phase was;
	char why[120];
	int failed;

	if (intc_init(env->acpi, why, sizeof(why)))
		return probe_absent(s, "no local APIC takes interrupts: %s",
				    why);
	was = timing_enter(TIMING_CALIBRATE);
	failed = calibrate(env->stopwatch, s->absent_reason,
			   sizeof(s->absent_reason));
	timing_enter(was);
	if (failed)
		return -1;
	snprintf(s->notes, sizeof(s->notes),
		 "timer counts at %.6f MHz at divide-by-1 (measured against "
		 "the TSC over %.0f ms, +/- %.0f ppm)",
		 timer_hz / 1e6, timer_interval_s * 1e3, timer_ppm);
	return 0;
}

static void unreachable_reason(const struct tick_divisor *d, const char *what,
			       char *why, size_t whylen)
{
	if (d->reach == TICK_REACH_TOO_FAST)
		snprintf(why, whylen,
			 "%s can interrupt at most %.0f times a "
			 "second",
			 what, d->limit_hz);
	else if (d->reach == TICK_REACH_TOO_SLOW)
		snprintf(why, whylen,
			 "%s can interrupt no less than %.3f times a second",
			 what, d->limit_hz);
	else
		snprintf(why, whylen,
			 "%s comes no nearer than %.1f Hz (%+.2f %%)", what,
			 d->achieved_hz, d->error_ppm / 1e4);
}

static enum tick_start_result lapic_start(struct tick_source *s,
					  unsigned int rate_hz,
					  struct tick_start *out, char *why,
					  size_t whylen)
{
	struct tick_divisor d;
	uint64_t t0, t1;
	double tsc_hz = (double)stopwatch_hz();

	(void)s;
	tick_divisor_for_rate((uint64_t)llround(timer_hz), rate_hz, 1,
			      LAPIC_TIMER_MAX_COUNT, &d);
	if (d.reach != TICK_REACH_OK) {
		unreachable_reason(&d, "the APIC timer at divide-by-1", why,
				   whylen);
		return TICK_UNREACHABLE;
	}
	tick_irq.config = (struct tick_irq_config){ .rearm = TICK_REARM_NONE };
	intc_eoi_config(&tick_irq.config);
	lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_TIMER_DIVIDE_BY_1);
	lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_TIMER_PERIODIC | TICK_VECTOR);
	t0 = tsc_read_ordered();
	lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)d.divisor);
	t1 = tsc_read_ordered();
	out->oneshot = false;
	out->programmed_hz = timer_hz / (double)d.divisor;
	out->t0_tsc = t0;
	out->period_cycles = (double)d.divisor / timer_hz * tsc_hz;
	out->grid_ppm = timer_ppm;
	out->arm_cycles = t1 - t0;
	snprintf(out->notes, sizeof(out->notes), "periodic, initial count %llu",
		 (unsigned long long)d.divisor);
	return TICK_STARTED;
}

static void lapic_stop(struct tick_source *s)
{
	(void)s;
	timer_off();
}

struct tick_source lapic_tick_source = {
	.name = "lapic",
	.description = "local APIC timer, periodic mode",
	.probe = lapic_probe,
	.start = lapic_start,
	.stop = lapic_stop,
};

/* --- TSC-deadline ------------------------------------------------------ */

static int deadline_probe(struct tick_source *s, const struct probe_env *env)
{
	char why[120];
	uint32_t lvt;

	if (!tsc_features()->deadline)
		return probe_absent(
			s,
			"not offered: CPUID.1:ECX[24] (TSC-deadline timer) is "
			"clear");
	if (intc_init(env->acpi, why, sizeof(why)))
		return probe_absent(s, "no local APIC takes interrupts: %s",
				    why);
	/* An APIC without the mode keeps the timer mode field from taking
	 * it (KVM does so when the guest's CPUID lacks the bit). */
	lapic_write(LAPIC_LVT_TIMER,
		    LAPIC_LVT_MASKED | LAPIC_LVT_TIMER_DEADLINE | TICK_VECTOR);
	lvt = lapic_read(LAPIC_LVT_TIMER);
	timer_off();
	if ((lvt & LAPIC_LVT_TIMER_MODE) != LAPIC_LVT_TIMER_DEADLINE)
		return probe_absent(
			s,
			"the local APIC does not take TSC-deadline mode: its "
			"LVT timer register read back %#x, although "
			"CPUID.1:ECX[24] is set",
			lvt);
	snprintf(s->notes, sizeof(s->notes),
		 "each interrupt's handler writes the next deadline to "
		 "IA32_TSC_DEADLINE");
	return 0;
}

static enum tick_start_result deadline_start(struct tick_source *s,
					     unsigned int rate_hz,
					     struct tick_start *out, char *why,
					     size_t whylen)
{
	struct tick_divisor d;
	uint64_t first, t0;

	(void)s;
	tick_divisor_for_rate(stopwatch_hz(), rate_hz, 1, ~0ull, &d);
	if (d.reach != TICK_REACH_OK) {
		unreachable_reason(&d, "the TSC", why, whylen);
		return TICK_UNREACHABLE;
	}
	tick_irq.config = (struct tick_irq_config){
		.rearm = TICK_REARM_MSR,
		.rearm_target = MSR_IA32_TSC_DEADLINE,
		.now_mmio = 0,
		.period = d.divisor,
		.margin = 0,
		.mask = ~0ull,
	};
	intc_eoi_config(&tick_irq.config);
	lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_TIMER_DEADLINE | TICK_VECTOR);
	/* The SDM asks for a serialising step between the LVT write (MMIO)
	 * and the first IA32_TSC_DEADLINE write. */
	asm volatile("mfence" ::: "memory");
	t0 = tsc_read_ordered();
	first = t0 + d.divisor;
	tick_irq.deadline = first;
	if (!wrmsr_safe(MSR_IA32_TSC_DEADLINE, first)) {
		lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED);
		snprintf(why, whylen, "writing IA32_TSC_DEADLINE faulted");
		return TICK_FAILED;
	}
	out->oneshot = true;
	out->programmed_hz = (double)stopwatch_hz() / (double)d.divisor;
	out->t0_tsc = t0;
	out->period_cycles = (double)d.divisor;
	out->grid_ppm = 0;
	out->arm_cycles = 0; /* deadlines are TSC values */
	snprintf(out->notes, sizeof(out->notes),
		 "one-shot, re-armed every %llu TSC cycles",
		 (unsigned long long)d.divisor);
	return TICK_STARTED;
}

static void deadline_stop(struct tick_source *s)
{
	(void)s;
	tick_irq.config.rearm = TICK_REARM_NONE;
	lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED);
	wrmsr_safe(MSR_IA32_TSC_DEADLINE, 0);
}

static uint64_t deadline_tsc(const struct tick_source *s, uint64_t deadline)
{
	(void)s;
	return deadline;
}

struct tick_source tsc_deadline_tick_source = {
	.name = "tsc_deadline",
	.description = "local APIC timer, TSC-deadline mode",
	.probe = deadline_probe,
	.start = deadline_start,
	.stop = deadline_stop,
	.deadline_tsc = deadline_tsc,
	.offered_by = "CPUID.1:ECX[24] says the CPU has it",
};
