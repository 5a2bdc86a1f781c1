// SPDX-License-Identifier: MIT
/* The fuzz targets' strict fake physical memory (see fuzz_phys.h). */
#include <sanitizer/asan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_phys.h"

/* Far more than any parser here maps for one input: more is a runaway. */
#define FUZZ_PHYS_MAX_BLOCKS (1u << 20)
#define BLOCK_ALIGN	     16

static void *block(struct fuzz_phys *fp, const void *bytes, size_t len,
		   uint64_t paddr)
{
	size_t pad = paddr % BLOCK_ALIGN;
	void *base;

	if (fp->nr_blocks == fp->max_blocks) {
		if (fp->nr_blocks == FUZZ_PHYS_MAX_BLOCKS) {
			fprintf(stderr,
				"fuzz_phys: more than %u mappings for "
				"one input: a runaway loop\n",
				FUZZ_PHYS_MAX_BLOCKS);
			abort();
		}
		fp->max_blocks = fp->max_blocks ? 2 * fp->max_blocks : 256;
		fp->blocks = realloc(fp->blocks,
				     fp->max_blocks * sizeof(*fp->blocks));
		if (!fp->blocks)
			abort();
	}
	if (posix_memalign(&base, BLOCK_ALIGN, pad + len + (pad + len == 0)))
		abort();
	fp->blocks[fp->nr_blocks++] = base;
	/* The bytes before the copy are no one's either (ASan can poison
	 * only whole 8-byte granules of them). */
	memset(base, 0xa5, pad);
	ASAN_POISON_MEMORY_REGION(base, pad);
	if (bytes)
		memcpy((uint8_t *)base + pad, bytes, len);
	else
		memset((uint8_t *)base + pad, 0xa5, len);
	return (uint8_t *)base + pad;
}

static const void *fuzz_phys_map(void *ctx, uint64_t paddr, size_t len)
{
	struct fuzz_phys *fp = ctx;
	unsigned int i;

	if (paddr == 0)
		return NULL;
	for (i = 0; i < fp->nr_regions; i++) {
		const struct fuzz_region *r = &fp->regions[i];

		if (paddr >= r->paddr && paddr - r->paddr <= r->len &&
		    len <= r->len - (paddr - r->paddr))
			return block(fp, r->bytes + (paddr - r->paddr), len,
				     paddr);
	}
	return NULL;
}

void fuzz_phys_reset(struct fuzz_phys *fp)
{
	size_t i;

	for (i = 0; i < fp->nr_blocks; i++) {
		uintptr_t start = (uintptr_t)fp->blocks[i];

		ASAN_UNPOISON_MEMORY_REGION((void *)start, BLOCK_ALIGN);
		free(fp->blocks[i]);
	}
	fp->nr_blocks = 0;
	fp->nr_regions = 0;
	fp->pm = (struct phys_mapper){ .map = fuzz_phys_map, .ctx = fp };
}

int fuzz_phys_add(struct fuzz_phys *fp, uint64_t paddr, const uint8_t *bytes,
		  size_t len)
{
	if (fp->nr_regions == FUZZ_PHYS_MAX_REGIONS)
		return 0;
	fp->regions[fp->nr_regions++] = (struct fuzz_region){ .paddr = paddr,
							      .bytes = bytes,
							      .len = len };
	return 1;
}

const void *fuzz_phys_copy(struct fuzz_phys *fp, const void *bytes, size_t len)
{
	return block(fp, bytes, len, 0);
}

void *fuzz_phys_buffer(struct fuzz_phys *fp, size_t len)
{
	return block(fp, NULL, len, 0);
}

uint64_t fuzz_take(const uint8_t **data, size_t *size, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && i < 8; i++)
		if (i < *size)
			v |= (uint64_t)(*data)[i] << (8 * i);
	bytes = bytes < *size ? bytes : (unsigned int)*size;
	*data += bytes;
	*size -= bytes;
	return v;
}
