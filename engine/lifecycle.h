/* SPDX-License-Identifier: MIT */
/*
 * The VM's life: at each event point the runner asked for (events=N), the
 * guest says so on the console, keeps reading every clock on every vCPU
 * while the host stops, snapshots or migrates it, and waits (bounded) for
 * the host's line with the host's own times (lib/hostline.h).  What each
 * clock did over the event is measured here; the report judges it
 * (report/lifecycle.c, docs/lifecycle.md).
 *
 * The console lines, stable for the host to match:
 *   clockbench-event N sync     answered at once: times the round trip
 *   clockbench-event N ready    the event may start
 */
#ifndef CLOCKBENCH_ENGINE_LIFECYCLE_H
#define CLOCKBENCH_ENGINE_LIFECYCLE_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"
#include "engine/pvsteps.h"
#include "lib/clock.h"
#include "lib/hostline.h"
#include "lib/tick_source.h"
#include "lib/tickmath.h"

#define LIFECYCLE_MAX_EVENTS 8
#define LIFECYCLE_MAX_CLOCKS 8
#define LIFECYCLE_TEXT_LEN   200

/* One clock across one event, as CPU 0 read it (every clock back to back
 * each time round its loop), unwrapped read by read. */
struct lifecycle_clock {
	const struct clock *clock;
	double advance_ns; /* from "ready" to the host's line's first byte */
	double largest_step_ns; /* between two reads in a row, CPU 0 */
	/* Where that step began: the TSC's time since "ready", and this
	 * clock's own advance since then.  The step is the blackout this
	 * clock showed the guest: how far it moved while CPU 0 did not run
	 * (or did not read it). */
	double step_at_ns, step_from_ns;
	/* Against its rate reference (clocks_reference_for), ppm, over a
	 * short window just before the event and just after; NaN: none. */
	double rate_before_ppm, rate_after_ppm;
	double cost_before_ns, cost_after_ns; /* a read, mean of a loop */
	/* Steps back seen on any vCPU, and the worst, ns. */
	uint64_t back_steps;
	double worst_back_ns;
	unsigned int back_cpu; /* where the worst one was */
	/* Each vCPU's offset from CPU 0 (the cross-CPU engine's narrowest
	 * bracket), before and after; ok false where not measured. */
	struct {
		bool ok_before, ok_after;
		double before_ns, before_unc_ns, after_ns, after_unc_ns;
	} cpu[MAX_CPUS];
};

/* The pvclock record on CPU 0 before and after: kvm-clock's, else Xen's
 * (present false without either). */
struct lifecycle_pvclock {
	const char *clock; /* "kvm_clock" or "xen_pvclock" */
	bool present, ok_before, ok_after;
	uint32_t version_before, version_after;
	uint8_t flags_before, flags_after;
	bool stopped_seen; /* PVCLOCK_GUEST_STOPPED in any read meanwhile */
	uint64_t updates;  /* version changes CPU 0 saw meanwhile */
};

/*
 * The timer pending across one event (engine/lifecycle_timer.c): the one
 * the run chose (struct lifecycle_result) armed on CPU 0 at
 * LIFECYCLE_TIMER_HZ just before "ready", interrupts on through the wait,
 * and after "done" until its first interrupt after CPU 0's longest gap
 * (bounded).  Figures in ns from the TSC's cycles.
 */
struct lifecycle_timer {
	const char *source; /* the tick source's name */
	bool armed;
	char problem[LIFECYCLE_TEXT_LEN]; /* why it did not run, "" */
	bool oneshot;
	double period_ns;
	/* CPU 0's longest gap between two reads of its loop, by the TSC,
	 * and where it began after "ready". */
	double gap_ns, gap_at_ns;
	double window_ns;     /* from arming to the last instant looked at */
	double after_done_ns; /* waited after "done" for the first after */
	/* How far before its deadline an interrupt may enter and still be
	 * on time: the grid's own uncertainty (arming, its rate's ppm). */
	double slack_ns;
	uint64_t total, recorded; /* interrupts taken; of them on record */
	uint64_t skipped; /* one-shot: expiries its re-arm passed over */
	bool gave_up;	  /* ring 0 turned interrupts off at the bound */
	struct tick_pending outcome; /* cycles */
	double first_after_late_ns, earliest_ns;
	/* Where the earliest interrupt entered, after "ready" (NaN: none
	 * before its deadline). */
	double earliest_at_ns;
};

