// SPDX-License-Identifier: MIT
/*
 * The tick measurement engine (see engine/ticks.h).  It knows no tick
 * source in particular: everything comes through struct tick_source, and
 * the interrupt's records through base/tick_irq.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stopwatch.h"
#include "base/cpu.h"
#include "base/idle.h"
#include "base/platform.h"
#include "base/smp.h"
#include "base/tick_irq.h"
#include "engine/ticks.h"
#include "hypervisor/steal.h"
#include "lib/progress.h"

/* Interrupts recorded per source and rate: every one up to 200 kHz for the
 * default 40 ms.  Kept small: the image must fit where loaders put it (GRUB
 * under OVMF with 64 MiB found no room for 1.5 MiB more). */
#define MAX_RECORDS 8192

/* A chunk of the work loop lasts about this long without interrupts:
 * short next to any tick period measured, long next to a TSC read. */
#define CHUNK_TARGET_NS	  20000.0
#define CHUNK_MAX_ITERS	  (1ull << 32)
#define CHUNK_MEDIAN_RUNS 64
#define DISTURBED_FACTOR  4
#define MIN_QUIET_CHUNKS  16	    /* to judge the loop's speed in a window */
#define MIN_QUIET_SHARE	  2	    /* ... and half of its chunks at least */
#define BASELINE_SHARE	  4	    /* baseline = tick_ms / 4, each side */
#define BASELINE_TRIES	  4	    /* runs to time MIN_QUIET_CHUNKS, at most */
#define DRAIN_NS	  1000000.0 /* interrupts on after stop() */
#define GIVE_UP_MIN_NS	  10000000.0
#define WARM_UP_NS	  2000000.0

static struct tick_irq_record records[MAX_RECORDS];
static uint64_t entries[MAX_RECORDS];
static union {
	uint64_t u[MAX_RECORDS];
	int64_t i[MAX_RECORDS];
} scratch;
static unsigned int window_ms;
static double tsc_hz;
static uint64_t chunk_iterations, disturbed_cycles;
static volatile uint64_t work_sink;

/* CPU 0's steal record, read once a chunk in every run of the loop (the
 * idle timings too, so that both pay the same for it), and the window's
 * trace of it. */
static struct tick_steal_state {
	bool on;
	unsigned int cpu;
	uint64_t last, failed_reads;
	struct steal_span *spans;
	struct steal_trace trace;
	/* Each record's verdict (enum steal_verdict), for the split; from the
	 * heap with the spans, as the image's static memory must stay under
	 * the 8 MiB it boots in (mem-min). */
	uint8_t *verdicts;
} steal;

/* The record now: the last good value when it never settled (counted). */
static uint64_t steal_now(void)
{
	steal.last =
		steal_read_or_last(steal.cpu, steal.last, &steal.failed_reads);
	return steal.last;
}

static uint64_t ns_to_cycles(double ns)
{
	return stopwatch_cycles(ns);
}

static double cycles_to_ns(double cycles)
{
	return stopwatch_ns(cycles);
}

/* The work: a chain of multiply-adds the compiler cannot fold or
 * vectorise, touching no memory. */
static __attribute__((noinline)) uint64_t work_chunk(uint64_t x,
						     uint64_t iterations)
{
	uint64_t i;

	for (i = 0; i < iterations; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		asm volatile("" : "+r"(x));
	}
	return x;
}

/* One run of the work loop. */
struct loop_run {
	uint64_t start, end; /* TSC */
	uint64_t chunks;     /* chunks done */
	/* Chunks during which no interrupt arrived that took longer than
	 * DISTURBED_FACTOR times a chunk's usual time: the host took the CPU
	 * away (another process, its own interrupts), not the timer.  They
	 * are left out of both the time and the work. */
	uint64_t disturbed_chunks, disturbed_cycles;
	/* Chunks that no interrupt and nothing else held up, nor followed an
	 * interrupt: the loop's own speed during the run, whatever else the
	 * host was doing. */
	uint64_t quiet_chunks, quiet_cycles;
};

/* Chunks of work until @cycles have passed since the TSC read @start,
 * when @seen interrupts had been taken; with a steal record, read before
 * each chunk's TSC read, into @trace when given (lib/steal.h). */
static void run_loop(uint64_t start, uint64_t seen, uint64_t cycles,
		     struct loop_run *run, struct steal_trace *trace)
{
	uint64_t prev, now, x = work_sink, count, stolen = 0;
	bool after_interrupt = false;

