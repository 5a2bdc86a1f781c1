/* SPDX-License-Identifier: MIT */
/*
 * The pvclock step monitor: each vCPU polls its own pvclock record (its
 * version word only, while it stays the same) and, at each update it sees
 * (the version changed and is even again), computes the time at one TSC
 * value, the one read at that poll, with the old parameters and with the
 * new: the step the update made, in ns, signed.  It keeps the steps'
 * histogram, the largest each way, the count over the span watched, and
 * the history of the flags (PVCLOCK_TSC_STABLE_BIT, PVCLOCK_GUEST_STOPPED).
 * Pure C over memory; host-tested (tests/unit/test_pvclock_step.c).
 */
#ifndef CLOCKBENCH_HYPERVISOR_PVCLOCK_STEP_H
#define CLOCKBENCH_HYPERVISOR_PVCLOCK_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "hypervisor/pvclock.h"
#include "lib/hist.h"

/* Flag changes kept per vCPU; more are counted, not kept. */
#define PVCLOCK_FLAG_HISTORY 16

/* One record's parameters, read under its version protocol. */
struct pvclock_params {
	uint64_t tsc_timestamp, system_time;
	uint32_t version; /* even */
	uint32_t mul_frac;
	int8_t shift;
	uint8_t flags;
};

/* A change of the flags, as one update brought it. */
struct pvclock_flag_change {
	uint64_t update;       /* the update's number on this vCPU, from 1 */
	uint32_t version;      /* the record's new version */
	uint8_t before, after; /* XEN_PVCLOCK_* bits */
};

struct pvclock_step_monitor {
	bool started;		    /* a baseline was read */
	bool ever_started;	    /* first_flags holds the first */
	struct pvclock_params last; /* the parameters now in force */
	uint64_t last_poll_tsc;
	uint64_t watched_cycles; /* TSC cycles between polls, summed */
	uint64_t polls, updates;
	uint64_t odd_polls;  /* polls that found an update under way */
	uint64_t unreadable; /* polls whose reads never settled (bounded) */
	uint64_t refused;    /* updates whose shift was out of range */
	int64_t largest_forward_ns, largest_back_ns; /* 0: none that way */
	/* Steps back beyond the record's own resolution
	 * (pvclock_step_bound_ns) where old and new both say
	 * PVCLOCK_TSC_STABLE_BIT, and the worst of them. */
	uint64_t stable_back_beyond;
	int64_t stable_worst_back_ns;
	uint64_t stable_updates; /* updates whose old and new were stable */
	uint8_t first_flags;	 /* the baseline's flags */
	unsigned int nr_changes;
	uint64_t changes_dropped; /* beyond PVCLOCK_FLAG_HISTORY */
	struct pvclock_flag_change changes[PVCLOCK_FLAG_HISTORY];
	struct hist step_ns;
};

/**
 * pvclock_params_read() - @ti's parameters under the version protocol, and
 * the TSC read inside it through @read_tsc (ordered: lfence; rdtsc) into
 * *@tsc: at most @max_tries attempts (0 is taken as 1), each accepted when
 * the version read before and after the fields is the same and even.  0,
 * or -1 when every attempt found the version odd or changing.
 */
int pvclock_params_read(const volatile struct vcpu_time_info *ti,
			uint64_t (*read_tsc)(void), unsigned int max_tries,
			struct pvclock_params *out, uint64_t *tsc);

/**
 * pvclock_params_time() - the time @p gives at TSC @tsc, in ns, into
 * *@ns: counted back from tsc_timestamp when @tsc is before it.  -1 when
 * the shift is out of range (64 or more either way): the shift is
 * hypervisor data, and such a record gives no time at all.
 */
int pvclock_params_time(const struct pvclock_params *p, uint64_t tsc,
			int64_t *ns);

/**
 * pvclock_step_ns() - the step from @old to @new at TSC @tsc: the time
 * @new gives there less the time @old gives, ns, into *@step.  -1 when
 * either shift is out of range.
 */
int pvclock_step_ns(const struct pvclock_params *old,
		    const struct pvclock_params *new, uint64_t tsc,
		    int64_t *step);

/**
 * pvclock_step_bound_ns() - the record's own resolution: the ns one TSC
 * cycle is worth at @p's scale, rounded up, plus 1 for the truncation of
 * each of the two times a step compares.  A step back within it is the
 * arithmetic's, not the hypervisor's.
 */
int64_t pvclock_step_bound_ns(const struct pvclock_params *p);

/** Empty @m. */
void pvclock_step_init(struct pvclock_step_monitor *m);

/**
 * pvclock_step_poll() - one poll of @ti at TSC @tsc (read just before).
 * Reads only the version word while it is the one in force; when it
 * changed, reads the record with pvclock_params_read() (@read_tsc,
 * @max_tries) and, when it settled, counts the update, its step at the
 * TSC read inside the protocol and any change of flags.  The first poll,
 * and the first after pvclock_step_pause(), reads the baseline.  Returns
 * true when it counted an update.
 */
bool pvclock_step_poll(struct pvclock_step_monitor *m,
		       const volatile struct vcpu_time_info *ti, uint64_t tsc,
		       uint64_t (*read_tsc)(void), unsigned int max_tries);

/**
 * pvclock_step_pause() - the watch stops here: the time until the next
 * poll is not watched, and that poll reads a new baseline (updates made
 * meanwhile are not seen, a change of flags is).
 */
void pvclock_step_pause(struct pvclock_step_monitor *m);

#endif
