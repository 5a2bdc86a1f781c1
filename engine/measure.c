// SPDX-License-Identifier: MIT
/*
 * The measurement engine.  Every figure comes from TSC cycles read with
 * lfence; rdtsc, turned into ns with the TSC frequency the TSC probe found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "drivers/tsc.h"
#include "engine/clocks.h"
#include "engine/measure.h"
#include "hypervisor/steal.h"
#include "lib/batch.h"
#include "lib/clockrate.h"
#include "lib/progress.h"
#include "lib/options.h"

#define MIN_SAMPLES   200   /* fewer make the percentiles coarse */
#define EMPTY_SAMPLES 10000 /* empty brackets measured once per run, at most */
/* The empty brackets' share of the budget: 8 ms of the default 400 holds the
 * 10000 where a bracket costs under 800 ns.  Where the TSC is trapped (a PVH
 * dom0 of two vCPUs under TCG: 1.7 ms a bracket) the count stops there, at
 * MIN_SAMPLES at least, instead of taking 17 s. */
#define SHARE_EMPTY 0.02
/* The references' share: half per read, half in batches. */
#define SHARE_REFERENCES 0.02
/* Reads whose extended values are kept to compare in ns after the loop. */
#define RESOLUTION_KEPT_READS 20000
#define MIN_RESOLUTION_READS  1000
#define MAX_RESOLUTION_READS  1000000
#define CONVERSION_ITERATIONS 20000
#define WRAP_TIMED_NS	      10e9 /* counters wrapping faster get each read timed */
#define BUDGET_CHECK_EVERY    64 /* otherwise the TSC is read this often */
/* Where the extended counter starts: far from 0, so steps back never
 * underflow, and far from 2^64, so a day of steps forward never wraps. */
#define EXTENDED_START (1ull << 62)
/* Per-read samples end early once settled (lib/hist.h: p50, p90 and p99
 * each within a bucket of where they were at half the count), judged at
 * this count and each doubling of it, so that p999 is at least the 17th
 * largest read.  Under TCG most clocks settle at 16384 to 65536 reads, 5
 * to 20 ms, where their share of the default budget bought 100 k to 500 k. */
#define SETTLE_FIRST_SAMPLES 16384

/*
 * How a clock's share of the budget is spent: per-read samples, back-to-
 * back reads for resolution, the batch loop (the rates, all at once, take
 * rate_ms).  The per-read part is a bound: its samples mostly settle
 * sooner.  The batch, whose spread has a goal, takes a quarter: of the
 * default 400 ms a six-clock run gives, 17 ms, which held 17 to 32 of its
 * rounds (BATCH_MAX_LOOPS) on a loaded TCG host and the most on a quiet
 * one.
 */
#define SHARE_PER_READ	 0.40
#define SHARE_RESOLUTION 0.25
#define SHARE_BATCH	 0.25

/* The empty brackets, then each clock's first extended values. */
static uint64_t samples[RESOLUTION_KEPT_READS];
/* The run's: the empty bracket every read is corrected by, the references
 * reads are judged against, and the clock rates are measured against. */
static struct stats_summary empty_bracket;
static struct bracket_references references;
static const struct clock *reference;
/* The steal record, where there is one: the calling CPU's, read between
 * the per-read samples. */
static bool steal_on;
static unsigned int steal_cpu;

_Static_assert(RESOLUTION_KEPT_READS >= 2 * EMPTY_SAMPLES,
	       "the empty brackets share the samples, two kinds at a time");

static double cycles_to_ns(double cycles)
{
	return stopwatch_ns(cycles);
}

static uint64_t ns_to_cycles(double ns)
{
	return stopwatch_cycles(ns);
}

/* Never inlined: the loop below calls through a pointer, like c->read. */
static __attribute__((noinline)) uint64_t convert_nothing(const struct clock *c,
							  uint64_t delta)
{
	(void)c;
	barrier();
	return delta;
}

