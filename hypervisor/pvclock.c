// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/* pvclock arithmetic and the version protocol (see hypervisor/pvclock.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hypervisor/pvclock.h"

#define NSEC_PER_SEC 1000000000ull

/*
 * Orders the loads before it ahead of the loads after it.  x86 keeps loads
 * in order already, so there this is only a compiler barrier; elsewhere it
 * is the read barrier a seqlock reader needs.  The TSC read is not a load:
 * read_tsc() orders itself (lfence; rdtsc).
 */
static inline void pvclock_read_fence(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

uint64_t pvclock_scale_delta(uint64_t delta, uint32_t mul_frac, int8_t shift)
{
	if (shift >= 64 || shift <= -64)
		return 0;
	if (shift > 0)
		delta <<= shift;
	else if (shift < 0)
		delta >>= -shift;
#if defined(__x86_64__)
	{
		uint64_t ns, product_high;

		/*
		 * RDX:RAX = delta * mul_frac (at most 96 bits), then RAX =
		 * RDX:RAX >> 32.  mul writes RDX and the flags: both declared.
		 */
		asm("mulq %[mul]\n\t"
		    "shrdq $32, %[high], %[ns]"
		    : [ns] "=a"(ns), [high] "=d"(product_high)
		    : "0"(delta), [mul] "rm"((uint64_t)mul_frac)
		    : "cc");
		return ns;
	}
#else
	return (uint64_t)(((unsigned __int128)delta * mul_frac) >> 32);
#endif
}

uint64_t pvclock_delta_for_ns(uint64_t ns, uint32_t mul_frac, int8_t shift)
{
	unsigned __int128 at_least;

	if (!ns)
		return 0;
	if (!mul_frac || shift >= 64 || shift <= -64)
		return UINT64_MAX; /* the record scales every delta to 0 */
	/* (shifted delta * mul_frac) >> 32 >= ns: the least shifted delta. */
	at_least = (((unsigned __int128)ns << 32) + mul_frac - 1) / mul_frac;
	if (shift > 0) {
		at_least = (at_least + (1ull << shift) - 1) >> shift;
		/* The shift is done in 64 bits: a delta whose shifted value
		 * would need more loses its top bits and scales to less. */
		if (at_least > (UINT64_MAX >> shift))
			return UINT64_MAX;
	} else if (shift < 0)
		at_least = at_least > (UINT64_MAX >> -shift)
				   ? (unsigned __int128)UINT64_MAX + 1
				   : at_least << -shift;
	return at_least > UINT64_MAX ? UINT64_MAX : (uint64_t)at_least;
}

uint64_t pvclock_tsc_for_ns(const struct pvclock_sample *s, uint64_t ns)
{
	uint64_t delta;

	if (ns >= s->ns) {
		delta = pvclock_delta_for_ns(ns - s->ns, s->mul_frac, s->shift);
		return delta > UINT64_MAX - s->tsc ? UINT64_MAX
						   : s->tsc + delta;
	}
	delta = pvclock_delta_for_ns(s->ns - ns, s->mul_frac, s->shift);
	return delta > s->tsc ? 0 : s->tsc - delta;
}

uint64_t pvclock_tsc_hz(uint32_t mul_frac, int8_t shift)
{
	uint64_t hz;

	if (!mul_frac)
		return 0;
	/* 10^9 << 32 is about 4.3e18: it fits in 64 bits. */
	hz = (NSEC_PER_SEC << 32) / mul_frac;
	if (shift >= 0)
		return shift >= 64 ? 0 : hz >> shift;
	if (shift <= -64 || hz > (UINT64_MAX >> -shift))
		return 0;
	return hz << -shift;
}

/* pvclock_read(), or with @read_tsc NULL pvclock_read_at(@tsc). */
static int read_record(const volatile struct vcpu_time_info *ti,
		       uint64_t (*read_tsc)(void), uint64_t tsc,
		       unsigned int max_tries, struct pvclock_sample *out)
{
	unsigned int attempt;

	if (!max_tries)
		max_tries = 1;
	for (attempt = 0; attempt < max_tries; attempt++) {
		uint64_t tsc_timestamp, system_time;
		uint32_t version_after;

		out->version = ti->version;
		pvclock_read_fence();
		out->tsc = read_tsc ? read_tsc() : tsc;
		tsc_timestamp = ti->tsc_timestamp;
		system_time = ti->system_time;
		out->mul_frac = ti->tsc_to_system_mul;
		out->shift = ti->tsc_shift;
		out->flags = ti->flags;
		pvclock_read_fence();
		version_after = ti->version;

		/*
		 * A TSC read under the protocol is the ABI's unsigned
		 * difference: one behind tsc_timestamp gives a huge delta,
		 * which is what the hypervisor's data says and is left for
		 * the caller to see.  A TSC given from before may precede a
		 * record the hypervisor rewrote since it was read: its time
		 * lies on the record's line back from the stamp.
		 */
		if (!read_tsc && out->tsc < tsc_timestamp)
			out->ns =
				system_time -
				pvclock_scale_delta(tsc_timestamp - out->tsc,
						    out->mul_frac, out->shift);
		else
			out->ns =
				system_time +
				pvclock_scale_delta(out->tsc - tsc_timestamp,
						    out->mul_frac, out->shift);
		out->retries = attempt;
		if (!(out->version & 1) && version_after == out->version)
			return 0;
	}
	return -1;
}

int pvclock_read(const volatile struct vcpu_time_info *ti,
		 uint64_t (*read_tsc)(void), unsigned int max_tries,
		 struct pvclock_sample *out)
{
	return read_record(ti, read_tsc, 0, max_tries, out);
}

int pvclock_read_at(const volatile struct vcpu_time_info *ti, uint64_t tsc,
		    unsigned int max_tries, struct pvclock_sample *out)
{
	return read_record(ti, NULL, tsc, max_tries, out);
}

/* Appends @word to @buf, after ", " unless @buf is empty. */
static void append_word(char *buf, size_t len, const char *word)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 word);
}

