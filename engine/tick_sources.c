// SPDX-License-Identifier: MIT
/* The tick source table, in report order: the machine's timers, then the
 * platform's own (platform_tick_sources()). */
#include "base/platform.h"
#include "drivers/hpet_timer.h"
#include "drivers/lapic_timer.h"
#include "drivers/pit_timer.h"
#include "engine/ticks.h"

static struct tick_source *const machine_sources[] = {
	&lapic_tick_source,
	&tsc_deadline_tick_source,
	&hpet_tick_source,
	&pit_tick_source,
	NULL,
};

struct tick_source *const *tick_sources_all(void)
{
	static struct tick_source *table[MAX_TICK_SOURCES + 1];
	struct tick_source *const *s;
	unsigned int n = 0;

	if (table[0])
		return table;
	for (s = machine_sources; *s && n < MAX_TICK_SOURCES; s++)
		table[n++] = *s;
	for (s = platform_tick_sources(); *s && n < MAX_TICK_SOURCES; s++)
		table[n++] = *s;
	table[n] = NULL;
	return table;
}
