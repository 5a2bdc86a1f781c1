// SPDX-License-Identifier: MIT
/* The noise phase's arithmetic (see lib/noise.h). */
#include <string.h>

#include "lib/noise.h"

void noise_tally_init(struct noise_tally *t)
{
	memset(t, 0, sizeof(*t));
	hist_init(&t->gap_ns);
}

bool noise_tally_step(struct noise_tally *t, uint64_t prev, uint64_t now,
		      uint64_t threshold_cycles, double hz)
{
	uint64_t step;

	if (now < prev) {
		t->backward_steps++;
		return false;
	}
	step = now - prev;
	if (step > t->longest_cycles)
		t->longest_cycles = step;
	if (step <= threshold_cycles)
		return false;
	t->gaps++;
	t->gap_cycles += step;
	if (hz > 0)
		hist_record(&t->gap_ns,
			    (int64_t)((double)step * 1e9 / hz + 0.5));
	return true;
}

void noise_summarize(const struct noise_tally *t, double hz,
		     struct noise_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->availability_pct = 100;
	if (hz <= 0 || !t->span_cycles)
		return;
	out->span_ns = (double)t->span_cycles * 1e9 / hz;
	out->gap_ns = (double)t->gap_cycles * 1e9 / hz;
	out->longest_ns = (double)t->longest_cycles * 1e9 / hz;
	/* The gaps lie inside the span; a tally that says otherwise is
	 * clamped, not turned into a negative share. */
	out->availability_pct =
		t->gap_cycles >= t->span_cycles
			? 0
			: 100.0 * (double)(t->span_cycles - t->gap_cycles) /
				  (double)t->span_cycles;
	out->gaps_per_s = (double)t->gaps * hz / (double)t->span_cycles;
}

uint64_t noise_threshold_cycles(unsigned int threshold_ns, double hz)
{
	double cycles = (double)threshold_ns * hz / 1e9;

	return cycles >= 1 ? (uint64_t)cycles : 1;
}
