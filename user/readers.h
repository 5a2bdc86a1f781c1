/* SPDX-License-Identifier: MIT */
/*
 * What clockbench-user reads: each clock id of clock_gettime(), and
 * gettimeofday() and time(), once through libc (which asks the vDSO, and
 * the vDSO the kernel when its clocksource has no vDSO mode) and once
 * through the system call itself; and the TSC from user space (rdtsc,
 * rdtscp).  A reader returns nanoseconds, or TSC counts for the
 * instructions.
 */
#ifndef CLOCKBENCH_USER_READERS_H
#define CLOCKBENCH_USER_READERS_H

#include <stdbool.h>
#include <stdint.h>

/* How a reader reaches its clock. */
enum reader_path {
	READER_LIBC,	    /* the libc function: vDSO, or its fallback */
	READER_SYSCALL,	    /* syscall(SYS_...): always the kernel */
	READER_INSTRUCTION, /* rdtsc or rdtscp in user space */
};

/* flags */
#define READER_MONOTONIC (1u << 0) /* may never step back, on any CPU */
#define READER_COUNTS	 (1u << 1) /* returns TSC counts, not ns */
#define READER_SECONDS	 (1u << 2) /* time(): whole seconds */
#define READER_WARPS	 (1u << 3) /* cross-CPU warps are measured */

#define READER_TEXT_LEN 160

struct reader {
	const char *name;  /* for people: "clock_gettime(CLOCK_MONOTONIC)" */
	const char *call;  /* JSON: "clock_gettime", "gettimeofday", ... */
	const char *clock; /* JSON: "CLOCK_MONOTONIC", or NULL */
	enum reader_path path;
	unsigned int flags;
	/* One read, as fast as it goes: ns (or counts) since its epoch. */
	uint64_t (*read)(void);
	/* One read that says whether it worked: 0, or the errno. */
	int (*try_read)(void);
	/* Filled in by readers_probe(). */
	bool present;
	char absent_reason[READER_TEXT_LEN];
};

/** Every reader, in table order; *@nr is their count. */
struct reader *readers_all(unsigned int *nr);

/**
 * Find which readers work here: each clock id once, and the instructions
 * when the CPU has them and this process may use them (prctl PR_GET_TSC).
 */
void readers_probe(void);

/** "libc", "syscall" or "instruction". */
const char *reader_path_key(enum reader_path path);

/** lfence; rdtsc: a TSC read that earlier instructions have finished for. */
static inline uint64_t reader_tsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif
