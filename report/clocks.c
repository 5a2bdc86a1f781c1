// SPDX-License-Identifier: MIT
/* The clocks section: every clock, present or absent and why, and what
 * CPUID says of the TSC (see report/run.h). */
#include <stdio.h>

#include "report/run.h"

static void format_hz(char *buf, size_t len, double hz)
{
	if (hz >= 1e9)
		snprintf(buf, len, "%.6f GHz", hz / 1e9);
	else if (hz >= 1e6)
		snprintf(buf, len, "%.6f MHz", hz / 1e6);
	else
		snprintf(buf, len, "%.3f kHz", hz / 1e3);
}

static void format_flags(char *buf, size_t len, unsigned int flags)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < clock_flag_count && used < len; i++)
		if (flags & clock_flag_names[i].flag)
			used += snprintf(buf + used, len - used, ", %s",
					 clock_flag_names[i].words);
}

static void print_tsc_features(const struct tsc_features *f)
{
	printf("  %-16s invariant %s, rdtscp %s, TSC-deadline %s, TSC_ADJUST "
	       "%s",
	       "tsc features", f->invariant ? "yes" : "no",
	       f->rdtscp ? "yes" : "no", f->deadline ? "yes" : "no",
	       f->tsc_adjust ? "yes" : "no");
	if (f->tsc_adjust && f->tsc_adjust_read)
		printf(" (%lld)", (long long)f->tsc_adjust_value);
	else if (f->tsc_adjust)
		printf(" (unreadable)");
	printf("\n");
	if (f->cpuid_frequency[0])
		printf("  %-16s CPUID: %s\n", "tsc frequency",
		       f->cpuid_frequency);
}

void report_clocks_print(const struct run_report *run)
{
	struct clock *const *cp;

	printf("# clocks\n");
	for (cp = run->clocks.table; *cp; cp++) {
		const struct clock *c = *cp;
		char hz[32], flags[96];

		if (!c->present) {
			printf("  %-12s absent: %s\n", c->name,
			       c->absent_reason);
			continue;
		}
		format_hz(hz, sizeof(hz), (double)c->freq_hz);
		format_flags(flags, sizeof(flags), c->flags);
		printf("  %-12s present  %s (%s), %u-bit%s\n", c->name, hz,
		       c->freq_source, c->width_bits, flags);
		if (c->notes[0])
			printf("  %-12s %s\n", "", c->notes);
	}
	print_tsc_features(&run->clocks.tsc);
}
