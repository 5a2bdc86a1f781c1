// SPDX-License-Identifier: MIT
/* Answering the toolstack's suspend request (hypervisor/xen_suspend.h). */
#include <stdio.h>
#include <string.h>

#include "base/stopwatch.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/xen.h"
#include "hypervisor/xen_suspend.h"

/* How often the store is asked, and how long a reply may take. */
#define STORE_POLL_NS  50000000ull
#define STORE_REPLY_NS 2000000000ull

enum {
	IDLE,
	READING,
	ACKING
};

static const char shutdown_node[] = "control/shutdown";

static int ask(struct xen_suspend *s, uint32_t type)
{
	if (xenstore_put_request(s->store, type, ++s->req_id, shutdown_node,
				 sizeof(shutdown_node)))
		return -1;
	xen_evtchn_notify(s->store_evtchn);
	s->asked_at = stopwatch_read();
	return 0;
}

int xen_suspend_poll(struct xen_suspend *s, char *said, size_t len)
{
	struct xenstore_reply reply;
	const char *why = NULL;
	uint64_t now = stopwatch_read();
	int rc;

	said[0] = '\0';
	if (s->broken || !s->store)
		return 0;
	if (s->stage == IDLE) {
		if (now < s->next_poll)
			return 0;
		s->next_poll = now + stopwatch_cycles(STORE_POLL_NS);
		/* A read is the whole request: the path and its NUL. */
		if (ask(s, XS_READ) == 0)
			s->stage = READING;
		return 0;
	}
	rc = xenstore_get_reply(s->store, &reply, &why);
	if (rc == 0 && now - s->asked_at > stopwatch_cycles(STORE_REPLY_NS)) {
		rc = -1;
		why = "xenstore did not answer within 2000 ms";
	}
	if (rc < 0) {
		s->broken = true;
		snprintf(said, len, "xenstore: %s", why);
		return -1;
	}
	if (rc == 0)
		return 0;
	if (s->stage == READING) {
		s->stage = IDLE;
		if (reply.header.type != XS_READ ||
		    strcmp(reply.payload, "suspend"))
			return 0; /* ENOENT, "", or another request */
		/* CPU 0 suspends the whole domain; the others, frozen
		 * where they were, set up their own part again after a
		 * restore (platform_cpu_resumed()). */
		/* A write of the node with an empty value: just its path. */
		if (ask(s, XS_WRITE) == 0)
			s->stage = ACKING;
		return 0;
	}
	s->stage = IDLE;
	if (reply.header.type != XS_WRITE) {
		s->broken = true;
		snprintf(said, len,
			 "xenstore refused to clear control/shutdown: %s",
			 reply.payload);
		return -1;
	}
	xen_pvclock_note_suspend();
	rc = s->suspend(s, said, len);
	return rc < 0 ? -1 : 1;
}

static volatile unsigned int restores;

unsigned int xen_suspend_restores(void)
{
	return __atomic_load_n(&restores, __ATOMIC_ACQUIRE);
}

int xen_suspend_cpu_resumed(char *why, size_t whylen)
{
	char said[160];

	if (xen_pvclock_resume(true, said, sizeof(said))) {
		snprintf(why, whylen, "xen_pvclock: %s", said);
		return -1;
	}
	return 0;
}

int xen_suspend_resumed(long rc, char *said, size_t len)
{
	char clock[160];

	if (xen_pvclock_resume(rc == 0, clock, sizeof(clock)))
		snprintf(said, len, "resumed, but xen_pvclock: %s", clock);
	else if (!said[0])
		snprintf(said, len, "%s (SCHEDOP_shutdown returned %ld)%s%s",
			 rc ? "the suspend was cancelled: resumed in the same "
			      "domain"
			    : "suspended and restored",
			 rc, clock[0] ? "; xen_pvclock: " : "", clock);
	/* The other CPUs, seeing it, set up their own part again. */
	if (!rc)
		__atomic_add_fetch(&restores, 1, __ATOMIC_RELEASE);
	return rc ? 1 : 0;
}
