/* SPDX-License-Identifier: MIT */
/*
 * Linux's clocksources as sysfs lists them
 * (/sys/devices/system/clocksource/clocksource0/): the current one and the
 * available ones, parsed from their text, and switching between them.  The
 * parsing is pure and host-tested; the switching writes sysfs.
 */
#ifndef CLOCKBENCH_USER_CLOCKSOURCE_H
#define CLOCKBENCH_USER_CLOCKSOURCE_H

#include <stdbool.h>
#include <stddef.h>

#define CLOCKSOURCE_NAME_LEN 32
#define CLOCKSOURCE_MAX	     16
#define CLOCKSOURCE_TEXT_LEN 200

struct clocksource_list {
	char names[CLOCKSOURCE_MAX][CLOCKSOURCE_NAME_LEN];
	unsigned int nr;
};

/**
 * Parse sysfs's space-separated list of clocksource names (available_
 * clocksource, or current_clocksource's one name) from @text into @out.
 * Returns 0, or -1 with the reason in @why (@why_len bytes): a name that is
 * too long or holds a character a clocksource name never has (Linux's are
 * letters, digits, '_', '-' and '.'), a name given twice, more than
 * CLOCKSOURCE_MAX names, or none at all.
 */
int clocksource_parse_list(const char *text, struct clocksource_list *out,
			   char *why, size_t why_len);

/** Whether @list holds @name. */
bool clocksource_listed(const struct clocksource_list *list, const char *name);

/**
 * Read the current and the available clocksources from sysfs under @dir
 * (NULL: the real one).  Returns 0, or -1 with the reason in @why.
 */
int clocksource_read(const char *dir, char current[CLOCKSOURCE_NAME_LEN],
		     struct clocksource_list *available, char *why,
		     size_t why_len);

/**
 * Make @name the current clocksource (as root) and read back that the
 * kernel took it.  Returns 0, or -1 with the reason in @why.
 */
int clocksource_switch(const char *dir, const char *name, char *why,
		       size_t why_len);

/**
 * Prepare clocksource_restore_now(): @name is what the current clocksource
 * must be again, also when the program is ended by SIGINT or SIGTERM (the
 * handlers this installs write it back, then end the program as the
 * signal would have).
 */
void clocksource_restore_on_signals(const char *dir, const char *name);

/** Write the remembered clocksource back; 0, or -1 with the reason. */
int clocksource_restore_now(char *why, size_t why_len);

#endif
