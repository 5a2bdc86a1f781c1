/* SPDX-License-Identifier: MIT */
/*
 * The VM's life as clockbench-user meets it (docs/lifecycle.md, the Linux
 * boots): at each event point it says "clockbench-event K sync" and
 * "clockbench-event K ready" on its console, as the image does, and waits
 * for the host's lines on its standard input (the console, ttyS0), parsed
 * by lib/hostline.c; the host carries the event out (QMP stop and cont,
 * savevm and loadvm, a migration) between the two.  Every wait is bounded.
 */
#ifndef CLOCKBENCH_USER_EVENTS_H
#define CLOCKBENCH_USER_EVENTS_H

#include <stdbool.h>

#include "lib/hostline.h"

#define USER_MAX_EVENTS	    8 /* the image's events= maximum */
#define USER_EVENT_TEXT_LEN 200

struct user_event {
	unsigned int seq;
	bool answered;			   /* the host said done */
	char kind[HOSTLINE_EVENT_LEN];	   /* the host's event=: "stop" */
	char problem[USER_EVENT_TEXT_LEN]; /* why it was not answered */
};

/**
 * Event point @seq: announce it, wait for the host's sync and its done (at
 * most @wait_ms each) and fill @out.  Returns true when the host said done.
 */
bool user_event_point(unsigned int seq, unsigned int wait_ms,
		      struct user_event *out);

/** Put the console's settings back (after user_event_point()). */
void user_events_finish(void);

#endif
