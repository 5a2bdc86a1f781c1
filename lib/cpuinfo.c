// SPDX-License-Identifier: MIT
/* CPU identification from CPUID. */
#include <string.h>

#include "lib/cpuinfo.h"

#define CPUID_VENDOR	  0
#define CPUID_SIGNATURE	  1
#define CPUID_EXT_MAX	  0x80000000u
#define CPUID_BRAND_FIRST 0x80000002u
#define CPUID_BRAND_LAST  0x80000004u

void cpu_decode_signature(uint32_t eax, unsigned int *family,
			  unsigned int *model, unsigned int *stepping)
{
	unsigned int base_family = (eax >> 8) & 0xf;
	unsigned int base_model = (eax >> 4) & 0xf;

	*stepping = eax & 0xf;
	*family = base_family;
	if (base_family == 0xf)
		*family += (eax >> 20) & 0xff;
	*model = base_model;
	if (base_family == 0x6 || base_family == 0xf)
		*model |= ((eax >> 16) & 0xf) << 4;
}

/* Drop the leading and trailing blanks some brand strings carry. */
static void trim(char *s)
{
	size_t start = strspn(s, " ");
	size_t len = strlen(s + start);

	memmove(s, s + start, len + 1);
	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
}

void cpu_info_fill(struct cpu_info *info, cpuid_fn cpuid)
{
	struct cpuid_regs r = cpuid(CPUID_VENDOR, 0);
	uint32_t leaf;

	memset(info, 0, sizeof(*info));
	info->max_basic_leaf = r.eax;
	memcpy(info->vendor + 0, &r.ebx, 4);
	memcpy(info->vendor + 4, &r.edx, 4);
	memcpy(info->vendor + 8, &r.ecx, 4);
	if (info->max_basic_leaf >= CPUID_SIGNATURE)
		cpu_decode_signature(cpuid(CPUID_SIGNATURE, 0).eax,
				     &info->family, &info->model,
				     &info->stepping);
	info->max_ext_leaf = cpuid(CPUID_EXT_MAX, 0).eax;
	if (info->max_ext_leaf < CPUID_BRAND_LAST ||
	    info->max_ext_leaf > CPUID_EXT_MAX + 0xffff)
		return;
	for (leaf = CPUID_BRAND_FIRST; leaf <= CPUID_BRAND_LAST; leaf++) {
		r = cpuid(leaf, 0);
		memcpy(info->brand + (leaf - CPUID_BRAND_FIRST) * 16, &r, 16);
	}
	info->brand[48] = '\0';
	trim(info->brand);
}
