// SPDX-License-Identifier: MIT
/* Linux's clocksource decisions, read back (see user/readback.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "user/readback.h"

#define KMSG_PATH    "/dev/kmsg"
#define CPUINFO_PATH "/proc/cpuinfo"
/* One read() of /dev/kmsg is one record; the kernel's longest is ~1 KiB. */
#define KMSG_RECORD_LEN 8192
/* A bound on the records one read-back takes (the buffer holds ~2,000). */
#define KMSG_MAX_RECORDS 100000
/* /proc/cpuinfo's first CPU: its flags line comes within the first 8 KiB. */
#define CPUINFO_READ_LEN 16384

static void fail(struct readback *rb, const char *fmt, const char *what,
		 int err)
{
	if (!rb->read)
		return; /* the first reason stands */
	rb->read = false;
	snprintf(rb->reason, sizeof(rb->reason), fmt, what, strerror(err));
}

/* Up to @len - 1 bytes of @path into @buf; its length, or -1 (errno). */
static ssize_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += (size_t)n;
	close(fd);
	buf[used] = '\0';
	return (ssize_t)used;
}

/* Every record /dev/kmsg holds beyond those read already. */
static void read_log(struct readback *rb)
{
	static char record[KMSG_RECORD_LEN];
	unsigned int i;

	for (i = 0; rb->kmsg_fd >= 0 && i < KMSG_MAX_RECORDS; i++) {
		ssize_t n = read(rb->kmsg_fd, record, sizeof(record));

		if (n > 0) {
			kernlog_add(&rb->log, record, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EPIPE) {
			rb->log.wrapped = true; /* overwritten under us */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			fail(rb, "reading %s failed: %s", KMSG_PATH, errno);
		return; /* EAGAIN: nothing more yet */
	}
}

static void snapshot(struct readback *rb, const char *sysfs_dir,
		     const char *when, unsigned int seq, const char *kind)
{
	struct readback_snapshot *s;
	struct timespec now;
	char why[READBACK_TEXT_LEN];

	read_log(rb);
	if (rb->nr_snapshots >= READBACK_MAX_SNAPSHOTS)
		return;
	s = &rb->snapshots[rb->nr_snapshots++];
	memset(s, 0, sizeof(*s));
	snprintf(s->when, sizeof(s->when), "%s", when);
	s->event_seq = seq;
	snprintf(s->event_kind, sizeof(s->event_kind), "%s", kind ? kind : "");
	if (clock_gettime(CLOCK_BOOTTIME, &now) == 0)
		s->uptime_s = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
	s->known = clocksource_read(sysfs_dir, s->current, &s->available, why,
				    sizeof(why)) == 0;
	if (!s->known && rb->read) {
		rb->read = false;
		snprintf(
			rb->reason, sizeof(rb->reason),
			"the clocksources of the '%.40s' snapshot could not be "
			"read: %.100s",
			when, why);
	}
}

void readback_begin(struct readback *rb, const char *sysfs_dir)
{
	static char cpuinfo[CPUINFO_READ_LEN];
	struct utsname u;
	char why[READBACK_TEXT_LEN];
	ssize_t n;

	memset(rb, 0, sizeof(*rb));
	rb->read = true;
	kernlog_init(&rb->log);
	if (uname(&u) == 0)
		snprintf(rb->release, sizeof(rb->release), "%s", u.release);
	if (read_file("/proc/cmdline", rb->cmdline, sizeof(rb->cmdline)) < 0)
		fail(rb, "%s could not be read: %s", "/proc/cmdline", errno);
	rb->cmdline[strcspn(rb->cmdline, "\n")] = '\0';
	n = read_file(CPUINFO_PATH, cpuinfo, sizeof(cpuinfo));
	rb->flags_read =
		n >= 0 && cpuinfo_tsc_flags(cpuinfo, (size_t)n, rb->flags, why,
					    sizeof(why)) == 0;
	rb->kmsg_fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rb->kmsg_fd < 0)
		fail(rb, "the kernel's log (%s) could not be opened: %s",
		     KMSG_PATH, errno);
	snapshot(rb, sysfs_dir, "boot", 0, NULL);
}

void readback_after_event(struct readback *rb, const char *sysfs_dir,
			  unsigned int seq, const char *kind)
{
	char when[READBACK_WHEN_LEN];

	snprintf(when, sizeof(when), "after %s %u", kind, seq);
	snapshot(rb, sysfs_dir, when, seq, kind);
}

void readback_end(struct readback *rb, const char *sysfs_dir)
{
	snapshot(rb, sysfs_dir, "end", 0, NULL);
	if (rb->kmsg_fd >= 0)
		close(rb->kmsg_fd);
	rb->kmsg_fd = -1;
}
