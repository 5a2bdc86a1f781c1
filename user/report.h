/* SPDX-License-Identifier: MIT */
/*
 * What clockbench-user found, as plain values, and its report: the tables
 * for people, the checks (KTAP, lib/ktap.h) and the JSON document (schema
 * clockbench-os/1, docs/os-report.schema.json).  The report touches no
 * clock: everything comes from struct os_report.
 */
#ifndef CLOCKBENCH_USER_REPORT_H
#define CLOCKBENCH_USER_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/ktap.h"
#include "user/clocksource.h"
#include "user/events.h"
#include "user/measure.h"
#include "user/readback.h"

#define OS_MAX_READERS 24
#define OS_TEXT_LEN    200

/* One clocksource's measurements. */
struct os_run {
	char clocksource[CLOCKSOURCE_NAME_LEN];
	char problem[OS_TEXT_LEN]; /* switching to it failed: not measured */
	char path_problem[OS_TEXT_LEN]; /* the vDSO probe could not tell */
	unsigned int nr;
	struct read_result reads[OS_MAX_READERS];
};

struct os_system {
	char kernel[OS_TEXT_LEN];     /* "Linux 6.1.0-57-amd64" */
	char machine[65];	      /* "x86_64" */
	char cpu_model[64];	      /* CPUID's brand string */
	char hypervisor[OS_TEXT_LEN]; /* in words, or "" for none seen */
	unsigned int cpus;	      /* this process may run on */
	bool root;
	bool vdso; /* the kernel mapped one (AT_SYSINFO_EHDR) */
	char tsc_refused[READER_TEXT_LEN]; /* why rdtsc may not be used */
};

struct os_report {
	const char *version;
	struct os_system system;
	struct stopwatch stopwatch;
	unsigned int budget_ms; /* per clocksource */
	char original[CLOCKSOURCE_NAME_LEN];
	struct clocksource_list available;
	char clocksource_problem[OS_TEXT_LEN]; /* sysfs could not be read */
	bool switch_asked, switch_done;
	char switch_reason[OS_TEXT_LEN]; /* why it was not done */
	bool restore_tried, restored;
	char restore_problem[OS_TEXT_LEN];
	unsigned int nr_runs;
	struct os_run runs[CLOCKSOURCE_MAX];
	struct readback kernel;	   /* what Linux decided (kernel_clocksource) */
	unsigned int events_asked; /* --events N */
	unsigned int nr_events;	   /* event points reached */
	struct user_event events[USER_MAX_EVENTS];
};

/** The tables, one per clocksource, on stdout. */
void os_report_print(const struct os_report *rep);

/** The checks of @rep into @k. */
void os_report_checks(const struct os_report *rep, struct ktap *k);

/**
 * The JSON document through @emit (lib/json.h); false if it came out
 * malformed.
 */
bool os_report_json(const struct os_report *rep, const struct ktap *k,
		    void (*emit)(void *ctx, const char *text, size_t len),
		    void *ctx);

#endif