/* The empty bracket's read: nothing, reached the way a clock's read is,
 * through a pointer.  Never inlined, or there would be no call to time. */
static __attribute__((noinline)) uint64_t read_nothing(void)
{
	barrier();
	return 0;
}

/* The reference sequence: SEQUENCE_STEPS dependent multiply-adds, which
 * nothing intercepts anywhere: natively about as long as a TSC read, under
 * TCG as fast or slow as the host runs translated code. */
#define SEQUENCE_STEPS 8
static __attribute__((noinline)) uint64_t read_sequence(void)
{
	uint64_t x = 1;
	unsigned int i;

	/* Opaque to the compiler, so the chain is computed, not folded. */
	asm volatile("" : "+r"(x));
	for (i = 0; i < SEQUENCE_STEPS; i++)
		x = x * 0x9e3779b97f4a7c15ull + i;
	return x;
}

/*
 * One call to @read between two ordered TSC reads, in cycles.  The pointer
 * is in a register before the first TSC read, so the bracket holds the
 * call, the read and its return, and nothing else: no load of the pointer,
 * no store of a result.  Under TCG the indirect call and the return each
 * end a translated block (about 60 cycles on the probe's host), which is
 * why the empty bracket makes the same call: it is part of the path, not
 * of the read.
 */
static inline uint64_t bracket_call_cycles(uint64_t (*read)(void))
{
	uint64_t t0, t1;

	asm volatile("" : "+r"(read));
	t0 = tsc_read_ordered();
	read();
	t1 = tsc_read_ordered();
	return t1 - t0;
}

/* Two ordered TSC reads with nothing between them: the lean bracket. */
static inline uint64_t bracket_lean_cycles(void)
{
	uint64_t t0 = tsc_read_ordered();

	return tsc_read_ordered() - t0;
}

/* rdtsc inline in the lean bracket: a TSC read with nothing of the
 * engine's path around it, as an independent probe would time it. */
static inline uint64_t bracket_lean_tsc_cycles(void)
{
	uint64_t t0 = tsc_read_ordered();

	tsc_read();
	return tsc_read_ordered() - t0;
}

/* @cycles less @empty, never below 0. */
static uint64_t less_empty(uint64_t cycles, uint64_t empty)
{
	return cycles > empty ? cycles - empty : 0;
}

/*
 * The empty brackets, interleaved so that both see the same moments: the
 * one every read is corrected by (a call to nothing, through a pointer)
 * and the lean one (nothing at all) the lean TSC read is corrected by.
 */
static void measure_empty(uint64_t budget_cycles)
{
	uint64_t *lean = samples + EMPTY_SAMPLES;
	uint64_t start = tsc_read_ordered();
	size_t i;

	for (i = 0; i < EMPTY_SAMPLES; i++) {
		samples[i] = bracket_call_cycles(read_nothing);
		lean[i] = bracket_lean_cycles();
		if (i + 1 >= MIN_SAMPLES &&
		    tsc_read_ordered() - start > budget_cycles) {
			i++;
			break;
		}
	}
	stats_summarize(samples, i, &empty_bracket);
	stats_summarize(lean, i, &references.lean_bracket);
}

/* The stopwatch as a function, for lib/batch.c's two reads around a loop. */
static uint64_t stopwatch_now(void)
{
	return tsc_read_ordered();
}

/*
 * What reads are judged against, measured in this run the way reads are,
 * so that a slower or busier host moves them as it moves the reads: the
 * lean TSC read, and the reference sequence per read (the call bracket,
 * less its median) and in batches.
 */
