/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the tick measurements (engine/ticks.c): which rates a
 * timer can be programmed to, what the interrupts cost the work loop, and
 * how late each interrupt came.  Pure C over numbers; host-tested
 * (tests/unit/test_tickmath.c).  tick_next_deadline() is integer-only and
 * inline so that ring 0 (general registers only) can use it too.
 */
#ifndef CLOCKBENCH_LIB_TICKMATH_H
#define CLOCKBENCH_LIB_TICKMATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How far the rate a timer can be programmed to may lie from the request
 * and still be called that rate. */
#define TICK_RATE_TOLERANCE_PPM 10000.0

/** How far a delivered tick rate may lie from the rate asked, in %. */
#define TICK_DELIVERED_TOLERANCE_PCT 10.0

enum tick_reach {
	TICK_REACH_OK,	     /* within TICK_RATE_TOLERANCE_PPM */
	TICK_REACH_TOO_FAST, /* the divisor would be below the timer's least */
	TICK_REACH_TOO_SLOW, /* the divisor would exceed the timer's most */
	TICK_REACH_INEXACT,  /* the nearest divisor misses by more */
};

struct tick_divisor {
	enum tick_reach reach;
	uint64_t divisor;   /* input clock counts per interrupt */
	double achieved_hz; /* input_hz / divisor */
	double error_ppm;   /* achieved against requested */
	double limit_hz;    /* the fastest or slowest rate, when out of range */
};

/**
 * The divisor of an @input_hz clock nearest to @rate_hz interrupts a
 * second, given that the timer takes divisors from @min_divisor to
 * @max_divisor, and whether that reaches the rate (see enum tick_reach).
 * @rate_hz and @input_hz must not be 0.
 */
void tick_divisor_for_rate(uint64_t input_hz, uint64_t rate_hz,
			   uint64_t min_divisor, uint64_t max_divisor,
			   struct tick_divisor *out);

/**
 * The share of the CPU the interrupts took, in %: the work loop finished
 * @chunks chunks in @window_cycles, where without interrupts a chunk takes
 * @baseline_cycles_per_chunk; 100 × (1 − chunks × baseline / window).
 * 100 when no chunk finished; NaN without a window or a baseline.  Noise
 * can make it negative: it is returned as measured.
 */
double tick_stolen_pct(double baseline_cycles_per_chunk, uint64_t chunks,
		       uint64_t window_cycles);

/**
 * The cycles each of @interrupts interrupts took from the work loop: the
 * window's cycles beyond what its chunks take without interrupts, divided
 * among them.  NaN without interrupts or without a baseline.
 */
double tick_cycles_per_interrupt(double baseline_cycles_per_chunk,
				 uint64_t chunks, uint64_t window_cycles,
				 uint64_t interrupts);

/**
 * How far the work loop's own speed moved, in % of the baseline (the mean
 * of @before_cycles_per_chunk and @after_cycles_per_chunk, the idle
 * timings around a window): the spread, largest less smallest, of those
 * two and @quiet_cycles_per_chunk, the window's chunks that no interrupt
 * held up (left out when not positive or NaN).  The noise the CPU lost
 * carries: a host that shares the CPU's core or time with other work moves
 * the loop's speed between and during the timings.  NaN when either idle
 * timing is not positive.
 */
double tick_noise_pct(double before_cycles_per_chunk,
		      double after_cycles_per_chunk,
		      double quiet_cycles_per_chunk);

/** Whether @delivered_hz lies within TICK_DELIVERED_TOLERANCE_PCT of
 * @wanted_hz. */
bool tick_rate_reached(double delivered_hz, double wanted_hz);

/**
 * Lateness of the interrupts of a periodic timer whose expiries fall at
 * @t0 + k × @period (k = 1, 2, ...; TSC cycles), from the TSC at the entry
 * of each of @n interrupts (ascending).  A hypervisor may drop expiries
 * that find the previous interrupt pending, or deliver them late in a
 * burst, and an interrupt does not say which expiry it is for; so each is
 * counted against the latest expiry at or before its entry that no later
 * interrupt is counted against.  That is the least lateness consistent
 * with the entries: a lower bound, never negative while there were at
 * least as many expiries as interrupts.  An interrupt left with no expiry
 * of its own (more interrupts than expiries: the grid runs slow) is
 * counted against the first expiry, so one that came before it gets a
 * negative lateness.  Writes @n values to @lateness_cycles.
 */
void tick_grid_lateness(const uint64_t *entry_tsc, size_t n, uint64_t t0,
			double period, int64_t *lateness_cycles);

