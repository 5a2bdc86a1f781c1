// SPDX-License-Identifier: MIT
/* A legacy virtio split virtqueue's layout (see lib/vring.h). */
#include "lib/vring.h"

#define VRING_MAX_ENTRIES 32768

static bool power_of_2(size_t x)
{
	return x && !(x & (x - 1));
}

static size_t align_up(size_t x, size_t align)
{
	return (x + align - 1) & ~(align - 1);
}

bool vring_layout(unsigned int n, size_t align, struct vring_layout *out)
{
	if (!power_of_2(n) || n > VRING_MAX_ENTRIES || !power_of_2(align))
		return false;
	out->avail_offset = (size_t)n * VRING_DESC_BYTES;
	/* flags, idx, n entries, used_event: 2 bytes each. */
	out->used_offset =
		align_up(out->avail_offset + 2 * (3 + (size_t)n), align);
	/* flags, idx, avail_event (2 bytes each), n entries of 8 bytes. */
	out->total_bytes =
		align_up(out->used_offset + 6 + 8 * (size_t)n, align);
	return true;
}
