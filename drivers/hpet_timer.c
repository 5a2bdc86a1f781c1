// SPDX-License-Identifier: MIT
/*
 * HPET timer 0 as a tick source: periodic when it can, else one-shot with
 * each interrupt's handler writing the next comparator value.  Its
 * interrupt goes through the IOAPIC: by legacy replacement (ISA IRQ 0,
 * where the HPET also silences the PIT) when the HPET offers it, else an
 * IOAPIC input from the timer's route capabilities, preferring one above
 * the ISA range.
 */
#include <stdio.h>

#include "base/stopwatch.h"
#include "boot/boot.h"
#include "drivers/acpi.h"
#include "drivers/hpet.h"
#include "drivers/hpet_timer.h"
#include "drivers/intc.h"
#include "drivers/tsc.h"
#include "base/tick_irq.h"

/* Timer n configuration and capabilities (HPET specification 2.3.8). */
#define TN_INT_ENB	   (1u << 2)
#define TN_TYPE_PERIODIC   (1u << 3)
#define TN_PER_INT_CAP	   (1u << 4)
#define TN_VAL_SET	   (1u << 6)
#define TN_32MODE	   (1u << 8)
#define TN_INT_ROUTE_SHIFT 9

#define ISA_IRQS       16
#define LEGACY_T0_IRQ  0	     /* legacy replacement: timer 0 on IRQ 0 */
#define COMPARATOR_MAX 0x7fffffffull /* 32-bit mode: half the range */
#define REARM_MARGIN_NS \
	10000ull /* one-shot: a closer deadline is
					* skipped */

static volatile uint32_t *regs;
static uint64_t hpet_hz, min_tick;
static bool periodic, legacy;
static struct acpi_isa_route route;
/* One-shot: the counter value and the TSC (read just before it) that
 * map the comparator's deadlines to TSC cycles. */
static uint64_t map_counter, map_tsc;

static uint32_t reg_read(unsigned int offset)
{
	return regs[offset / 4];
}

static void reg_write(unsigned int offset, uint32_t val)
{
	regs[offset / 4] = val;
}

static void timer0_off(void)
{
	reg_write(HPET_T0_CONFIG, 0);
	reg_write(HPET_CONFIG, reg_read(HPET_CONFIG) & ~HPET_CONFIG_LEGACY);
}

/* The IOAPIC input for timer 0: legacy replacement, else the first
 * allowed input above the ISA range, else the first allowed. */
static int choose_route(uint64_t caps, uint32_t route_cap, char *why,
			size_t whylen)
{
	unsigned int gsi, first = 32;

	legacy = caps & HPET_CAP_LEGACY_ROUTE;
	if (legacy) {
		intc_isa_route(LEGACY_T0_IRQ, &route);
		return 0;
	}
	for (gsi = 0; gsi < 32; gsi++) {
		if (!(route_cap & (1u << gsi)))
			continue;
		if (first == 32)
			first = gsi;
		if (gsi >= ISA_IRQS)
			break;
	}
	if (first == 32) {
		snprintf(why, whylen,
			 "timer 0 offers no IOAPIC input and no legacy "
			 "replacement (route capabilities 0)");
		return -1;
	}
	route = (struct acpi_isa_route){ .gsi = gsi < 32 ? gsi : first };
	return 0;
}

static int hpet_tick_probe(struct tick_source *s, const struct probe_env *env)
{
	const struct acpi_header *table;
	struct acpi_hpet_info info;
	char why[160];
	uint64_t caps;
	uint32_t t0_config, t0_route_cap;
	size_t len;

	regs = hpet_registers();
	if (!regs)
		return probe_absent(s, "no HPET: %s", hpet_clock.absent_reason);
	if (intc_init(env->acpi, why, sizeof(why)) ||
	    !intc_ioapic_ready(why, sizeof(why)))
		return probe_absent(s, "its interrupt has no way to CPU 0: %s",
				    why);
	table = acpi_find(env->acpi, "HPET", 0, &len);
	min_tick = 1;
	if (table && !acpi_hpet_parse(table, len, &info, why, sizeof(why)) &&
	    info.min_tick > 1)
		min_tick = info.min_tick;
	caps = ((uint64_t)reg_read(HPET_CAPABILITIES + 4) << 32) |
	       reg_read(HPET_CAPABILITIES);
	hpet_hz = hpet_clock.freq_hz;
	t0_config = reg_read(HPET_T0_CONFIG);
	t0_route_cap = reg_read(HPET_T0_CONFIG + 4);
	periodic = t0_config & TN_PER_INT_CAP;
	if (choose_route(caps, t0_route_cap, s->absent_reason,
			 sizeof(s->absent_reason)))
		return -1;
	if (intc_gsi_check(route.gsi, why, sizeof(why)))
		return probe_absent(s, "its interrupt has no way to CPU 0: %s",
				    why);
	timer0_off();
	snprintf(s->notes, sizeof(s->notes),
		 "timer 0, %s, %s GSI %u (%s, %s), minimum tick %llu counts",
		 periodic ? "periodic" : "one-shot re-armed by the handler",
		 legacy ? "legacy replacement: ISA IRQ 0 at" : "routed to",
		 route.gsi, route.level ? "level" : "edge",
		 route.active_low ? "active low" : "active high",
		 (unsigned long long)min_tick);
	return 0;
}

static uint32_t counter_low(void)
{
	return reg_read(HPET_COUNTER);
}

