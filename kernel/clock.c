// SPDX-License-Identifier: MIT
/* Counter arithmetic shared by every clock (pure; host-tested). */
#include "kernel/clock.h"

#define NS_PER_S 1000000000ull

uint64_t clock_counts_to_ns(uint64_t delta, uint64_t freq_hz)
{
	if (!freq_hz)
		return 0;
	return (uint64_t)((unsigned __int128)delta * NS_PER_S / freq_hz);
}

uint64_t clock_ns(const struct clock *c, uint64_t delta)
{
	if (c->flags & CLOCK_READS_NS)
		return delta;
	return clock_counts_to_ns(delta, c->freq_hz);
}
