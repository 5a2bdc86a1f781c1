/* SPDX-License-Identifier: MIT */
/*
 * A xenstore client over the domain's store ring (struct
 * xenstore_domain_interface and the message header of libxen-dev's
 * <xen/io/xs_wire.h>): one request at a time, written whole into the
 * request ring, and its reply taken whole from the reply ring.  Pure C over
 * the page: the host unit tests and a fuzz target drive it with a page in
 * memory.  The reply ring is the store daemon's to fill, so its indexes and
 * lengths are untrusted.
 */
#ifndef CLOCKBENCH_HYPERVISOR_XENSTORE_H
#define CLOCKBENCH_HYPERVISOR_XENSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/xen_abi.h"

#include <xen/io/xs_wire.h>

/* A reply's payload as the client keeps it (a NUL is added after it). */
#define XENSTORE_REPLY_MAX 256

struct xenstore_reply {
	struct xsd_sockmsg header;
	char payload[XENSTORE_REPLY_MAX + 1]; /* NUL-terminated */
	int truncated; /* the payload was longer than XENSTORE_REPLY_MAX */
};

/**
 * Write one request (its header, then @len bytes of @payload) into the
 * request ring and publish it.  Returns 0; -1 when it does not fit in the
 * ring's free room now (nothing is written), or when the request ring's
 * indexes are inconsistent.  The caller then tells the daemon (its event
 * channel).
 */
int xenstore_put_request(volatile struct xenstore_domain_interface *ring,
			 uint32_t type, uint32_t req_id, const void *payload,
			 uint32_t len);

/**
 * Take one whole reply from the reply ring into @out, once all of it has
 * arrived.  Returns 1 with the reply (its bytes consumed), 0 while it is not
 * all there yet (nothing consumed), or -1 with @why for a ring whose
 * indexes are inconsistent or a reply longer than XENSTORE_PAYLOAD_MAX.
 */
int xenstore_get_reply(volatile struct xenstore_domain_interface *ring,
		       struct xenstore_reply *out, const char **why);

#endif
