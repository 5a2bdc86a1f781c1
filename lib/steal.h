/* SPDX-License-Identifier: MIT */
/*
 * Steal time: what the hypervisor itself says a vCPU lost while it was
 * runnable but not running, and how much of the noise phase's gaps that
 * accounts for.  Two records, each read as its owner documents it:
 *
 *  - KVM's steal-time record (asm/kvm_para.h, Debian's linux-libc-dev):
 *    a 64-byte-aligned struct kvm_steal_time the guest names with
 *    MSR_KVM_STEAL_TIME when CPUID 0x40000001 offers KVM_FEATURE_STEAL_TIME;
 *    KVM makes its version odd while it writes.
 *  - Xen's runstate area (xen/vcpu.h, libxen-dev): a struct
 *    vcpu_runstate_info registered with VCPUOP_register_runstate_memory_area;
 *    with VMASST_TYPE_runstate_update_flag, Xen sets XEN_RUNSTATE_UPDATE in
 *    state_entry_time while it writes.  Steal is the time runnable (and
 *    offline), as Linux counts it.
 *
 * Pure C over memory: hypervisor/steal.c registers the records, the host
 * unit tests (tests/unit/test_steal.c) feed these functions records of
 * their own.
 */
#ifndef CLOCKBENCH_LIB_STEAL_H
#define CLOCKBENCH_LIB_STEAL_H

#include <stdbool.h>
#include <stdint.h>

#include <asm/kvm_para.h>

#include "lib/tickmath.h"
#include "lib/xen_abi.h"

#include <xen/vcpu.h>

/* Whose record a run reads (hypervisor/steal.c chooses). */
enum steal_kind {
	STEAL_NONE,
	STEAL_KVM, /* MSR_KVM_STEAL_TIME */
	STEAL_XEN, /* VCPUOP_register_runstate_memory_area */
};

/** "KVM steal-time MSR", "Xen runstate area", "none". */
const char *steal_kind_name(enum steal_kind kind);

#define STEAL_TEXT_LEN 160

/* The record a phase reads on the calling CPU: whose, in words (or why
 * there is none), and whether it could be set up (why not). */
struct steal_setup {
	enum steal_kind kind;
	bool ok;
	char words[STEAL_TEXT_LEN];
	char why[STEAL_TEXT_LEN];
};

/* A record rewritten while we read it is read again, this many times at
 * most: a hypervisor writes it in well under a microsecond. */
#define STEAL_READ_MAX_TRIES 100

/**
 * The steal time KVM's record @st holds, in ns, into @steal_ns: 0, or -1
 * when its version stayed odd or kept changing over @max_tries reads.
 */
int steal_read_kvm(const volatile struct kvm_steal_time *st,
		   unsigned int max_tries, uint64_t *steal_ns);

/**
 * The steal time Xen's runstate record @rs holds (runnable plus offline),
 * in ns, into @steal_ns: 0, or -1 when it was being updated or kept
 * changing over @max_tries reads.
 */
int steal_read_xen(const volatile struct vcpu_runstate_info *rs,
		   unsigned int max_tries, uint64_t *steal_ns);

/* The gaps of one CPU's spin against the steal its record counted. */
struct steal_attribution {
	double gap_ns;		  /* all gaps */
	double steal_in_gaps_ns;  /* steal the gaps account for */
	double steal_outside_ns;  /* steal counted beyond any gap's length */
	double steal_gaps_ns;	  /* the gap time of those that held steal */
	uint64_t gaps_with_steal; /* runs of gaps (see below) with steal */
	uint64_t failed_reads;	  /* reads that never settled (skipped) */
};

/**
 * Count a gap of @gap_ns across which the record's steal time grew by
 * @steal_delta_ns: the steal accounts for the gap up to its length, and
 * any excess is counted apart (a record that runs ahead, or steal taken
 * between two reads too close to make a gap).
 */
void steal_attribute(struct steal_attribution *a, double gap_ns,
		     uint64_t steal_delta_ns);

/** The share of @a's gap time steal accounts for, in % (0 without gaps). */
double steal_share_pct(const struct steal_attribution *a);

/*
 * Which steal belongs to which gap.  A spin reads the record just before
 * each clock read, and a gap is the step between two clock reads.  The
 * hypervisor may take the vCPU away anywhere in that step, and where the
 * clock read traps (a Xen PV guest's rdtsc, emulated) it does so on the
 * way out of the trap: the value was taken before the wait, the guest gets
 * it after, and the wait shows as the *next* step's gap, while a record
 * read after that value already holds its steal (seen under Xen 4.17:
 * a 2.2 ms steal read after a 50 us gap, the 2.4 ms gap that held it
 * next).  So steal is given to runs of gaps, steps above the threshold
 * one after another: from the record read before the run's first clock
 * read to the one before the first clock read after it, which no wait of
 * the run can fall outside of, and into which nothing else falls but the
 * short steps at its two ends.
 */
