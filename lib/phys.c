// SPDX-License-Identifier: MIT
/* Reading strings through a phys_mapper (pure; host-tested). */
#include "lib/phys.h"

int phys_copy_string(const struct phys_mapper *pm, uint64_t paddr, char *dst,
		     size_t dstlen, int *truncated)
{
	size_t i;

	*truncated = 0;
	for (i = 0;; i++) {
		const char *c = phys_map(pm, paddr + i, 1);

		if (!c) {
			dst[0] = '\0';
			return -1;
		}
		if (*c == '\0')
			break;
		if (i + 1 >= dstlen) {
			*truncated = 1;
			break;
		}
		dst[i] = *c;
	}
	dst[i] = '\0';
	return (int)i;
}
