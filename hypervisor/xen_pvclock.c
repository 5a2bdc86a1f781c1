// SPDX-License-Identifier: MIT
/*
 * xen_pvclock: Xen's per-vCPU time record (vcpu_time_info, a pvclock
 * record) in the shared_info page — mirrored, where Xen offers it, into an
 * area of our own with VCPUOP_register_vcpu_time_memory_area, as Linux
 * does for its vDSO — read and scaled by the same code as kvm-clock.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <xen/vcpu.h>

#include "base/cpu.h"
#include "base/smp.h"
#include "hypervisor/hypercall.h"
#include "hypervisor/pvclock.h"
#include "hypervisor/pvclock_source.h"
#include "hypervisor/xen.h"

/* Xen rewrites a vCPU's record while that vCPU is descheduled or at its
 * own timer tick; a hundred attempts is far beyond need and still bounded. */
#define XEN_PVCLOCK_READ_MAX_TRIES 100
#define XEN_PVCLOCK_ADVANCE_CYCLES 100000ull
#define XEN_PVCLOCK_ADVANCE_SPINS  1000000u
#define XEN_WALLCLOCK_MAX_TRIES	   100

struct xen_pvclock_cpu {
	uint32_t vcpu;
	int register_rc; /* VCPUOP_register_vcpu_time_memory_area */
};

static struct xen_pvclock_cpu per_cpu[MAX_CPUS];
static volatile struct vcpu_time_info own_areas[MAX_CPUS]
	__attribute__((aligned(32)));
static struct pvclock_source xen_source = {
	.max_tries = XEN_PVCLOCK_READ_MAX_TRIES,
};
static struct xen_cpuid_info xen_cpuid;

/* A restored domain's record must be written anew; these many yields to
 * Xen's scheduler at most, when it still holds the suspend's. */
#define XEN_PVCLOCK_RENEW_YIELDS 10

/* A record's stamp pair: what Xen rewrites whenever it writes a record. */
struct record_stamps {
	uint64_t system_time, tsc_timestamp;
};

/* Each CPU's record when the domain suspended. */
static struct record_stamps at_suspend[MAX_CPUS];
static bool at_suspend_noted[MAX_CPUS];

static uint64_t xen_pvclock_read(void)
{
	return pvclock_source_read(&xen_source);
}

/*
 * Point CPU @cpu at its record: shared_info's, or the mirror Xen fills
 * when it accepts our area.  Checks that the record is filled in.
 */
static int setup_cpu(unsigned int cpu, char *why, size_t whylen)
{
	struct xen_pvclock_cpu *p = &per_cpu[cpu];
	struct vcpu_register_time_memory_area reg;
	volatile struct vcpu_time_info *area;
	struct pvclock_sample s;

	p->vcpu = xen_vcpu_id(&xen_cpuid, cpu);
	if (p->vcpu >= XEN_LEGACY_MAX_VCPUS) {
		snprintf(why, whylen,
			 "vCPU %u has no vcpu_info in shared_info (it has "
			 "%u)",
			 p->vcpu, XEN_LEGACY_MAX_VCPUS);
		return -1;
	}
	area = &xen_shared_info->vcpu_info[p->vcpu].time;
	reg.addr.v = (struct vcpu_time_info *)&own_areas[cpu];
	p->register_rc = (int)HYPERCALL3(__HYPERVISOR_vcpu_op,
					 VCPUOP_register_vcpu_time_memory_area,
					 p->vcpu, &reg);
	if (p->register_rc == 0 && own_areas[cpu].version != 0)
		area = &own_areas[cpu];
	if (pvclock_read(area, tsc_read_ordered, XEN_PVCLOCK_READ_MAX_TRIES,
			 &s))
		snprintf(why, whylen,
			 "vCPU %u's time record version stayed odd or kept "
			 "changing (last %u)",
			 p->vcpu, s.version);
	else if (s.version == 0 || s.mul_frac == 0)
		snprintf(why, whylen,
			 "vCPU %u's time record is not filled in (version %u, "
			 "tsc_to_system_mul %#x)",
			 p->vcpu, s.version, s.mul_frac);
	else {
		xen_source.area[cpu] = area;
		return 0;
	}
	return -1;
}

static int xen_pvclock_setup_cpu(struct clock *c)
{
	char why[CLOCK_TEXT_LEN];

	(void)c;
	return setup_cpu(cpu_index(), why, sizeof(why));
}

static void describe(struct clock *c, const struct pvclock_sample *s)
{
	char flags[PVCLOCK_FLAGS_TEXT_LEN], wall[96], mirror[96];
	uint64_t sec;
	uint32_t nsec;

	if (xen_wallclock_read(xen_shared_info, XEN_WALLCLOCK_MAX_TRIES, &sec,
			       &nsec))
		snprintf(wall, sizeof(wall),
			 "wall clock version never settled");
	else
		pvclock_describe_wall("wall clock at Xen time 0", sec, nsec,
				      wall, sizeof(wall));
	if (xen_source.area[0] == &own_areas[0])
		snprintf(mirror, sizeof(mirror),
			 "read from our own area (VCPUOP_register_vcpu_time_"
			 "memory_area)");
	else
		snprintf(mirror, sizeof(mirror),
			 "read from shared_info (registering an area of our "
			 "own: %d)",
			 per_cpu[0].register_rc);
	snprintf(c->notes, sizeof(c->notes), "vCPU %u, %s; flags: %s; %s",
		 per_cpu[0].vcpu, mirror,
		 pvclock_flags_describe(s->flags, flags, sizeof(flags)), wall);
}

