// SPDX-License-Identifier: MIT
/*
 * kvm-clock driver: find KVM's clock feature, register a pvclock area per
 * CPU by MSR, check that KVM fills it sensibly, and read it as ns.
 */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/priv.h"
#include "base/smp.h"
#include "hypervisor/detect.h"
#include "hypervisor/kvmclock.h"
#include "hypervisor/pvclock.h"
#include "hypervisor/pvclock_source.h"

/*
 * KVM's paravirtual ABI, as the Linux kernel documents it in
 * Documentation/virt/kvm/x86/cpuid.rst (the features leaf) and
 * Documentation/virt/kvm/x86/msr.rst (the MSRs and the wall clock).  They
 * are KVM's, not Xen's, so libxen-dev has no header for them.
 */
#define KVM_CPUID_FEATURES_OFFSET 1 /* features leaf = signature leaf + 1 */
#define KVM_FEATURE_CLOCKSOURCE	  (1u << 0) /* MSRs 0x11 and 0x12 */
#define KVM_FEATURE_CLOCKSOURCE2  (1u << 3) /* MSRs 0x4b564d00 and 01 */
/* The pvclock area's flags mean something only when this is set. */
#define KVM_FEATURE_CLOCKSOURCE_STABLE_BIT (1u << 24)

#define MSR_KVM_WALL_CLOCK	0x11
#define MSR_KVM_SYSTEM_TIME	0x12
#define MSR_KVM_WALL_CLOCK_NEW	0x4b564d00
#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01
#define KVM_SYSTEM_TIME_ENABLE	1ull /* bit 0 of the system-time MSR */

/*
 * What KVM writes, once per write of the wall-clock MSR, at the address
 * written: the time of day when kvm-clock read 0.  (Xen's wall clock lives
 * in its shared_info page and is laid out differently.)
 */
struct kvm_wall_clock {
	uint32_t version; /* even when the fields are consistent */
	uint32_t sec;	  /* seconds since the Unix epoch */
	uint32_t nsec;
} __attribute__((packed));

_Static_assert(sizeof(struct kvm_wall_clock) == 12, "KVM's wall clock");

/*
 * KVM rewrites a vCPU's area only while that vCPU is out of the guest, so
 * a CPU reading its own area should never need a retry; a hundred is far
 * beyond need yet costs only microseconds when the version is stuck.
 */
#define KVM_CLOCK_READ_MAX_TRIES 100

/* Probe: the two reads that must differ are this many TSC cycles apart
 * (about 40 us at 2.3 GHz), bounded in spins in case the TSC stands. */
#define KVM_CLOCK_ADVANCE_CYCLES    100000ull
#define KVM_CLOCK_ADVANCE_MAX_SPINS 1000000u

/*
 * One pvclock area per CPU.  32-byte alignment of 32-byte records keeps
 * each inside one page, as KVM requires; the kernel is identity-mapped, so
 * an area's address is its physical address.
 */
static volatile struct vcpu_time_info kvm_clock_areas[MAX_CPUS]
	__attribute__((aligned(32)));

_Static_assert(sizeof(struct vcpu_time_info) == 32 && 4096 % 32 == 0,
	       "a 32-byte-aligned area never crosses a page");

static volatile struct kvm_wall_clock kvm_wall_clock
	__attribute__((aligned(4)));

static uint32_t kvm_clock_msr_system_time, kvm_clock_msr_wall_clock;
static struct pvclock_source kvm_source = {
	.max_tries = KVM_CLOCK_READ_MAX_TRIES,
};

/* Each CPU reads its own area, found by its dense index. */
static inline unsigned int kvm_clock_cpu(void)
{
	return cpu_index();
}

unsigned long kvm_clock_failed_reads(void)
{
	return pvclock_source_bad_reads(&kvm_source);
}

int kvm_clock_sample(struct pvclock_sample *s)
{
	unsigned int cpu = kvm_clock_cpu();

	if (!kvm_source.area[cpu])
		return -1;
	return pvclock_read(kvm_source.area[cpu], tsc_read_ordered,
			    kvm_source.max_tries, s);
}

