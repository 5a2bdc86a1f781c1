// SPDX-License-Identifier: MIT
/* Counter arithmetic shared by every clock (pure; host-tested). */
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"

const struct clock_flag_name clock_flag_names[] = {
	{ CLOCK_PER_CPU, "per_cpu", "per-CPU" },
	{ CLOCK_NEEDS_CPU_SETUP, "per_cpu_setup", "per-CPU setup" },
	{ CLOCK_CLAIMS_STABLE, "claims_stable", "claims stable across CPUs" },
	{ CLOCK_READS_NS, "reads_ns", "reads in ns" },
	{ CLOCK_PORT_IO, "port_io", "read through I/O ports" },
	{ CLOCK_MULTI_ACCESS, "multi_access", "several accesses a read" },
};

const size_t clock_flag_count =
	sizeof(clock_flag_names) / sizeof(clock_flag_names[0]);

bool clock_same_counter(const struct clock *a, const struct clock *b)
{
	return !strcmp(a->counter ? a->counter : a->name,
		       b->counter ? b->counter : b->name);
}

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

uint64_t clock_ns_to_counts(uint64_t ns, uint64_t freq_hz)
{
	unsigned __int128 counts = (unsigned __int128)ns * freq_hz / NS_PER_S;

	return counts > UINT64_MAX ? UINT64_MAX : (uint64_t)counts;
}

bool clock_gap_ambiguous(uint64_t gap_cycles, uint64_t forward_cycles,
			 uint64_t half_wrap_cycles)
{
	uint64_t slack = half_wrap_cycles / 4;

	if (gap_cycles > half_wrap_cycles)
		return true;
	return gap_cycles + slack > forward_cycles &&
	       gap_cycles < forward_cycles + slack;
}

bool probe_present(int rc, char *absent_reason, size_t len)
{
	if (rc == 0)
		return true;
	if (!absent_reason[0])
		snprintf(absent_reason, len, "its probe gave no reason");
	return false;
}