static int xen_pvclock_probe(struct clock *c, const struct probe_env *env)
{
	const struct hv_leaf *leaf = hv_find(env->hv, HV_XEN);
	struct pvclock_sample s;

	if (!leaf) {
		hv_describe_missing(env->hv, "Xen", "xen_pvclock",
				    c->absent_reason, sizeof(c->absent_reason));
		return -1;
	}
	xen_cpuid_read(leaf, cpu_cpuid, &xen_cpuid);
	if (xen_guest_setup(&xen_cpuid, c->absent_reason,
			    sizeof(c->absent_reason)))
		return -1;
	if (setup_cpu(0, c->absent_reason, sizeof(c->absent_reason)))
		return -1;
	if (pvclock_check_advance(xen_source.area[0], tsc_read_ordered,
				  XEN_PVCLOCK_READ_MAX_TRIES,
				  XEN_PVCLOCK_ADVANCE_CYCLES,
				  XEN_PVCLOCK_ADVANCE_SPINS, "xen_pvclock",
				  c->absent_reason, sizeof(c->absent_reason)))
		return -1;
	pvclock_read(xen_source.area[0], tsc_read_ordered,
		     XEN_PVCLOCK_READ_MAX_TRIES, &s);
	c->width_bits = 64;
	c->freq_hz = 1000000000;
	pvclock_describe_source(&s, c->freq_source, sizeof(c->freq_source));
	c->flags = CLOCK_PER_CPU | CLOCK_NEEDS_CPU_SETUP | CLOCK_READS_NS;
	if (s.flags & XEN_PVCLOCK_TSC_STABLE_BIT)
		c->flags |= CLOCK_CLAIMS_STABLE;
	describe(c, &s);
	return 0;
}

/* A record's stamp pair, under its version: 0, or -1 when it never
 * settled. */
static int read_stamps(const volatile struct vcpu_time_info *a,
		       struct record_stamps *out)
{
	unsigned int i;

	for (i = 0; i < XEN_PVCLOCK_READ_MAX_TRIES; i++) {
		uint32_t version = a->version;

		barrier();
		out->system_time = a->system_time;
		out->tsc_timestamp = a->tsc_timestamp;
		barrier();
		if (!(version & 1) && version == a->version)
			return 0;
	}
	return -1;
}

void xen_pvclock_note_suspend(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		const volatile struct vcpu_time_info *a = xen_source.area[cpu];

		at_suspend_noted[cpu] = xen_pvclock.present && a &&
					read_stamps(a, &at_suspend[cpu]) == 0;
	}
}

/* Whether the calling CPU's record is still the one the domain suspended
 * with: the restored copy of shared_info (or of our own area), which Xen
 * has not written since.  Its system time is then the suspend's, and under
 * an emulated TSC that stood still it would freeze the clock. */
static bool record_is_old(unsigned int cpu, struct record_stamps *now)
{
	return read_stamps(xen_source.area[cpu], now) == 0 &&
	       now->system_time == at_suspend[cpu].system_time &&
	       now->tsc_timestamp == at_suspend[cpu].tsc_timestamp;
}

int xen_pvclock_resume(bool restored, char *said, size_t len)
{
	unsigned int cpu = cpu_index(), yields;
	struct record_stamps now;
	bool old;
	char why[CLOCK_TEXT_LEN];

	said[0] = '\0';
	if (!xen_pvclock.present)
		return 0;
	/* A new domain has none of the old one's registered areas. */
	own_areas[cpu].version = 0;
	if (setup_cpu(cpu, why, sizeof(why))) {
		snprintf(said, len, "%s", why);
		return -1;
	}
	if (!restored || !at_suspend_noted[cpu])
		return 0;
	/* Xen writes a record when the vCPU is scheduled: a yield or two
	 * gets one written where the restore left the old one. */
	for (yields = 0; (old = record_is_old(cpu, &now)) &&
			 yields < XEN_PVCLOCK_RENEW_YIELDS;
	     yields++)
		xen_sched_yield();
	if (old) {
		snprintf(said, len,
			 "vCPU %u's time record is still the suspend's after "
			 "%u yields (system_time %llu ns)",
			 per_cpu[cpu].vcpu, yields,
			 (unsigned long long)now.system_time);
		return -1;
	}
	snprintf(said, len,
		 "its time record renewed, system_time %+.3f ms on the "
		 "suspend's%s",
		 ((double)now.system_time -
		  (double)at_suspend[cpu].system_time) /
			 1e6,
		 yields ? " (after a yield)" : "");
	return 0;
}

int xen_pvclock_sample(struct pvclock_sample *s)
{
	const volatile struct vcpu_time_info *area =
		xen_source.area[cpu_index()];

	if (!xen_pvclock.present || !area)
		return -1;
	return pvclock_read(area, tsc_read_ordered, xen_source.max_tries, s);
}

const volatile struct vcpu_time_info *xen_pvclock_area(unsigned int cpu,
						       unsigned int *max_tries)
{
	*max_tries = xen_source.max_tries;
	return xen_pvclock.present && cpu < MAX_CPUS ? xen_source.area[cpu]
						     : NULL;
}

unsigned long xen_pvclock_failed_reads(void)
{
	return pvclock_source_bad_reads(&xen_source);
}

struct clock xen_pvclock = {
	.name = "xen_pvclock",
	.description = "Xen paravirtual clock (vcpu_time_info per vCPU, in ns)",
	.probe = xen_pvclock_probe,
	.read = xen_pvclock_read,
	.setup_cpu = xen_pvclock_setup_cpu,
	/* An rdtsc and a little arithmetic when rdtsc is not intercepted. */
	.native_read_ns_max = 100,
	.bad_reads = xen_pvclock_failed_reads,
	.bad_reads_check = "no read met a stuck or ever-changing version",
};
