/* SPDX-License-Identifier: MIT */
/*
 * Where a run's time goes, from the guest's own TSC: every cycle from the
 * first line on is charged to the phase running then (timing_enter()),
 * and console output to TIMING_PRINT whatever phase writes it, so the
 * phases add up to the run.  The TSC's count at the first line is kept
 * too: the time since the TSC started, which is boot time only where it
 * started at power-on or the VM's creation (not under every hypervisor:
 * the host runner measures boot on its own clock).  Cycles become ms once
 * the stopwatch knows its rate.
 */
#ifndef CLOCKBENCH_BASE_TIMING_H
#define CLOCKBENCH_BASE_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum timing_phase {
	TIMING_SETUP,	    /* boot information, command line, paging */
	TIMING_ENVIRONMENT, /* CPU, hypervisor, ACPI */
	TIMING_PROBE,	    /* finding the clocks, calibrations aside */
	TIMING_CALIBRATE,   /* measuring clocks' rates against a reference */
	TIMING_CPUS,	    /* starting the other CPUs */
	TIMING_MEASURE,
	TIMING_CROSS_CPU,
	TIMING_TICKS,
	TIMING_SELFTEST,
	TIMING_REPORT, /* checks and the report, the printing aside */
	TIMING_PRINT,  /* bytes to the console */
	TIMING_NR
};

/* Where the run's time went, for the report. */
struct timing_result {
	bool timed; /* false: the TSC's rate is unknown, all below 0 */
	double tsc_at_first_line_ms; /* the TSC's count at the first line */
	double phase_ms[TIMING_NR];
	double run_ms;		/* the first line to now, measured on its own */
	uint64_t console_bytes; /* written to the console, as sent */
	uint64_t console_lost_bytes; /* of those, given up on so far */
	unsigned int console_burst;  /* bytes the console takes per wait */
};

/** Start the accounts (first thing in the run), in TIMING_SETUP. */
void timing_start(void);

/** Charge from now on to @phase; returns the phase charged until now. */
enum timing_phase timing_enter(enum timing_phase phase);

/** @bytes went to the console (TIMING_PRINT's own count). */
void timing_console_bytes(size_t bytes);

/** The accounts until now into @out; @console_burst is the console's. */
void timing_collect(unsigned int console_burst, struct timing_result *out);

#endif