static enum tick_start_result hpet_tick_start(struct tick_source *s,
					      unsigned int rate_hz,
					      struct tick_start *out, char *why,
					      size_t whylen)
{
	struct tick_divisor d;
	uint64_t first, t_before, t_after, now;
	uint32_t config, general;
	double tsc_hz = (double)stopwatch_hz();

	(void)s;
	tick_divisor_for_rate(hpet_hz, rate_hz, min_tick, COMPARATOR_MAX, &d);
	if (d.reach == TICK_REACH_TOO_FAST) {
		snprintf(why, whylen,
			 "its minimum tick of %llu counts allows at most %.0f "
			 "interrupts a second",
			 (unsigned long long)min_tick, d.limit_hz);
		return TICK_UNREACHABLE;
	}
	if (d.reach != TICK_REACH_OK) {
		snprintf(why, whylen,
			 "its 32-bit comparator comes no nearer than %.3f Hz",
			 d.achieved_hz);
		return TICK_UNREACHABLE;
	}
	tick_irq.config = (struct tick_irq_config){ .rearm = TICK_REARM_NONE };
	intc_eoi_config(&tick_irq.config);
	/*
	 * As Linux does, with the main counter stopped: the timer is set up
	 * without racing it (a first expiry that passes before the period is
	 * written, an old comparator that fires on enable), and the grid
	 * starts when the counter does.  Legacy replacement first, which
	 * silences the PIT on the same input; then the comparator, the
	 * timer on, the counter again, and the route.
	 */
	general = reg_read(HPET_CONFIG) & ~HPET_CONFIG_ENABLE;
	reg_write(HPET_CONFIG, general);
	timer0_off();
	if (legacy)
		general |= HPET_CONFIG_LEGACY;
	reg_write(HPET_CONFIG, general);
	config = TN_32MODE | (legacy ? 0 : route.gsi << TN_INT_ROUTE_SHIFT);
	now = counter_low();
	first = (now + d.divisor) & 0xffffffffull;
	if (periodic) {
		config |= TN_TYPE_PERIODIC;
		/* The first write sets the comparator, the second (value-set
		 * cleared by the first) the period. */
		reg_write(HPET_T0_CONFIG, config | TN_VAL_SET);
		reg_write(HPET_T0_CMP, (uint32_t)first);
		reg_write(HPET_T0_CMP, (uint32_t)d.divisor);
	} else {
		tick_irq.config.rearm = TICK_REARM_MMIO32;
		tick_irq.config.rearm_target =
			(uint64_t)(uintptr_t)&regs[HPET_T0_CMP / 4];
		tick_irq.config.now_mmio =
			(uint64_t)(uintptr_t)&regs[HPET_COUNTER / 4];
		tick_irq.config.period = d.divisor;
		tick_irq.config.margin =
			hpet_hz * REARM_MARGIN_NS / 1000000000ull;
		tick_irq.config.mask = 0xffffffffull;
		tick_irq.deadline = first;
		reg_write(HPET_T0_CONFIG, config);
		reg_write(HPET_T0_CMP, (uint32_t)first);
	}
	reg_write(HPET_T0_CONFIG, config | TN_INT_ENB);
	/* The counter restarts from `now` somewhere within this write:
	 * taking the TSC before it puts the grid early, never late. */
	t_before = tsc_read_ordered();
	reg_write(HPET_CONFIG, general | HPET_CONFIG_ENABLE);
	t_after = tsc_read_ordered();
	/*
	 * The route last, as the PIT source does it: Xen's emulated HPET
	 * silences the emulated PIT only when timer 0 starts (the write
	 * above), not when legacy replacement is set, and a tick of the PIT's
	 * count left pending on the input was delivered at the unmask as this
	 * timer's first, most of a period early (Xen HVM guests, at the first
	 * rate).  An expiry that passes before the unmask comes late or not
	 * at all, never early.
	 */
	if (intc_route_gsi(route.gsi, route.level, route.active_low,
			   TICK_VECTOR, why, whylen)) {
		timer0_off();
		return TICK_FAILED;
	}
	map_counter = now;
	map_tsc = t_before;
	out->oneshot = !periodic;
	out->programmed_hz = (double)hpet_hz / (double)d.divisor;
	out->period_cycles = (double)d.divisor * tsc_hz / (double)hpet_hz;
	out->t0_tsc = t_before;
	out->grid_ppm = tsc_freq_uncertainty_ppm();
	out->arm_cycles = t_after - t_before;
	snprintf(out->notes, sizeof(out->notes), "%s, %llu counts a period",
		 periodic ? "periodic" : "one-shot",
		 (unsigned long long)d.divisor);
	return TICK_STARTED;
}

static void hpet_tick_stop(struct tick_source *s)
{
	(void)s;
	tick_irq.config.rearm = TICK_REARM_NONE;
	timer0_off();
	intc_mask_gsi(route.gsi);
}

static uint64_t hpet_deadline_tsc(const struct tick_source *s,
				  uint64_t deadline)
{
	(void)s;
	return map_tsc +
	       (uint64_t)((double)((deadline - map_counter) & 0xffffffffull) *
			  (double)stopwatch_hz() / (double)hpet_hz);
}

struct tick_source hpet_tick_source = {
	.name = "hpet",
	.description = "HPET timer 0 through the IOAPIC",
	.probe = hpet_tick_probe,
	.start = hpet_tick_start,
	.stop = hpet_tick_stop,
	.deadline_tsc = hpet_deadline_tsc,
};
