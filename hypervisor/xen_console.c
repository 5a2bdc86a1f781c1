// SPDX-License-Identifier: MIT
/* The Xen PV console ring: writing its output, reading its input (pure;
 * host-tested). */
#include <stdio.h>

#include "hypervisor/xen_console.h"

static void relax(const struct xencons *c)
{
	if (c->relax)
		c->relax();
	else
		__builtin_ia32_pause();
}

int xencons_sane(const volatile struct xencons_interface *ring)
{
	XENCONS_RING_IDX used = ring->out_prod - ring->out_cons;

	return used <= sizeof(ring->out);
}

size_t xencons_put(volatile struct xencons_interface *ring, const char *buf,
		   size_t len)
{
	XENCONS_RING_IDX cons = ring->out_cons, prod = ring->out_prod;
	size_t sent = 0;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((XENCONS_RING_IDX)(prod - cons) > sizeof(ring->out))
		return 0;
	while (sent < len &&
	       (XENCONS_RING_IDX)(prod - cons) < sizeof(ring->out))
		ring->out[MASK_XENCONS_IDX(prod++, ring->out)] = buf[sent++];
	/* The bytes before the index that makes them visible. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->out_prod = prod;
	return sent;
}

int xencons_get(volatile struct xencons_interface *ring, char *buf, size_t len)
{
	XENCONS_RING_IDX cons = ring->in_cons, prod = ring->in_prod;
	size_t taken = 0;

	/* The index before the bytes it makes visible. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((XENCONS_RING_IDX)(prod - cons) > sizeof(ring->in))
		return -1;
	while (taken < len && cons != prod)
		buf[taken++] = ring->in[MASK_XENCONS_IDX(cons++, ring->in)];
	/* The bytes read before the index that frees their room. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->in_cons = cons;
	return (int)taken;
}

int xencons_read_byte(struct xencons *c)
{
	if (c->in_pos == c->in_len) {
		int n;

		if (c->in_broken)
			return -1;
		n = xencons_get(c->ring, c->in_buf, sizeof(c->in_buf));
		if (n < 0)
			c->in_broken = 1;
		if (n <= 0)
			return -1;
		c->kick(c->evtchn); /* room again for the daemon */
		c->in_len = (unsigned int)n;
		c->in_pos = 0;
	}
	return (unsigned char)c->in_buf[c->in_pos++];
}

/* The ring's free bytes (0 when its indexes are inconsistent). */
static size_t ring_room(const volatile struct xencons_interface *ring)
{
	XENCONS_RING_IDX used = ring->out_prod - ring->out_cons;

	return used <= sizeof(ring->out) ? sizeof(ring->out) - used : 0;
}

/* Once the ring has room for it, the notice of what was dropped. */
static int report_lost(struct xencons *c)
{
	char notice[XENCONS_NOTICE_LEN];
	int n = snprintf(notice, sizeof(notice),
			 "\nclockbench: %zu bytes of console output were lost: "
			 "the console ring was not drained for %u waits\n",
			 c->lost, c->max_spins);

	if (n <= 0 || (size_t)n >= sizeof(notice) ||
	    ring_room(c->ring) < (size_t)n)
		return -1;
	xencons_put(c->ring, notice, (size_t)n);
	c->kick(c->evtchn);
	c->lost = 0;
	return 0;
}

int xencons_write(struct xencons *c, const char *buf, size_t len)
{
	unsigned int spins = 0;

	/* After a loss, wait only a little for the notice's room. */
	while (!c->broken && c->lost && report_lost(c)) {
		if (!xencons_sane(c->ring)) {
			c->broken = 1;
		} else if (++spins > c->max_spins / XENCONS_LOST_WAIT_DIVISOR) {
			c->lost += len;
			c->lost_total += len;
			return -1;
		} else {
			relax(c);
		}
	}
	spins = 0;
	while (len && !c->broken) {
		size_t n = xencons_put(c->ring, buf, len);

		if (n) {
			c->kick(c->evtchn);
			buf += n;
			len -= n;
			spins = 0;
		} else if (!xencons_sane(c->ring)) {
			c->broken = 1;
		} else if (++spins > c->max_spins) {
			c->lost += len;
			c->lost_total += len;
			return -1;
		} else {
			relax(c);
		}
	}
	return c->broken ? -1 : 0;
}

void xencons_flush(struct xencons *c)
{
	unsigned int spins;

	for (spins = 0; !c->broken && c->ring->out_cons != c->ring->out_prod &&
			spins < c->max_spins;
	     spins++)
		relax(c);
}
