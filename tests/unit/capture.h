/* SPDX-License-Identifier: MIT */
/*
 * What a printer writes to stdout, caught for the unit tests that read the
 * tables for people back.  Include after <cmocka.h>.
 */
#ifndef CLOCKBENCH_TESTS_UNIT_CAPTURE_H
#define CLOCKBENCH_TESTS_UNIT_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	char path[48];
	int saved; /* the real stdout */
};

/** From now on stdout goes to a temporary file, until capture_end(). */
static inline void capture_begin(struct capture *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/clockbench-unit-XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	close(fd);
	fflush(stdout);
	c->saved = dup(STDOUT_FILENO);
	assert_true(c->saved >= 0);
	assert_non_null(freopen(c->path, "w", stdout));
}

/** stdout back as it was; what was written goes into @out (at most @len - 1
 * bytes, NUL-ended). */
static inline void capture_end(struct capture *c, char *out, size_t len)
{
	FILE *in;
	size_t n;

	fflush(stdout);
	dup2(c->saved, STDOUT_FILENO);
	close(c->saved);
	in = fopen(c->path, "r");
	assert_non_null(in);
	n = fread(out, 1, len - 1, in);
	out[n] = '\0';
	fclose(in);
	unlink(c->path);
}

#endif
