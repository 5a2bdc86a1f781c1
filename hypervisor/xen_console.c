// SPDX-License-Identifier: MIT
/* Writing the Xen PV console ring (pure; host-tested). */
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

int xencons_write(struct xencons *c, const char *buf, size_t len)
{
	unsigned int spins = 0;

	while (len && !c->broken) {
		size_t n = xencons_put(c->ring, buf, len);

		if (n) {
			c->kick(c->evtchn);
			buf += n;
			len -= n;
			spins = 0;
		} else if (!xencons_sane(c->ring) || ++spins > c->max_spins) {
			c->broken = 1;
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