static void measure_references(uint64_t budget_cycles)
{
	uint64_t *lean = samples + EMPTY_SAMPLES;
	uint64_t start = tsc_read_ordered();
	struct batch_figure b;
	size_t i;

	for (i = 0; i < EMPTY_SAMPLES; i++) {
		samples[i] = less_empty(bracket_call_cycles(read_sequence),
					empty_bracket.p50);
		lean[i] = less_empty(bracket_lean_tsc_cycles(),
				     references.lean_bracket.p50);
		if (i + 1 >= MIN_SAMPLES &&
		    tsc_read_ordered() - start > budget_cycles / 2) {
			i++;
			break;
		}
	}
	stats_summarize(samples, i, &references.sequence_read);
	stats_summarize(lean, i, &references.lean_tsc_read);
	batch_measure(read_sequence, stopwatch_now, (double)stopwatch_hz(),
		      budget_cycles / 2, &b);
	references.sequence_batch_ns = b.ns_per_read;
}

/* One bracketed read, less the empty bracket's median (never below 0). */
static uint64_t bracketed_read(const struct clock *c)
{
	return less_empty(bracket_call_cycles(c->read), empty_bracket.p50);
}

/*
 * Every bracketed read goes into the clock's histograms, so memory stays
 * the same whatever the count: reads go on until the distribution has
 * settled (from SETTLE_FIRST_SAMPLES on, at each doubling of the count) or
 * the budget is spent (at least MIN_SAMPLES), whichever comes first, or
 * for the count asked for.  With a steal record, it is read after each
 * bracket, outside it, and the reads across which it grew go into a third
 * histogram: how much of the tail beyond p99 the vCPU was taken away in.  False when
 * the heap could not hold the histograms (it holds 4 MiB; all clocks'
 * take 345 KiB at most).
 */
static bool measure_per_read(struct clock_result *r, uint64_t budget_cycles,
			     unsigned int fixed_samples)
{
	const struct clock *c = r->clock;
	struct read_hists *h = malloc(sizeof(*h));
	struct hist_marks marks = { 0 };
	uint64_t start, next_mark = SETTLE_FIRST_SAMPLES / 2;
	unsigned int i;

	struct read_steal_tail *tail = &r->steal_tail;
	uint64_t steal_before = 0, steal_after;

	if (!h)
		return false;
	hist_init(&h->cycles);
	hist_init(&h->ns);
	hist_init(&h->steal_cycles);
	tail->traced = steal_on && !steal_read_cpu(steal_cpu, &steal_before);
	start = tsc_read_ordered();
	for (i = 0; fixed_samples ? i < fixed_samples : i < UINT32_MAX; i++) {
		uint64_t cycles = bracketed_read(c);

		/* After the bracket, never inside it: the read after one
		 * bracket is the read before the next.  One that never
		 * settles keeps the last good value (counted). */
		if (tail->traced) {
			steal_after = steal_read_or_last(
				steal_cpu, steal_before, &tail->failed_reads);
			if (steal_after > steal_before) {
				hist_record(&h->steal_cycles, (int64_t)cycles);
				steal_before = steal_after;
			}
		}
		hist_record(&h->cycles, (int64_t)cycles);
		hist_record(&h->ns,
			    (int64_t)(cycles_to_ns((double)cycles) + 0.5));
		if (!fixed_samples && i + 1 == next_mark) {
			if (hist_settled(&h->cycles, &marks)) {
				r->samples_settled = true;
				i++;
				break;
			}
			hist_marks_take(&h->cycles, &marks);
			next_mark *= 2;
		}
		if (!fixed_samples && i + 1 >= MIN_SAMPLES &&
		    tsc_read_ordered() - start > budget_cycles) {
			i++;
			break;
		}
	}
	r->samples = i;
	hist_summarize(&h->cycles, &r->read_cycles);
	hist_summarize(&h->ns, &r->read_ns);
	if (tail->traced) {
		int64_t p99 = hist_percentile(&h->cycles, 990);

		tail->reads_with_steal = h->steal_cycles.total;
		tail->tail_reads = hist_count_above(&h->cycles, p99);
		tail->tail_reads_with_steal =
			hist_count_above(&h->steal_cycles, p99);
	}
	r->read_hists = h;
	return true;
}

