/* SPDX-License-Identifier: MIT */
/*
 * Access to physical memory for the parsers that read loader and firmware
 * structures.  The kernel maps physical memory 1:1, or under Xen PV into
 * window pages of its own for each request; the host unit tests map offsets
 * into a buffer.  Either way a parser asks for exactly the range it reads and
 * gets NULL when that range is not there, so a bad pointer in a table is an
 * error message, not a crash.
 */
#ifndef CLOCKBENCH_LIB_PHYS_H
#define CLOCKBENCH_LIB_PHYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct phys_mapper {
	/* A pointer to @len bytes at @paddr, or NULL when they are not all
	 * accessible.  Physical address 0 is never handed out.  Only those
	 * @len bytes may be read through it: past them may lie another frame
	 * (Xen PV) or nothing, so a structure whose length is learnt from its
	 * header is mapped again at that length and read through the new
	 * pointer.  A pointer stays valid for the whole run. */
	const void *(*map)(void *ctx, uint64_t paddr, size_t len);
	void *ctx;
};

static inline const void *phys_map(const struct phys_mapper *pm, uint64_t paddr,
				   size_t len)
{
	return pm->map(pm->ctx, paddr, len);
}

/**
 * Copy the NUL-terminated string at @paddr into @dst (of @dstlen bytes,
 * always terminated).  Returns the string's length, or -1 when it could not
 * be read; sets *@truncated when it did not fit.
 */
int phys_copy_string(const struct phys_mapper *pm, uint64_t paddr, char *dst,
		     size_t dstlen, int *truncated);

#endif
