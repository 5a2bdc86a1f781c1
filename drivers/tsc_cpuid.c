// SPDX-License-Identifier: MIT
/* The TSC frequency CPUID leaves 0x15 and 0x16 give (pure; host-tested). */
#include "drivers/tsc.h"

uint64_t tsc_hz_from_cpuid15(uint32_t eax_denominator, uint32_t ebx_numerator,
			     uint32_t ecx_crystal_hz, uint32_t leaf16_eax_mhz)
{
	if (eax_denominator && ebx_numerator && ecx_crystal_hz)
		return (uint64_t)ecx_crystal_hz * ebx_numerator /
		       eax_denominator;
	if (leaf16_eax_mhz)
		return (uint64_t)leaf16_eax_mhz * 1000000;
	return 0;
}
