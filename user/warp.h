/* SPDX-License-Identifier: MIT */
/*
 * Cross-CPU warps, as Linux's tsc_sync.c looks for them: one thread pinned
 * to each CPU this process may run on, all reading one clock under a lock
 * that keeps the last value read; a read below the last one, made later
 * under the lock on another CPU, is a warp.  Bounded in time and in reads.
 */
#ifndef CLOCKBENCH_USER_WARP_H
#define CLOCKBENCH_USER_WARP_H

#include <stdbool.h>
#include <stdint.h>

#include "user/readers.h"

struct warp_result {
	bool measured;
	char reason[READER_TEXT_LEN]; /* why not, when not measured */
	unsigned int cpus;	      /* threads, one per CPU */
	uint64_t reads;		      /* under the lock, all threads */
	uint64_t crossings;	      /* reads that followed another CPU's */
	uint64_t warps;		      /* reads below the last one */
	uint64_t worst;		      /* largest, in the reader's units */
};

/**
 * Remember the CPUs this process may run on now, before the measuring
 * thread pins itself to one: warp_measure() uses each of them.
 */
void warp_remember_cpus(void);

/**
 * Look for warps of @read among the remembered CPUs, for @duration_ms.
 */
void warp_measure(uint64_t (*read)(void), unsigned int duration_ms,
		  struct warp_result *out);

#endif
