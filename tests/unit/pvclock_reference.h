/* SPDX-License-Identifier: MIT */
/*
 * The pvclock scaling formula written apart from hypervisor/pvclock.c, in
 * plain 128-bit C, for the unit test and the fuzz target to check it with.
 */
#ifndef CLOCKBENCH_TESTS_UNIT_PVCLOCK_REFERENCE_H
#define CLOCKBENCH_TESTS_UNIT_PVCLOCK_REFERENCE_H

#include <stdint.h>

/** What pvclock_scale_delta(@delta, @mul_frac, @shift) must give. */
static inline uint64_t reference_scale(uint64_t delta, uint32_t mul_frac,
				       int8_t shift)
{
	if (shift >= 64 || shift <= -64)
		return 0;
	if (shift > 0)
		delta <<= shift;
	else if (shift < 0)
		delta >>= -shift;
	return (uint64_t)(((unsigned __int128)delta * mul_frac) >> 32);
}

#endif
