// SPDX-License-Identifier: MIT
/*
 * Unit tests: Xen's CPUID leaves and wall clock (hypervisor/xen.c) and the
 * PV console ring (hypervisor/xen_console.c), over fake leaves and pages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hypervisor/xen.h"
#include "hypervisor/xen_console.h"
#include "hypervisor/xenstore.h"

/* --- CPUID leaves --------------------------------------------------------- */

#define BASE 0x40000000u

/* What Xen 4.17 answered a PV dom0 here (leaf 3.0 all zero, 3.2 the host
 * kHz), plus an HVM leaf 4 with a vCPU id. */
static struct cpuid_regs fake_cpuid(uint32_t leaf, uint32_t sub)
{
	switch (leaf - BASE) {
	case 1:
		return (struct cpuid_regs){ 0x00040011, 0, 0, 0 };
	case 2:
		return (struct cpuid_regs){ 1, 0x40000000, 0, 0 };
	case 3:
		if (sub == 2)
			return (struct cpuid_regs){ 2300000, 0, 0, 0 };
		return (struct cpuid_regs){ 0x5, 2, 2300000, 1 };
	case 4:
		return (struct cpuid_regs){ 0x8 | 0x10, 3, 7, 0 };
	default:
		return (struct cpuid_regs){ 0, 0, 0, 0 };
	}
}

static void cpuid_leaves_all_listed(void **state)
{
	struct hv_leaf leaf = { .base = BASE, .max_leaf = BASE + 5 };
	struct xen_cpuid_info x;

	(void)state;
	xen_cpuid_read(&leaf, fake_cpuid, &x);
	assert_int_equal(x.major, 4);
	assert_int_equal(x.minor, 17);
	assert_int_equal(x.hypercall_pages, 1);
	assert_int_equal(x.hypercall_msr, 0x40000000);
	assert_true(x.have_tsc_leaf);
	assert_int_equal(x.tsc_mode, 2);
	assert_int_equal(x.tsc_khz, 2300000);
	assert_int_equal(x.host_tsc_khz, 2300000);
	assert_true(x.have_hvm_leaf);
	assert_true(x.vcpu_id_valid);
	assert_int_equal(x.vcpu_id, 3);
}

static void cpuid_leaves_beyond_max_are_not_read(void **state)
{
	struct hv_leaf leaf = { .base = BASE, .max_leaf = BASE + 2 };
	struct xen_cpuid_info x;

	(void)state;
	xen_cpuid_read(&leaf, fake_cpuid, &x);
	assert_int_equal(x.major, 4);
	assert_int_equal(x.hypercall_msr, 0x40000000);
	assert_false(x.have_tsc_leaf);
	assert_int_equal(x.tsc_khz, 0);
	assert_false(x.have_hvm_leaf);
	assert_false(x.vcpu_id_valid);
}

static void tsc_mode_and_flags_in_words(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(xen_tsc_mode_name(1), "always emulate");
	assert_string_equal(xen_tsc_mode_name(9), "unknown");
	assert_string_equal(xen_tsc_flags_describe(0x5, buf, sizeof(buf)),
			    "rdtsc emulated by Xen, host TSC not known "
			    "reliable, rdtscp offered");
	assert_string_equal(
		xen_tsc_flags_describe(0x2 | 0x80, buf, sizeof(buf)),
		"rdtsc native, host TSC reliable, rdtscp not "
		"offered, other bits set");
}

/* --- wall clock ------------------------------------------------------------ */

static struct shared_info shared;

static void wallclock_reads_all_64_bits(void **state)
{
	uint64_t sec;
	uint32_t nsec;

	(void)state;
	memset(&shared, 0, sizeof(shared));
	shared.wc_version = 4;
	shared.wc_sec = 5;
	shared.xen_wc_sec_hi = 1;
	shared.wc_nsec = 7;
	assert_int_equal(xen_wallclock_read(&shared, 3, &sec, &nsec), 0);
	assert_int_equal(sec, (1ull << 32) + 5);
	assert_int_equal(nsec, 7);
}

static void wallclock_odd_version_fails(void **state)
{
	uint64_t sec;
	uint32_t nsec;

	(void)state;
	memset(&shared, 0, sizeof(shared));
	shared.wc_version = 5;
	assert_int_equal(xen_wallclock_read(&shared, 3, &sec, &nsec), -1);
	assert_int_equal(xen_wallclock_read(&shared, 0, &sec, &nsec), -1);
}

/* --- console ring ---------------------------------------------------------- */

static struct xencons_interface ring;

