// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the xenstore ring (hypervisor/xenstore.c) with a reply ring
 * the store daemon may fill with anything: indexes of any value, headers of
 * any length, replies arriving in pieces; and requests of any length into a
 * request ring whose consumer index the daemon may set to anything.
 *
 * Input: the four ring indexes (req_cons, req_prod, rsp_cons, rsp_prod),
 * then commands: a byte whose high bit asks for a reply (the next u16 the
 * producer's step, signed) and otherwise is the length of a request
 * payload taken from the following bytes; the rest of the input is the
 * reply ring's contents, from its start.
 */
#include <stdlib.h>
#include <string.h>

#include "hypervisor/xenstore.h"
#include "tests/fuzz/fuzz_phys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_phys phys;
	struct xenstore_domain_interface *ring;
	unsigned int commands = 0;
	size_t half;

	fuzz_phys_reset(&phys);
	ring = fuzz_phys_buffer(&phys, sizeof(*ring));
	ring->req_cons = fuzz_take(&data, &size, 4);
	ring->req_prod = fuzz_take(&data, &size, 4);
	ring->rsp_cons = fuzz_take(&data, &size, 4);
	ring->rsp_prod = fuzz_take(&data, &size, 4);
	/* The second half fills the reply ring; the first holds commands. */
	half = size / 2;
	memcpy(ring->rsp, data + half,
	       size - half < sizeof(ring->rsp) ? size - half
					       : sizeof(ring->rsp));
	size = half;
	while (size && commands++ < 64) {
		unsigned int cmd = fuzz_take(&data, &size, 1);

		if (cmd & 0x80) {
			struct xenstore_reply r;
			const char *why = NULL;
			XENSTORE_RING_IDX cons = ring->rsp_cons;
			int got;

			ring->rsp_prod += (int16_t)fuzz_take(&data, &size, 2);
			got = xenstore_get_reply(ring, &r, &why);
			/* Refused with a reason and untouched; not yet and
			 * untouched; or taken whole, its bytes consumed and
			 * its payload terminated within the buffer. */
			if ((got < 0 && (!why || ring->rsp_cons != cons)) ||
			    (got == 0 && ring->rsp_cons != cons) ||
			    (got == 1 &&
			     ((XENSTORE_RING_IDX)(ring->rsp_cons - cons) !=
				      sizeof(r.header) + r.header.len ||
			      strlen(r.payload) > XENSTORE_REPLY_MAX)))
				abort();
		} else {
			size_t len = cmd < size ? cmd : size;
			XENSTORE_RING_IDX prod = ring->req_prod;
			XENSTORE_RING_IDX used = prod - ring->req_cons;

			if (xenstore_put_request(ring, XS_READ, 1, data,
						 (uint32_t)len) == 0) {
				/* Only what fit, and all of it. */
				if (used > XENSTORE_RING_SIZE ||
				    used + sizeof(struct xsd_sockmsg) + len >
					    XENSTORE_RING_SIZE ||
				    (XENSTORE_RING_IDX)(ring->req_prod -
							prod) !=
					    sizeof(struct xsd_sockmsg) + len)
					abort();
			} else if (ring->req_prod != prod) {
				abort();
			}
			data += len;
			size -= len;
		}
	}
	return 0;
}
