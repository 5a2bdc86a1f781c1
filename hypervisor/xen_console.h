/* SPDX-License-Identifier: MIT */
/*
 * The PV console ring a Xen domU writes (struct xencons_interface from
 * libxen-dev's <xen/io/console.h>).  Pure C over the page: the host unit
 * tests drive it with a page in memory.
 */
#ifndef CLOCKBENCH_HYPERVISOR_XEN_CONSOLE_H
#define CLOCKBENCH_HYPERVISOR_XEN_CONSOLE_H

#include <stddef.h>

#include "lib/xen_abi.h"

/* Waits for room in a full ring before a write gives up: each wait yields
 * the CPU to Xen, so that the domain draining the ring (dom0's xenconsoled)
 * can run even when every vCPU of ours is busy; seconds in all. */
#define XENCONS_WAIT_SPINS 200000u

#include <xen/io/console.h>

/**
 * Copy as much of @buf (@len bytes) into @ring's output as fits now, and
 * publish it (the producer index moves after the bytes are written).
 * Returns the bytes taken; 0 when the ring is full — or when its indexes
 * are inconsistent (the consumer ahead of the producer, or more than a ring
 * apart), which a caller must treat as a broken console, not as full.
 */
size_t xencons_put(volatile struct xencons_interface *ring, const char *buf,
		   size_t len);

/** Whether @ring's indexes are consistent (see xencons_put()). */
int xencons_sane(const volatile struct xencons_interface *ring);

/**
 * Take up to @len bytes of @ring's input (what the console daemon wrote
 * there: the host's line at an event point) into @buf, and publish that
 * they were taken (the consumer index moves after the bytes are read).
 * Returns the bytes taken, 0 when there are none, or -1 when the input's
 * indexes are inconsistent (the producer more than a ring ahead, or
 * behind): nothing is taken then.  The caller tells Xen after taking some,
 * so that the daemon writes more.
 */
int xencons_get(volatile struct xencons_interface *ring, char *buf, size_t len);

/* A console ring in use: where it is, and how to tell and wait for Xen. */
struct xencons {
	volatile struct xencons_interface *ring;
	uint32_t evtchn;
	void (*kick)(uint32_t evtchn); /* EVTCHNOP_send */
	void (*relax)(void);	       /* one wait (a yield); NULL: pause */
	unsigned int max_spins;	       /* waits for room before giving up */
	int broken;	   /* set once the indexes are inconsistent */
	size_t lost;	   /* bytes dropped, not yet reported */
	size_t lost_total; /* bytes dropped in all */
	/* The input taken from the ring, not yet handed on. */
	char in_buf[64];
	unsigned int in_len, in_pos;
	int in_broken; /* set once the input's indexes are inconsistent */
};

/**
 * The next byte of @c's input (0-255), taking what the ring holds a buffer
 * at a time and telling Xen (kick) when it took some; -1 when there is
 * none now, or when the input's indexes were ever inconsistent (then
 * in_broken is set and nothing is read again).
 */
int xencons_read_byte(struct xencons *c);

/* After output was lost, a write waits this fraction of max_spins. */
#define XENCONS_LOST_WAIT_DIVISOR 64

/** The most a lost-output notice takes in the ring. */
#define XENCONS_NOTICE_LEN 120

/**
 * Write all of @buf (@len bytes) to @c's ring, telling Xen after each
 * piece, waiting for room at most max_spins waits at a time.  When the
 * ring stays full that long, the rest of @buf is dropped and counted; the
 * next write that finds room first says in the ring how many bytes were
 * lost, and until then a write waits only max_spins / 64 for that room
 * before it drops its bytes too.
 * Returns 0 when all of @buf went into the ring, -1 when some was dropped
 * or the ring is broken (inconsistent indexes: nothing is written again).
 */
int xencons_write(struct xencons *c, const char *buf, size_t len);

/** Wait, at most max_spins waits, for Xen to drain @c's ring. */
void xencons_flush(struct xencons *c);

#endif
