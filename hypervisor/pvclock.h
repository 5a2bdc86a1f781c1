/* SPDX-License-Identifier: MIT */
/*
 * pvclock: the 32-byte time record that kvm-clock and Xen (vcpu_time_info)
 * both publish per vCPU.  Pure C over memory, shared by the kernel and the
 * host unit tests; the hypervisor-specific drivers only register the area
 * and read the TSC.
 *
 * The record comes from libxen-dev's <xen/xen.h> (lib/xen_abi.h).
 */
#ifndef CLOCKBENCH_HYPERVISOR_PVCLOCK_H
#define CLOCKBENCH_HYPERVISOR_PVCLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/xen_abi.h"

_Static_assert(sizeof(struct vcpu_time_info) == 32,
	       "vcpu_time_info is the 32-byte pvclock record");

#define PVCLOCK_FLAGS_TEXT_LEN 64

/* One consistent reading of a pvclock record. */
struct pvclock_sample {
	uint64_t ns;	      /* system_time + scaled TSC delta */
	uint64_t tsc;	      /* the TSC value the ns were computed from */
	uint32_t version;     /* the (even) version the fields belonged to */
	uint32_t mul_frac;    /* tsc_to_system_mul of that version */
	int8_t shift;	      /* tsc_shift of that version */
	uint8_t flags;	      /* XEN_PVCLOCK_* bits of that version */
	unsigned int retries; /* attempts beyond the first */
};

/**
 * pvclock_scale_delta() - nanoseconds in @delta TSC cycles.
 *
 * Shifts @delta left by @shift (right when negative), then returns
 * (delta * @mul_frac) >> 32 with the 96-bit product kept whole.  A shift of
 * 64 or more either way leaves nothing of @delta, so gives 0: the shift is
 * hypervisor data and must not reach an undefined C shift.
 */
uint64_t pvclock_scale_delta(uint64_t delta, uint32_t mul_frac, int8_t shift);

/**
 * pvclock_delta_for_ns() - the inverse of pvclock_scale_delta(): the
 * fewest TSC cycles that @mul_frac and @shift scale to @ns nanoseconds or
 * more.  UINT64_MAX when none does (a @mul_frac of 0 or a shift of 64 or
 * more scales everything to 0) or the count does not fit in 64 bits.
 */
uint64_t pvclock_delta_for_ns(uint64_t ns, uint32_t mul_frac, int8_t shift);

/**
 * pvclock_tsc_for_ns() - the TSC at which the record read as @s reaches
 * @ns: @s's TSC moved on (or back) by the cycles between its time and
 * @ns, at its mul_frac and shift; clamped to 0 and UINT64_MAX.  A
 * deadline of the record's time becomes a TSC value by the very record it
 * was computed from.
 */
uint64_t pvclock_tsc_for_ns(const struct pvclock_sample *s, uint64_t ns);

/**
 * pvclock_tsc_hz() - TSC frequency in Hz that @mul_frac and @shift imply:
 * ((10^9 << 32) / mul_frac), shifted right by @shift (left when negative).
 * Returns 0 when @mul_frac is 0 or the result is under 1 Hz or does not
 * fit in 64 bits.
 */
uint64_t pvclock_tsc_hz(uint32_t mul_frac, int8_t shift);

/**
 * pvclock_read() - read @ti under its version protocol.
 *
 * Each attempt reads the version, then the fields and the TSC (through
 * @read_tsc, which must order itself after earlier loads: lfence; rdtsc),
 * then the version again; the attempt counts when both versions are equal
 * and even.  At most @max_tries attempts are made (0 is taken as 1), so a
 * version stuck odd or changing all the time cannot hang the caller.
 *
 * Returns 0 with the sample in *@out, or -1 when every attempt failed; *@out
 * then holds the last attempt (its version tells which way it failed) and
 * retries = @max_tries - 1.
 */
int pvclock_read(const volatile struct vcpu_time_info *ti,
		 uint64_t (*read_tsc)(void), unsigned int max_tries,
		 struct pvclock_sample *out);

/**
 * pvclock_read_at() - pvclock_read() for a TSC value already read, @tsc:
 * the record's time at that TSC, under the same version protocol (an
 * interrupt handler's entry TSC, say).  The hypervisor may have rewritten
 * the record since @tsc was read (a new calibration, the vCPU moved to
 * another CPU), so @tsc may lie before its tsc_timestamp: the time is then
 * counted back from the stamp, not taken from the ABI's unsigned
 * difference, which would put it some 2^63 ns ahead.
 */
int pvclock_read_at(const volatile struct vcpu_time_info *ti, uint64_t tsc,
		    unsigned int max_tries, struct pvclock_sample *out);

/**
 * pvclock_flags_describe() - @flags in words into @buf (@len bytes), e.g.
 * "TSC stable, guest stopped" or "none"; unknown bits are shown in hex.
 * Returns @buf.
 */
char *pvclock_flags_describe(uint8_t flags, char *buf, size_t len);

/**
 * pvclock_check_advance() - does @ti move?  Reads it, waits @wait_cycles
 * of @read_tsc (at most @max_spins spins, in case the TSC stands), reads it
 * again.  Returns 0 when the second reading is later, or -1 with the
 * reason in @why (@name names the clock in it).
 */
int pvclock_check_advance(const volatile struct vcpu_time_info *ti,
			  uint64_t (*read_tsc)(void), unsigned int max_tries,
			  uint64_t wait_cycles, unsigned int max_spins,
			  const char *name, char *why, size_t whylen);

/**
 * pvclock_describe_source() - "pvclock (ns); TSC 2.30 GHz from
 * tsc_to_system_mul 0x..., tsc_shift -1" for @s into @buf.  Returns @buf.
 */
char *pvclock_describe_source(const struct pvclock_sample *s, char *buf,
			      size_t len);

/**
 * pvclock_describe_wall() - "<what>: 2026-11-30 06:23:29.123456789 UTC"
 * for @sec and @nsec since the epoch into @buf.  Returns @buf.
 */
char *pvclock_describe_wall(const char *what, uint64_t sec, uint32_t nsec,
			    char *buf, size_t len);

#endif
