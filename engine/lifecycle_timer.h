/* SPDX-License-Identifier: MIT */
/*
 * The timer pending across each event of the VM's life (engine/lifecycle.h):
 * the tick source an OS here would use, armed on CPU 0 at
 * LIFECYCLE_TIMER_HZ through the event with interrupts on, its interrupts
 * recorded by ring 0 (base/tick_irq.h) and judged after by
 * tick_pending_outcome() (lib/tickmath.h).
 */
#ifndef CLOCKBENCH_ENGINE_LIFECYCLE_TIMER_H
#define CLOCKBENCH_ENGINE_LIFECYCLE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/lifecycle.h"

/* 10 ms between expiries: a 1 s event has 100 of them due. */
#define LIFECYCLE_TIMER_HZ 100

/**
 * Choose the run's timer into @out->timer, and say why in
 * @out->timer_why: the first present of Xen's one-shot vCPU timer, the
 * local APIC's in TSC-deadline mode, its periodic timer, the HPET's and
 * the PIT's (each probed with @env only when those before it are absent).
 */
void lifecycle_timer_choose(const struct probe_env *env,
			    struct lifecycle_result *out);

/**
 * Arm @s on CPU 0 and turn interrupts on, ring 0 giving up on them
 * @bound_ms from now.  0, or -1 with the reason in @t->problem.
 */
int lifecycle_timer_arm(struct tick_source *s, unsigned int bound_ms,
			struct lifecycle_timer *t);

/** Interrupts off (@hold) or on again around a platform step that must
 * not take one (a Xen suspend), when @t is armed. */
void lifecycle_timer_hold(const struct lifecycle_timer *t, bool hold);

/**
 * After "done": wait (bounded) for the timer's first interrupt after CPU
 * 0's longest gap (@gap_start_tsc to @gap_end_tsc; the wait began at
 * @ready_tsc), stop it, take what is still pending with interrupts on for
 * a moment, turn them off, and fill in the rest of @t.
 */
void lifecycle_timer_finish(struct tick_source *s, uint64_t ready_tsc,
			    uint64_t gap_start_tsc, uint64_t gap_end_tsc,
			    struct lifecycle_timer *t);

#endif
