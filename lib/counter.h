/* SPDX-License-Identifier: MIT */
/*
 * Reading a 64-bit counter through 32-bit halves, as a 32-bit bus (or a
 * cautious driver) must: high, low, high again, and again if the high half
 * moved in between — a carry from the low half would otherwise tear the
 * value.  Pure; host-tested.
 */
#ifndef CLOCKBENCH_LIB_COUNTER_H
#define CLOCKBENCH_LIB_COUNTER_H

#include <stdint.h>

/* Reads one 32-bit half: @high selects the upper one. */
typedef uint32_t (*counter_read32_fn)(void *ctx, int high);

/**
 * Read the counter as halves, retrying while the high half changes, at
 * most @max_tries times.  Returns the number of tries used (1 when nothing
 * tore), or 0 when every try tore, leaving *@value at the last attempt.
 */
unsigned int counter_read_split64(counter_read32_fn read32, void *ctx,
				  unsigned int max_tries, uint64_t *value);

#endif
