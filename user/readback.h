/* SPDX-License-Identifier: MIT */
/*
 * What Linux decided about its clocksources, read back (docs/os-layer.md,
 * the document's kernel_clocksource): uname -r, /proc/cmdline, the TSC
 * flags of /proc/cpuinfo, snapshots of sysfs's current and available
 * clocksource ("boot" before clockbench-user switches any, one after each
 * event, "end" after everything) and the kernel's log lines about them
 * (user/kernlog.h), read from /dev/kmsg at each snapshot.
 */
#ifndef CLOCKBENCH_USER_READBACK_H
#define CLOCKBENCH_USER_READBACK_H

#include <stdbool.h>

#include "user/clocksource.h"
#include "user/kernlog.h"

#define READBACK_TEXT_LEN    200
#define READBACK_CMDLINE_LEN 2048 /* x86's COMMAND_LINE_SIZE */
#define READBACK_WHEN_LEN    40
#define READBACK_KIND_LEN    16
/* "boot", one per event (the image's events= maximum, 8), "end". */
#define READBACK_MAX_SNAPSHOTS 10

struct readback_snapshot {
	char when[READBACK_WHEN_LEN]; /* "boot", "after stop 1", "end" */
	unsigned int event_seq;	      /* 0: not after an event */
	char event_kind[READBACK_KIND_LEN];
	double uptime_s; /* CLOCK_BOOTTIME */
	bool known;	 /* current and available were read */
	char current[CLOCKSOURCE_NAME_LEN];
	struct clocksource_list available;
};

struct readback {
	bool read;			    /* false: reason says why */
	char reason[READBACK_TEXT_LEN];	    /* why it could not be read */
	char release[65];		    /* uname -r */
	char cmdline[READBACK_CMDLINE_LEN]; /* /proc/cmdline */
	bool flags_read;
	bool flags[CPU_FLAG_NR];
	unsigned int nr_snapshots;
	struct readback_snapshot snapshots[READBACK_MAX_SNAPSHOTS];
	struct kernlog log;
	int kmsg_fd; /* open from begin to end */
};

/**
 * Start the read-back: the release, the command line, the CPU flags, the
 * kernel's log so far and the "boot" snapshot (sysfs under @sysfs_dir,
 * NULL the real one).  What cannot be read makes @rb->read false with the
 * reason.
 */
void readback_begin(struct readback *rb, const char *sysfs_dir);

/**
 * A snapshot after event @seq (@kind: "stop", "savevm", "migrate"): the
 * kernel's log since the last one, then the clocksources.
 */
void readback_after_event(struct readback *rb, const char *sysfs_dir,
			  unsigned int seq, const char *kind);

/** The "end" snapshot, and the log's last records. */
void readback_end(struct readback *rb, const char *sysfs_dir);

#endif
