/* SPDX-License-Identifier: MIT */
/*
 * The image's method, in user space (engine/measure.c): each read bracketed
 * by two ordered TSC reads, minus the median empty bracket; the batch
 * figure of lib/batch.h, the image's own code; back-to-back reads for resolution, update rate and
 * steps back; and warps between threads pinned to each CPU (user/warp.h).
 * Preemption shows in the tail of the distribution, as a hypervisor's
 * hiccups do in the image's.
 */
#ifndef CLOCKBENCH_USER_MEASURE_H
#define CLOCKBENCH_USER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/stats.h"
#include "user/readers.h"
#include "user/vdso.h"
#include "user/warp.h"

/* The stopwatch every figure is timed with. */
struct stopwatch {
	bool tsc;  /* lfence; rdtsc, else clock_gettime(MONOTONIC_RAW) */
	double hz; /* its counts per second */
	char source[READER_TEXT_LEN];	    /* how hz was found, in words */
	struct stats_summary empty_bracket; /* in its counts */
};

struct read_result {
	const struct reader *reader;
	enum reader_through through;
	bool measured;
	unsigned int samples;
	struct stats_summary read_ns; /* empty bracket subtracted */
	double batch_ns_per_read, batch_ns_min, batch_ns_max;
	bool changed;
	double resolution_ns; /* smallest step forward */
	double update_hz;     /* distinct values per second */
	uint64_t stalls;      /* consecutive equal reads */
	uint64_t backward_steps;
	double worst_backward_ns;
	struct warp_result warps;
};

/** Find the stopwatch: the TSC when @tsc_allowed, else CLOCK_MONOTONIC_RAW. */
void stopwatch_setup(struct stopwatch *sw, bool tsc_allowed);

/** Measure the empty bracket (once per run). */
void stopwatch_measure_empty(struct stopwatch *sw);

/**
 * Measure @r->reader, present, within about @budget_ms (the warps take a
 * tenth of it), with @sw.
 */
void measure_read(const struct stopwatch *sw, struct read_result *r,
		  unsigned int budget_ms);

#endif
