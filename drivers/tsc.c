// SPDX-License-Identifier: MIT
/*
 * The TSC: three readers of one counter, and where its frequency comes
 * from.  The three clocks share the frequency found by the first probe.
 */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/priv.h"
#include "base/timing.h"
#include "drivers/tsc.h"
#include "lib/clockrate.h"

#define CPUID_ECX_TSC_DEADLINE	(1u << 24)
#define CPUID_EDX_TSC		(1u << 4)
#define CPUID_EBX_TSC_ADJUST	(1u << 1)
#define CPUID_TSC_CRYSTAL	0x15
#define CPUID_FREQUENCY		0x16
#define CPUID_EDX_RDTSCP	(1u << 27)
#define CPUID_EDX_INVARIANT_TSC (1u << 8)

/*
 * rdtsc and rdtscp cost 20-40 cycles on current CPUs (measured on these
 * machines: 23 and 36, 38 with lfence); 40 ns is about 100 cycles at
 * 2.5 GHz.  Xen documents an emulated rdtsc at 15-20 times native.
 */
#define TSC_NATIVE_READ_NS_MAX 40

/* Calibration: long enough that brackets of a few reads are small next to
 * it, short enough not to weigh on the run. */
#define CALIBRATION_NS 50000000ull

static struct tsc_features features;
static uint64_t tsc_hz;
static double tsc_hz_uncertainty_ppm;
static const struct clock *tsc_calibrated_against;
static char tsc_hz_source[CLOCK_TEXT_LEN];
static bool frequency_found;

const struct tsc_features *tsc_features(void)
{
	return &features;
}

double tsc_freq_uncertainty_ppm(void)
{
	return tsc_hz_uncertainty_ppm;
}

static void read_features(const struct probe_env *env)
{
	features.invariant =
		env->cpu->max_ext_leaf >= CPUID_POWER_MGMT &&
		(cpuid(CPUID_POWER_MGMT).edx & CPUID_EDX_INVARIANT_TSC);
	features.rdtscp = env->cpu->max_ext_leaf >= CPUID_EXT_FEATURES &&
			  (cpuid(CPUID_EXT_FEATURES).edx & CPUID_EDX_RDTSCP);
	features.deadline = cpuid(CPUID_FEATURES).ecx & CPUID_ECX_TSC_DEADLINE;
	features.tsc_adjust = env->cpu->max_basic_leaf >= CPUID_EXT_FEATURES7 &&
			      (cpuid_count(CPUID_EXT_FEATURES7, 0).ebx &
			       CPUID_EBX_TSC_ADJUST);
	if (features.tsc_adjust) {
		uint64_t v;

		features.tsc_adjust_read = rdmsr_safe(MSR_IA32_TSC_ADJUST, &v);
		features.tsc_adjust_value = (int64_t)v;
	}
}

/* CPUID 0x15 / 0x16, read only when the CPU lists them: asking for a leaf
 * above the maximum returns another leaf's data. */
static bool frequency_from_cpuid(const struct probe_env *env)
{
	struct tsc_cpuid_leaves leaves = {
		.max_basic_leaf = env->cpu->max_basic_leaf,
	};

	snprintf(leaves.vendor, sizeof(leaves.vendor), "%s", env->cpu->vendor);
	if (leaves.max_basic_leaf >= CPUID_TSC_CRYSTAL) {
		struct cpuid_regs l15 = cpuid(CPUID_TSC_CRYSTAL);

		leaves.l15_eax = l15.eax;
		leaves.l15_ebx = l15.ebx;
		leaves.l15_ecx = l15.ecx;
	}
	if (leaves.max_basic_leaf >= CPUID_FREQUENCY)
		leaves.l16_eax = cpuid(CPUID_FREQUENCY).eax;
	tsc_hz = tsc_cpuid_frequency(&leaves, features.cpuid_frequency,
				     sizeof(features.cpuid_frequency));
	if (!tsc_hz)
		return false;
	snprintf(tsc_hz_source, sizeof(tsc_hz_source), "%s",
		 leaves.l15_eax && leaves.l15_ebx && leaves.l15_ecx
			 ? "CPUID 0x15 crystal x ratio"
			 : "CPUID 0x16 base frequency");
	return true;
}

/* A frequency the hypervisor states: its leaf (the engine asked it). */
static bool frequency_from_hypervisor(const struct probe_env *env)
{
	if (!env->hv_tsc_hz)
		return false;
	tsc_hz = env->hv_tsc_hz;
	snprintf(tsc_hz_source, sizeof(tsc_hz_source), "%s",
		 env->hv_tsc_source);
	return true;
}

