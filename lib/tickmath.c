// SPDX-License-Identifier: MIT
/* The arithmetic of the tick measurements (pure; host-tested). */
#include <math.h>

#include "lib/stats.h"
#include "lib/tickmath.h"

void tick_divisor_for_rate(uint64_t input_hz, uint64_t rate_hz,
			   uint64_t min_divisor, uint64_t max_divisor,
			   struct tick_divisor *out)
{
	uint64_t divisor = (input_hz + rate_hz / 2) / rate_hz;

	*out = (struct tick_divisor){ .reach = TICK_REACH_OK };
	if (divisor < min_divisor) {
		out->reach = TICK_REACH_TOO_FAST;
		out->limit_hz = (double)input_hz / (double)min_divisor;
		divisor = min_divisor;
	} else if (divisor > max_divisor) {
		out->reach = TICK_REACH_TOO_SLOW;
		out->limit_hz = (double)input_hz / (double)max_divisor;
		divisor = max_divisor;
	}
	out->divisor = divisor;
	out->achieved_hz = divisor ? (double)input_hz / (double)divisor : 0;
	out->error_ppm = (out->achieved_hz / (double)rate_hz - 1.0) * 1e6;
	if (out->reach == TICK_REACH_OK &&
	    fabs(out->error_ppm) > TICK_RATE_TOLERANCE_PPM)
		out->reach = TICK_REACH_INEXACT;
}

double tick_stolen_pct(double baseline_cycles_per_chunk, uint64_t chunks,
		       uint64_t window_cycles)
{
	if (!window_cycles || !(baseline_cycles_per_chunk > 0))
		return NAN;
	if (!chunks)
		return 100.0;
	return 100.0 * (1.0 - (double)chunks * baseline_cycles_per_chunk /
				      (double)window_cycles);
}

double tick_cycles_per_interrupt(double baseline_cycles_per_chunk,
				 uint64_t chunks, uint64_t window_cycles,
				 uint64_t interrupts)
{
	if (!interrupts || !(baseline_cycles_per_chunk > 0))
		return NAN;
	return ((double)window_cycles -
		(double)chunks * baseline_cycles_per_chunk) /
	       (double)interrupts;
}

double tick_noise_pct(double before_cycles_per_chunk,
		      double after_cycles_per_chunk,
		      double quiet_cycles_per_chunk)
{
	double mean = (before_cycles_per_chunk + after_cycles_per_chunk) / 2;
	double low = fmin(before_cycles_per_chunk, after_cycles_per_chunk);
	double high = fmax(before_cycles_per_chunk, after_cycles_per_chunk);

	if (!(before_cycles_per_chunk > 0) || !(after_cycles_per_chunk > 0))
		return NAN;
	if (quiet_cycles_per_chunk > 0) {
		low = fmin(low, quiet_cycles_per_chunk);
		high = fmax(high, quiet_cycles_per_chunk);
	}
	return 100.0 * (high - low) / mean;
}

bool tick_rate_reached(double delivered_hz, double wanted_hz)
{
	return wanted_hz > 0 && fabs(delivered_hz / wanted_hz - 1.0) * 100.0 <=
					TICK_DELIVERED_TOLERANCE_PCT;
}

void tick_grid_lateness(const uint64_t *entry_tsc, size_t n, uint64_t t0,
			double period, int64_t *lateness_cycles)
{
	double slot = INFINITY;
	size_t i;

	/* From the last interrupt back: each takes the latest expiry at or
	 * before its entry that is before the expiry of the one after it. */
	for (i = n; i-- > 0;) {
		double since = (double)(int64_t)(entry_tsc[i] - t0);
		double latest = floor(since / period);

		slot = latest < slot - 1 ? latest : slot - 1;
		/* None left: against the first expiry, which it preceded or
		 * another interrupt took. */
		lateness_cycles[i] = (int64_t)llround(
			since - (slot < 1 ? 1 : slot) * period);
	}
}

void tick_intervals(const uint64_t *entry_tsc, size_t n, double period_cycles,
		    uint64_t *scratch, double *median_cycles,
		    uint64_t *long_gaps)
{
	struct stats_summary st;
	size_t i;

	*median_cycles = 0;
	*long_gaps = 0;
	if (n < 2)
		return;
	for (i = 1; i < n; i++) {
		scratch[i - 1] = entry_tsc[i] - entry_tsc[i - 1];
		if ((double)scratch[i - 1] >
		    TICK_LONG_GAP_PERIODS * period_cycles)
			(*long_gaps)++;
	}
	stats_summarize(scratch, n - 1, &st);
	*median_cycles = (double)st.p50;
}

/* Signed order as unsigned order: flip the sign bit. */
#define SIGN_FLIP (1ull << 63)

