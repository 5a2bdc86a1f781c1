/* SPDX-License-Identifier: MIT */
/*
 * A legacy virtio split virtqueue in memory, as the virtio 1.x
 * specification (section 2.7 and "Legacy Interfaces: Virtqueue Layout")
 * lays it out: the descriptor table, the available ring right after it,
 * and the used ring at the next @align boundary.  Pure: the host tests it.
 */
#ifndef CLOCKBENCH_LIB_VRING_H
#define CLOCKBENCH_LIB_VRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VRING_LEGACY_ALIGN 4096 /* a legacy device's ring alignment */
#define VRING_DESC_BYTES   16

struct vring_desc {
	uint64_t addr; /* guest-physical */
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct vring_layout {
	size_t avail_offset; /* flags, idx, ring[n], used_event */
	size_t used_offset;  /* flags, idx, ring[n] of {id, len}, avail_event */
	size_t total_bytes;
};

/**
 * Where the rings of a queue of @n entries (a power of 2, 1 to 32768) lie
 * from its start, with the used ring aligned to @align (a power of 2).
 * Returns false for a size or alignment the specification does not allow.
 */
bool vring_layout(unsigned int n, size_t align, struct vring_layout *out);

#endif
