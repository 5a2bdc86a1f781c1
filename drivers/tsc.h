/* SPDX-License-Identifier: MIT */
/*
 * The time-stamp counter: three readers (rdtsc, rdtscp, lfence; rdtsc),
 * one frequency.  The frequency comes from CPUID 0x15 or 0x16, else a
 * hypervisor's frequency leaf, else a calibration against the best other
 * clock present (HPET, then the PM timer, then the PIT).
 */
#ifndef CLOCKBENCH_DRIVERS_TSC_H
#define CLOCKBENCH_DRIVERS_TSC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cpu.h" /* tsc_read() and friends */
#include "lib/clock.h"

extern struct clock tsc_clock, tsc_rdtscp_clock, tsc_ordered_clock;

/* What CPUID says about the TSC (filled in by the first probe). */
struct tsc_features {
	bool invariant;	      /* CPUID 0x80000007 EDX[8] */
	bool rdtscp;	      /* CPUID 0x80000001 EDX[27] */
	bool tsc_adjust;      /* CPUID 7.0 EBX[1] */
	bool tsc_adjust_read; /* IA32_TSC_ADJUST could be read */
	int64_t tsc_adjust_value;
	bool deadline; /* CPUID 1 ECX[24] */
	/* What leaves 0x15 and 0x16 said of the frequency, in words. */
	char cpuid_frequency[CLOCK_TEXT_LEN];
};

const struct tsc_features *tsc_features(void);

/** How far the TSC frequency may be off, in ppm, when it was calibrated;
 * 0 when CPUID or a hypervisor leaf gave it. */
double tsc_freq_uncertainty_ppm(void);

/* What CPUID says that bears on the TSC's frequency. */
struct tsc_cpuid_leaves {
	char vendor[13];	 /* CPUID.0, e.g. "GenuineIntel" */
	uint32_t max_basic_leaf; /* CPUID.0:EAX */
	/* Leaf 0x15 (0 when not listed): TSC / crystal = EBX / EAX, ECX the
	 * crystal's Hz (0 when not said); leaf 0x16 EAX: base MHz. */
	uint32_t l15_eax, l15_ebx, l15_ecx, l16_eax;
};

/*
 * The TSC frequency CPUID leaves 0x15 (crystal × ratio) or 0x16 (base
 * MHz) give, on Intel CPUs, which define them; 0 when they give none.
 * @why says in words which leaf it was, or why none (another vendor, the
 * leaves not listed, or zero).  Pure, host-tested.
 */
uint64_t tsc_cpuid_frequency(const struct tsc_cpuid_leaves *leaves, char *why,
			     size_t whylen);

#endif