const volatile struct vcpu_time_info *kvm_clock_area(unsigned int cpu,
						     unsigned int *max_tries)
{
	*max_tries = kvm_source.max_tries;
	return kvm_clock.present && cpu < MAX_CPUS ? kvm_source.area[cpu]
						   : NULL;
}

static uint64_t kvm_clock_read(void)
{
	return pvclock_source_read(&kvm_source);
}

/*
 * Point @cpu's system-time MSR at its area and check what KVM put there:
 * a consistent, non-zero version and a usable multiplier.  On failure the
 * area is unregistered again and @why says what was wrong.
 */
static int kvm_clock_register(unsigned int cpu, struct pvclock_sample *s,
			      char *why, size_t whylen)
{
	volatile struct vcpu_time_info *area;
	uint64_t paddr;

	if (cpu >= MAX_CPUS) {
		snprintf(why, whylen,
			 "CPU %u has no kvm-clock area: there are %u", cpu,
			 MAX_CPUS);
		return -1;
	}
	area = &kvm_clock_areas[cpu];
	paddr = (uintptr_t)area;
	if (!wrmsr_safe(kvm_clock_msr_system_time,
			paddr | KVM_SYSTEM_TIME_ENABLE)) {
		snprintf(why, whylen,
			 "writing the kvm-clock area address %#llx to MSR %#x "
			 "faulted",
			 (unsigned long long)paddr, kvm_clock_msr_system_time);
		return -1;
	}
	if (pvclock_read(area, tsc_read_ordered, KVM_CLOCK_READ_MAX_TRIES, s))
		snprintf(why, whylen,
			 "the kvm-clock area's version stayed odd or kept "
			 "changing (last %u) over %u reads",
			 s->version, KVM_CLOCK_READ_MAX_TRIES);
	else if (s->version == 0)
		snprintf(why, whylen,
			 "KVM accepted MSR %#x but left the kvm-clock area "
			 "empty (version 0)",
			 kvm_clock_msr_system_time);
	else if (s->mul_frac == 0)
		snprintf(why, whylen,
			 "the kvm-clock area's tsc_to_system_mul is 0, so the "
			 "TSC cannot be scaled to ns");
	else {
		kvm_source.area[cpu] = area;
		return 0;
	}
	wrmsr_safe(kvm_clock_msr_system_time, 0);
	return -1;
}

static int kvm_clock_setup_cpu(struct clock *c)
{
	struct pvclock_sample s;
	char why[CLOCK_TEXT_LEN];

	(void)c;
	return kvm_clock_register(kvm_clock_cpu(), &s, why, sizeof(why));
}

/* Ask KVM for the wall clock once and put it in words into @buf. */
static void kvm_clock_describe_wall(char *buf, size_t len)
{
	uint32_t version, version_after, sec, nsec;

	if (!wrmsr_safe(kvm_clock_msr_wall_clock, (uintptr_t)&kvm_wall_clock)) {
		snprintf(buf, len, "wall-clock MSR %#x faulted",
			 kvm_clock_msr_wall_clock);
		return;
	}
	version = kvm_wall_clock.version;
	barrier();
	sec = kvm_wall_clock.sec;
	nsec = kvm_wall_clock.nsec;
	barrier();
	version_after = kvm_wall_clock.version;
	if (!version || (version & 1) || version != version_after) {
		snprintf(buf, len, "wall clock not filled in (version %u)",
			 version_after);
		return;
	}
	pvclock_describe_wall("wall clock at kvm-clock 0", sec, nsec, buf, len);
}