	*run = (struct loop_run){ .start = start };
	prev = start;
	do {
		x = work_chunk(x, chunk_iterations);
		if (steal.on)
			stolen = steal_now();
		now = tsc_read_ordered();
		if (trace)
			steal_trace_sample(trace, now, stolen);
		count = tick_irq.count;
		run->chunks++;
		if (count == seen && now - prev > disturbed_cycles) {
			run->disturbed_chunks++;
			run->disturbed_cycles += now - prev;
		} else if (count == seen && !after_interrupt) {
			/* Not the chunk after an interrupt either, which may
			 * still pay for it (caches, TLB). */
			run->quiet_chunks++;
			run->quiet_cycles += now - prev;
		}
		after_interrupt = count != seen;
		seen = count;
		prev = now;
	} while (now - run->start < cycles);
	work_sink = x;
	run->end = now;
}

/* Cycles and chunks of a run, the disturbed chunks left out. */
static uint64_t run_cycles(const struct loop_run *run)
{
	return run->end - run->start - run->disturbed_cycles;
}

static uint64_t run_chunks(const struct loop_run *run)
{
	return run->chunks - run->disturbed_chunks;
}

/* Cycles per chunk with no timer running.  A run whose chunks the host
 * held up all or nearly all has too few to time (two vCPUs sharing their
 * CPUs with a busy dom0 under Xen: no chunk of a 10 ms run counted, and CPU
 * lost became NaN, a failed check): it runs again, BASELINE_TRIES runs at
 * most, and the chunks of all of them count. */
static double baseline(uint64_t cycles, uint64_t *disturbed)
{
	struct loop_run run;
	uint64_t all_cycles = 0, all_chunks = 0;
	unsigned int tries;

	for (tries = 0; tries < BASELINE_TRIES && all_chunks < MIN_QUIET_CHUNKS;
	     tries++) {
		run_loop(tsc_read_ordered(), tick_irq.count, cycles, &run,
			 NULL);
		*disturbed += run.disturbed_cycles;
		all_cycles += run_cycles(&run);
		all_chunks += run_chunks(&run);
	}
	return all_chunks ? (double)all_cycles / (double)all_chunks : NAN;
}

/* The usual time of one chunk: the median of a few, timed one by one. */
static double chunk_median_cycles(void)
{
	uint64_t t[CHUNK_MEDIAN_RUNS], x = work_sink, t0, t1;
	struct stats_summary st;
	unsigned int i;

	for (i = 0; i < CHUNK_MEDIAN_RUNS; i++) {
		t0 = tsc_read_ordered();
		x = work_chunk(x, chunk_iterations);
		t1 = tsc_read_ordered();
		t[i] = t1 - t0;
	}
	work_sink = x;
	stats_summarize(t, CHUNK_MEDIAN_RUNS, &st);
	return (double)st.p50;
}

/* Double the chunk until it lasts CHUNK_TARGET_NS, timing each size
 * after a first run (an emulator translates the code on the first). */
static void size_chunk(void)
{
	uint64_t target = ns_to_cycles(CHUNK_TARGET_NS), t0, t1, x = 1;

	for (chunk_iterations = 16; chunk_iterations < CHUNK_MAX_ITERS;
	     chunk_iterations *= 2) {
		x = work_chunk(x, chunk_iterations);
		t0 = tsc_read_ordered();
		x = work_chunk(x, chunk_iterations);
		t1 = tsc_read_ordered();
		if (t1 - t0 >= target)
			break;
	}
	work_sink = x;
}

static void drain(void)
{
	uint64_t start = tsc_read_ordered(), cycles = ns_to_cycles(DRAIN_NS);

	irq_enable();
	while (tsc_read_ordered() - start < cycles)
		cpu_relax();
	irq_disable();
}

void ticks_irq_reset(struct tick_irq_record *into, uint64_t capacity)
{
	tick_irq.records = into;
	tick_irq.capacity = capacity;
	tick_irq.count = 0;
	tick_irq.deadline = 0;
	tick_irq.skipped = 0;
	tick_irq.gave_up = false;
	tick_irq.give_up_tsc = ~0ull;
}

