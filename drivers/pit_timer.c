// SPDX-License-Identifier: MIT
/*
 * PIT channel 0 as a tick source: a rate generator (mode 2) whose IRQ 0
 * reaches CPU 0 through the IOAPIC input the MADT's override names.
 * Stopping it puts channel 0 back as the pit clock reads it: mode 2 over
 * 65536 counts, its interrupt masked.
 */
#include <stdio.h>

#include "base/stopwatch.h"
#include "boot/boot.h"
#include "drivers/intc.h"
#include "drivers/pit.h"
#include "drivers/pit_timer.h"
#include "drivers/tsc.h"
#include "base/cpu.h"
#include "base/tick_irq.h"

#define PIT_IRQ		0
#define PIT_MIN_DIVISOR 2     /* mode 2 does not count 1 */
#define PIT_MAX_DIVISOR 65536 /* a reload of 0 */

static struct acpi_isa_route route;

static void channel0_load(uint32_t divisor)
{
	outb(PIT_COMMAND, PIT_CMD_CH0_LOHI_MODE2);
	outb(PIT_CHANNEL0, (uint8_t)divisor);
	outb(PIT_CHANNEL0, (uint8_t)(divisor >> 8));
}

static int pit_tick_probe(struct tick_source *s, const struct probe_env *env)
{
	char why[160];

	if (!pit_clock.present)
		return probe_absent(s, "no PIT: %s", pit_clock.absent_reason);
	if (intc_init(env->acpi, why, sizeof(why)) ||
	    !intc_ioapic_ready(why, sizeof(why)))
		return probe_absent(s, "its interrupt has no way to CPU 0: %s",
				    why);
	intc_isa_route(PIT_IRQ, &route);
	if (intc_gsi_check(route.gsi, why, sizeof(why)))
		return probe_absent(s, "its interrupt has no way to CPU 0: %s",
				    why);
	snprintf(s->notes, sizeof(s->notes),
		 "channel 0, rate generator, IRQ 0 at GSI %u (%s; %s, %s)",
		 route.gsi,
		 route.overridden ? "MADT override" : "no override: ISA's",
		 route.level ? "level" : "edge",
		 route.active_low ? "active low" : "active high");
	return 0;
}

static enum tick_start_result pit_tick_start(struct tick_source *s,
					     unsigned int rate_hz,
					     struct tick_start *out, char *why,
					     size_t whylen)
{
	struct tick_divisor d;
	uint64_t t0, t1;

	(void)s;
	tick_divisor_for_rate(PIT_HZ, rate_hz, PIT_MIN_DIVISOR, PIT_MAX_DIVISOR,
			      &d);
	if (d.reach == TICK_REACH_TOO_SLOW) {
		snprintf(why, whylen,
			 "its 16-bit divisor of the 1.193182 MHz clock allows "
			 "no fewer than %.1f interrupts a second",
			 d.limit_hz);
		return TICK_UNREACHABLE;
	}
	if (d.reach == TICK_REACH_TOO_FAST) {
		snprintf(why, whylen,
			 "its least divisor (2) of the 1.193182 MHz clock "
			 "allows at most %.0f interrupts a second",
			 d.limit_hz);
		return TICK_UNREACHABLE;
	}
	if (d.reach == TICK_REACH_INEXACT) {
		snprintf(why, whylen,
			 "the nearest divisor of its 1.193182 MHz clock, %llu, "
			 "gives %.1f Hz (%+.2f %%)",
			 (unsigned long long)d.divisor, d.achieved_hz,
			 d.error_ppm / 1e4);
		return TICK_UNREACHABLE;
	}
	tick_irq.config = (struct tick_irq_config){ .rearm = TICK_REARM_NONE };
	intc_eoi_config(&tick_irq.config);
	/* The new divisor first (the count starts with its high byte), the
	 * route after it: an edge of the old 18.2 Hz count must not arrive
	 * as this one's. */
	outb(PIT_COMMAND, PIT_CMD_CH0_LOHI_MODE2);
	outb(PIT_CHANNEL0, (uint8_t)d.divisor);
	t0 = tsc_read_ordered();
	outb(PIT_CHANNEL0, (uint8_t)(d.divisor >> 8));
	t1 = tsc_read_ordered();
	if (intc_route_gsi(route.gsi, route.level, route.active_low,
			   TICK_VECTOR, why, whylen)) {
		channel0_load(PIT_MAX_DIVISOR);
		return TICK_FAILED;
	}
	out->oneshot = false;
	out->programmed_hz = d.achieved_hz;
	out->t0_tsc = t0;
	out->period_cycles =
		(double)d.divisor * (double)stopwatch_hz() / PIT_HZ;
	out->grid_ppm = tsc_freq_uncertainty_ppm();
	out->arm_cycles = t1 - t0;
	snprintf(out->notes, sizeof(out->notes), "mode 2, divisor %llu",
		 (unsigned long long)d.divisor);
	return TICK_STARTED;
}

static void pit_tick_stop(struct tick_source *s)
{
	(void)s;
	intc_mask_gsi(route.gsi);
	channel0_load(PIT_MAX_DIVISOR);
}

struct tick_source pit_tick_source = {
	.name = "pit",
	.description = "PIT channel 0, rate generator, through the IOAPIC",
	.probe = pit_tick_probe,
	.start = pit_tick_start,
	.stop = pit_tick_stop,
};
