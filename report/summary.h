/* SPDX-License-Identifier: MIT */
/*
 * The one place that writes the measurement report: the table for people,
 * the checks drawn from the measurements, and the JSON document
 * ("clockbench/1", docs/report-format.md) for machines.
 */
#ifndef CLOCKBENCH_REPORT_SUMMARY_H
#define CLOCKBENCH_REPORT_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/verdict.h"

/* How far a measured rate may stray from nominal before a check fails:
 * generous, since this checks frequencies, not timing quality. */
#define RATE_TOLERANCE_PPM 10000.0

/* What the JSON's "env" says; filled in by kernel_boot(). */
struct report_env {
	const char *version;
	const char *boot;
	const char *cmdline;
	char cpu[160];
	const char *hypervisor;		  /* "KVM", "TCG", ..., "none" */
	const char *hypervisor_signature; /* NULL without one */
	int cpus;			  /* -1 when unknown */
	uint64_t memory_mib;
	bool iopl_honoured;
	unsigned int budget_ms;
	unsigned int cpus_online; /* the boot CPU and every AP that started */
};

/** The per-clock table, after measure_all(). */
void summary_print_table(void);

/** Checks from the measurements: advances, monotonic, rate. */
void summary_checks(void);

/** The cross-CPU section of the table, after xcpu_measure(). */
void summary_print_xcpu(void);

/** Checks from the cross-CPU measurements. */
void summary_xcpu_checks(void);

/** The tick section of the table, after ticks_measure(). */
void summary_print_ticks(void);

/** Checks from the tick measurements: each source present or absent with
 * a reason; at 1000 Hz the rate delivered; the CPU lost; the lateness. */
void summary_ticks_checks(void);

struct json_writer;
struct stats_summary;
/** @st as {min, p50, p90, p99, p999, max} under @key, or null when not
 * @present. */
void summary_json_stats(struct json_writer *w, const char *key,
			const struct stats_summary *st, bool present);

/** The "ticks" member of the JSON document (kernel/summary_ticks.c). */
void summary_json_ticks(struct json_writer *w);

/** The JSON document between its console markers. */
void summary_print_json(const struct report_env *env, enum verdict verdict);

#endif
