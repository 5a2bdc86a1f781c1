/* SPDX-License-Identifier: MIT */
/*
 * Guest options: key=value words on the boot command line.  One table
 * (options.c) names every key, its values, its default and what it does;
 * the parser, the error messages and `help=1` all read that table.
 */
#ifndef CLOCKBENCH_LIB_OPTIONS_H
#define CLOCKBENCH_LIB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_writer;

/* The schema of options_json()'s document. */
#define OPTIONS_SCHEMA "clockbench-options/1"

/* The most per-read samples one may ask of a clock (samples=).  Every
 * sample goes into a histogram of constant size (lib/hist.h), so this
 * bounds the time only: a million reads trapped at 100 us take 100 s. */
#define MEASURE_MAX_SAMPLES 1000000

/* The most timer rates one run measures each tick source at. */
#define TICK_MAX_RATES 8

/* The noise phase's default gap threshold (noise_gap_ns=): above a
 * TSC read's cost anywhere (10 to 40 ns natively, under TCG 10 to 30 ns
 * and its translated blocks' odd hold-ups), below the shortest host
 * preemption or VM exit worth naming. */
#define NOISE_THRESHOLD_NS_DEFAULT 5000

/* How the run ends once the verdict is known (see base/exit.c). */
enum exit_method {
	EXIT_AUTO,  /* isa-debug-exit, then ACPI power-off, then halt */
	EXIT_ISA,   /* isa-debug-exit only, then halt */
	EXIT_ACPI,  /* ACPI power-off only, then halt */
	EXIT_RESET, /* reset the machine */
	EXIT_HALT,  /* stop the CPU and leave the report on screen */
};

/* How ring 3's port accesses are let through where IOPL 3 is ignored. */
enum port_io_mode {
	PORT_IO_BITMAP, /* the TSS I/O permission bitmap allows each port used */
	PORT_IO_TRAP,	/* no port allowed: every access takes the #GP path */
};

/* An exception provoked on purpose, to test fault reporting. */
enum fault_test {
	FAULT_NONE,
	FAULT_DE,    /* divide by zero */
	FAULT_BP,    /* int3 */
	FAULT_UD,    /* ud2 */
	FAULT_GP,    /* non-canonical address */
	FAULT_PF,    /* read of an unmapped address */
	FAULT_NMI,   /* int $2 through the NMI gate */
	FAULT_DF,    /* an exception with the stack pointer in the guard page */
	FAULT_STACK, /* unbounded recursion into the stack guard page */
};

struct options {
	enum exit_method exit_method;
	enum fault_test fault;
	enum port_io_mode port_io;
	bool verbose;
	bool acpi_dump;
	unsigned int budget_ms;	    /* measurement time for the whole run */
	unsigned int samples;	    /* per-read samples per clock; 0 = budget */
	unsigned int rate_ms;	    /* reference time of a rate measurement */
	unsigned int hold_ap;	    /* APIC ID not to start; 0 = none */
	unsigned int warp_ms;	    /* cross-CPU warp test per clock */
	unsigned int drift_ms;	    /* span of the drift fit */
	unsigned int noise_ms;	    /* each CPU's spin in the noise phase */
	unsigned int noise_gap_ns;  /* the least step that is a gap */
	unsigned int events;	    /* event points (engine/lifecycle.h) */
	unsigned int event_wait_ms; /* the bound on each one's wait */
	unsigned int tick_rates_hz[TICK_MAX_RATES]; /* rates to measure */
	unsigned int nr_tick_rates; /* 0: no tick measurements */
	unsigned int tick_ms;	    /* per tick source and rate */
	bool help;
};

/**
 * Parse @cmdline into @opts, starting from the defaults.  Returns 0, or -1
 * with one sentence in @err naming the offending word and what was
 * expected; an unknown key's message lists every valid key.
 */
int options_parse(const char *cmdline, struct options *opts, char *err,
		  size_t errlen);

/** Print every option with its values, default and meaning to @out. */
void options_describe(FILE *out);

/**
 * Write the option table to @w as one JSON document (OPTIONS_SCHEMA):
 * every option's name, kind (choice, bool, number or list), its values or
 * bounds, its default as it would be written, and its help.  The host
 * runner checks guest options against it before a boot (build/host's
 * guest-options program writes it), so that there is one table.
 */
void options_json(struct json_writer *w);

/** The name of a named option's current value ("auto", "ud", "1"); "?"
 * for numbers and unknown keys. */
const char *options_value_name(const char *key, const struct options *opts);

#endif
