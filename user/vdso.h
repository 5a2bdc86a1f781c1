/* SPDX-License-Identifier: MIT */
/*
 * Whether a read went through the vDSO or fell back to the system call.
 * Linux's vDSO answers clock_gettime(), gettimeofday() and time() itself
 * while the clocksource has a vDSO mode (tsc, kvm-clock, xen with a stable
 * pvclock), and otherwise makes the system call from inside the vDSO.  To
 * see which, a child process forbids those system calls with a seccomp
 * filter that makes them fail with VDSO_PROBE_ERRNO, an errno they never
 * return themselves, and makes each read once: one that still succeeds
 * never left user space.
 */
#ifndef CLOCKBENCH_USER_VDSO_H
#define CLOCKBENCH_USER_VDSO_H

#include <errno.h>
#include <stddef.h>

#include "user/readers.h"

#define VDSO_PROBE_ERRNO EHWPOISON

enum reader_through {
	THROUGH_UNKNOWN, /* the probe could not tell */
	THROUGH_VDSO,
	THROUGH_SYSCALL,
	THROUGH_INSTRUCTION,
};

/**
 * What a read under the probe's filter tells: @err is its try_read()'s
 * result (0 or an errno).  Pure.
 */
enum reader_through vdso_decide(enum reader_path path, int err);

/** "vdso", "syscall", "instruction", or NULL for unknown (JSON null). */
const char *vdso_through_key(enum reader_through through);

/**
 * Probe each of the @nr @readers into @through[] (bounded: a child that
 * does not answer within seconds is killed).  Returns 0, or -1 with the
 * reason in @why (then every entry is THROUGH_UNKNOWN but the syscall and
 * instruction readers', which need no probe).
 */
int vdso_probe(const struct reader *readers, unsigned int nr,
	       enum reader_through *through, char *why, size_t why_len);

#endif