/* Lateness of every recorded interrupt, in ns, into scratch.i. */
static void lateness(const struct tick_source *s, struct tick_rate_result *r,
		     uint64_t n)
{
	const struct tick_start *st = &r->start;
	uint64_t i, span;

	r->lateness_known = !st->no_expiries;
	if (!r->lateness_known)
		return;
	if (st->oneshot) {
		for (i = 0; i < n; i++)
			scratch.i[i] =
				(int64_t)(records[i].entry_tsc -
					  s->deadline_tsc(s,
							  records[i].deadline));
	} else {
		for (i = 0; i < n; i++)
			entries[i] = records[i].entry_tsc;
		tick_grid_lateness(entries, n, st->t0_tsc, st->period_cycles,
				   scratch.i);
	}
	/* Taken away between its expiry and its entry, or not. */
	for (i = 0; r->steal.traced && i < n; i++)
		steal.verdicts[i] = (uint8_t)steal_trace_classify(
			&steal.trace,
			records[i].entry_tsc - (uint64_t)scratch.i[i],
			records[i].entry_tsc);
	for (i = 0; i < n; i++)
		scratch.i[i] = llround(cycles_to_ns((double)scratch.i[i]));
	/* Reorders scratch.i: the summary below sorts it anyway. */
	if (r->steal.traced)
		steal_lateness_split(scratch.i, steal.verdicts, n,
				     &r->steal.lateness);
	span = n ? records[n - 1].entry_tsc - st->t0_tsc : 0;
	r->grid_uncertainty_ns = cycles_to_ns(
		(double)st->arm_cycles + st->grid_ppm * 1e-6 * (double)span);
	tick_spread_summarize(scratch.i, n, &r->lateness_ns);
}

/*
 * The handler's cycles and the lateness of every record into histograms,
 * the report's figures then from them, as the clocks' are (lateness() has
 * left the records' lateness in ns in scratch.i).
 */
static void record_hists(struct tick_rate_result *r, uint64_t n)
{
	struct tick_hists *h = malloc(sizeof(*h));
	uint64_t i;

	if (!h)
		return;
	hist_init(&h->handler_cycles);
	hist_init(&h->lateness_ns);
	for (i = 0; i < n; i++) {
		hist_record(
			&h->handler_cycles,
			(int64_t)(records[i].exit_tsc - records[i].entry_tsc));
		if (r->lateness_known)
			hist_record(&h->lateness_ns, scratch.i[i]);
	}
	hist_summarize(&h->handler_cycles, &r->handler_cycles);
	if (r->lateness_known)
		r->lateness_ns = (struct tick_spread){
			.n = h->lateness_ns.total,
			.min = h->lateness_ns.min,
			.p50 = hist_percentile(&h->lateness_ns, 500),
			.p90 = hist_percentile(&h->lateness_ns, 900),
			.p99 = hist_percentile(&h->lateness_ns, 990),
			.p999 = hist_percentile(&h->lateness_ns, 999),
			.max = h->lateness_ns.max,
		};
	r->hists = h;
}

/*
 * Interrupts a second: from the first to the last interrupt that entered
 * within the window, (k - 1) / their distance, which does not depend on
 * where the window cut the period; over the whole window when fewer than
 * two are on record.
 */
static double delivered_hz(struct tick_rate_result *r, uint64_t n,
			   uint64_t start, uint64_t end)
{
	uint64_t i, k = 0;
	double median;

	for (i = 0; i < n; i++)
		if (records[i].entry_tsc >= start &&
		    records[i].entry_tsc <= end)
			entries[k++] = records[i].entry_tsc;
	tick_intervals(entries, k, tsc_hz / r->start.programmed_hz, scratch.u,
		       &median, &r->long_gaps);
	r->typical_hz = median > 0 ? tsc_hz / median : NAN;
	if (k >= 2 && k == r->interrupts && entries[k - 1] > entries[0])
		return (double)(k - 1) * tsc_hz /
		       (double)(entries[k - 1] - entries[0]);
	return (double)r->interrupts * tsc_hz / (double)(end - start);
}