/* Reads back to back: resolution, stalls, update rate, backward steps. */
static void measure_resolution(struct clock_result *r, uint64_t budget_cycles)
{
	const struct clock *c = r->clock;
	uint64_t mask = clock_mask(c->width_bits), half = mask / 2 + 1;
	/* TSC reads before the first clock read and after each: the interval
	 * two clock reads span is bounded by the TSC read before the first of
	 * them and the one after the second, not by the two after each (the
	 * guest may be held up between a read and its TSC read: a step then
	 * looked like a PIT step back of 23 ms under the nested KVM, its gap
	 * measured from after the hold-up). */
	uint64_t t_before_prev = tsc_read_ordered();
	uint64_t prev = c->read(), min_step = 0, changes = 0, reads;
	uint64_t start = tsc_read_ordered(), elapsed;
	/* The counter extended past its wraps; the first reads' extended
	 * values are kept and converted to ns after the loop, which stays as
	 * tight as the reads themselves. */
	uint64_t extended = EXTENDED_START, stored = 0, i, prev_ns;
	/* Half a wrap of a narrow counter (the PIT wraps every 55 ms): two
	 * reads further apart than that cannot tell forward from back. */
	uint64_t half_wrap_cycles = ns_to_cycles((double)clock_ns(c, half));
	uint64_t t_prev = start, t_now = start;
	/* Only a counter that wraps within seconds needs every read timed;
	 * for the others a TSC read now and then bounds the loop, which
	 * stays as tight as the reads. */
	bool time_every_read = half_wrap_cycles < ns_to_cycles(WRAP_TIMED_NS);

	for (reads = 0; reads < MAX_RESOLUTION_READS; reads++) {
		uint64_t now = c->read();
		uint64_t step = (now - prev) & mask;

		if (time_every_read || reads % BUDGET_CHECK_EVERY == 0)
			t_now = tsc_read_ordered();

		if (step == 0) {
			r->stalls++;
		} else if (step >= half && time_every_read &&
			   clock_gap_ambiguous(
				   t_now - t_before_prev,
				   ns_to_cycles((double)clock_ns(c, step)),
				   half_wrap_cycles)) {
			/* The guest was away about as long as the step
			 * forward says, or longer than half a wrap: count the
			 * step forward, and say it was ambiguous. */
			r->ambiguous_gaps++;
			extended += step;
		} else if (step >= half) {
			/* A "step" of more than half the range is a step back. */
			double back_ns =
				(double)clock_ns(c, (prev - now) & mask);

			r->backward_steps++;
			extended -= (prev - now) & mask;
			if (back_ns > r->worst_backward_ns)
				r->worst_backward_ns = back_ns;
		} else {
			extended += step;
			changes++;
			if (!min_step || step < min_step)
				min_step = step;
		}
		if (stored < RESOLUTION_KEPT_READS)
			samples[stored++] = extended;
		prev = now;
		t_before_prev = t_prev;
		t_prev = t_now;
		if (reads >= MIN_RESOLUTION_READS &&
		    t_now - start > budget_cycles)
			break;
	}
	elapsed = tsc_read_ordered() - start;
	/* Each kept value turned into ns once (a 128-bit division each), and
	 * compared with the one before. */
	prev_ns = stored ? clock_ns(c, samples[0]) : 0;
	for (i = 1; i < stored; i++) {
		uint64_t ns = clock_ns(c, samples[i]);

		if (ns < prev_ns)
			r->backward_steps_ns++;
		prev_ns = ns;
	}
	r->changed = changes > 0;
	/* In double: a step may be a fraction of a ns (a TSC count). */
	r->resolution_ns = (c->flags & CLOCK_READS_NS) ? (double)min_step
			   : c->freq_hz
				   ? (double)min_step * 1e9 / (double)c->freq_hz
				   : 0;
	r->update_hz =
		elapsed ? changes * (double)stopwatch_hz() / (double)elapsed
			: 0;
}

