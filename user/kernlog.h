/* SPDX-License-Identifier: MIT */
/*
 * What Linux said about its clocksources, read back from its own words:
 * the records of the kernel's log (/dev/kmsg, "LEVEL,SEQ,USEC,FLAGS;TEXT"),
 * of which the lines about clocksources, the TSC and the clocksource
 * watchdog are kept, each clocksource the log says was marked unstable, and
 * the TSC flags of /proc/cpuinfo's first CPU.  Pure C over memory: the
 * kernel's text is untrusted input (host-tested in tests/unit/test_user.c,
 * fuzz target `kernlog`); user/readback.c reads the files.
 */
#ifndef CLOCKBENCH_USER_KERNLOG_H
#define CLOCKBENCH_USER_KERNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "user/clocksource.h"

/* A kept line's text, cut there (the longest watchdog line is ~130). */
#define KERNLOG_LINE_LEN 240
/* Lines kept; a TCG boot of Debian's 6.1 kernel has about 20. */
#define KERNLOG_MAX_LINES 256

struct kernlog_line {
	uint64_t ts_us; /* the record's time stamp: µs since boot */
	char text[KERNLOG_LINE_LEN];
};

/* One clocksource the log says Linux marked unstable: its first such line. */
struct kernlog_unstable {
	char clocksource[CLOCKSOURCE_NAME_LEN];
	uint64_t ts_us;
	char line[KERNLOG_LINE_LEN];
};

struct kernlog {
	unsigned int nr;
	struct kernlog_line lines[KERNLOG_MAX_LINES];
	unsigned int dropped;	/* kept-worthy lines past KERNLOG_MAX_LINES */
	unsigned int records;	/* records read */
	unsigned int malformed; /* records that did not parse */
	bool started;		/* a record was read: next_seq holds */
	uint64_t next_seq;
	bool wrapped; /* records were gone before they were read */
	unsigned int nr_unstable;
	struct kernlog_unstable unstable[CLOCKSOURCE_MAX];
};

/* One record of /dev/kmsg, its text pointing into the record. */
struct kmsg_record {
	unsigned int level; /* 0 (emergency) .. 7 (debug) */
	uint64_t seq;
	uint64_t ts_us;
	const char *text; /* not NUL-terminated */
	size_t text_len;
};

/**
 * Parse one record @rec (@len bytes, as one read() of /dev/kmsg gives it)
 * into @out.  The text ends at the first newline (the lines after it are
 * the record's " KEY=VALUE" dictionary).  Returns 0, or -1 with the reason
 * in @why.
 */
int kmsg_parse_record(const char *rec, size_t len, struct kmsg_record *out,
		      char *why, size_t why_len);

/**
 * Whether a log line (@len bytes) is about clocksources, the TSC or the
 * clocksource watchdog: its subsystem is clocksource, tsc, kvm-clock or
 * sched_clock, or it names a clocksource, the TSC, the timekeeping
 * watchdog or a skew.
 */
bool kernlog_relevant(const char *text, size_t len);

/**
 * The clocksource a log line says Linux marked unstable, into @name:
 * "Marking clocksource 'X' as unstable" (the watchdog) or "Marking TSC
 * unstable due to ..." (tsc, whoever found it).  False for any other line,
 * and for a name no clocksource has.
 */
bool kernlog_unstable_name(const char *text, size_t len,
			   char name[CLOCKSOURCE_NAME_LEN]);

/** Start @log empty. */
void kernlog_init(struct kernlog *log);

/**
 * Take one record of /dev/kmsg (@rec, @len bytes) into @log: a gap in the
 * sequence numbers (the first one not 0, or one skipped) means the kernel
 * had overwritten records first (wrapped); a relevant line is kept, and a
 * clocksource it says was marked unstable noted once.
 */
void kernlog_add(struct kernlog *log, const char *rec, size_t len);

/* The TSC flags clockbench-user reports of /proc/cpuinfo. */
enum cpu_flag {
	CPU_FLAG_TSC,
	CPU_FLAG_CONSTANT_TSC,
	CPU_FLAG_NONSTOP_TSC,
	CPU_FLAG_TSC_ADJUST,
	CPU_FLAG_TSC_KNOWN_FREQ,
	CPU_FLAG_TSC_RELIABLE,
	CPU_FLAG_RDTSCP,
	CPU_FLAG_NR,
};

/** The flag's name in /proc/cpuinfo ("constant_tsc"). */
const char *cpu_flag_name(enum cpu_flag flag);

/**
 * Parse the first CPU's "flags" line of /proc/cpuinfo's text (@len bytes)
 * into @have (one bool per enum cpu_flag).  Returns 0, or -1 with the
 * reason in @why when there is no such line.
 */
int cpuinfo_tsc_flags(const char *text, size_t len, bool have[CPU_FLAG_NR],
		      char *why, size_t why_len);

#endif
