/* SPDX-License-Identifier: MIT */
/*
 * Access to physical memory for the parsers that read loader and firmware
 * structures.  The kernel maps physical memory 1:1; the host unit tests map
 * offsets into a buffer.  Either way a parser asks for exactly the range it
 * reads and gets NULL when that range is not there, so a bad pointer in a
 * table is an error message, not a crash.
 */
#ifndef CLOCKBENCH_LIB_PHYS_H
#define CLOCKBENCH_LIB_PHYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct phys_mapper {
	/* A pointer to @len bytes at @paddr, or NULL when they are not all
	 * accessible.  Physical address 0 is never handed out. */
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

/*
 * The kernel's mappers.  phys_mem reads firmware and loader memory by
 * physical address: identity over what is mapped natively
 * (kernel/paging.c), machine frames mapped read-only on demand under Xen
 * PV (hypervisor/xen_pv_mm.c).  boot_mem reads the structures the loader
 * handed over: the same as phys_mem natively; under Xen PV, start_info's
 * own virtual addresses.
 */
extern const struct phys_mapper phys_mem;
extern const struct phys_mapper boot_mem;

/**
 * Device registers at physical address @paddr, @len bytes, uncached.
 * Returns NULL when they cannot be mapped.  *@read_only is set when the
 * mapping may only be read (Xen lends dom0 the HPET that way): such
 * registers must never be written.
 */
volatile void *phys_map_device(uint64_t paddr, size_t len, bool *read_only);

#endif