static void console_ring_takes_and_publishes(void **state)
{
	(void)state;
	memset(&ring, 0, sizeof(ring));
	assert_int_equal(xencons_put(&ring, "hello", 5), 5);
	assert_int_equal(ring.out_prod, 5);
	assert_int_equal(ring.out_cons, 0);
	assert_memory_equal(ring.out, "hello", 5);
}

static void console_ring_wraps_and_fills(void **state)
{
	char big[sizeof(ring.out) + 10];

	(void)state;
	memset(&ring, 0, sizeof(ring));
	/* Indexes near the 32-bit wrap, and the consumer 2 bytes behind. */
	ring.out_cons = 0xfffffffe;
	ring.out_prod = 0xfffffffe;
	memset(big, 'x', sizeof(big));
	big[0] = 'a';
	big[2] = 'c';
	assert_int_equal(xencons_put(&ring, big, sizeof(big)),
			 sizeof(ring.out));
	assert_int_equal(ring.out_prod - ring.out_cons, sizeof(ring.out));
	assert_int_equal(ring.out[sizeof(ring.out) - 2], 'a');
	assert_int_equal(ring.out[0], 'c');
	/* Full: nothing more is taken until the consumer moves. */
	assert_int_equal(xencons_put(&ring, "y", 1), 0);
	assert_true(xencons_sane(&ring));
	ring.out_cons += 1;
	assert_int_equal(xencons_put(&ring, "y", 1), 1);
}

static void console_ring_with_broken_indexes_takes_nothing(void **state)
{
	(void)state;
	memset(&ring, 0, sizeof(ring));
	ring.out_cons = 100; /* the consumer ahead of the producer */
	ring.out_prod = 10;
	assert_false(xencons_sane(&ring));
	assert_int_equal(xencons_put(&ring, "z", 1), 0);
	assert_int_equal(ring.out_prod, 10);
}

static void console_input_is_taken_and_freed(void **state)
{
	char buf[8];

	(void)state;
	memset(&ring, 0, sizeof(ring));
	/* The daemon wrote 3 bytes across the wrap of the indexes. */
	ring.in_cons = ring.in_prod = 0xffffffff;
	ring.in[sizeof(ring.in) - 1] = 'o';
	ring.in[0] = 'k';
	ring.in[1] = '\n';
	ring.in_prod += 3;
	assert_int_equal(xencons_get(&ring, buf, 2), 2);
	assert_memory_equal(buf, "ok", 2);
	assert_int_equal(ring.in_cons, 1);
	assert_int_equal(xencons_get(&ring, buf, sizeof(buf)), 1);
	assert_int_equal(buf[0], '\n');
	assert_int_equal(xencons_get(&ring, buf, sizeof(buf)), 0);
	assert_int_equal(ring.in_cons, ring.in_prod);
}

static void console_input_with_broken_indexes_is_refused(void **state)
{
	char buf[8];

	(void)state;
	memset(&ring, 0, sizeof(ring));
	ring.in_cons = 50; /* the consumer ahead of the producer */
	ring.in_prod = 10;
	assert_int_equal(xencons_get(&ring, buf, sizeof(buf)), -1);
	assert_int_equal(ring.in_cons, 50);
	ring.in_cons = 0; /* the producer more than a ring ahead */
	ring.in_prod = sizeof(ring.in) + 1;
	assert_int_equal(xencons_get(&ring, buf, sizeof(buf)), -1);
	assert_int_equal(ring.in_cons, 0);
}

/* A fake Xen: counts notifications, and drains the ring on the Nth wait. */
static unsigned int kicks, relaxes, drain_on_relax;

static void count_kick(uint32_t evtchn)
{
	assert_int_equal(evtchn, 7);
	kicks++;
}

static void fake_relax(void)
{
	if (++relaxes == drain_on_relax)
		ring.out_cons = ring.out_prod;
}

static void console_input_bytes_one_at_a_time(void **state)
{
	struct xencons c = { .ring = &ring,
			     .evtchn = 7,
			     .kick = count_kick,
			     .relax = fake_relax,
			     .max_spins = 100 };

	(void)state;
	memset(&ring, 0, sizeof(ring));
	kicks = 0;
	assert_int_equal(xencons_read_byte(&c), -1);
	assert_int_equal(kicks, 0);
	memcpy((char *)ring.in, "hi\xff", 3);
	ring.in_prod = 3;
	assert_int_equal(xencons_read_byte(&c), 'h');
	assert_int_equal(kicks, 1); /* told once, for the three taken */
	assert_int_equal(ring.in_cons, 3);
	assert_int_equal(xencons_read_byte(&c), 'i');
	assert_int_equal(xencons_read_byte(&c), 0xff);
	assert_int_equal(xencons_read_byte(&c), -1);
	/* Broken indexes: nothing more, ever. */
	ring.in_cons = 9;
	assert_int_equal(xencons_read_byte(&c), -1);
	assert_true(c.in_broken);
	ring.in_cons = ring.in_prod;
	assert_int_equal(xencons_read_byte(&c), -1);
	assert_int_equal(kicks, 1);
}