static void summarize(const struct tick_source *s, struct tick_rate_result *r,
		      const struct loop_run *run, double base_before,
		      double base_after)
{
	double base = (base_before + base_after) / 2;
	uint64_t total = tick_irq.count, i;
	uint64_t n = total < MAX_RECORDS ? total : MAX_RECORDS;
	uint64_t cycles = run_cycles(run), chunks = run_chunks(run);

	r->chunks = chunks;
	r->disturbed_ms = (double)run->disturbed_cycles * 1e3 / tsc_hz;
	r->baseline_cycles_per_chunk = base;
	r->window_cycles_per_chunk =
		chunks ? (double)cycles / (double)chunks : NAN;
	r->stolen_pct = tick_stolen_pct(base, chunks, cycles);
	/* Where quiet chunks are few, the rate is high and the host's side
	 * of the timer (its exits, its injection) may slow them too: they
	 * would count tick cost as noise. */
	r->quiet_cycles_per_chunk =
		run->quiet_chunks >= MIN_QUIET_CHUNKS &&
				run->quiet_chunks * MIN_QUIET_SHARE >=
					run->chunks
			? (double)run->quiet_cycles / (double)run->quiet_chunks
			: NAN;
	r->noise_pct = tick_noise_pct(base_before, base_after,
				      r->quiet_cycles_per_chunk);
	r->cycles_per_interrupt =
		tick_cycles_per_interrupt(base, chunks, cycles, r->interrupts);
	r->delivered_hz = delivered_hz(r, n, run->start, run->end);
	r->reached = tick_rate_reached(r->delivered_hz, r->requested_hz);
	r->recorded = n;
	r->skipped = tick_irq.skipped;
	r->gave_up = tick_irq.gave_up;
	for (i = 0; i < n; i++)
		scratch.u[i] = records[i].exit_tsc - records[i].entry_tsc;
	stats_summarize(scratch.u, n, &r->handler_cycles);
	lateness(s, r, n);
	record_hists(r, n);
	if (r->gave_up)
		snprintf(r->problem, sizeof(r->problem),
			 "the interrupts left the work loop no time: ring 0 "
			 "turned them off after %.0f ms to end the window",
			 r->window_s * 1e3);
	else if (!r->interrupts)
		snprintf(r->problem, sizeof(r->problem),
			 "no interrupt arrived in %u ms (about %.0f were due)",
			 window_ms, r->start.programmed_hz * r->window_s);
	else if (!r->reached)
		snprintf(r->problem, sizeof(r->problem),
			 "%.0f arrived a second, %.0f %% of the rate asked "
			 "for (median interval: %.0f a second; %llu gaps over "
			 "%.1f periods)",
			 r->delivered_hz,
			 100.0 * r->delivered_hz / r->requested_hz,
			 r->typical_hz, (unsigned long long)r->long_gaps,
			 TICK_LONG_GAP_PERIODS);
}

static void measure_rate(struct tick_source *s, struct tick_rate_result *r,
			 unsigned int rate_hz, double *base_before,
			 uint64_t *disturbed)
{
	uint64_t window = ns_to_cycles(window_ms * 1e6), c0, c1, start;
	uint64_t extra = ns_to_cycles(fmax(GIVE_UP_MIN_NS, window_ms * 5e5));
	uint64_t stolen = 0, failed_before;
	struct loop_run run;
	double base_after;
	enum tick_start_result started;

	memset(r, 0, sizeof(*r));
	r->requested_hz = rate_hz;
	ticks_irq_reset(records, MAX_RECORDS);
	started =
		s->start(s, rate_hz, &r->start, r->problem, sizeof(r->problem));
	if (started != TICK_STARTED) {
		r->state = started == TICK_UNREACHABLE ? TICK_RATE_UNREACHABLE
						       : TICK_RATE_FAILED;
		if (started == TICK_FAILED)
			s->stop(s);
		return;
	}
	r->state = TICK_RATE_MEASURED;
	/* The window starts before interrupts go on: an interrupt that is
	 * due at once, and one that never lets the loop run, count. */
	c0 = tick_irq.count;
	if (steal.on)
		stolen = steal_now();
	start = tsc_read_ordered();
	if (steal.on)
		steal_trace_start(&steal.trace, steal.spans, TICK_STEAL_SPANS,
				  start, stolen);
	failed_before = steal.failed_reads;
	tick_irq.give_up_tsc = start + window + extra;
	irq_enable();
	run_loop(start, c0, window, &run, steal.on ? &steal.trace : NULL);
	c1 = tick_irq.count;
	irq_disable();
	s->stop(s);
	drain();
	r->window_s = (double)(run.end - run.start) / tsc_hz;
	r->interrupts = c1 - c0;
	if (steal.on)
		r->steal = (struct tick_steal){
			.traced = true,
			.steal_ns = steal_trace_total_ns(&steal.trace),
			.spans = steal.trace.n,
			.spans_dropped = steal.trace.dropped,
			.failed_reads = steal.failed_reads - failed_before,
		};
	base_after = baseline(window / BASELINE_SHARE, disturbed);
	summarize(s, r, &run, *base_before, base_after);
	*base_before = base_after;
}

/*
 * A source that was armed at every rate it could be set to and never
 * interrupted is not there, whatever its probe found (a hypervisor may
 * offer a timer it does not deliver): say so instead of measuring nothing.
 */
static void drop_if_silent(struct tick_source *s,
			   struct tick_source_result *res)
{
	unsigned int j, measured = 0;

