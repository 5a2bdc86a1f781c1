/* SPDX-License-Identifier: MIT */
/*
 * Fake physical memory for the fuzz targets: regions of the fuzz input
 * placed at physical addresses, read through a phys_mapper that lets
 * nothing but the bytes asked for be read.  Each map() call gets a heap
 * block of its own holding a copy of exactly those bytes, at the same
 * offset from a 16-byte boundary as the physical address has (so a
 * misaligned address gives a misaligned pointer, as the kernel's 1:1
 * mapping does), and ASan traps any read past its end.  The blocks live
 * until fuzz_phys_reset(): a mapping stays valid for the whole run.
 */
#ifndef CLOCKBENCH_TESTS_FUZZ_PHYS_H
#define CLOCKBENCH_TESTS_FUZZ_PHYS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/phys.h"

#define FUZZ_PHYS_MAX_REGIONS 32

struct fuzz_region {
	uint64_t paddr;
	const uint8_t *bytes;
	size_t len;
};

struct fuzz_phys {
	struct fuzz_region regions[FUZZ_PHYS_MAX_REGIONS];
	unsigned int nr_regions;
	struct phys_mapper pm;
	void **blocks; /* every copy handed out, freed by the reset */
	size_t nr_blocks, max_blocks;
};

/** Forget every region and free every copy handed out; @fp is then an
 * empty memory with its mapper ready. */
void fuzz_phys_reset(struct fuzz_phys *fp);

/** Make @len bytes at @bytes readable at @paddr; false when full. */
int fuzz_phys_add(struct fuzz_phys *fp, uint64_t paddr, const uint8_t *bytes,
		  size_t len);

/** A heap copy of @len bytes at @bytes, freed by the next reset: a buffer
 * whose end ASan guards, for data handed over other than by address. */
const void *fuzz_phys_copy(struct fuzz_phys *fp, const void *bytes, size_t len);

/** A writable heap buffer of @len bytes (of junk), freed by the next
 * reset: its end guarded as a copy's is, for output. */
void *fuzz_phys_buffer(struct fuzz_phys *fp, size_t len);

/** Read little-endian numbers from the front of *@data, advancing it; what
 * runs past the end reads as zero bytes. */
uint64_t fuzz_take(const uint8_t **data, size_t *size, unsigned int bytes);

#endif
