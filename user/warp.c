// SPDX-License-Identifier: MIT
/* Cross-CPU warps between pinned threads (see user/warp.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "user/warp.h"

#define WARP_MAX_THREADS 64
#define WARP_MAX_READS	 (1ull << 24) /* per thread: a bound, not a goal */

struct warp_shared {
	uint64_t (*read)(void);
	int go;		 /* set when every thread is started */
	int lock;	 /* 0 free, 1 taken (__atomic builtins) */
	int stop;	 /* set by the main thread when the time is up */
	uint64_t last;	 /* the last value read, under the lock */
	int last_thread; /* who read it; -1 before the first read */
	uint64_t reads, crossings, warps, worst;
};

struct warp_thread {
	struct warp_shared *shared;
	int index;
};

static void *warp_thread_main(void *arg)
{
	struct warp_thread *t = arg;
	struct warp_shared *s = t->shared;
	uint64_t i;

	while (!__atomic_load_n(&s->go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < WARP_MAX_READS &&
		    !__atomic_load_n(&s->stop, __ATOMIC_RELAXED);) {
		uint64_t now;

		/* Only after another CPU's read: every read is then one
		 * that can show a warp (a lock alone goes mostly to the
		 * thread that just released it). */
		if (__atomic_load_n(&s->last_thread, __ATOMIC_RELAXED) ==
		    t->index) {
			__builtin_ia32_pause();
			continue;
		}
		while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
			while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
				__builtin_ia32_pause();
		if (s->last_thread == t->index) {
			__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
			continue;
		}
		now = s->read();
		if (s->last_thread >= 0 && s->last_thread != t->index) {
			s->crossings++;
			if (now < s->last) {
				s->warps++;
				if (s->last - now > s->worst)
					s->worst = s->last - now;
			}
		}
		s->last = now;
		s->last_thread = t->index;
		s->reads++;
		i++;
		__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

static cpu_set_t allowed;
static int allowed_problem; /* sched_getaffinity()'s errno, or 0 */

void warp_remember_cpus(void)
{
	allowed_problem =
		sched_getaffinity(0, sizeof(allowed), &allowed) ? errno : 0;
}

void warp_measure(uint64_t (*read)(void), unsigned int duration_ms,
		  struct warp_result *out)
{
	static struct warp_thread threads[WARP_MAX_THREADS];
	static pthread_t ids[WARP_MAX_THREADS];
	struct warp_shared shared;
	struct timespec pause = { duration_ms / 1000,
				  (long)(duration_ms % 1000) * 1000000 };
	int cpu, n, started = 0, i, err = 0;

	memset(out, 0, sizeof(*out));
	if (allowed_problem) {
		snprintf(out->reason, sizeof(out->reason),
			 "sched_getaffinity() failed: %s",
			 strerror(allowed_problem));
		return;
	}
	n = CPU_COUNT(&allowed);
	if (n < 2) {
		snprintf(out->reason, sizeof(out->reason),
			 "this process may run on one CPU only");
		return;
	}
	if (n > WARP_MAX_THREADS)
		n = WARP_MAX_THREADS;
	memset(&shared, 0, sizeof(shared));
	shared.read = read;
	shared.last_thread = -1;
	for (cpu = 0; cpu < CPU_SETSIZE && started < n; cpu++) {
		pthread_attr_t attr;
		cpu_set_t one;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		threads[started].shared = &shared;
		threads[started].index = started;
		pthread_attr_init(&attr);
		err = pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		if (!err)
			err = pthread_create(&ids[started], &attr,
					     warp_thread_main,
					     &threads[started]);
		pthread_attr_destroy(&attr);
		if (err) {
			snprintf(out->reason, sizeof(out->reason),
				 "no thread could be pinned to CPU %d: %s", cpu,
				 strerror(err));
			break;
		}
		started++;
	}
	/* A thread that could not start: those that did stop at once. */
	if (started < n)
		__atomic_store_n(&shared.stop, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&shared.go, 1, __ATOMIC_RELEASE);
	if (started == n)
		nanosleep(&pause, NULL);
	__atomic_store_n(&shared.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < started; i++)
		pthread_join(ids[i], NULL);
	if (started < n || err)
		return;
	if (!shared.crossings) {
		snprintf(out->reason, sizeof(out->reason),
			 "no read followed another CPU's within %u ms",
			 duration_ms);
		return;
	}
	out->measured = true;
	out->cpus = (unsigned int)n;
	out->reads = shared.reads;
	out->crossings = shared.crossings;
	out->warps = shared.warps;
	out->worst = shared.worst;
}
