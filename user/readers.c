// SPDX-License-Identifier: MIT
/* The readers of clockbench-user (see user/readers.h). */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "user/readers.h"

static inline uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/*
 * For each clock id: a reader through libc and one through the system
 * call, and the try_read() of each.  Never inlined, so that every read is
 * a call, as the image's reads through struct clock are.
 */
#define CLOCK_READERS(id)                                               \
	static __attribute__((noinline)) uint64_t libc_##id(void)       \
	{                                                               \
		struct timespec ts;                                     \
		clock_gettime(id, &ts);                                 \
		return timespec_ns(&ts);                                \
	}                                                               \
	static __attribute__((noinline)) uint64_t syscall_##id(void)    \
	{                                                               \
		struct timespec ts;                                     \
		syscall(SYS_clock_gettime, id, &ts);                    \
		return timespec_ns(&ts);                                \
	}                                                               \
	static int try_libc_##id(void)                                  \
	{                                                               \
		struct timespec ts;                                     \
		return clock_gettime(id, &ts) ? errno : 0;              \
	}                                                               \
	static int try_syscall_##id(void)                               \
	{                                                               \
		struct timespec ts;                                     \
		return syscall(SYS_clock_gettime, id, &ts) ? errno : 0; \
	}

CLOCK_READERS(CLOCK_REALTIME)
CLOCK_READERS(CLOCK_MONOTONIC)
CLOCK_READERS(CLOCK_MONOTONIC_RAW)
CLOCK_READERS(CLOCK_BOOTTIME)
CLOCK_READERS(CLOCK_TAI)
CLOCK_READERS(CLOCK_REALTIME_COARSE)
CLOCK_READERS(CLOCK_MONOTONIC_COARSE)

static __attribute__((noinline)) uint64_t libc_gettimeofday(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000000ull +
	       (uint64_t)tv.tv_usec * 1000;
}

static __attribute__((noinline)) uint64_t syscall_gettimeofday(void)
{
	struct timeval tv;

	syscall(SYS_gettimeofday, &tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000000ull +
	       (uint64_t)tv.tv_usec * 1000;
}

static int try_libc_gettimeofday(void)
{
	struct timeval tv;

	return gettimeofday(&tv, NULL) ? errno : 0;
}

static int try_syscall_gettimeofday(void)
{
	struct timeval tv;

	return syscall(SYS_gettimeofday, &tv, NULL) ? errno : 0;
}

static __attribute__((noinline)) uint64_t libc_time(void)
{
	return (uint64_t)time(NULL) * 1000000000ull;
}

static __attribute__((noinline)) uint64_t syscall_time(void)
{
	return (uint64_t)syscall(SYS_time, NULL) * 1000000000ull;
}

/* time() has no error but (time_t)-1 with errno set. */
static int try_libc_time(void)
{
	errno = 0;
	return time(NULL) == (time_t)-1 && errno ? errno : 0;
}

static int try_syscall_time(void)
{
	errno = 0;
	return syscall(SYS_time, NULL) == -1 && errno ? errno : 0;
}

static __attribute__((noinline)) uint64_t read_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static __attribute__((noinline)) uint64_t read_rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

static int try_nothing(void)
{
	return 0;
}

#define MONO (READER_MONOTONIC | READER_WARPS)
#define BOTH_PATHS(id, flags)                                                  \
	{ "clock_gettime(" #id ")",                                            \
	  "clock_gettime",                                                     \
	  #id,                                                                 \
	  READER_LIBC,                                                         \
	  (flags),                                                             \
	  libc_##id,                                                           \
	  try_libc_##id,                                                       \
	  false,                                                               \
	  "" },                                                                \
	{                                                                      \
		"clock_gettime(" #id ")", "clock_gettime", #id,                \
			READER_SYSCALL, (flags) & ~READER_WARPS, syscall_##id, \
			try_syscall_##id, false, ""                            \
	}

static struct reader readers[] = {
	BOTH_PATHS(CLOCK_REALTIME, READER_WARPS),
	BOTH_PATHS(CLOCK_MONOTONIC, MONO),
	BOTH_PATHS(CLOCK_MONOTONIC_RAW, MONO),
	BOTH_PATHS(CLOCK_BOOTTIME, MONO),
	BOTH_PATHS(CLOCK_TAI, READER_WARPS),
	BOTH_PATHS(CLOCK_REALTIME_COARSE, READER_WARPS),
	BOTH_PATHS(CLOCK_MONOTONIC_COARSE, MONO),
	{ "gettimeofday()", "gettimeofday", NULL, READER_LIBC, 0,
	  libc_gettimeofday, try_libc_gettimeofday, false, "" },
	{ "gettimeofday()", "gettimeofday", NULL, READER_SYSCALL, 0,
	  syscall_gettimeofday, try_syscall_gettimeofday, false, "" },
	{ "time()", "time", NULL, READER_LIBC, READER_SECONDS, libc_time,
	  try_libc_time, false, "" },
	{ "time()", "time", NULL, READER_SYSCALL, READER_SECONDS, syscall_time,
	  try_syscall_time, false, "" },
	{ "rdtsc", "rdtsc", NULL, READER_INSTRUCTION,
	  READER_COUNTS | READER_WARPS, read_rdtsc, try_nothing, false, "" },
	{ "rdtscp", "rdtscp", NULL, READER_INSTRUCTION,
	  READER_COUNTS | READER_WARPS, read_rdtscp, try_nothing, false, "" },
};

struct reader *readers_all(unsigned int *nr)
{
	*nr = sizeof(readers) / sizeof(readers[0]);
	return readers;
}

const char *reader_path_key(enum reader_path path)
{
	switch (path) {
	case READER_LIBC:
		return "libc";
	case READER_SYSCALL:
		return "syscall";
	case READER_INSTRUCTION:
		return "instruction";
	}
	return "?";
}

/* Why this process may not run @insn, or NULL when it may. */
static const char *instruction_refused(const char *insn)
{
	unsigned int eax, ebx, ecx, edx;
	int tsc_mode = 0;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 4)))
		return "the CPU has no TSC (CPUID.1:EDX.TSC is clear)";
	if (!strcmp(insn, "rdtscp") &&
	    (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) ||
	     !(edx & (1u << 27))))
		return "the CPU has no rdtscp (CPUID.80000001h:EDX.RDTSCP is "
		       "clear)";
	if (prctl(PR_GET_TSC, &tsc_mode, 0, 0, 0) == 0 &&
	    tsc_mode == PR_TSC_SIGSEGV)
		return "the TSC is disabled for this process (prctl PR_GET_TSC "
		       "says PR_TSC_SIGSEGV)";
	return NULL;
}

void readers_probe(void)
{
	unsigned int nr, i;
	struct reader *r = readers_all(&nr);

	for (i = 0; i < nr; i++, r++) {
		const char *refused = NULL;
		int err = 0;

		if (r->path == READER_INSTRUCTION)
			refused = instruction_refused(r->call);
		else
			err = r->try_read();
		r->present = !refused && !err;
		if (refused)
			snprintf(r->absent_reason, sizeof(r->absent_reason),
				 "%s", refused);
		else if (err)
			snprintf(r->absent_reason, sizeof(r->absent_reason),
				 "%s fails with %s", r->name, strerror(err));
		else
			r->absent_reason[0] = '\0';
	}
}
