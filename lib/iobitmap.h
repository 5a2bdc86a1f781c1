/* SPDX-License-Identifier: MIT */
/*
 * The TSS I/O permission bitmap: which ports ring 3 may use with in and
 * out when its IOPL does not allow it (or a hypervisor ignores IOPL but
 * honours the bitmap, as this project's nested KVM does).
 *
 * One bit per port, 0 = allowed; an access of N bytes needs all N bits
 * clear.  The CPU reads two bytes of the bitmap for every access, so one
 * byte of all ones must follow the last byte covered, inside the TSS's
 * limit.  One bitmap serves every CPU: the TSSes lie in an array right
 * before it, and each one's I/O map base is the distance to it
 * (iobitmap_tss_layout()).  Pure: the host tests it.
 */
#ifndef CLOCKBENCH_LIB_IOBITMAP_H
#define CLOCKBENCH_LIB_IOBITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOBITMAP_PORTS 65536u
/* Every port's bit, then the terminating byte of all ones. */
#define IOBITMAP_BYTES (IOBITMAP_PORTS / 8 + 1)

/* What one TSS descriptor and TSS need to find the shared bitmap. */
struct iobitmap_tss {
	uint16_t iomap_base; /* the TSS's I/O map base field */
	uint32_t limit;	     /* the descriptor's limit (last byte, inclusive) */
};

/** Deny every port, and write the terminating byte. */
void iobitmap_deny_all(uint8_t map[IOBITMAP_BYTES]);

/**
 * Allow ports @first .. @first + @count - 1.  Returns false, changing
 * nothing, when the range is empty or runs past port 0xffff.
 */
bool iobitmap_allow(uint8_t map[IOBITMAP_BYTES], uint32_t first,
		    uint32_t count);

/** Whether an access of @width bytes (1, 2 or 4) at @port is allowed. */
bool iobitmap_allows(const uint8_t map[IOBITMAP_BYTES], uint32_t port,
		     unsigned int width);

/**
 * The I/O map base and descriptor limit of a TSS of @tss_size bytes at
 * @tss_offset that uses the bitmap at @bitmap_offset (offsets in one
 * area).  Returns false when the bitmap is not after the TSS or too far
 * for the 16-bit I/O map base.
 */
bool iobitmap_tss_layout(size_t tss_offset, size_t tss_size,
			 size_t bitmap_offset, struct iobitmap_tss *out);

#endif