static void console_write_waits_for_room_then_gives_up(void **state)
{
	struct xencons c = { .ring = &ring,
			     .evtchn = 7,
			     .kick = count_kick,
			     .relax = fake_relax,
			     .max_spins = 100 };
	char big[sizeof(ring.out) + 100];

	(void)state;
	memset(&ring, 0, sizeof(ring));
	memset(big, 'q', sizeof(big));
	kicks = relaxes = 0;
	drain_on_relax = 3; /* Xen drains the full ring once, late */
	assert_int_equal(xencons_write(&c, big, sizeof(big)), 0);
	assert_int_equal(kicks, 2);
	assert_int_equal(ring.out_prod, sizeof(big));
	/* Nobody drains any more: the writer drops the rest after max_spins
	 * and counts it; the ring is not broken. */
	drain_on_relax = 0;
	relaxes = 0;
	assert_int_equal(xencons_write(&c, big, sizeof(big)), -1);
	assert_false(c.broken);
	assert_int_equal(relaxes, 100);
	/* 100 bytes of the first write were still in the ring. */
	assert_int_equal(c.lost, sizeof(big) - (sizeof(ring.out) - 100));
	/* While it stays full, a write waits only a little, then drops. */
	relaxes = 0;
	assert_int_equal(xencons_write(&c, "x", 1), -1);
	assert_int_equal(relaxes, 100 / XENCONS_LOST_WAIT_DIVISOR);
	assert_int_equal(c.lost, sizeof(big) - (sizeof(ring.out) - 100) + 1);
}

static void console_write_says_what_was_lost(void **state)
{
	struct xencons c = { .ring = &ring,
			     .evtchn = 7,
			     .kick = count_kick,
			     .relax = fake_relax,
			     .max_spins = 100 };
	char text[sizeof(ring.out) + 1];
	size_t n;

	(void)state;
	memset(&ring, 0, sizeof(ring));
	c.lost = 1234;
	c.lost_total = 1234;
	ring.out_cons = ring.out_prod = 50;
	assert_int_equal(xencons_write(&c, "after\n", 6), 0);
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.lost_total, 1234);
	n = ring.out_prod - 50;
	assert_true(n < sizeof(text));
	for (size_t i = 0; i < n; i++)
		text[i] = ring.out[MASK_XENCONS_IDX(50 + i, ring.out)];
	text[n] = 0;
	assert_non_null(strstr(text, "1234 bytes of console output were lost"));
	assert_string_equal(text + n - 6, "after\n");
}

static void console_write_stops_on_broken_indexes(void **state)
{
	struct xencons c = { .ring = &ring,
			     .evtchn = 7,
			     .kick = count_kick,
			     .relax = fake_relax,
			     .max_spins = 100 };

	(void)state;
	memset(&ring, 0, sizeof(ring));
	ring.out_cons = 100;
	ring.out_prod = 10;
	relaxes = 0;
	assert_int_equal(xencons_write(&c, "x", 1), -1);
	assert_true(c.broken);
	/* Broken stays broken, without waiting again. */
	assert_int_equal(xencons_write(&c, "x", 1), -1);
	xencons_flush(&c);
	assert_int_equal(relaxes, 0);
}

/* --- xenstore ring ------------------------------------------------------------- */

static struct xenstore_domain_interface store;

/* The daemon's side: a reply of @type with @payload at the reply ring. */
static void store_reply(uint32_t type, const char *payload, uint32_t len)
{
	struct xsd_sockmsg h = { .type = type, .req_id = 9, .len = len };
	size_t i;

	for (i = 0; i < sizeof(h); i++)
		store.rsp[MASK_XENSTORE_IDX(store.rsp_prod++)] =
			((char *)&h)[i];
	for (i = 0; i < len; i++)
		store.rsp[MASK_XENSTORE_IDX(store.rsp_prod++)] = payload[i];
}