struct steal_runs {
	uint64_t before_prev; /* the record read before the last clock read */
	uint64_t run_base;    /* the record read before the run's first */
	double run_gap_ns;    /* the run's gaps so far */
	bool in_run;
};

/** Start @r at the spin's first clock read, the record read just before
 * it being @steal_first. */
void steal_runs_start(struct steal_runs *r, uint64_t steal_first);

/**
 * One step of the spin, into @a through @r: @steal_before_now is the
 * record read just before the step's closing clock read, @gap_ns the
 * step's length when it was a gap, else 0.
 */
void steal_runs_step(struct steal_runs *r, struct steal_attribution *a,
		     uint64_t steal_before_now, double gap_ns);

/**
 * The spin's end, with the record read after its last clock read
 * (@steal_end): a run still open takes what the record gained up to it.
 */
void steal_runs_end(struct steal_runs *r, struct steal_attribution *a,
		    uint64_t steal_end);

/*
 * Steal seen by a loop that reads the record now and then, the tick
 * phase's work loop once a chunk: where between its TSC reads the vCPU was
 * taken away, so that an interrupt can be told late because of it or not.
 * The loop reads the record just before each TSC read (sample k: steal
 * s_k, then TSC t_k).  Steal that s_k holds and s_{k-1} did not fell
 * after s_{k-1} was read, which was after t_{k-2}, and before s_k, before
 * t_k: so in (t_{k-2}, t_k), whatever the hypervisor did between, even
 * where a trapped TSC read's wait comes after its value was taken.  Those
 * spans overlap one step each, and steal grown in runs of samples is one
 * span.  The spans are kept in memory the caller owns; with no room left
 * one is dropped and counted, and past its start nothing is told.
 */
struct steal_span {
	uint64_t from_tsc, to_tsc; /* the steal fell between these */
	uint64_t steal_ns;	   /* and was this much */
};

struct steal_trace {
	struct steal_span *spans; /* in TSC order, disjoint */
	unsigned int capacity, n;
	uint64_t first_tsc, first_steal; /* the first sample */
	uint64_t prev_tsc;		 /* the sample before the last */
	uint64_t last_tsc, last_steal;	 /* the last */
	uint64_t dropped;		 /* spans with no room */
	uint64_t complete_to_tsc;	 /* no span was dropped before it */
};

/** Start @t at its first sample (@steal read, then the TSC, @tsc), with
 * room for @capacity spans at @spans. */
void steal_trace_start(struct steal_trace *t, struct steal_span *spans,
		       unsigned int capacity, uint64_t tsc, uint64_t steal);

/** A sample: the record read (@steal), then the TSC (@tsc). */
void steal_trace_sample(struct steal_trace *t, uint64_t tsc, uint64_t steal);

/** What @t counted from its first sample to its last, in ns. */
uint64_t steal_trace_total_ns(const struct steal_trace *t);

/* Whether steal fell in a stretch of time. */
enum steal_verdict {
	STEAL_NOT_TAKEN, /* the record shows none there */
	STEAL_TAKEN,	 /* it grew there (or at most two steps off) */
	STEAL_UNTOLD,	 /* outside the samples, or past a dropped span */
};

/**
 * Whether @t saw the vCPU taken away between TSC @from_tsc and @to_tsc
 * (in either order): taken when a span of steal overlaps the stretch.  A
 * span holds its steal and two steps of the loop besides, so "taken" may
 * come of steal up to two steps outside the stretch, but no steal inside
 * it is missed.
 */
enum steal_verdict steal_trace_classify(const struct steal_trace *t,
					uint64_t from_tsc, uint64_t to_tsc);

/* Interrupts' lateness split by steal_trace_classify()'s verdict. */
struct steal_lateness {
	struct tick_spread taken_ns;	 /* late while taken away */
	struct tick_spread not_taken_ns; /* late with no steal */
	uint64_t untold;		 /* not told (STEAL_UNTOLD) */
};

/**
 * Split @n interrupts' lateness, @late_ns[i] with @verdict[i] (an enum
 * steal_verdict), into @out: both arrays are reordered in place (the taken
 * first, the untold last) and each part sorted.
 */
void steal_lateness_split(int64_t *late_ns, uint8_t *verdict, size_t n,
			  struct steal_lateness *out);

#endif
