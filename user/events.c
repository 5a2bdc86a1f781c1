// SPDX-License-Identifier: MIT
/* clockbench-user's event points (see user/events.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "user/events.h"

#define INPUT_FD 0

static struct termios saved;
static bool console_set;

/* Echo off and each byte as it comes: the host's line is no one's to see
 * twice, and the wait, not the line discipline, decides when to give up. */
static void console_raw(void)
{
	struct termios t;

	if (console_set || tcgetattr(INPUT_FD, &saved))
		return;
	t = saved;
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(INPUT_FD, TCSANOW, &t) == 0)
		console_set = true;
}

void user_events_finish(void)
{
	if (console_set)
		tcsetattr(INPUT_FD, TCSANOW, &saved);
	console_set = false;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The next line on the input into @line (ends of line dropped), waiting
 * until @deadline_ms: 1, 0 at the deadline, -1 with errno on an error or
 * the input's end (errno 0). */
static int read_line(char line[HOSTLINE_MAX + 1], size_t *len,
		     long long deadline_ms)
{
	*len = 0;
	for (;;) {
		struct pollfd p = { .fd = INPUT_FD, .events = POLLIN };
		long long left = deadline_ms - now_ms();
		char c;
		ssize_t n;
		int ready;

		if (left <= 0)
			return 0;
		ready = poll(&p, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -1;
		if (!ready)
			return 0;
		n = read(INPUT_FD, &c, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (!n)
				errno = 0;
			return -1;
		}
		if (c == '\n' || c == '\r') {
			if (*len)
				return 1;
			continue;
		}
		if (*len < HOSTLINE_MAX)
			line[(*len)++] = c;
		/* longer: cut, and hostline_parse() says what is wrong */
	}
}

/* Wait for the host's line of kind @kind (or abort) for event @seq. */
static bool wait_host(unsigned int seq, enum hostline_kind kind,
		      unsigned int wait_ms, struct host_event *e,
		      struct user_event *out)
{
	long long deadline = now_ms() + wait_ms;
	char line[HOSTLINE_MAX + 1], err[USER_EVENT_TEXT_LEN];
	const char *what = kind == HOSTLINE_SYNC ? "sync" : "done";
	size_t len;

	for (;;) {
		int got = read_line(line, &len, deadline);

		if (got == 0) {
			snprintf(out->problem, sizeof(out->problem),
				 "the host did not answer the %s of event %u "
				 "within %u ms",
				 what, seq, wait_ms);
			return false;
		}
		if (got < 0) {
			snprintf(out->problem, sizeof(out->problem),
				 "the console's input %s while waiting for "
				 "the host's %s of event %u",
				 errno ? strerror(errno) : "ended", what, seq);
			return false;
		}
		if (!hostline_is_host_line(line, len))
			continue; /* a stray key press */
		if (hostline_parse(line, len, e, err, sizeof(err))) {
			snprintf(out->problem, sizeof(out->problem),
				 "the host's line at event %u was refused: "
				 "%.150s",
				 seq, err);
			return false;
		}
		if (e->seq != seq)
			continue; /* an older event's late line */
		if (e->kind == HOSTLINE_ABORT) {
			snprintf(out->problem, sizeof(out->problem),
				 "the host could not carry out event %u "
				 "(abort%s%s)",
				 seq, e->event[0] ? " event=" : "", e->event);
			return false;
		}
		if (e->kind == HOSTLINE_PING) {
			/* After the event: the host checks the way back. */
			printf("clockbench-event %u pong\n", seq);
			fflush(stdout);
			continue;
		}
		if (e->kind == kind)
			return true;
	}
}

bool user_event_point(unsigned int seq, unsigned int wait_ms,
		      struct user_event *out)
{
	struct host_event e;

	memset(out, 0, sizeof(*out));
	out->seq = seq;
	console_raw();
	printf("clockbench-event %u sync\n", seq);
	fflush(stdout);
	if (!wait_host(seq, HOSTLINE_SYNC, wait_ms, &e, out))
		return false;
	printf("clockbench-event %u ready\n", seq);
	fflush(stdout);
	if (!wait_host(seq, HOSTLINE_DONE, wait_ms, &e, out))
		return false;
	snprintf(out->kind, sizeof(out->kind), "%s",
		 e.event[0] ? e.event : "event");
	out->answered = true;
	return true;
}