/* The batch figure (lib/batch.h): the seeds' method, shared with
 * clockbench-user. */
static void measure_batch(struct clock_result *r, uint64_t budget_cycles)
{
	struct batch_figure b;

	batch_measure(r->clock->read, stopwatch_now, (double)stopwatch_hz(),
		      budget_cycles, &b);
	r->batches = b.runs;
	r->batch_ns_per_read = b.ns_per_read;
	r->batch_ns_min = b.ns_min;
	r->batch_ns_max = b.ns_max;
}

static void measure_conversion(struct clock_result *r)
{
	volatile uint64_t sink = 0;
	uint64_t t0, t1, t2, i;

	t0 = tsc_read_ordered();
	for (i = 0; i < CONVERSION_ITERATIONS; i++)
		sink += clock_ns(r->clock, i * 7919 + 1);
	t1 = tsc_read_ordered();
	for (i = 0; i < CONVERSION_ITERATIONS; i++)
		sink += convert_nothing(r->clock, i * 7919 + 1);
	t2 = tsc_read_ordered();
	(void)sink;
	r->conversion_ns =
		t1 - t0 > t2 - t1
			? cycles_to_ns((double)((t1 - t0) - (t2 - t1)) /
				       CONVERSION_ITERATIONS)
			: 0;
}

/*
 * The earlier clock whose rate @r takes over, or NULL: the first measured
 * one that reads the same counter at the same nominal frequency (tsc,
 * tsc_rdtscp and tsc_ordered all read the TSC).  A rate is the counter's,
 * not the instruction's, so it is measured once.
 */
static const struct clock_result *rate_source(const struct clock_result *r,
					      const struct clock_result *first)
{
	const struct clock_result *o;

	for (o = first; o < r; o++)
		if (o->measured && clock_same_counter(o->clock, r->clock) &&
		    o->clock->freq_hz == r->clock->freq_hz)
			return o;
	return NULL;
}

/* The clock @c's rate is measured against: the run's reference, unless
 * that is @c's own counter or what @c was calibrated with (a rate against
 * either proves nothing), then the next-best independent clock. */
static const struct clock *rate_reference(const struct clock *c)
{
	const struct clock *ref = reference;

	if (!ref || clock_same_counter(ref, c) ||
	    (c->calibrated_against &&
	     clock_same_counter(ref, c->calibrated_against)))
		ref = clocks_reference_for(c);
	return ref;
}

/* Appends "NAME (against REF)" to the list in @buf. */
static void name_job(char *buf, size_t len, const struct clock_rate_job *j)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, "%s%s (against %s)",
			 used ? ", " : "", j->c->name, j->ref->name);
}

/*
 * Every measured clock's rate, all at once over rate_ms of their
 * references' time (lib/clockrate.h): n clocks take the time of one.  A
 * clock that reads an earlier one's counter takes that one's rate.
 */
