/* SPDX-License-Identifier: MIT */
/*
 * One clock: a table entry the measurement code reads without knowing
 * which clock it is.  Each clock lives in one file (drivers/tsc.c,
 * drivers/hpet.c, drivers/acpi_pm.c, drivers/pit.c, hypervisor/kvmclock.c,
 * hypervisor/xen_pvclock.c) and exports one `struct clock`;
 * engine/clocks.c lists them.  What the engine must know of a clock's role
 * (a reference for rates, probed last, the stopwatch) is a field here, so
 * that no engine code names a clock.
 *
 * read() returns the raw counter, counting up, in its low width_bits bits
 * (a down-counter such as the PIT is inverted by its driver).  clock_ns()
 * turns a raw difference into nanoseconds from freq_hz.
 */
#ifndef CLOCKBENCH_LIB_CLOCK_H
#define CLOCKBENCH_LIB_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

struct acpi;
struct cpu_info;
struct hv_info;

/* flags */
#define CLOCK_PER_CPU	      (1u << 0) /* each CPU reads its own instance */
#define CLOCK_NEEDS_CPU_SETUP (1u << 1) /* each CPU runs setup_cpu() first */
#define CLOCK_CLAIMS_STABLE   (1u << 2) /* the source claims CPUs agree */
#define CLOCK_READS_NS	      (1u << 3) /* the raw value is nanoseconds */
#define CLOCK_PORT_IO	      (1u << 4) /* read through I/O ports */
#define CLOCK_MULTI_ACCESS    (1u << 5) /* one read takes several accesses */

#define CLOCK_TEXT_LEN	160
#define CLOCK_MAX_PORTS 2

#define NS_PER_S 1000000000ull

struct clock;

/*
 * What the probes of clocks and tick sources may look at: filled in by the
 * engine, which hands a driver what it needs (a reference to calibrate
 * against, the hypervisor's word on the TSC) instead of the driver calling
 * back up into the table that lists it.
 */
struct probe_env {
	struct acpi *acpi;	  /* NULL when the machine has no ACPI */
	const struct hv_info *hv; /* hypervisor leaves found */
	const struct cpu_info *cpu;
	/* The best present clock with an independently known rate (lowest
	 * reference_rank), for calibrations; NULL when there is none, and
	 * while such clocks are still being probed. */
	const struct clock *reference;
	/* The stopwatch's clock (base/stopwatch.h), once its frequency is
	 * known; NULL before. */
	const struct clock *stopwatch;
	/* The TSC's frequency as a hypervisor's leaf states it (0: none),
	 * and which leaf, in words. */
	uint64_t hv_tsc_hz;
	char hv_tsc_source[CLOCK_TEXT_LEN];
	/* Xen's host TSC frequency (leaf base + 3.2), a last resort that
	 * holds while Xen does not emulate rdtsc (0: none), in words too. */
	uint64_t xen_host_tsc_hz;
	char xen_host_tsc_source[CLOCK_TEXT_LEN];
};

struct clock {
	const char *name; /* stable: tsc, hpet, acpi_pm, pit, kvm_clock, ... */
	/* The hardware counter read, when several clocks read one ("tsc");
	 * NULL means the clock's own name.  One counter's rate against
	 * itself proves nothing. */
	const char *counter;
	const char *description; /* one line for people */

	/*
	 * Find the clock and fill in width_bits, freq_hz, freq_source and
	 * flags.  Returns 0 when present; otherwise -1 with the reason, in
	 * words, in absent_reason.  Runs once, on the boot CPU.
	 */
	int (*probe)(struct clock *clock, const struct probe_env *env);
	/* The raw counter (see above).  Only called when present. */
	uint64_t (*read)(void);
	/* Per-CPU setup for CLOCK_NEEDS_CPU_SETUP clocks; 0 or -1. */
	int (*setup_cpu)(struct clock *clock);

	/* What one read can cost on bare metal, in ns, at most: a median
	 * above it means something intercepts the read ("trapped"). */
	unsigned int native_read_ns_max;

