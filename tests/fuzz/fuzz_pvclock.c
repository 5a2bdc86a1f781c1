// SPDX-License-Identifier: MIT
/*
 * Fuzz target: pvclock records (hypervisor/pvclock.c) as a hypervisor may
 * write them: the version protocol over a record that changes between
 * reads, the scaling arithmetic (checked against 128-bit arithmetic and
 * pvclock_delta_for_ns() against its own promise), the deadline and
 * frequency conversions, and the descriptions into buffers of any size.
 *
 * Input: the 32-byte record, then little-endian fields (see the code);
 * the rest is a list of (TSC value, byte to store into the record) pairs
 * that each TSC read takes in turn, as a hypervisor rewriting it would.
 * The step monitor (hypervisor/pvclock_step.c) then polls the record as
 * those reads rewrite it, and its counts must agree with each other.
 */
#include <stdlib.h>
#include <string.h>

#include "hypervisor/pvclock.h"
#include "hypervisor/pvclock_step.h"
#include "tests/fuzz/fuzz_phys.h"
#include "tests/unit/pvclock_reference.h"

static struct vcpu_time_info *record;
static const uint8_t *tsc_data;
static size_t tsc_size;

/* One TSC read: the next value, and one byte of the record rewritten. */
static uint64_t fuzz_tsc(void)
{
	uint64_t tsc = fuzz_take(&tsc_data, &tsc_size, 8);
	unsigned int at = fuzz_take(&tsc_data, &tsc_size, 1);
	uint8_t value = fuzz_take(&tsc_data, &tsc_size, 1);

	((uint8_t *)record)[at % sizeof(*record)] = value;
	return tsc;
}

static void arithmetic(uint64_t delta, uint64_t ns, uint32_t mul, int8_t shift)
{
	uint64_t d;

	if (pvclock_scale_delta(delta, mul, shift) !=
	    reference_scale(delta, mul, shift))
		abort();
	/* The fewest cycles that scale to @ns or more, or UINT64_MAX. */
	d = pvclock_delta_for_ns(ns, mul, shift);
	if (d != UINT64_MAX &&
	    (reference_scale(d, mul, shift) < ns ||
	     (d > 0 && reference_scale(d - 1, mul, shift) >= ns)))
		abort();
	pvclock_tsc_hz(mul, shift);
}

/* Polls of the record while the TSC reads rewrite it: every update is
 * counted once, with a step unless its shift was refused. */
static void step_monitor(uint64_t tsc, unsigned int max_tries)
{
	static struct pvclock_step_monitor m;
	unsigned int poll;

	pvclock_step_init(&m);
	for (poll = 0; poll < 8; poll++) {
		if (poll == 4)
			pvclock_step_pause(&m);
		pvclock_step_poll(&m, record, tsc + poll, fuzz_tsc, max_tries);
		/* A byte of the record changes between polls too. */
		fuzz_tsc();
	}
	if (m.updates + m.unreadable > m.polls ||
	    m.step_ns.total + m.refused != m.updates ||
	    m.nr_changes > PVCLOCK_FLAG_HISTORY || m.largest_back_ns > 0 ||
	    m.largest_forward_ns < 0 || m.stable_updates > m.updates)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_phys phys;
	struct vcpu_time_info initial = { 0 };
	struct pvclock_sample s;
	uint64_t delta, ns, sec, tsc;
	unsigned int max_tries;
	uint32_t nsec;
	size_t len;
	char *buf;
	int ret;

	fuzz_phys_reset(&phys);
	memcpy(&initial, data, size < sizeof(initial) ? size : sizeof(initial));
	fuzz_take(&data, &size, sizeof(initial));
	delta = fuzz_take(&data, &size, 8);
	ns = fuzz_take(&data, &size, 8);
	sec = fuzz_take(&data, &size, 8);
	nsec = fuzz_take(&data, &size, 4);
	tsc = fuzz_take(&data, &size, 8);
	max_tries = fuzz_take(&data, &size, 1) % 8;
	len = fuzz_take(&data, &size, 1) % 160;
	tsc_data = data;
	tsc_size = size;

	arithmetic(delta, ns, initial.tsc_to_system_mul, initial.tsc_shift);

	record = (struct vcpu_time_info *)fuzz_phys_copy(&phys, &initial,
							 sizeof(initial));
	ret = pvclock_read(record, fuzz_tsc, max_tries, &s);
	if (ret == 0 && ((s.version & 1) || s.retries >= (max_tries ?: 1)))
		abort();
	pvclock_tsc_for_ns(&s, ns);
	ret = pvclock_read_at(record, tsc, max_tries, &s);
	if (ret == 0 && (s.version & 1))
		abort();
	pvclock_tsc_for_ns(&s, ns);
	step_monitor(tsc, max_tries);

	/* Descriptions into a buffer of @len bytes that ASan guards. */
	buf = fuzz_phys_buffer(&phys, len);
	pvclock_flags_describe(initial.flags, buf, len);
	if (len && !memchr(buf, '\0', len))
		abort();
	if (len) {
		pvclock_describe_source(&s, buf, len);
		pvclock_describe_wall("wall", sec, nsec, buf, len);
		if (!memchr(buf, '\0', len))
			abort();
	}
	return 0;
}