void tick_spread_summarize(int64_t *samples, size_t n, struct tick_spread *out)
{
	uint64_t *u = (uint64_t *)samples;
	struct stats_summary st;
	size_t i;

	for (i = 0; i < n; i++)
		u[i] = (uint64_t)samples[i] ^ SIGN_FLIP;
	stats_summarize(u, n, &st);
	for (i = 0; i < n; i++)
		samples[i] = (int64_t)(u[i] ^ SIGN_FLIP);
	*out = (struct tick_spread){ .n = n };
	if (!n)
		return;
	out->min = (int64_t)(st.min ^ SIGN_FLIP);
	out->p50 = (int64_t)(st.p50 ^ SIGN_FLIP);
	out->p90 = (int64_t)(st.p90 ^ SIGN_FLIP);
	out->p99 = (int64_t)(st.p99 ^ SIGN_FLIP);
	out->p999 = (int64_t)(st.p999 ^ SIGN_FLIP);
	out->max = (int64_t)(st.max ^ SIGN_FLIP);
}

/* Expiries k >= 1 of the grid at or before @tsc. */
static uint64_t grid_slots(uint64_t t0, double period, uint64_t tsc)
{
	if (tsc <= t0 || !(period > 0))
		return 0;
	return (uint64_t)floor((double)(tsc - t0) / period);
}

static uint64_t grid_expiry(uint64_t t0, double period, uint64_t k)
{
	return t0 + (uint64_t)llround((double)k * period);
}

/*
 * Early interrupts among the first @n into @out: one-shot against the
 * deadline each was armed for; periodic matched to the grid from the last
 * back, as tick_grid_lateness() does, so that one is early only when more
 * interrupts than expiries came by its entry.
 */
static void count_early(const struct tick_pending_input *in, size_t n,
			struct tick_pending *out)
{
	double slot = INFINITY;
	size_t i;

	for (i = n; i-- > 0;) {
		int64_t late;

		if (in->deadline_tsc) {
			late = (int64_t)(in->entry_tsc[i] -
					 in->deadline_tsc[i]);
		} else {
			double latest = (double)grid_slots(in->t0_tsc,
							   in->period_cycles,
							   in->entry_tsc[i]);

			slot = latest < slot - 1 ? latest : slot - 1;
			late = (int64_t)(in->entry_tsc[i] -
					 grid_expiry(
						 in->t0_tsc, in->period_cycles,
						 slot < 1 ? 1
							  : (uint64_t)slot));
		}
		if (late < -(int64_t)in->early_slack_cycles)
			out->early++;
		if (late < out->earliest_cycles) {
			out->earliest_cycles = late;
			out->earliest_tsc = in->entry_tsc[i];
		}
	}
}

/* The expiry pending when the gap began, for the first interrupt after it
 * (@first), @before interrupts having come before the gap. */
static uint64_t pending_expiry(const struct tick_pending_input *in,
			       size_t first, size_t before)
{
	uint64_t served = 0;

	if (in->deadline_tsc)
		return in->deadline_tsc[first];
	if (before)
		served = grid_slots(in->t0_tsc, in->period_cycles,
				    in->entry_tsc[before - 1]);
	return grid_expiry(in->t0_tsc, in->period_cycles, served + 1);
}

/*
 * Of the @n interrupts, those after @first (the first after the gap) that
 * made up expiries missed: one-shot, those armed for a deadline already
 * past when @first came; periodic (an interrupt names no expiry), those
 * beyond the expiries that fell after @first up to @end_tsc.  Fast or
 * paced, a hypervisor's catch-up counts; the next expiry's interrupt
 * coming soon after a late one does not.
 */
static uint64_t made_up(const struct tick_pending_input *in, size_t first,
			size_t n)
{
	uint64_t after = n - first - 1, fell, count = 0;
	size_t i;

	if (in->deadline_tsc) {
		for (i = first + 1; i < n; i++)
			count += in->deadline_tsc[i] <= in->entry_tsc[first];
		return count;
	}
	fell = grid_slots(in->t0_tsc, in->period_cycles, in->end_tsc) -
	       grid_slots(in->t0_tsc, in->period_cycles, in->entry_tsc[first]);
	return after > fell ? after - fell : 0;
}

void tick_pending_outcome(const struct tick_pending_input *in,
			  struct tick_pending *out)
{
	double period = in->period_cycles;
	size_t i, before = 0, first = in->n;

	*out = (struct tick_pending){ 0 };
	out->due = grid_slots(in->t0_tsc, period, in->end_tsc);
	if (in->gap_end_tsc > in->gap_start_tsc)
		out->due_in_gap =
			grid_slots(in->t0_tsc, period, in->gap_end_tsc) -
			grid_slots(in->t0_tsc, period, in->gap_start_tsc);
	for (i = 0; i < in->n && in->entry_tsc[i] <= in->end_tsc; i++) {
		out->interrupts++;
		if (in->entry_tsc[i] <= in->gap_start_tsc)
			before = i + 1;
		else if (first == in->n)
			first = i;
	}
	count_early(in, out->interrupts, out);
	if (first < out->interrupts) {
		out->fired_after = true;
		out->pending_tsc = pending_expiry(in, first, before);
		out->first_after_late_cycles =
			(int64_t)(in->entry_tsc[first] - out->pending_tsc);
		out->burst = made_up(in, first, out->interrupts);
	}
	if (out->due > out->interrupts + 1)
		out->lost = out->due - out->interrupts - 1;
}