	/* Its role, for the engine.  reference_rank: an independently known
	 * rate other clocks are measured against, 1 the best (0: not a
	 * reference).  probe_late: probed after every other clock, so that
	 * it can calibrate against a reference.  stopwatch: the clock every
	 * measurement times with (base/stopwatch.h); one in the table. */
	unsigned int reference_rank;
	bool probe_late;
	bool stopwatch;

	/* Reads that went wrong and were retried or gave the last value (a
	 * stuck pvclock version, an HPET that kept tearing), counted by the
	 * driver, and the check that none did, in words ("no read met a
	 * stuck or ever-changing version"); NULL when it keeps no count. */
	unsigned long (*bad_reads)(void);
	const char *bad_reads_check;

	unsigned int width_bits;
	uint64_t freq_hz; /* nominal frequency of the raw counter */
	char freq_source
		[CLOCK_TEXT_LEN]; /* where freq_hz came from, in words */
	/* The clock freq_hz was measured against, if it was calibrated: a
	 * rate check against that one would prove nothing. */
	const struct clock *calibrated_against;
	unsigned int flags;
	/* The I/O ports a CLOCK_PORT_IO clock's reads use, as its probe
	 * found them, for the report's word on how they were accessed. */
	uint16_t ports[CLOCK_MAX_PORTS];
	unsigned int nr_ports;
	bool present;
	char absent_reason[CLOCK_TEXT_LEN];
	char notes[CLOCK_TEXT_LEN]; /* anything else worth a reader's eye */
};

/* Each flag's name in the JSON report and in words for people. */
struct clock_flag_name {
	unsigned int flag;
	const char *key;   /* "per_cpu" */
	const char *words; /* "per-CPU" */
};

extern const struct clock_flag_name clock_flag_names[];
extern const size_t clock_flag_count;

/**
 * For a probe that finds its clock or tick source absent: the reason, in
 * words, into @x->absent_reason, and -1 to return (lib/error.h).
 */
#define probe_absent(x, ...) \
	error_set((x)->absent_reason, sizeof((x)->absent_reason), __VA_ARGS__)

/**
 * What a probe's return value @rc means: present when 0; otherwise absent,
 * and an @absent_reason the probe left empty says that it gave none.
 */
bool probe_present(int rc, char *absent_reason, size_t len);

/** Mask of a @width_bits-wide counter. */
static inline uint64_t clock_mask(unsigned int width_bits)
{
	return width_bits >= 64 ? ~0ull : (1ull << width_bits) - 1;
}

/** Forward distance from @then to @now of a counter that wraps. */
static inline uint64_t clock_delta(const struct clock *c, uint64_t then,
				   uint64_t now)
{
	return (now - then) & clock_mask(c->width_bits);
}

/** Whether @a and @b read the same hardware counter. */
bool clock_same_counter(const struct clock *a, const struct clock *b);

/** Nanoseconds in @delta raw counts of a clock at @freq_hz. */
uint64_t clock_counts_to_ns(uint64_t delta, uint64_t freq_hz);

/**
 * Counts of a clock at @freq_hz in @ns nanoseconds, saturating at
 * UINT64_MAX (half the wrap of a 64-bit counter does not fit in TSC
 * cycles).
 */
uint64_t clock_ns_to_counts(uint64_t ns, uint64_t freq_hz);

/**
 * Whether a step of more than half a narrow counter's wrap, read
 * @gap_cycles (TSC) after the one before, may as well have been a step
 * forward of @forward_cycles: the gap exceeds half a wrap (the guest was
 * away), or it matches the forward step within a quarter of half a wrap
 * (it was away about as long as the forward reading says, just under half
 * a wrap).  Such steps are ambiguous, not steps back.
 */
bool clock_gap_ambiguous(uint64_t gap_cycles, uint64_t forward_cycles,
			 uint64_t half_wrap_cycles);

/** clock_counts_to_ns() with @c's frequency (identity for ns clocks). */
uint64_t clock_ns(const struct clock *c, uint64_t delta);

#endif
