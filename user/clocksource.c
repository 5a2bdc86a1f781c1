// SPDX-License-Identifier: MIT
/* Linux's clocksources in sysfs (see user/clocksource.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "user/clocksource.h"

#define SYSFS_CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

bool clocksource_listed(const struct clocksource_list *list, const char *name)
{
	unsigned int i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->names[i], name))
			return true;
	return false;
}

int clocksource_parse_list(const char *text, struct clocksource_list *out,
			   char *why, size_t why_len)
{
	const char *p = text;

	out->nr = 0;
	for (;;) {
		char name[CLOCKSOURCE_NAME_LEN];
		size_t len = 0;

		while (blank(*p))
			p++;
		if (!*p)
			break;
		while (*p && !blank(*p)) {
			if (!name_char(*p))
				return error_set(why, why_len,
						 "character 0x%02x is not one "
						 "a clocksource name has",
						 (unsigned char)*p);
			if (len + 1 >= sizeof(name))
				return error_set(why, why_len,
						 "a name is longer than %zu "
						 "characters",
						 sizeof(name) - 1);
			name[len++] = *p++;
		}
		name[len] = '\0';
		if (clocksource_listed(out, name))
			return error_set(why, why_len, "%s is listed twice",
					 name);
		if (out->nr == CLOCKSOURCE_MAX)
			return error_set(why, why_len,
					 "more than %d clocksources are listed",
					 CLOCKSOURCE_MAX);
		memcpy(out->names[out->nr++], name, len + 1);
	}
	if (!out->nr)
		return error_set(why, why_len, "no clocksource is listed");
	return 0;
}

/* The text of sysfs file @dir/@file, NUL-terminated; 0 or -1 with why. */
static int read_text(const char *dir, const char *file, char *buf, size_t len,
		     char *why, size_t why_len)
{
	char path[256];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : SYSFS_CLOCKSOURCE,
		 file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_set(why, why_len, "cannot open %s: %s", path,
				 strerror(errno));
	got = read(fd, buf, len - 1);
	close(fd);
	if (got < 0)
		return error_set(why, why_len, "cannot read %s: %s", path,
				 strerror(errno));
	buf[got] = '\0';
	return 0;
}

int clocksource_read(const char *dir, char current[CLOCKSOURCE_NAME_LEN],
		     struct clocksource_list *available, char *why,
		     size_t why_len)
{
	struct clocksource_list one;
	char text[512], problem[CLOCKSOURCE_TEXT_LEN];

	if (read_text(dir, "current_clocksource", text, sizeof(text), why,
		      why_len))
		return -1;
	if (clocksource_parse_list(text, &one, problem, sizeof(problem)))
		return error_set(why, why_len, "current_clocksource: %s",
				 problem);
	if (one.nr != 1)
		return error_set(why, why_len,
				 "current_clocksource names %u clocksources, "
				 "not one",
				 one.nr);
	memcpy(current, one.names[0], CLOCKSOURCE_NAME_LEN);
	if (read_text(dir, "available_clocksource", text, sizeof(text), why,
		      why_len))
		return -1;
	if (clocksource_parse_list(text, available, problem, sizeof(problem)))
		return error_set(why, why_len, "available_clocksource: %s",
				 problem);
	return 0;
}

/* Write @name into @dir's current_clocksource: async-signal-safe. */
static int write_current(const char *dir, const char *name)
{
	char path[256];
	size_t len = strlen(name);
	ssize_t put;
	int fd, saved;

	snprintf(path, sizeof(path), "%s/current_clocksource",
		 dir ? dir : SYSFS_CLOCKSOURCE);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	put = write(fd, name, len);
	saved = errno;
	close(fd);
	errno = saved;
	return put == (ssize_t)len ? 0 : -1;
}

int clocksource_switch(const char *dir, const char *name, char *why,
		       size_t why_len)
{
	char current[CLOCKSOURCE_NAME_LEN];
	struct clocksource_list available;

	if (write_current(dir, name))
		return error_set(why, why_len,
				 "writing %s to current_clocksource failed: %s",
				 name, strerror(errno));
	if (clocksource_read(dir, current, &available, why, why_len))
		return -1;
	if (strcmp(current, name))
		return error_set(why, why_len,
				 "the kernel kept %s when asked for %s",
				 current, name);
	return 0;
}

/* What SIGINT and SIGTERM write back before ending the program. */
static char restore_dir[200];
static char restore_name[CLOCKSOURCE_NAME_LEN];
static volatile sig_atomic_t restore_armed;

static void restore_and_end(int sig)
{
	if (restore_armed)
		write_current(restore_dir[0] ? restore_dir : NULL,
			      restore_name);
	signal(sig, SIG_DFL);
	raise(sig);
}

void clocksource_restore_on_signals(const char *dir, const char *name)
{
	struct sigaction sa;

	snprintf(restore_dir, sizeof(restore_dir), "%s", dir ? dir : "");
	snprintf(restore_name, sizeof(restore_name), "%s", name);
	restore_armed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_and_end;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int clocksource_restore_now(char *why, size_t why_len)
{
	const char *dir = restore_dir[0] ? restore_dir : NULL;

	if (!restore_armed)
		return 0;
	if (clocksource_switch(dir, restore_name, why, why_len))
		return -1;
	restore_armed = 0;
	return 0;
}
