// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/* The TSS I/O permission bitmap (see lib/iobitmap.h); ring 0 uses it. */
#include "lib/iobitmap.h"

#define IOMAP_BASE_MAX 0xffffu

void iobitmap_deny_all(uint8_t map[IOBITMAP_BYTES])
{
	size_t i;

	for (i = 0; i < IOBITMAP_BYTES; i++)
		map[i] = 0xff;
}

bool iobitmap_allow(uint8_t map[IOBITMAP_BYTES], uint32_t first, uint32_t count)
{
	uint32_t port;

	if (!count || first >= IOBITMAP_PORTS || count > IOBITMAP_PORTS - first)
		return false;
	for (port = first; port < first + count; port++)
		map[port / 8] &= (uint8_t) ~(1u << (port % 8));
	return true;
}

bool iobitmap_allows(const uint8_t map[IOBITMAP_BYTES], uint32_t port,
		     unsigned int width)
{
	unsigned int i;

	if (port >= IOBITMAP_PORTS || !width || width > 4)
		return false;
	/* The CPU checks the bits of port .. port + width - 1; past 0xffff
	 * they fall in the terminating byte, which denies. */
	for (i = 0; i < width; i++) {
		uint32_t p = port + i;

		if (map[p / 8] & (1u << (p % 8)))
			return false;
	}
	return true;
}

bool iobitmap_tss_layout(size_t tss_offset, size_t tss_size,
			 size_t bitmap_offset, struct iobitmap_tss *out)
{
	size_t base;

	if (bitmap_offset < tss_offset + tss_size)
		return false;
	base = bitmap_offset - tss_offset;
	if (base > IOMAP_BASE_MAX)
		return false;
	out->iomap_base = (uint16_t)base;
	out->limit = (uint32_t)(base + IOBITMAP_BYTES - 1);
	return true;
}
