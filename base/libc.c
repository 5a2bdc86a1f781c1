// SPDX-License-Identifier: MIT
/*
 * The system calls newlib needs from a bare-metal kernel.  Output goes to
 * the console; memory comes from a bounded static heap, and running out of
 * it makes malloc() return NULL with a message, never a wild pointer.
 * Everything else fails with ENOSYS.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/exit.h"
#include "base/console.h"
#include "base/libc.h"
#include "base/platform.h"

#undef errno
extern int errno;

static uint8_t heap[HEAP_SIZE] __attribute__((aligned(64)));
static size_t heap_used;
static unsigned int heap_refusals;
static bool heap_quiet;

void *sbrk(ptrdiff_t increment);
int write(int fd, const void *buf, size_t len);
int read(int fd, void *buf, size_t len);
int close(int fd);
int fstat(int fd, struct stat *st);
int isatty(int fd);
off_t lseek(int fd, off_t offset, int whence);
int kill(int pid, int sig);
int getpid(void);
void _exit(int status);

size_t heap_bytes_used(void)
{
	return heap_used;
}

void heap_quiet_refusals(bool quiet)
{
	heap_quiet = quiet;
}

unsigned int heap_refused_count(void)
{
	return heap_refusals;
}

void *sbrk(ptrdiff_t increment)
{
	void *old = heap + heap_used;

	if (increment < 0 ? (size_t)-increment > heap_used
			  : (size_t)increment > HEAP_SIZE - heap_used) {
		char msg[128];

		heap_refusals++;
		if (!heap_quiet) {
			snprintf(msg, sizeof(msg),
				 "clockbench: heap exhausted: %td more bytes "
				 "asked of the %u KiB heap, %zu used; the "
				 "allocation fails\n",
				 increment, HEAP_SIZE / 1024, heap_used);
			console_puts(msg);
		}
		errno = ENOMEM;
		return (void *)-1;
	}
	heap_used += increment;
	return old;
}

int write(int fd, const void *buf, size_t len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, len);
	return (int)len;
}

int read(int fd, void *buf, size_t len)
{
	(void)fd, (void)buf, (void)len;
	errno = ENOSYS;
	return -1;
}

int close(int fd)
{
	(void)fd;
	errno = ENOSYS;
	return -1;
}

int fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd > 2) {
		errno = EBADF;
		return -1;
	}
	st->st_mode = S_IFCHR;
	return 0;
}

int isatty(int fd)
{
	return fd >= 0 && fd <= 2;
}

off_t lseek(int fd, off_t offset, int whence)
{
	(void)fd, (void)offset, (void)whence;
	errno = ENOSYS;
	return -1;
}

int kill(int pid, int sig)
{
	(void)pid, (void)sig;
	errno = ENOSYS;
	return -1;
}

int getpid(void)
{
	return 1;
}

/* newlib's exit() and abort() end here: nothing in clockbench calls them,
 * so reaching this is a failure whatever the status. */
void _exit(int status)
{
	printf("clockbench: the C library ended the run (_exit(%d))\n", status);
	run_exit(VERDICT_FAIL);
}
