// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the Xen PV console ring (hypervisor/xen_console.c) with
 * indexes the other end may set to anything: writes of any length, while
 * the consumer index moves by what the input says (forwards, backwards,
 * past the producer) each time the writer waits.
 *
 * The input side too: the daemon's producer index moves by any amount
 * before each read of the host's bytes.
 *
 * Input: the ring's two output indexes, a wait limit, then commands: a
 * length byte to write that many of the following bytes, or (high bit set)
 * a flush, or (the two high bits set) a read of up to the low 6 bits' bytes
 * of input; each wait and each read takes the next little-endian u16 as
 * the other end's step (signed).
 */
#include <stdlib.h>
#include <string.h>

#include "hypervisor/xen_console.h"
#include "tests/fuzz/fuzz_phys.h"

static struct xencons_interface *ring;
static const uint8_t *steps;
static size_t nr_steps;
static unsigned int kicks;

static void fuzz_kick(uint32_t evtchn)
{
	(void)evtchn;
	kicks++;
}

/* One wait: the consumer moves its index, by any amount. */
static void fuzz_relax(void)
{
	ring->out_cons += (int16_t)fuzz_take(&steps, &nr_steps, 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_phys phys;
	struct xencons c;
	unsigned int commands = 0;

	fuzz_phys_reset(&phys);
	ring = fuzz_phys_buffer(&phys, sizeof(*ring));
	ring->out_cons = fuzz_take(&data, &size, 4);
	ring->out_prod = fuzz_take(&data, &size, 4);
	c = (struct xencons){ .ring = ring,
			      .evtchn = 1,
			      .kick = fuzz_kick,
			      .relax = fuzz_relax,
			      .max_spins = fuzz_take(&data, &size, 1) % 130 };
	kicks = 0;
	/* The steps are the input's second half, the commands its first. */
	steps = data + size / 2;
	nr_steps = size - size / 2;
	size /= 2;
	while (size && commands++ < 64) {
		unsigned int cmd = fuzz_take(&data, &size, 1), kicked = kicks;
		XENCONS_RING_IDX prod = ring->out_prod;
		int sane = xencons_sane(ring), ret;
		size_t len = cmd & 0x7f, room;

		if ((cmd & 0xc0) == 0xc0) {
			char got[64];
			XENCONS_RING_IDX cons = ring->in_cons;
			int taken;

			ring->in_prod +=
				(int16_t)fuzz_take(&steps, &nr_steps, 2);
			taken = xencons_get(ring, got, cmd & 0x3f);
			/* Refused untouched, or taken no more than asked,
			 * no more than there was, and the index moved by it. */
			if (taken < 0
				    ? ring->in_cons != cons
				    : (size_t)taken > (cmd & 0x3f) ||
					      (XENCONS_RING_IDX)(ring->in_cons -
								 cons) !=
						      (XENCONS_RING_IDX)taken ||
					      (XENCONS_RING_IDX)(ring->in_prod -
								 ring->in_cons) >
						      sizeof(ring->in))
				abort();
			continue;
		}
		if (cmd & 0x80) {
			xencons_flush(&c);
			continue;
		}
		if (len > size)
			len = size;
		room = sane ? sizeof(ring->out) -
				       (XENCONS_RING_IDX)(prod - ring->out_cons)
			    : 0;
		if (xencons_put(ring, (const char *)data, len) > room ||
		    (!sane && ring->out_prod != prod))
			abort();
		ring->out_prod = prod; /* that put was only a probe */
		ret = xencons_write(&c, (const char *)data, len);
		/* All of it went in, and Xen was told; or some was lost. */
		if ((ret == 0 && (c.broken || (len && kicks == kicked))) ||
		    c.lost_total < c.lost)
			abort();
		data += len;
		size -= len;
	}
	return 0;
}