/* The slow heartbeat: every followed clock's advance since "ready", as CPU 0
 * read it at most every interval_ns of the TSC through the wait; when the
 * records fill, every other one goes and the interval doubles, so that they
 * span the whole wait in bounded memory. */
#define LIFECYCLE_HEARTBEATS	     64
#define LIFECYCLE_HEARTBEAT_FIRST_NS 10000000.0

struct lifecycle_heartbeat {
	double tsc_ns; /* since "ready", by the TSC */
	double advance_ns[LIFECYCLE_MAX_CLOCKS];
};

struct lifecycle_event {
	unsigned int seq;
	bool reached;  /* the guest got to this event point */
	bool sampled;  /* it said "ready" and read the clocks meanwhile */
	bool answered; /* the host's "done" came */
	bool aborted;  /* the host said it could not carry it out */
	char problem[LIFECYCLE_TEXT_LEN]; /* what went wrong, "" if nothing */
	char kind[HOSTLINE_EVENT_LEN];	  /* the host's name for it */
	struct host_event sync, host;
	double round_trip_ns; /* the sync's, less the host's own time */
	/* The ping's, after the event (NaN: the host sent none, or gave
	 * its times in no done line), less the guest's own time. */
	double round_trip_after_ns;
	unsigned int pings; /* ping lines answered */
	/* The time the two rounds of reads each clock's advance comes from
	 * took (at "ready" and at the host line's first byte), by the TSC:
	 * where in them each clock was read is not known. */
	double read_rounds_ns;
	double waited_ns;	  /* the guest's wait for "done", by the TSC */
	uint64_t loops[MAX_CPUS]; /* reads of every clock, per vCPU */
	unsigned int nr_clocks;
	struct lifecycle_clock clocks[LIFECYCLE_MAX_CLOCKS];
	struct lifecycle_pvclock pvclock;
	struct lifecycle_timer timer;
	unsigned int nr_beats;
	double beat_interval_ns;
	struct lifecycle_heartbeat beats[LIFECYCLE_HEARTBEATS];
	/* The platform's own part (a Xen PV domU's suspend for xl save):
	 * times it suspended and resumed, and what it said last. */
	unsigned int suspended;
	char platform_said[LIFECYCLE_TEXT_LEN];
	/* Lines on the console's input, in the event's sync and wait, that
	 * were not the host's: dropped, counted here. */
	unsigned int stray_lines;
	/* After a restore, the other vCPUs' own part set up again: how many
	 * did, of how many online, and the first that could not, why. */
	unsigned int cpus_resumed, cpus_to_resume;
	char cpu_resume_problem[LIFECYCLE_TEXT_LEN];
};

struct lifecycle_options {
	unsigned int events;  /* event points; 0: none */
	unsigned int wait_ms; /* the most each waits for the host */
	/* The pvclock step monitor (engine/pvsteps.h), polled every round
	 * of every vCPU's wait; NULL: none. */
	struct pvsteps_result *pvsteps;
	const struct probe_env *probe; /* to probe the pending timer */
};

struct lifecycle_result {
	bool applies;
	char reason[LIFECYCLE_TEXT_LEN]; /* why not */
	unsigned int asked, nr;		 /* events asked, events tried */
	unsigned int wait_ms, ncpu;
	char left_out[LIFECYCLE_TEXT_LEN]; /* clocks not followed, and why */
	/* The timer armed across each event, and why that one (or why
	 * none: then the events run without one). */
	struct tick_source *timer;
	char timer_why[LIFECYCLE_TEXT_LEN];
	/* nr of them, asked of the heap when events are asked (16 KiB each):
	 * kept in the image, the 8 a run may ask grew it past the 8 MiB of
	 * RAM it runs in. */
	struct lifecycle_event *events;
};

/** Run the event points, into @out. */
void lifecycle_run(const struct lifecycle_options *opts,
		   struct lifecycle_result *out);

#endif