static int kvm_clock_probe(struct clock *c, const struct probe_env *env)
{
	const struct hv_leaf *kvm = hv_find(env->hv, HV_KVM);
	char flags[PVCLOCK_FLAGS_TEXT_LEN], wall[CLOCK_TEXT_LEN];
	uint32_t features;
	struct pvclock_sample s;
	uint64_t tsc_hz;
	bool flags_valid;

	if (!kvm) {
		hv_describe_missing(env->hv, "KVM", "kvm-clock",
				    c->absent_reason, sizeof(c->absent_reason));
		return -1;
	}
	/* Old KVMs answer 0 in the signature leaf's EAX; only a non-zero
	 * maximum below the features leaf says there is none. */
	if (kvm->max_leaf && kvm->max_leaf < kvm->base + 1)
		return probe_absent(
			c, "KVM at %#x lists no features leaf (max leaf %#x)",
			kvm->base, kvm->max_leaf);
	features = cpuid(kvm->base + KVM_CPUID_FEATURES_OFFSET).eax;
	if (features & KVM_FEATURE_CLOCKSOURCE2) {
		kvm_clock_msr_system_time = MSR_KVM_SYSTEM_TIME_NEW;
		kvm_clock_msr_wall_clock = MSR_KVM_WALL_CLOCK_NEW;
	} else if (features & KVM_FEATURE_CLOCKSOURCE) {
		kvm_clock_msr_system_time = MSR_KVM_SYSTEM_TIME;
		kvm_clock_msr_wall_clock = MSR_KVM_WALL_CLOCK;
	} else
		return probe_absent(
			c,
			"KVM offers no kvm-clock: CPUID %#x EAX %#x has "
			"neither CLOCKSOURCE (bit 0) nor CLOCKSOURCE2 (bit 3)",
			kvm->base + KVM_CPUID_FEATURES_OFFSET, features);

	/* Only the boot CPU for now; the others call setup_cpu(). */
	if (kvm_clock_register(0, &s, c->absent_reason,
			       sizeof(c->absent_reason)))
		return -1;
	if (pvclock_check_advance(&kvm_clock_areas[0], tsc_read_ordered,
				  KVM_CLOCK_READ_MAX_TRIES,
				  KVM_CLOCK_ADVANCE_CYCLES,
				  KVM_CLOCK_ADVANCE_MAX_SPINS, "kvm-clock",
				  c->absent_reason, sizeof(c->absent_reason))) {
		wrmsr_safe(kvm_clock_msr_system_time, 0);
		kvm_source.area[0] = NULL;
		return -1;
	}

	flags_valid = features & KVM_FEATURE_CLOCKSOURCE_STABLE_BIT;
	tsc_hz = pvclock_tsc_hz(s.mul_frac, s.shift);
	c->width_bits = 64;
	c->freq_hz = 1000000000;
	pvclock_describe_source(&s, c->freq_source, sizeof(c->freq_source));
	c->flags = CLOCK_PER_CPU | CLOCK_NEEDS_CPU_SETUP | CLOCK_READS_NS;
	/* KVM's ABI: the area's flags count only with CPUID bit 24. */
	if (flags_valid && (s.flags & XEN_PVCLOCK_TSC_STABLE_BIT))
		c->flags |= CLOCK_CLAIMS_STABLE;

	kvm_clock_describe_wall(wall, sizeof(wall));
	snprintf(c->notes, sizeof(c->notes),
		 "area flags: %s (CPUID bit 24 %s); TSC %llu Hz implied; %s%s",
		 pvclock_flags_describe(s.flags, flags, sizeof(flags)),
		 flags_valid ? "set: honoured" : "clear: ignored",
		 (unsigned long long)tsc_hz, wall,
		 kvm_clock_msr_system_time == MSR_KVM_SYSTEM_TIME
			 ? "; old MSRs 0x12/0x11"
			 : "");
	return 0;
}

struct clock kvm_clock = {
	.name = "kvm_clock",
	.description = "KVM paravirtual clock (pvclock area per CPU, in ns)",
	.probe = kvm_clock_probe,
	.read = kvm_clock_read,
	.setup_cpu = kvm_clock_setup_cpu,
	/* An rdtsc and a little arithmetic when rdtsc is not intercepted. */
	.native_read_ns_max = 100,
	.bad_reads = kvm_clock_failed_reads,
	.bad_reads_check = "no read met a stuck or ever-changing version",
};
