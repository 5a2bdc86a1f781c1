// SPDX-License-Identifier: MIT
/* The stopwatch (see base/stopwatch.h). */
#include "base/stopwatch.h"
#include "lib/clock.h" /* NS_PER_S */

static uint64_t rate_hz;

void stopwatch_set_hz(uint64_t hz)
{
	rate_hz = hz;
}

uint64_t stopwatch_hz(void)
{
	return rate_hz;
}

double stopwatch_ns(double cycles)
{
	return rate_hz ? cycles * NS_PER_S / (double)rate_hz : 0;
}

uint64_t stopwatch_cycles(double ns)
{
	double cycles = ns * (double)rate_hz / NS_PER_S;

	/* Half the wrap of a 64-bit counter does not fit in cycles. */
	return cycles >= 0x1p64 ? UINT64_MAX : (uint64_t)cycles;
}
