// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the kernel's words as clockbench-user reads them back
 * (user/kernlog.c): /dev/kmsg records and /proc/cpuinfo, untrusted text.
 * Input: records separated by NUL bytes, each taken into one log as a
 * read() of /dev/kmsg gives it; the whole input is also read as cpuinfo.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "user/kernlog.h"

static struct kernlog log_;

static void check_text(const char *text, size_t len)
{
	if (!memchr(text, '\0', len))
		abort(); /* every kept text ends inside its array */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	bool have[CPU_FLAG_NR];
	char why[80];
	unsigned int i;

	kernlog_init(&log_);
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t len = (size_t)((nul ? nul : end) - p);

		kernlog_add(&log_, p, len);
		p += len + 1;
	}
	if (log_.nr > KERNLOG_MAX_LINES || log_.nr_unstable > CLOCKSOURCE_MAX)
		abort();
	for (i = 0; i < log_.nr; i++)
		check_text(log_.lines[i].text, sizeof(log_.lines[i].text));
	for (i = 0; i < log_.nr_unstable; i++) {
		check_text(log_.unstable[i].line,
			   sizeof(log_.unstable[i].line));
		check_text(log_.unstable[i].clocksource,
			   sizeof(log_.unstable[i].clocksource));
		if (!log_.unstable[i].clocksource[0])
			abort();
	}
	if (cpuinfo_tsc_flags((const char *)data, size, have, why,
			      sizeof(why)) &&
	    !why[0])
		abort(); /* a refusal always says why */
	return 0;
}