/*
 * Last resort under Xen: the host TSC's kHz as Xen calibrated it, the
 * guest's rate too only while Xen does not emulate rdtsc (the engine
 * asked; 0 otherwise).
 */
static bool frequency_from_xen_host(const struct probe_env *env)
{
	if (!env->xen_host_tsc_hz)
		return false;
	tsc_hz = env->xen_host_tsc_hz;
	snprintf(tsc_hz_source, sizeof(tsc_hz_source), "%s",
		 env->xen_host_tsc_source);
	return true;
}

/* The TSC counted as a clock of unknown frequency, for calibration. */
static struct clock raw_tsc = {
	.name = "tsc",
	.read = tsc_read_ordered,
	.width_bits = 64,
};

static bool frequency_from_calibration(const struct probe_env *env, char *why,
				       size_t whylen)
{
	const struct clock *ref = env->reference;
	enum timing_phase was;
	struct clock_rate rate;
	char err[CLOCK_TEXT_LEN];
	int failed;

	if (!ref) {
		snprintf(why, whylen,
			 "no CPUID or hypervisor frequency, and no HPET, PM "
			 "timer or PIT to calibrate against");
		return false;
	}
	was = timing_enter(TIMING_CALIBRATE);
	failed = clock_measure_rate_best(&raw_tsc, ref, CALIBRATION_NS, &rate,
					 err, sizeof(err));
	timing_enter(was);
	if (failed) {
		snprintf(why, whylen, "calibration against %s failed: %s",
			 ref->name, err);
		return false;
	}
	tsc_hz = (uint64_t)(rate.hz + 0.5);
	tsc_hz_uncertainty_ppm = rate.uncertainty_ppm;
	tsc_calibrated_against = ref;
	snprintf(tsc_hz_source, sizeof(tsc_hz_source),
		 "calibrated against %s over %.0f ms, +/- %.0f ppm", ref->name,
		 rate.interval_s * 1e3, rate.uncertainty_ppm);
	return true;
}

static int find_frequency(const struct probe_env *env, char *why, size_t whylen)
{
	if (frequency_found)
		return 0;
	if (!(cpuid(CPUID_FEATURES).edx & CPUID_EDX_TSC)) {
		snprintf(why, whylen, "CPUID says there is no TSC");
		return -1;
	}
	read_features(env);
	if (!frequency_from_cpuid(env) && !frequency_from_hypervisor(env) &&
	    !frequency_from_calibration(env, why, whylen) &&
	    !frequency_from_xen_host(env))
		return -1;
	frequency_found = true;
	return 0;
}

static int tsc_probe_common(struct clock *c, const struct probe_env *env)
{
	if (find_frequency(env, c->absent_reason, sizeof(c->absent_reason)))
		return -1;
	c->width_bits = 64;
	c->freq_hz = tsc_hz;
	c->calibrated_against = tsc_calibrated_against;
	snprintf(c->freq_source, sizeof(c->freq_source), "%s", tsc_hz_source);
	c->flags =
		CLOCK_PER_CPU | (features.invariant ? CLOCK_CLAIMS_STABLE : 0);
	return 0;
}

static int tsc_rdtscp_probe(struct clock *c, const struct probe_env *env)
{
	if (tsc_probe_common(c, env))
		return -1;
	if (!features.rdtscp)
		return probe_absent(
			c, "CPUID 0x80000001 EDX[27] (rdtscp) is clear");
	return 0;
}

static uint64_t read_rdtscp(void)
{
	uint32_t aux;

	return tsc_read_rdtscp(&aux);
}

struct clock tsc_clock = {
	.name = "tsc",
	.counter = "tsc",
	.description = "rdtsc, unordered",
	.probe = tsc_probe_common,
	.read = tsc_read,
	.native_read_ns_max = TSC_NATIVE_READ_NS_MAX,
	.probe_late = true,
};

struct clock tsc_rdtscp_clock = {
	.name = "tsc_rdtscp",
	.counter = "tsc",
	.description = "rdtscp (waits for earlier instructions)",
	.probe = tsc_rdtscp_probe,
	.read = read_rdtscp,
	.native_read_ns_max = TSC_NATIVE_READ_NS_MAX,
	.probe_late = true,
};

struct clock tsc_ordered_clock = {
	.name = "tsc_ordered",
	.counter = "tsc",
	.description = "lfence; rdtsc",
	.probe = tsc_probe_common,
	.read = tsc_read_ordered,
	.native_read_ns_max = TSC_NATIVE_READ_NS_MAX,
	.probe_late = true,
	/* The reads every measurement is bracketed with (base/cpu.h). */
	.stopwatch = true,
};
