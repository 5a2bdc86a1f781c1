/* SPDX-License-Identifier: MIT */
/*
 * The measurement engine: for each present clock, what one read costs
 * (a distribution, and a batch figure), how fine the clock is, whether it
 * goes backwards, how fast it really runs, and whether its reads are
 * trapped.  It knows no particular clock: everything comes through
 * struct clock.
 */
#ifndef CLOCKBENCH_ENGINE_MEASURE_H
#define CLOCKBENCH_ENGINE_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/platform.h"
#include "lib/batch.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "engine/clocks.h"
#include "lib/stats.h"
#include "lib/steal.h"

struct hv_info;

struct measure_options {
	unsigned int budget_ms; /* all measurements of the run */
	unsigned int samples; /* per-read samples per clock; 0 = from budget */
	unsigned int rate_ms; /* reference time for each rate measurement */
	/* Every instruction is translated (TCG): no read is intercepted. */
	bool translated;
	/* The hypervisor found, for its steal record (hypervisor/steal.h). */
	const struct hv_info *hv;
};

/* A read slower than its clock's native bound is trapped only when it is
 * also this many times the reference sequence timed the same way in the
 * same run (engine/measure.c, judge_read()).  An exit costs a microsecond
 * or more, 100 times the sequence natively; a pvclock read that nothing
 * intercepts, in a Xen PV dom0 under TCG, took 13 to 16 times it (128 to
 * 160 ns against 10), above its 100 ns native bound: 10 flipped it. */
#define TRAP_REFERENCE_FACTOR 30.0

/* A lean reference within this share of a read's p50, or within one step
 * of the TSC, agrees with it (report/measure.c says whether it did). */
#define LEAN_AGREEMENT_SHARE 0.10

/*
 * The references reads are judged against, each measured in the same run
 * the same way as reads are, in TSC cycles.
 */
struct bracket_references {
	/* lfence;rdtsc twice, nothing between: the lean bracket. */
	struct stats_summary lean_bracket;
	/* rdtsc inline in the lean bracket, less its median: a TSC read with
	 * nothing of the engine's path around it. */
	struct stats_summary lean_tsc_read;
	/* The reference sequence (SEQUENCE_STEPS dependent multiply-adds,
	 * which nothing intercepts) read as a clock is, less the empty
	 * bracket, and its batch figure in ns. */
	struct stats_summary sequence_read;
	double sequence_batch_ns;
};

/* The TSC clock's read (rdtsc) against the lean TSC read: the proof that
 * the bracket subtracts all of the engine's path. */
struct lean_agreement {
	bool measured; /* the tsc clock was measured */
	uint64_t read_p50_cycles, lean_p50_cycles;
	double step_cycles; /* the TSC's smallest step seen, in cycles */
	bool agree;	    /* within LEAN_AGREEMENT_SHARE or one step */
};

/* What a clock's read is, as judged (judge_read()). */
enum read_path {
	READ_DIRECT,	 /* runs as it would natively: not intercepted */
	READ_TRAPPED,	 /* intercepted or emulated: slower than native
			  * and far slower than the reference sequence */
	READ_TRANSLATED, /* under TCG: translated code, never intercepted */
};

/* Every bracketed read of one clock, empty bracket subtracted, in constant
 * memory (lib/hist.h): about 14 KiB, taken from the heap once per clock
 * measured (16 clocks at most: 230 KiB of base/libc.h's 4 MiB). */
struct read_hists {
	struct hist cycles, ns;
	/* The reads across which the steal record grew (read between
	 * brackets, never inside one), in cycles as `cycles`. */
	struct hist steal_cycles;
};

/* A clock's per-read tail against the steal record: the reads above its
 * p99 (beyond p99's bucket of the histogram) and how many of them the vCPU
 * was taken away during (the record grew from just before the bracket to
 * just after it). */
struct read_steal_tail {
	bool traced;		   /* the record was read between the reads */
	uint64_t reads_with_steal; /* of every read */
	uint64_t tail_reads;	   /* above p99 */
	uint64_t tail_reads_with_steal;
	uint64_t failed_reads; /* record reads that never settled */
};

struct clock_result {
	const struct clock *clock;
	bool measured;
	/* Every bracketed read: until they settled or the budget ran out. */
	unsigned int samples;
	bool samples_settled; /* they ended as settled (lib/hist.h) */
	/* From the histograms (percentiles within lib/hist.h's bound, min
	 * and max exact). */
	struct stats_summary read_cycles;
	struct stats_summary read_ns;
	const struct read_hists *read_hists; /* NULL unless measured */
	struct read_steal_tail steal_tail;
	/* The batch figure (lib/batch.h): the median of BATCH_RUNS batches,
	 * each its fastest loop of reads less its fastest loop without, and
	 * the fastest and slowest batch. */
	double batch_ns_per_read;
	double batch_ns_min, batch_ns_max;
	unsigned int batches;
	double conversion_ns;
	bool changed;		 /* two consecutive reads ever differed */
	double resolution_ns;	 /* smallest non-zero step */
	uint64_t stalls;	 /* consecutive equal reads */
	double update_hz;	 /* distinct values per second */
	uint64_t backward_steps; /* raw counter, wraps handled */
	uint64_t ambiguous_gaps; /* reads over half a wrap apart */
	uint64_t backward_steps_ns;
	double worst_backward_ns;
	bool rate_measured;
	double rate_ppm, rate_uncertainty_ppm;
	const struct clock *rate_reference;
	/* Set when the rate is another clock's, taken over: the same counter
	 * read another way (tsc, tsc_rdtscp and tsc_ordered all read the
	 * TSC) runs at the same rate, so it is measured once. */
	const struct clock *rate_shared_from;
	char rate_problem[CLOCK_TEXT_LEN];
	/* Slower than the clock can be natively and far slower than the
	 * reference sequence: something intercepts it (judge_read()). */
	enum read_path read_path;
	bool trapped; /* read_path == READ_TRAPPED */
	/* The driver's count of bad reads after measuring (clock->bad_reads;
	 * 0 without one). */
	unsigned long bad_reads;
	/* For a clock read through I/O ports: how each port's accesses were
	 * carried out up to the end of its measurement (clock->ports). */
	struct port_use port_use[CLOCK_MAX_PORTS];
	unsigned int nr_ports;
};

#define MEASURE_BATCHES BATCH_RUNS

#define MAX_CLOCKS 16

/* What the measurements found, for the report. */
struct measure_result {
	bool timed;    /* false: no stopwatch rate, nothing could be timed */
	double tsc_hz; /* the stopwatch's rate the cycles were turned with */
	unsigned int budget_ms;
	/* Two ordered TSC reads around a call to nothing through a pointer,
	 * the path every clock's read takes, in cycles: every read is
	 * corrected by its median. */
	struct stats_summary empty_bracket;
	struct bracket_references references;
	struct lean_agreement lean;
	bool translated; /* under TCG: no read is judged trapped */
	/* The steal record read between per-read samples, which one, and
	 * why there is none or it could not be set up. */
	struct steal_setup steal;
	const struct clock *reference; /* rates are measured against it */
	unsigned int nr;	       /* one per clock, in table order */
	struct clock_result clocks[MAX_CLOCKS];
};

/** Measure every present clock within @opts->budget_ms, into @out. */
void measure_all(const struct measure_options *opts,
		 struct measure_result *out);

#endif
