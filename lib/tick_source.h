/* SPDX-License-Identifier: MIT */
/*
 * One tick source: a timer that can interrupt CPU 0 at a chosen rate, as a
 * table entry the tick engine (engine/ticks.c) drives without knowing
 * which timer it is.  Each lives in one driver file and exports one
 * `struct tick_source`; engine/tick_sources.c lists them, and the platform
 * adds its own (platform_tick_sources()).  A source programs its timer to
 * raise TICK_VECTOR on CPU 0 and tells ring 0 how to end each interrupt
 * (base/tick_irq.h).
 */
#ifndef CLOCKBENCH_LIB_TICK_SOURCE_H
#define CLOCKBENCH_LIB_TICK_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"	  /* struct probe_env */
#include "lib/tickmath.h" /* what sources compute their divisors with */

#define TICK_TEXT_LEN 200

enum tick_start_result {
	TICK_STARTED,
	TICK_UNREACHABLE, /* the timer cannot be set to that rate */
	TICK_FAILED,	  /* it should have started, and did not */
};

/* The timer as start() programmed it. */
struct tick_start {
	double programmed_hz; /* the rate its divisor gives */
	/*
	 * Periodic timers (oneshot false): the expiries fall at t0_tsc + k
	 * period_cycles, k = 1, 2, ...; t0_tsc is read before the write
	 * that started the timer, so the grid can only be early (lateness
	 * overstated by at most arm_cycles).  grid_ppm bounds how far the
	 * period may be off (its rate was measured against the TSC, or is
	 * nominal and the TSC's uncertainty applies).  A one-shot source
	 * whose deadlines are mapped to the TSC sets the same two for that
	 * mapping (0 when its deadlines are TSC values).
	 * One-shot timers (oneshot true): ring 0 writes each next deadline
	 * (base/tick_irq.h), and deadline_tsc() turns the deadline each
	 * interrupt was for into TSC cycles: lateness is exact.
	 */
	bool oneshot;
	/* The timer names no expiry the guest can know (Xen re-anchors its
	 * periodic timer at each event it sends): lateness is not measured. */
	bool no_expiries;
	uint64_t t0_tsc;
	double period_cycles;
	double grid_ppm;
	uint64_t arm_cycles;
	char notes[TICK_TEXT_LEN]; /* how it was programmed, in words */
};

struct tick_source {
	const char *name;	 /* stable: lapic, tsc_deadline, hpet, pit */
	const char *description; /* one line for people */

	/*
	 * Find the timer, and the way its interrupt reaches CPU 0.  Returns
	 * 0 when present; otherwise -1 with the reason, in words, in
	 * absent_reason.  Runs once, on CPU 0, with interrupts off.
	 */
	int (*probe)(struct tick_source *s, const struct probe_env *env);
	/*
	 * Start interrupting CPU 0 on TICK_VECTOR about @rate_hz times a
	 * second, having configured ring 0's end of interrupt and re-arm
	 * (tick_irq.config).  Interrupts may be on.  TICK_STARTED with *out
	 * filled, or another result with the reason in @why.
	 */
	enum tick_start_result (*start)(struct tick_source *s,
					unsigned int rate_hz,
					struct tick_start *out, char *why,
					size_t whylen);
	/* Stop it: no interrupt from it after this returns (one already
	 * pending may still arrive). */
	void (*stop)(struct tick_source *s);
	/* One-shot sources: a deadline ring 0 recorded, as a TSC value. */
	uint64_t (*deadline_tsc)(const struct tick_source *s,
				 uint64_t deadline);

	/* What says the timer is there, in words, for the absent reason of
	 * one that never interrupts (e.g. the CPUID bit); NULL: its probe. */
	const char *offered_by;

	bool present;
	char absent_reason[TICK_TEXT_LEN];
	char notes[TICK_TEXT_LEN]; /* what probe found, in words */
};

#endif