static void measure_rates(struct measure_result *out, unsigned int rate_ms)
{
	struct clock_rate_job jobs[MAX_CLOCKS];
	struct clock_result *owner[MAX_CLOCKS];
	char names[4 * CLOCK_TEXT_LEN] = "";
	unsigned int n = 0, i;
	struct clock_result *r;

	for (r = out->clocks; r < out->clocks + out->nr; r++) {
		const struct clock *ref;

		if (!r->measured || rate_source(r, out->clocks))
			continue;
		ref = rate_reference(r->clock);
		if (!ref) {
			snprintf(r->rate_problem, sizeof(r->rate_problem),
				 "no independent clock to measure it against");
			continue;
		}
		jobs[n].c = r->clock;
		jobs[n].ref = ref;
		name_job(names, sizeof(names), &jobs[n]);
		owner[n++] = r;
	}
	if (n) {
		progress("measuring the rates of %s at once (about %u ms)",
			 names, rate_ms);
		clock_measure_rates(jobs, n, (uint64_t)rate_ms * 1000000);
	}
	for (i = 0; i < n; i++) {
		r = owner[i];
		if (jobs[i].rc) {
			snprintf(r->rate_problem, sizeof(r->rate_problem), "%s",
				 jobs[i].why);
			continue;
		}
		r->rate_measured = true;
		r->rate_reference = jobs[i].ref;
		r->rate_ppm =
			(jobs[i].rate.hz / (double)r->clock->freq_hz - 1.0) *
			1e6;
		r->rate_uncertainty_ppm = jobs[i].rate.uncertainty_ppm;
	}
	for (r = out->clocks; r < out->clocks + out->nr; r++) {
		const struct clock_result *source = rate_source(r, out->clocks);

		if (!r->measured || !source)
			continue;
		if (!source->rate_measured) {
			snprintf(r->rate_problem, sizeof(r->rate_problem),
				 "as %s's, the same counter: %s",
				 source->clock->name, source->rate_problem);
			continue;
		}
		r->rate_shared_from = source->clock;
		r->rate_measured = true;
		r->rate_reference = source->rate_reference;
		r->rate_ppm = source->rate_ppm;
		r->rate_uncertainty_ppm = source->rate_uncertainty_ppm;
	}
}

/*
 * Whether @r's reads are intercepted (one judge: the report only says what
 * was found here).  Under TCG nothing is: every read is translated code,
 * a device's register a call into QEMU's model on the same thread, and
 * the figures follow the host's speed.  Elsewhere a read is trapped when
 * it is slower than the clock can be natively (clock->native_read_ns_max)
 * and also more than TRAP_REFERENCE_FACTOR times the reference sequence
 * timed the same way in this run, by the median bracketed read or by the
 * batch figure: a slower or busier host slows the sequence as it slows
 * the read, so it cannot flip the judgement alone.  Where the stopwatch
 * itself is trapped (rdtsc in a Xen HVM guest under TCG: about 70 us a
 * bracket), the bracket's own cost swamps the median, which can come out
 * below the bound although each read exits to the hypervisor; the batch
 * figure, timed over long loops, still shows it.
 */
static void judge_read(struct clock_result *r, bool translated)
{
	double max = r->clock->native_read_ns_max;
	double sequence_ns = cycles_to_ns((double)references.sequence_read.p50);

	if (translated) {
		r->read_path = READ_TRANSLATED;
	} else if (max > 0 &&
		   (((double)r->read_ns.p50 > max &&
		     (double)r->read_ns.p50 >
			     TRAP_REFERENCE_FACTOR * sequence_ns) ||
		    (r->batch_ns_per_read > max &&
		     r->batch_ns_per_read >
			     TRAP_REFERENCE_FACTOR *
				     references.sequence_batch_ns))) {
		r->read_path = READ_TRAPPED;
	} else {
		r->read_path = READ_DIRECT;
	}
	r->trapped = r->read_path == READ_TRAPPED;
}

static void record_port_use(struct clock_result *r)
{
	const struct clock *c = r->clock;
	unsigned int i;

	if (!(c->flags & CLOCK_PORT_IO))
		return;
	for (i = 0; i < c->nr_ports && i < CLOCK_MAX_PORTS; i++)
		r->port_use[i] = platform_port_use(c->ports[i]);
	r->nr_ports = i;
}

/* The stopwatch's clock (the TSC) if it claims to be invariant, else the
 * best device clock. */
static const struct clock *choose_reference(void)
{
	const struct clock *stopwatch = clocks_stopwatch();

	if (stopwatch && stopwatch->present &&
	    (stopwatch->flags & CLOCK_CLAIMS_STABLE))
		return stopwatch;
	return clocks_reference();
}

/* The drivers' counts of reads that went wrong, after every read (the
 * probes' too). */
static void count_bad_reads(struct measure_result *out)
{
	struct clock_result *r;

	for (r = out->clocks; r < out->clocks + out->nr; r++)
		if (r->clock->present && r->clock->bad_reads)
			r->bad_reads = r->clock->bad_reads();
}

