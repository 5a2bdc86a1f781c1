// SPDX-License-Identifier: MIT
/* What the console lost (see lib/consloss.h). */
#include <stdio.h>
#include <string.h>

#include "lib/consloss.h"

void consloss_written(struct console_loss *l, size_t bytes)
{
	l->written_bytes += bytes;
}

void consloss_dropped(struct console_loss *l, size_t bytes, const char *why)
{
	if (!bytes)
		return;
	if (!l->drops) {
		strncpy(l->first_why, why ? why : "no reason given",
			sizeof(l->first_why) - 1);
		l->first_why[sizeof(l->first_why) - 1] = '\0';
	}
	l->drops++;
	l->lost_bytes += bytes;
}

int consloss_words(const struct console_loss *l, char *buf, size_t len)
{
	if (!l->drops)
		return snprintf(buf, len,
				"all %llu bytes written were taken, none lost",
				(unsigned long long)l->written_bytes);
	return snprintf(buf, len,
			"%llu of %llu bytes written may be lost (%u drop%s; "
			"the first: %s)",
			(unsigned long long)l->lost_bytes,
			(unsigned long long)l->written_bytes, l->drops,
			l->drops == 1 ? "" : "s", l->first_why);
}
