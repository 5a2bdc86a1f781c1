// SPDX-License-Identifier: MIT
/* The xenstore ring protocol (hypervisor/xenstore.h): pure, host-tested. */
#include <string.h>

#include "hypervisor/xenstore.h"

/* Bytes the ring holds between @cons and @prod, or -1 when inconsistent. */
static long ring_used(XENSTORE_RING_IDX cons, XENSTORE_RING_IDX prod)
{
	XENSTORE_RING_IDX used = prod - cons;

	return used <= XENSTORE_RING_SIZE ? (long)used : -1;
}

int xenstore_put_request(volatile struct xenstore_domain_interface *ring,
			 uint32_t type, uint32_t req_id, const void *payload,
			 uint32_t len)
{
	struct xsd_sockmsg header = {
		.type = type, .req_id = req_id, .tx_id = 0, .len = len
	};
	XENSTORE_RING_IDX cons = ring->req_cons, prod = ring->req_prod;
	long used;
	size_t i;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	used = ring_used(cons, prod);
	if (used < 0 || len > XENSTORE_PAYLOAD_MAX ||
	    sizeof(header) + len > (size_t)(XENSTORE_RING_SIZE - used))
		return -1;
	for (i = 0; i < sizeof(header); i++)
		ring->req[MASK_XENSTORE_IDX(prod++)] =
			((const char *)&header)[i];
	for (i = 0; i < len; i++)
		ring->req[MASK_XENSTORE_IDX(prod++)] =
			((const char *)payload)[i];
	/* The bytes before the index that makes them visible. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->req_prod = prod;
	return 0;
}

int xenstore_get_reply(volatile struct xenstore_domain_interface *ring,
		       struct xenstore_reply *out, const char **why)
{
	XENSTORE_RING_IDX cons = ring->rsp_cons, prod = ring->rsp_prod;
	long used;
	size_t i;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	used = ring_used(cons, prod);
	if (used < 0) {
		*why = "the store's reply ring has inconsistent indexes";
		return -1;
	}
	if ((size_t)used < sizeof(out->header))
		return 0;
	for (i = 0; i < sizeof(out->header); i++)
		((char *)&out->header)[i] = ring->rsp[MASK_XENSTORE_IDX(
			cons + (XENSTORE_RING_IDX)i)];
	if (out->header.len > XENSTORE_PAYLOAD_MAX) {
		*why = "the store sent a reply longer than "
		       "XENSTORE_PAYLOAD_MAX";
		return -1;
	}
	/* A reply longer than the ring can never arrive whole here. */
	if (sizeof(out->header) + out->header.len > XENSTORE_RING_SIZE) {
		*why = "the store sent a reply longer than its ring";
		return -1;
	}
	if ((size_t)used < sizeof(out->header) + out->header.len)
		return 0;
	cons += sizeof(out->header);
	out->truncated = out->header.len > XENSTORE_REPLY_MAX;
	for (i = 0; i < out->header.len; i++) {
		char c = ring->rsp[MASK_XENSTORE_IDX(cons++)];

		if (i < XENSTORE_REPLY_MAX)
			out->payload[i] = c;
	}
	out->payload[out->truncated ? XENSTORE_REPLY_MAX : out->header.len] =
		'\0';
	/* The bytes read before the index that frees their room. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->rsp_cons = cons;
	return 1;
}
