/* SPDX-License-Identifier: MIT */
/*
 * The host's answer at an event point (docs/lifecycle.md): one line of
 * ASCII on the console's input, whatever carries it (COM1 today; a virtio
 * console or Xen's console ring can hand the same line over later):
 *
 *   clockbench-host SEQ KIND KEY=VALUE ...
 *
 * SEQ is the event's number (from 1), KIND "sync" (an answer at once, which
 * times the console's round trip), "ping" (the event is over: the guest
 * answers "clockbench-event SEQ pong" at once, so that the host knows the
 * way to the guest and back works again, and how long it takes, before it
 * says "done"), "done" (the event is over) or "abort" (the host could not
 * carry it out; its runner says why).  Values are
 * decimal integers in the unit their key names (but event=NAME, the
 * host's name for the event: stop, savevm, migrate, ...); keys this parser does not
 * know are counted and skipped, so that a newer host (Xen's toolstack, say)
 * can add its own.  The line is untrusted input: lengths, digits, ranges
 * and duplicates are checked, and what is wrong is said in one sentence.
 * Pure; host-tested and fuzzed.
 */
#ifndef CLOCKBENCH_LIB_HOSTLINE_H
#define CLOCKBENCH_LIB_HOSTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line the guest keeps, its end of line not counted. */
#define HOSTLINE_MAX	480
#define HOSTLINE_PREFIX "clockbench-host "
/* event=NAME: the host's name for the event, lower case, "-" allowed. */
#define HOSTLINE_EVENT_LEN 16

enum hostline_kind {
	HOSTLINE_SYNC,
	HOSTLINE_PING,
	HOSTLINE_DONE,
	HOSTLINE_ABORT,
};

/* Which of struct host_event's values the line gave (bits). */
enum hostline_key {
	HOST_READY_NS,	    /* CLOCK_MONOTONIC when it read the guest's line */
	HOST_START_NS,	    /* CLOCK_MONOTONIC at the event's start */
	HOST_END_NS,	    /* CLOCK_MONOTONIC at its end */
	HOST_SENT_NS,	    /* CLOCK_MONOTONIC just before writing this line */
	HOST_START_REAL_NS, /* CLOCK_REALTIME at the event's start */
	HOST_END_REAL_NS,   /* CLOCK_REALTIME at its end */
	HOST_STOP_US,	    /* QEMU's STOP event, realtime in us */
	HOST_RESUME_US,	    /* QEMU's RESUME event, realtime in us */
	HOST_DOWNTIME_MS,   /* query-migrate's downtime */
	HOST_TOTAL_MS,	    /* query-migrate's total time */
	HOST_PING_NS,	    /* CLOCK_MONOTONIC just before writing the ping */
	HOST_PONG_NS,	    /* CLOCK_MONOTONIC when it read the guest's pong */
	HOST_NR_KEYS,
};

struct host_event {
	unsigned int seq;
	enum hostline_kind kind;
	unsigned int present; /* 1u << enum hostline_key */
	uint64_t value[HOST_NR_KEYS];
	char event[HOSTLINE_EVENT_LEN]; /* event=NAME, "" when not given */
	unsigned int unknown_keys;	/* skipped */
};

/** The key's name in the line ("ready_ns"). */
const char *hostline_key_name(enum hostline_key key);

/** Whether @e gave @key. */
static inline bool host_event_has(const struct host_event *e,
				  enum hostline_key key)
{
	return e->present & (1u << key);
}

/**
 * Parse @line (@len bytes, no end of line; need not be NUL-terminated)
 * into @out.  Returns 0, or -1 with the sentence in @err.  A "sync" must
 * give ready_ns and sent_ns; a "ping" sent_ns; a "done" ready_ns, start_ns,
 * end_ns and sent_ns, and ping_ns and pong_ns both or neither, in order
 * (ready <= start <= end <= ping <= pong <= sent).
 */
int hostline_parse(const char *line, size_t len, struct host_event *out,
		   char *err, size_t errlen);

/** Whether @line (of @len bytes) is meant for the guest at all: it starts
 * with HOSTLINE_PREFIX.  Other input (a stray key press) is ignored. */
bool hostline_is_host_line(const char *line, size_t len);

#endif
