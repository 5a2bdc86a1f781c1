/* SPDX-License-Identifier: MIT */
/*
 * What timer ticks cost.  For each tick source and each rate, a
 * work loop runs on CPU 0 for tick_ms while the timer interrupts it; the
 * same loop without a timer, timed before and after, is the baseline
 * (one chain of such timings through all windows: the one after a window
 * is the one before the next).
 * The other CPUs halt meanwhile (base/idle.h).
 * From the two: the share of the CPU the interrupts took, the cycles each
 * took, how many arrived a second, and how late each came against the
 * expiry it was for.
 *
 * A tick source is one table entry (engine/tick_sources.c) and one
 * `struct tick_source`; the engine (engine/ticks.c) knows none in
 * particular.  A source programs its timer to raise TICK_VECTOR on CPU 0
 * and tells ring 0 how to end each interrupt (base/tick_irq.h).
 */
#ifndef CLOCKBENCH_ENGINE_TICKS_H
#define CLOCKBENCH_ENGINE_TICKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/tick_irq.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/options.h"
#include "lib/stats.h"
#include "lib/steal.h"
#include "lib/tick_source.h"
#include "lib/tickmath.h"

#define MAX_TICK_SOURCES 8 /* the machine's and the platform's together */

/** The tick sources, NULL-terminated, in report order. */
struct tick_source *const *tick_sources_all(void);

/* Every recorded interrupt of one rate in constant memory (lib/hist.h),
 * about 14 KiB from the heap per rate measured. */
struct tick_hists {
	struct hist handler_cycles, lateness_ns;
};

/* Steal spans kept per window (lib/steal.h): a span is one time the vCPU
 * was taken away (or a run of them), and a shared CPU takes it away every
 * millisecond or so; past these, one is dropped and counted. */
#define TICK_STEAL_SPANS 1024

/* A window's steal, where the hypervisor keeps a record of it: the record
 * read once a chunk of the work loop, and each interrupt's lateness told
 * apart by whether steal grew between its expiry and its entry. */
struct tick_steal {
	bool traced;		/* the record was read through the window */
	uint64_t steal_ns;	/* what it counted in the window */
	uint64_t spans;		/* stretches where it grew (runs merged) */
	uint64_t spans_dropped; /* with no room: lateness past them untold */
	uint64_t failed_reads;	/* reads that never settled (the last kept) */
	/* Each record's lateness split (when lateness_known). */
	struct steal_lateness lateness;
};

/* One source at one rate. */
struct tick_rate_result {
	unsigned int requested_hz;
	enum tick_rate_state {
		TICK_RATE_UNREACHABLE, /* problem says why */
		TICK_RATE_FAILED,      /* start failed: problem says why */
		TICK_RATE_MEASURED,    /* problem may add a caveat */
	} state;
	char problem[TICK_TEXT_LEN];
	struct tick_start start;
	double window_s;     /* the loop's time with the timer on */
	uint64_t interrupts; /* arrived in that window */
	double delivered_hz;
	bool reached;	    /* delivered within 10 % of requested */
	double typical_hz;  /* 1 / the median interval; NaN with < 2 */
	uint64_t long_gaps; /* intervals over 1.5 periods */
	uint64_t chunks;    /* of work done in the window, disturbed ones out */
	double disturbed_ms; /* chunks the host held up, left out */
	double baseline_cycles_per_chunk, window_cycles_per_chunk;
	/* the window's chunks that no interrupt held up (NaN with too few) */
	double quiet_cycles_per_chunk;
	double stolen_pct;	     /* share of the CPU the loop lost */
	double noise_pct;	     /* how far the loop's own speed moved */
	double cycles_per_interrupt; /* from the stolen time */
	uint64_t recorded;	     /* interrupts ring 0 kept records of */
	struct stats_summary handler_cycles; /* entry to exit, per record */
	bool lateness_known;		     /* see tick_start.no_expiries */
	struct tick_spread lateness_ns;	     /* per record */
	/* The two above as histograms, and the figures above taken from
	 * them; NULL when the heap had no room (then the figures are the
	 * records' exact ones).  lateness_ns's is empty unless
	 * lateness_known. */
	const struct tick_hists *hists;
	double grid_uncertainty_ns; /* periodic: how early the grid may be
				     * at the last record; 0 one-shot */
	uint64_t skipped;	    /* one-shot: expiries passed over */
	bool gave_up;		    /* interrupts switched off to go on */
	struct tick_steal steal;
};

struct tick_source_result {
	const struct tick_source *source;
	struct tick_rate_result rates[TICK_MAX_RATES];
	unsigned int nr_rates;
	/* Left out of the idle timings after its rates (the first source
	 * measured: and of the one before them). */
	uint64_t baseline_disturbed_cycles;
};

/* What the tick measurements found, for the report. */
struct ticks_result {
	bool applied;			 /* they ran */
	char not_applied[TICK_TEXT_LEN]; /* why not */
	unsigned int window_ms;		 /* each rate's window (tick_ms) */
	double chunk_cycles; /* the loop's chunk of work, without interrupts */
	double tsc_hz;	     /* the stopwatch's rate cycles were turned with */
	/* Other CPUs halted meanwhile (base/idle.h), and how many of them
	 * did not come back. */
	unsigned int cpus_parked, cpus_not_woken;
	/* Interrupts that were no tick source's (a masked PIC's, the APIC's
	 * spurious vector; none under Xen PV, where only the timer's event
	 * channel is unmasked). */
	unsigned long stray_interrupts;
	/* The steal record read in every window (CPU 0's), which one, and
	 * why there is none or it could not be set up. */
	struct steal_setup steal;
	unsigned int nr; /* one per source, in tick_sources_all() order */
	struct tick_source_result sources[MAX_TICK_SOURCES];
};

/**
 * Probe source @s (its present flag, notes and absent reason), on CPU 0
 * with interrupts off; the lifecycle's pending timer probes its own.
 */
void ticks_probe_one(struct tick_source *s, const struct probe_env *env);

/**
 * Ring 0's interrupt state (base/tick_irq.h) emptied for a new window, its
 * records going to @into (@capacity of them), no deadline armed and no
 * give-up time; interrupts are off.  The lifecycle's pending timer keeps
 * its own records.
 */
void ticks_irq_reset(struct tick_irq_record *into, uint64_t capacity);

/**
 * Probe the sources and measure every present one at every rate of
 * @opts, on CPU 0, with interrupts on only while a timer runs, into @out.
 * Prints a progress line per source.
 */
void ticks_measure(const struct options *opts, const struct probe_env *env,
		   struct ticks_result *out);

#endif