char *pvclock_flags_describe(uint8_t flags, char *buf, size_t len)
{
	uint8_t unknown = flags & ~(XEN_PVCLOCK_TSC_STABLE_BIT |
				    XEN_PVCLOCK_GUEST_STOPPED);
	char hex[24];

	if (!len)
		return buf;
	buf[0] = '\0';
	if (flags & XEN_PVCLOCK_TSC_STABLE_BIT)
		append_word(buf, len, "TSC stable");
	if (flags & XEN_PVCLOCK_GUEST_STOPPED)
		append_word(buf, len, "guest stopped");
	if (unknown) {
		snprintf(hex, sizeof(hex), "unknown bits 0x%02x", unknown);
		append_word(buf, len, hex);
	}
	if (!flags)
		append_word(buf, len, "none");
	return buf;
}

int pvclock_check_advance(const volatile struct vcpu_time_info *ti,
			  uint64_t (*read_tsc)(void), unsigned int max_tries,
			  uint64_t wait_cycles, unsigned int max_spins,
			  const char *name, char *why, size_t whylen)
{
	struct pvclock_sample first, later;
	uint64_t start_cycles = read_tsc();
	unsigned int spins;

	if (pvclock_read(ti, read_tsc, max_tries, &first))
		goto stuck;
	for (spins = 0;
	     spins < max_spins && read_tsc() - start_cycles < wait_cycles;
	     spins++)
		;
	if (pvclock_read(ti, read_tsc, max_tries, &later))
		goto stuck;
	if (later.ns > first.ns)
		return 0;
	snprintf(why, whylen,
		 "%s did not advance: %llu ns, then %llu ns %llu TSC cycles "
		 "later",
		 name, (unsigned long long)first.ns,
		 (unsigned long long)later.ns,
		 (unsigned long long)(later.tsc - first.tsc));
	return -1;
stuck:
	snprintf(why, whylen,
		 "the %s area's version stayed odd or kept changing over %u "
		 "reads",
		 name, max_tries);
	return -1;
}

char *pvclock_describe_source(const struct pvclock_sample *s, char *buf,
			      size_t len)
{
	uint64_t tsc_hz = pvclock_tsc_hz(s->mul_frac, s->shift);

	snprintf(buf, len,
		 "pvclock (ns); TSC %llu.%02llu GHz from tsc_to_system_mul "
		 "%#x, tsc_shift %d",
		 (unsigned long long)(tsc_hz / 1000000000),
		 (unsigned long long)(tsc_hz % 1000000000 / 10000000),
		 s->mul_frac, s->shift);
	return buf;
}

char *pvclock_describe_wall(const char *what, uint64_t sec, uint32_t nsec,
			    char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		snprintf(buf, len, "%s: %llu.%09u s", what,
			 (unsigned long long)sec, nsec);
	else
		snprintf(buf, len, "%s: %04d-%02d-%02d %02d:%02d:%02d.%09u UTC",
			 what, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, nsec);
	return buf;
}
