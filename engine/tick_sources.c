// SPDX-License-Identifier: MIT
/* The tick source table, in report order. */
#include "drivers/hpet_timer.h"
#include "drivers/lapic_timer.h"
#include "drivers/pit_timer.h"
#include "platform/pv64/xen_pv_events.h"
#include "base/config.h"
#include "engine/ticks.h"

static struct tick_source *const tick_source_table[] = {
	&lapic_tick_source,
	&tsc_deadline_tick_source,
	&hpet_tick_source,
	&pit_tick_source,
#if CONFIG_XEN_PV /* Xen's vCPU timers exist only for a PV guest here */
	&xen_periodic_tick_source,
	&xen_oneshot_tick_source,
#endif
	NULL,
};

struct tick_source *const *tick_sources_all(void)
{
	return tick_source_table;
}