	for (j = 0; j < res->nr_rates; j++) {
		if (res->rates[j].state != TICK_RATE_MEASURED)
			continue;
		if (res->rates[j].interrupts)
			return;
		measured++;
	}
	if (!measured)
		return;
	s->present = false;
	snprintf(s->absent_reason, sizeof(s->absent_reason),
		 "it never interrupted: armed at %u rate%s for %u ms each, and "
		 "no interrupt came, although %s",
		 measured, measured == 1 ? "" : "s", window_ms,
		 s->offered_by ? s->offered_by : "its probe found it");
	res->nr_rates = 0;
}

/* CPU 0's steal record set up for the windows, where there is one. */
static void ticks_steal_setup(const struct probe_env *env,
			      struct ticks_result *out)
{
	memset(&steal, 0, sizeof(steal));
	steal.cpu = cpu_index();
	if (!steal_open(env->hv, steal.cpu, &out->steal, &steal.last))
		return;
	steal.spans = malloc(TICK_STEAL_SPANS * sizeof(*steal.spans));
	steal.verdicts = malloc(MAX_RECORDS);
	if (!steal.spans || !steal.verdicts) {
		out->steal.ok = false;
		snprintf(out->steal.why, sizeof(out->steal.why),
			 "no room on the heap for its trace");
		return;
	}
	steal.on = true;
}

void ticks_probe_one(struct tick_source *s, const struct probe_env *env)
{
	s->absent_reason[0] = '\0';
	s->notes[0] = '\0';
	s->present = probe_present(s->probe(s, env), s->absent_reason,
				   sizeof(s->absent_reason));
}

void ticks_measure(const struct options *opts, const struct probe_env *env,
		   struct ticks_result *out)
{
	struct tick_source *const *sources;
	struct tick_source_result *first = NULL;
	uint64_t base_cycles, disturbed_warm_up = 0;
	double base = NAN;
	unsigned int i, j;

	memset(out, 0, sizeof(*out));
	window_ms = opts->tick_ms;
	out->window_ms = window_ms;
	tsc_hz = (double)stopwatch_hz();
	if (!opts->nr_tick_rates) {
		snprintf(out->not_applied, sizeof(out->not_applied),
			 "tick_rates is empty: no tick measurements asked for");
		return;
	}
	if (!tsc_hz) {
		snprintf(out->not_applied, sizeof(out->not_applied),
			 "no TSC frequency to time the work loop with");
		return;
	}
	out->applied = true;
	out->tsc_hz = tsc_hz;
	irq_disable();
	/* Spinning idle CPUs would compete with CPU 0 for the host's. */
	out->cpus_parked = idle_park_others();
	ticks_steal_setup(env, out);
	/* Every source is probed first, so that nothing but a drain lies
	 * between a window and the idle timings either side of it. */
	sources = tick_sources_all();
	for (j = 0; sources[j] && j < MAX_TICK_SOURCES; j++) {
		ticks_probe_one(sources[j], env);
		out->sources[j].source = sources[j];
		if (sources[j]->present && !first)
			first = &out->sources[j];
	}
	out->nr = j;
	size_chunk();
	out->chunk_cycles = chunk_median_cycles();
	disturbed_cycles = (uint64_t)(DISTURBED_FACTOR * out->chunk_cycles);
	base_cycles = ns_to_cycles(window_ms * 1e6 / BASELINE_SHARE);
	/* Once unmeasured: an emulator translates the loop on its first run,
	 * which would slow the first baseline. */
	baseline(ns_to_cycles(WARM_UP_NS), &disturbed_warm_up);
	/* One chain of idle timings through every window of every source:
	 * the timing after a window is the one before the next, whichever
	 * source that is, so n windows take n + 1 of them (the first is
	 * charged to the first source measured). */
	if (first)
		base = baseline(base_cycles, &first->baseline_disturbed_cycles);
	for (j = 0; j < out->nr; j++) {
		struct tick_source_result *res = &out->sources[j];
		struct tick_source *s = sources[j];

		if (!s->present)
			continue;
		progress("measuring ticks of %s at %u rates (about %u ms)",
			 s->name, opts->nr_tick_rates,
			 opts->nr_tick_rates * window_ms * 5 / 4);
		for (i = 0; i < opts->nr_tick_rates; i++)
			measure_rate(s, &res->rates[res->nr_rates++],
				     opts->tick_rates_hz[i], &base,
				     &res->baseline_disturbed_cycles);
		drop_if_silent(s, res);
	}
	if (out->steal.kind != STEAL_NONE)
		steal_stop_cpu(steal.cpu);
	free(steal.spans);
	free(steal.verdicts);
	memset(&steal, 0, sizeof(steal));
	out->cpus_not_woken = idle_unpark_others();
	out->stray_interrupts = platform_stray_interrupts();
}
