// SPDX-License-Identifier: MIT
/* The image's measurement method in user space (see user/measure.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/batch.h"
#include "user/measure.h"

#define MAX_SAMPLES	     100000
#define EMPTY_SAMPLES	     10000
#define PILOT_READS	     16
#define MIN_SAMPLES	     200
#define MIN_RESOLUTION_READS 1000
#define MAX_RESOLUTION_READS 1000000
#define BUDGET_CHECK_EVERY   64
#define CALIBRATION_NS	     100000000 /* 100 ms against MONOTONIC_RAW */

/* A read's share of its budget (the rest, a tenth, is the warps'). */
#define SHARE_PER_READ	 0.45
#define SHARE_RESOLUTION 0.25
#define SHARE_BATCH	 0.20
#define SHARE_WARPS	 0.10
#define MIN_WARP_MS	 10

static uint64_t samples[MAX_SAMPLES];
static bool stopwatch_tsc;

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t stopwatch_read(void)
{
	return stopwatch_tsc ? reader_tsc_ordered() : raw_ns();
}

void stopwatch_setup(struct stopwatch *sw, bool tsc_allowed)
{
	uint64_t c0, c1, t0, t1;

	memset(sw, 0, sizeof(*sw));
	stopwatch_tsc = sw->tsc = tsc_allowed;
	if (!tsc_allowed) {
		sw->hz = 1e9;
		snprintf(sw->source, sizeof(sw->source),
			 "clock_gettime(CLOCK_MONOTONIC_RAW): the TSC may not "
			 "be read here");
		return;
	}
	t0 = raw_ns();
	c0 = reader_tsc_ordered();
	do
		t1 = raw_ns();
	while (t1 - t0 < CALIBRATION_NS);
	c1 = reader_tsc_ordered();
	sw->hz = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
	snprintf(sw->source, sizeof(sw->source),
		 "lfence; rdtsc, its rate measured against "
		 "CLOCK_MONOTONIC_RAW over %u ms",
		 CALIBRATION_NS / 1000000);
}

static double counts_to_ns(const struct stopwatch *sw, double counts)
{
	return counts * 1e9 / sw->hz;
}

static uint64_t ns_to_counts(const struct stopwatch *sw, double ns)
{
	return (uint64_t)(ns * sw->hz / 1e9);
}

void stopwatch_measure_empty(struct stopwatch *sw)
{
	size_t i;

	for (i = 0; i < EMPTY_SAMPLES; i++) {
		uint64_t t0 = stopwatch_read();
		uint64_t t1 = stopwatch_read();

		samples[i] = t1 - t0;
	}
	stats_summarize(samples, EMPTY_SAMPLES, &sw->empty_bracket);
}

/* One bracketed read, minus the empty bracket's median (never below 0). */
static uint64_t bracketed_read(const struct stopwatch *sw,
			       uint64_t (*read)(void))
{
	uint64_t t0 = stopwatch_read(), t1;

	read();
	t1 = stopwatch_read();
	return t1 - t0 > sw->empty_bracket.p50 ? t1 - t0 - sw->empty_bracket.p50
					       : 0;
}

static void measure_per_read(const struct stopwatch *sw, struct read_result *r,
			     uint64_t budget)
{
	uint64_t (*read)(void) = r->reader->read;
	uint64_t pilot[PILOT_READS], estimate, start;
	struct stats_summary s;
	size_t i, n;

	for (i = 0; i < PILOT_READS; i++)
		pilot[i] = bracketed_read(sw, read) + sw->empty_bracket.p50;
	stats_summarize(pilot, PILOT_READS, &s);
	estimate = s.p50 ? s.p50 : 1;
	n = budget / estimate;
	if (n < MIN_SAMPLES)
		n = MIN_SAMPLES;
	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	/* The estimate may be off (a preemption): stop at twice the budget. */
	start = stopwatch_read();
	for (i = 0; i < n; i++) {
		samples[i] = bracketed_read(sw, read);
		if (i >= MIN_SAMPLES && stopwatch_read() - start > 2 * budget)
			break;
	}
	r->samples = (unsigned int)i;
	for (n = 0; n < i; n++)
		samples[n] =
			(uint64_t)(counts_to_ns(sw, (double)samples[n]) + 0.5);
	stats_summarize(samples, i, &r->read_ns);
}

/* A step of the reader's value, in ns. */
static double step_ns(const struct stopwatch *sw, const struct reader *rd,
		      uint64_t step)
{
	return (rd->flags & READER_COUNTS) ? counts_to_ns(sw, (double)step)
					   : (double)step;
}

/* Reads back to back: resolution, stalls, update rate, steps back. */
static void measure_resolution(const struct stopwatch *sw,
			       struct read_result *r, uint64_t budget)
{
	const struct reader *rd = r->reader;
	uint64_t prev = rd->read(), min_step = 0, changes = 0, reads;
	uint64_t start = stopwatch_read(), now_sw = start;

	for (reads = 0; reads < MAX_RESOLUTION_READS; reads++) {
		uint64_t now = rd->read();

		if (now == prev) {
			r->stalls++;
		} else if (now < prev) {
			double back = step_ns(sw, rd, prev - now);

			r->backward_steps++;
			if (back > r->worst_backward_ns)
				r->worst_backward_ns = back;
		} else {
			changes++;
			if (!min_step || now - prev < min_step)
				min_step = now - prev;
		}
		prev = now;
		if (reads % BUDGET_CHECK_EVERY == 0) {
			now_sw = stopwatch_read();
			if (reads >= MIN_RESOLUTION_READS &&
			    now_sw - start > budget)
				break;
		}
	}
	now_sw = stopwatch_read();
	r->changed = changes > 0;
	r->resolution_ns = changes ? step_ns(sw, rd, min_step) : 0;
	r->update_hz = now_sw > start ? (double)changes * sw->hz /
						(double)(now_sw - start)
				      : 0;
}

/* The stopwatch as a function, for lib/batch.c's two reads around a loop. */
static uint64_t stopwatch_now(void)
{
	return stopwatch_read();
}

void measure_read(const struct stopwatch *sw, struct read_result *r,
		  unsigned int budget_ms)
{
	uint64_t budget = ns_to_counts(sw, budget_ms * 1e6);
	struct batch_figure batch;

	measure_per_read(sw, r, (uint64_t)(budget * SHARE_PER_READ));
	measure_resolution(sw, r, (uint64_t)(budget * SHARE_RESOLUTION));
	batch_measure(r->reader->read, stopwatch_now, sw->hz,
		      (uint64_t)(budget * SHARE_BATCH), &batch);
	r->batch_ns_per_read = batch.ns_per_read;
	r->batch_ns_min = batch.ns_min;
	r->batch_ns_max = batch.ns_max;
	if (r->reader->flags & READER_WARPS) {
		unsigned int warp_ms = (unsigned int)(budget_ms * SHARE_WARPS);

		warp_measure(r->reader->read, warp_ms ? warp_ms : 1, &r->warps);
	} else {
		snprintf(r->warps.reason, sizeof(r->warps.reason), "%s",
			 r->reader->path == READER_SYSCALL
				 ? "the same clock as through libc"
				 : "the same clock as CLOCK_REALTIME");
	}
	r->measured = true;
}
