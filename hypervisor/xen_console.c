// SPDX-License-Identifier: MIT
/* Writing the Xen PV console ring (pure; host-tested). */
#include "hypervisor/xen_console.h"

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
