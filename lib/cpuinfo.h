/* SPDX-License-Identifier: MIT */
/* What CPUID says about the CPU: vendor, family/model/stepping, brand. */
#ifndef CLOCKBENCH_LIB_CPUINFO_H
#define CLOCKBENCH_LIB_CPUINFO_H

#include <stdint.h>

struct cpu_info {
	char vendor[13];
	char brand[49]; /* "" when the CPU has no brand string */
	unsigned int family, model, stepping;
	uint32_t max_basic_leaf;
	uint32_t max_ext_leaf;
};

/**
 * Decode CPUID.1:EAX into display family, model and stepping, applying the
 * extended family (family 0xf) and extended model (family 6 or 0xf).
 */
void cpu_decode_signature(uint32_t eax, unsigned int *family,
			  unsigned int *model, unsigned int *stepping);

/** Fill @info from this CPU. */
void cpu_info_read(struct cpu_info *info);

#endif
