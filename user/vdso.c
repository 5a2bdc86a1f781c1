// SPDX-License-Identifier: MIT
/* Through the vDSO or the system call (see user/vdso.h). */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "user/vdso.h"

#define PROBE_TIMEOUT_MS 5000
#define MAX_PROBED	 64

enum reader_through vdso_decide(enum reader_path path, int err)
{
	switch (path) {
	case READER_INSTRUCTION:
		return THROUGH_INSTRUCTION;
	case READER_SYSCALL:
		return THROUGH_SYSCALL;
	case READER_LIBC:
		break;
	}
	if (err == 0)
		return THROUGH_VDSO;
	return err == VDSO_PROBE_ERRNO ? THROUGH_SYSCALL : THROUGH_UNKNOWN;
}

const char *vdso_through_key(enum reader_through through)
{
	switch (through) {
	case THROUGH_VDSO:
		return "vdso";
	case THROUGH_SYSCALL:
		return "syscall";
	case THROUGH_INSTRUCTION:
		return "instruction";
	case THROUGH_UNKNOWN:
		break;
	}
	return NULL;
}

/* The filter: the three time system calls fail with VDSO_PROBE_ERRNO, on
 * x86-64 only (another architecture's numbers mean other calls). */
static int forbid_time_syscalls(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_gettime, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_gettimeofday, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_time, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO |
				 (VDSO_PROBE_ERRNO & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* The child: the filter, then each libc reader once; its errnos (or, when
 * the filter was refused, -1 and that errno) down @fd. */
static void __attribute__((noreturn))
probe_child(const struct reader *readers, unsigned int nr, int fd)
{
	int result[MAX_PROBED + 1] = { 0 };
	unsigned int i;

	if (forbid_time_syscalls()) {
		result[0] = -1;
		result[1] = errno;
	} else {
		for (i = 0; i < nr; i++)
			result[i + 1] = readers[i].path == READER_LIBC &&
							readers[i].present
						? readers[i].try_read()
						: 0;
	}
	if (write(fd, result, sizeof(result)) != (ssize_t)sizeof(result))
		_exit(1);
	_exit(0);
}

/* Read the child's answer from @fd within PROBE_TIMEOUT_MS. */
static int read_answer(int fd, int *result, size_t len, char *why,
		       size_t why_len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t n;
		int ready = poll(&p, 1, PROBE_TIMEOUT_MS);

		if (ready <= 0)
			return error_set(why, why_len,
					 "the probe's child did not answer "
					 "within %d ms",
					 PROBE_TIMEOUT_MS);
		n = read(fd, (char *)result + got, len - got);
		if (n <= 0)
			return error_set(why, why_len,
					 "the probe's child ended without "
					 "answering");
		got += (size_t)n;
	}
	return 0;
}

int vdso_probe(const struct reader *readers, unsigned int nr,
	       enum reader_through *through, char *why, size_t why_len)
{
	int result[MAX_PROBED + 1], fds[2], rc = 0;
	unsigned int i;
	pid_t child;

	for (i = 0; i < nr; i++)
		through[i] = vdso_decide(readers[i].path, -1);
	if (nr > MAX_PROBED)
		return error_set(why, why_len, "more readers than %d",
				 MAX_PROBED);
	if (pipe(fds))
		return error_set(why, why_len, "pipe() failed: %s",
				 strerror(errno));
	fflush(NULL);
	child = fork();
	if (child < 0) {
		close(fds[0]);
		close(fds[1]);
		return error_set(why, why_len, "fork() failed: %s",
				 strerror(errno));
	}
	if (child == 0) {
		close(fds[0]);
		probe_child(readers, nr, fds[1]);
	}
	close(fds[1]);
	rc = read_answer(fds[0], result, sizeof(result), why, why_len);
	close(fds[0]);
	if (rc)
		kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (rc)
		return -1;
	if (result[0] == -1)
		return error_set(why, why_len,
				 "the kernel refused a seccomp filter: %s",
				 strerror(result[1]));
	for (i = 0; i < nr; i++)
		if (readers[i].present)
			through[i] =
				vdso_decide(readers[i].path, result[i + 1]);
	return 0;
}