/* The tsc clock's p50 against the lean TSC read's, both in cycles. */
static void compare_lean(struct measure_result *out)
{
	struct lean_agreement *a = &out->lean;
	const struct clock_result *r;
	double diff;

	for (r = out->clocks; r < out->clocks + out->nr; r++)
		if (r->clock == &tsc_clock && r->measured)
			break;
	if (r == out->clocks + out->nr)
		return;
	a->measured = true;
	a->read_p50_cycles = r->read_cycles.p50;
	a->lean_p50_cycles = out->references.lean_tsc_read.p50;
	a->step_cycles = r->changed ? r->resolution_ns * out->tsc_hz / 1e9 : 0;
	diff = (double)a->read_p50_cycles - (double)a->lean_p50_cycles;
	if (diff < 0)
		diff = -diff;
	a->agree = diff <= LEAN_AGREEMENT_SHARE * (double)a->lean_p50_cycles ||
		   diff <= a->step_cycles;
}

void measure_all(const struct measure_options *opts, struct measure_result *out)
{
	struct clock *const *cp;
	struct clock_result *r;
	const struct clock_result *source;
	unsigned int present = 0;
	uint64_t share;

	memset(out, 0, sizeof(*out));
	out->budget_ms = opts->budget_ms;
	for (cp = clocks_all(); *cp && out->nr < MAX_CLOCKS; cp++)
		out->clocks[out->nr++].clock = *cp;
	out->tsc_hz = (double)stopwatch_hz();
	out->timed = out->tsc_hz > 0;
	if (!out->timed) {
		progress("no TSC frequency: nothing can be timed");
		count_bad_reads(out);
		return;
	}
	reference = choose_reference();
	out->reference = reference;
	measure_empty(ns_to_cycles(opts->budget_ms * 1e6 * SHARE_EMPTY));
	measure_references(
		ns_to_cycles(opts->budget_ms * 1e6 * SHARE_REFERENCES));
	out->empty_bracket = empty_bracket;
	out->references = references;
	out->translated = opts->translated;
	for (cp = clocks_all(); *cp; cp++)
		present += (*cp)->present;
	share = present ? ns_to_cycles(opts->budget_ms * 1e6 / present) : 0;

	steal_cpu = cpu_index();
	steal_on =
		steal_open(opts->hv, steal_cpu, &out->steal, &(uint64_t){ 0 });
	for (r = out->clocks; r < out->clocks + out->nr; r++) {
		if (!r->clock->present)
			continue;
		source = rate_source(r, out->clocks);
		/* At most: the per-read loop may end sooner, settled. */
		progress("measuring %s: cost, resolution%s%s%s (at most about "
			 "%u ms)",
			 r->clock->name, source ? "; its rate is " : "",
			 source ? source->clock->name : "",
			 source ? "'s, the same counter" : "",
			 (unsigned int)(cycles_to_ns((double)share) / 1e6));
		if (!measure_per_read(r, (uint64_t)(share * SHARE_PER_READ),
				      opts->samples)) {
			progress("%s not measured: the heap has no room for "
				 "its histograms",
				 r->clock->name);
			continue;
		}
		measure_resolution(r, (uint64_t)(share * SHARE_RESOLUTION));
		measure_batch(r, (uint64_t)(share * SHARE_BATCH));
		measure_conversion(r);
		judge_read(r, opts->translated);
		r->measured = true;
	}
	if (out->steal.kind != STEAL_NONE)
		steal_stop_cpu(steal_cpu);
	steal_on = false;
	compare_lean(out);
	measure_rates(out, opts->rate_ms);
	/* After the rates, whose reads go through the same ports. */
	for (r = out->clocks; r < out->clocks + out->nr; r++)
		if (r->measured)
			record_port_use(r);
	count_bad_reads(out);
}
