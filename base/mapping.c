// SPDX-License-Identifier: MIT
/* Questions about the mapping that both environments answer alike. */
#include "boot/boot.h"
#include "base/paging.h"

extern char boot_stack_guard[];

bool paging_range_mapped(uint64_t va, uint64_t len)
{
	uint64_t page;

	if (len == 0)
		return true;
	if (va + len < va)
		return false;
	for (page = va & ~(uint64_t)(PAGE_SIZE - 1); page < va + len;
	     page += PAGE_SIZE)
		if (!paging_page_mapped(page))
			return false;
	return true;
}

bool paging_in_stack_guard(uint64_t va)
{
	uint64_t guard = (uint64_t)(uintptr_t)boot_stack_guard;

	return va >= guard && va < guard + PAGE_SIZE;
}
