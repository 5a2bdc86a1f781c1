/* SPDX-License-Identifier: MIT */
/* What CPUID says about the CPU: vendor, family/model/stepping, brand. */
#ifndef CLOCKBENCH_LIB_CPUINFO_H
#define CLOCKBENCH_LIB_CPUINFO_H

#include <stdint.h>

/* What one CPUID instruction returns. */
struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/* A way to execute CPUID: the CPU's own (base/cpu.h), or a host test's. */
typedef struct cpuid_regs (*cpuid_fn)(uint32_t leaf, uint32_t subleaf);

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

/** Fill @info from what @cpuid says. */
void cpu_info_fill(struct cpu_info *info, cpuid_fn cpuid);

#endif
