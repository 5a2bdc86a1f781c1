// SPDX-License-Identifier: MIT
/* Torn-read-safe 64-bit counter reads from 32-bit halves (pure). */
#include "lib/counter.h"

unsigned int counter_read_split64(counter_read32_fn read32, void *ctx,
				  unsigned int max_tries, uint64_t *value)
{
	unsigned int tries;

	for (tries = 1; tries <= max_tries; tries++) {
		uint32_t high = read32(ctx, 1);
		uint32_t low = read32(ctx, 0);
		uint32_t high_again = read32(ctx, 1);

		*value = ((uint64_t)high_again << 32) | low;
		if (high == high_again)
			return tries;
	}
	return 0;
}
