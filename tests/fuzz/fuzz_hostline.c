// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the host's line at an event point (lib/hostline.c), read
 * from the console's input.  Input: the line's bytes, no end of line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hostline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_event e;
	char err[200];

	err[0] = '\0';
	if (hostline_parse((const char *)data, size, &e, err, sizeof(err))) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort(); /* a refusal always says why */
		return 0;
	}
	if (e.seq == 0 || e.kind > HOSTLINE_ABORT || e.present >> HOST_NR_KEYS)
		abort();
	if (e.kind == HOSTLINE_DONE &&
	    (e.value[HOST_START_NS] > e.value[HOST_END_NS] ||
	     e.value[HOST_READY_NS] > e.value[HOST_SENT_NS]))
		abort();
	if (host_event_has(&e, HOST_PING_NS) &&
	    (!host_event_has(&e, HOST_PONG_NS) ||
	     e.value[HOST_END_NS] > e.value[HOST_PING_NS] ||
	     e.value[HOST_PING_NS] > e.value[HOST_PONG_NS] ||
	     e.value[HOST_PONG_NS] > e.value[HOST_SENT_NS]))
		abort();
	return 0;
}