/** Gaps between interrupts over this many periods count as long. */
#define TICK_LONG_GAP_PERIODS 1.5

/**
 * The intervals between @n interrupts entered at @entry_tsc (ascending):
 * their median, in *@median_cycles (0 with fewer than two), and how many
 * exceed TICK_LONG_GAP_PERIODS × @period_cycles, in *@long_gaps: expiries
 * dropped or held up.  1 / median is the rate the timer keeps while the
 * guest runs; a host that holds the guest up adds long gaps, not shorter
 * intervals.  @scratch holds n values.
 */
void tick_intervals(const uint64_t *entry_tsc, size_t n, double period_cycles,
		    uint64_t *scratch, double *median_cycles,
		    uint64_t *long_gaps);

/* A distribution of signed values: min, percentiles, max. */
struct tick_spread {
	size_t n;
	int64_t min, p50, p90, p99, p999, max;
};

/**
 * Summarise @n signed samples (sorting them in place, as lib/stats.c
 * does for unsigned ones).  With n == 0 everything is 0.
 */
void tick_spread_summarize(int64_t *samples, size_t n, struct tick_spread *out);

/* A timer running through a VM event (engine/lifecycle_timer.c): its
 * interrupts, the expiries it had, and the guest's longest gap. */
struct tick_pending_input {
	const uint64_t *entry_tsc; /* n interrupts since arming, ascending */
	/* One-shot: the deadline each interrupt was armed for (TSC); NULL:
	 * periodic, expiries at t0_tsc + k period_cycles, k = 1, 2, ... */
	const uint64_t *deadline_tsc;
	size_t n;
	uint64_t t0_tsc;
	double period_cycles;
	/* CPU 0's longest gap between two reads of its loop, by the TSC: the
	 * event as the timer's clock saw it (none when the TSC froze). */
	uint64_t gap_start_tsc, gap_end_tsc;
	uint64_t end_tsc;	     /* the last instant looked at */
	uint64_t early_slack_cycles; /* an entry this near before is on time */
};

/* What became of it (cycles; the caller turns them into ns). */
struct tick_pending {
	uint64_t due;	     /* expiries from arming to end_tsc */
	uint64_t due_in_gap; /* of those, within the gap */
	uint64_t interrupts; /* entered by end_tsc */
	/* Entered before their deadline by more than the slack; the most
	 * negative lateness of all (0 when none was early). */
	uint64_t early;
	int64_t earliest_cycles;
	uint64_t earliest_tsc; /* that interrupt's entry (0: none) */
	/* The first interrupt entered after the gap began, and its lateness
	 * against the expiry pending then (one-shot: the deadline it was
	 * armed for; periodic: the next after the last interrupt before). */
	bool fired_after;
	uint64_t pending_tsc;
	int64_t first_after_late_cycles;
	/* The interrupts after it that made up expiries missed: one-shot,
	 * armed for a deadline already past then; periodic, beyond the
	 * expiries that fell after it. */
	uint64_t burst;
	/* Expiries due that no interrupt answered, less the last, which may
	 * be on its way at end_tsc; never negative. */
	uint64_t lost;
};

/**
 * What a timer armed before a VM event did across it, from the entries of
 * its interrupts (see struct tick_pending_input): early ones, the first
 * after the gap and its lateness, a burst, and expiries lost.  A periodic
 * timer's interrupts are matched to its grid as tick_grid_lateness() does:
 * one is early only when more interrupts than expiries came by its entry.
 */
void tick_pending_outcome(const struct tick_pending_input *in,
			  struct tick_pending *out);

/**
 * The next deadline of a one-shot timer re-armed every @period counts of a
 * counter @mask wide: @deadline + @period, moved on by whole periods while
 * it is not at least @margin counts after @now (an expiry already past, or
 * too close to program safely, is skipped).  *@skipped receives the
 * number of expiries skipped.  Integer-only: ring 0 calls it.
 */
static inline uint64_t tick_next_deadline(uint64_t deadline, uint64_t period,
					  uint64_t now, uint64_t margin,
					  uint64_t mask, uint64_t *skipped)
{
	uint64_t next = (deadline + period) & mask;
	uint64_t half = mask / 2 + 1;
	/* How far next lies after now + margin; past when over half. */
	uint64_t ahead = (next - now - margin) & mask;

	*skipped = 0;
	if (ahead != 0 && ahead < half)
		return next;
	if (period == 0)
		return next;
	/* now + margin lies (mask + 1 - ahead) & mask counts at or past next */
	*skipped = ((mask + 1 - ahead) & mask) / period + 1;
	return (next + *skipped * period) & mask;
}

#endif
