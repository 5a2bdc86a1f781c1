/* SPDX-License-Identifier: MIT */
/*
 * The bounds the report's checks judge against, each defined here and
 * nowhere else (the tick delivery's, which the engine also uses, are in
 * lib/tickmath.h).  A check gives the ones it used to the JSON with
 * report_tolerance(k, "name_in_lower_case", NAME_IN_LOWER_CASE), and
 * tools/check-rules lists every check with them in docs/report-format.md
 * from these one-line doc comments: keep one above each constant.
 */
#ifndef CLOCKBENCH_REPORT_TOLERANCES_H
#define CLOCKBENCH_REPORT_TOLERANCES_H

/** The least median an empty TSC bracket may have: 0 was never measured. */
#define EMPTY_BRACKET_MIN_CYCLES 1

/** Steps back a clock may take in back-to-back reads: none. */
#define BACKWARD_STEPS_MAX 0

/** How far a measured rate may lie from nominal, either way, in ppm. */
#define RATE_LIMIT_PPM 10000.0

/** Reads a driver may count as bad (torn halves, a stuck version): none. */
#define BAD_READS_MAX 0

/** Steps back one CPU's TSC may take in the noise phase's spin: none. */
#define NOISE_BACKWARD_STEPS_MAX 0

/** Warps a clock that claims CPUs agree may show in the warp test: none. */
#define XCPU_WARPS_MAX 0

/** The tick rate the delivery check is made at, when tick_rates has it. */
#define TICK_CHECKED_RATE_HZ 1000

/*
 * How far below 0 a CPU share lost may lie and still count as noise:
 * STOLEN_NOISE_SPREADS times noise_pct (the loop's speed before, after and
 * during the window: three timings, which understate how far it wanders)
 * plus STOLEN_NOISE_MARGIN_PCT, and at least STOLEN_NOISE_FLOOR_PCT: a
 * host shared with other work (a busy SMT sibling, another emulator) moves
 * the loop's speed by several %, and under make check's two emulators
 * -33 ± 29 was seen.  A sign error or a runaway figure still fails.
 */
/** Below 0, CPU lost may lie this many times its noise_pct, plus margin. */
#define STOLEN_NOISE_SPREADS 2.0
/** Points below 0 CPU lost may lie beyond its noise allowance. */
#define STOLEN_NOISE_MARGIN_PCT 2.0
/** Points below 0 CPU lost may always lie, whatever its noise. */
#define STOLEN_NOISE_FLOOR_PCT 10.0

/*
 * Events (docs/lifecycle.md).  A clock's advance over an event is read
 * against the host's window (its "done" sent less the guest's "ready"
 * read): a running clock lies above it by the console's round trip (the
 * event's sync measures it), plus this much for the guest's own loop and
 * the host's scheduling; within that it ran on, below it froze, above it
 * jumped.
 */
/** Added to the console's round trip to judge how a clock spent an event, ns. */
#define LIFECYCLE_SLACK_NS 5000000.0

/** How far a vCPU's offset from CPU 0 may move over an event, beyond both bounds, ns. */
#define LIFECYCLE_OFFSET_STEP_MAX_NS 100000.0

/** How far before its deadline the timer across an event may fire, beyond its grid's uncertainty, ns. */
#define LIFECYCLE_TIMER_EARLY_MAX_NS 100000.0

/*
 * The pvclock step monitor (report/pvsteps.c): a hypervisor rewrites a
 * vCPU's record while that vCPU is out of the guest, and
 * PVCLOCK_TSC_STABLE_BIT promises time that never goes back.
 */
/** Polls whose pvclock record never settled within its bounded read: none. */
#define PVSTEPS_UNSETTLED_MAX 0

/** Steps back beyond the record's resolution where old and new claim PVCLOCK_TSC_STABLE_BIT: none. */
#define PVSTEPS_STABLE_BACK_MAX 0

#endif
