// SPDX-License-Identifier: MIT
/* Where a run's time goes (see base/timing.h). */
#include "base/console.h"
#include "base/cpu.h"
#include "base/stopwatch.h"
#include "base/timing.h"

static struct {
	uint64_t start_cycles; /* the first line */
	uint64_t since_cycles; /* when the current phase was entered */
	enum timing_phase current;
	uint64_t cycles[TIMING_NR];
	uint64_t console_bytes;
} acct;

void timing_start(void)
{
	acct.start_cycles = tsc_read_ordered();
	acct.since_cycles = acct.start_cycles;
	acct.current = TIMING_SETUP;
}

enum timing_phase timing_enter(enum timing_phase phase)
{
	uint64_t now = tsc_read_ordered();
	enum timing_phase was = acct.current;

	acct.cycles[was] += now - acct.since_cycles;
	acct.since_cycles = now;
	acct.current = phase;
	return was;
}

void timing_console_bytes(size_t bytes)
{
	acct.console_bytes += bytes;
}

void timing_collect(unsigned int console_burst, struct timing_result *out)
{
	enum timing_phase p;
	uint64_t now;

	/* Charge the current phase up to now, and stay in it. */
	timing_enter(acct.current);
	now = acct.since_cycles;
	out->timed = stopwatch_hz() != 0;
	out->tsc_at_first_line_ms =
		stopwatch_ns((double)acct.start_cycles) / 1e6;
	for (p = 0; p < TIMING_NR; p++)
		out->phase_ms[p] = stopwatch_ns((double)acct.cycles[p]) / 1e6;
	out->run_ms = stopwatch_ns((double)(now - acct.start_cycles)) / 1e6;
	out->console_bytes = acct.console_bytes;
	out->console_lost_bytes = console_lost_bytes();
	out->console_burst = console_burst;
}