static void store_request_is_written_whole(void **state)
{
	struct xsd_sockmsg h;

	(void)state;
	memset(&store, 0, sizeof(store));
	store.req_cons = store.req_prod = XENSTORE_RING_SIZE - 4; /* wraps */
	assert_int_equal(xenstore_put_request(&store, XS_READ, 5,
					      "control/shutdown", 17),
			 0);
	assert_int_equal(store.req_prod - store.req_cons, sizeof(h) + 17);
	memcpy(&h, (const char *)store.req + XENSTORE_RING_SIZE - 4, 4);
	memcpy((char *)&h + 4, (const char *)store.req, sizeof(h) - 4);
	assert_int_equal(h.type, XS_READ);
	assert_int_equal(h.req_id, 5);
	assert_int_equal(h.len, 17);
	assert_memory_equal((const char *)store.req + sizeof(h) - 4,
			    "control/shutdown", 17);
	/* No room for a request that does not fit whole. */
	store.req_cons -= 1000;
	assert_int_equal(xenstore_put_request(&store, XS_READ, 6, "x", 1), -1);
	store.req_cons -= 100; /* inconsistent: more than a ring apart */
	assert_int_equal(xenstore_put_request(&store, XS_READ, 6, "x", 1), -1);
}

static void store_reply_is_taken_when_whole(void **state)
{
	struct xenstore_reply r;
	const char *why = NULL;

	(void)state;
	memset(&store, 0, sizeof(store));
	assert_int_equal(xenstore_get_reply(&store, &r, &why), 0);
	store_reply(XS_READ, "suspend", 7);
	store.rsp_prod -= 3; /* not all there yet */
	assert_int_equal(xenstore_get_reply(&store, &r, &why), 0);
	assert_int_equal(store.rsp_cons, 0);
	store.rsp_prod += 3;
	assert_int_equal(xenstore_get_reply(&store, &r, &why), 1);
	assert_int_equal(r.header.type, XS_READ);
	assert_string_equal(r.payload, "suspend");
	assert_false(r.truncated);
	assert_int_equal(store.rsp_cons, store.rsp_prod);
}

static void store_bad_replies_are_refused(void **state)
{
	struct xenstore_reply r;
	const char *why = NULL;
	static char big[XENSTORE_RING_SIZE];

	(void)state;
	memset(&store, 0, sizeof(store));
	store_reply(XS_READ, big, XENSTORE_RING_SIZE - 16); /* fits whole */
	assert_int_equal(xenstore_get_reply(&store, &r, &why), 1);
	assert_true(r.truncated);
	assert_int_equal(strlen(r.payload), 0);
	memset(&store, 0, sizeof(store));
	store_reply(XS_READ, "", 0);
	((struct xsd_sockmsg *)store.rsp)->len = XENSTORE_PAYLOAD_MAX + 1;
	assert_int_equal(xenstore_get_reply(&store, &r, &why), -1);
	assert_non_null(strstr(why, "longer than XENSTORE_PAYLOAD_MAX"));
	((struct xsd_sockmsg *)store.rsp)->len = XENSTORE_RING_SIZE;
	assert_int_equal(xenstore_get_reply(&store, &r, &why), -1);
	assert_non_null(strstr(why, "longer than its ring"));
	store.rsp_cons = 50;
	store.rsp_prod = 10;
	assert_int_equal(xenstore_get_reply(&store, &r, &why), -1);
	assert_non_null(strstr(why, "inconsistent"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpuid_leaves_all_listed),
		cmocka_unit_test(cpuid_leaves_beyond_max_are_not_read),
		cmocka_unit_test(tsc_mode_and_flags_in_words),
		cmocka_unit_test(wallclock_reads_all_64_bits),
		cmocka_unit_test(wallclock_odd_version_fails),
		cmocka_unit_test(console_ring_takes_and_publishes),
		cmocka_unit_test(console_ring_wraps_and_fills),
		cmocka_unit_test(
			console_ring_with_broken_indexes_takes_nothing),
		cmocka_unit_test(console_input_is_taken_and_freed),
		cmocka_unit_test(console_input_with_broken_indexes_is_refused),
		cmocka_unit_test(console_input_bytes_one_at_a_time),
		cmocka_unit_test(store_request_is_written_whole),
		cmocka_unit_test(store_reply_is_taken_when_whole),
		cmocka_unit_test(store_bad_replies_are_refused),
		cmocka_unit_test(console_write_waits_for_room_then_gives_up),
		cmocka_unit_test(console_write_says_what_was_lost),
		cmocka_unit_test(console_write_stops_on_broken_indexes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
