/* SPDX-License-Identifier: MIT */
/*
 * The kernel's page tables: physical memory mapped 1:1.  boot/start32.S
 * maps the low 4 GiB with 2 MiB pages; paging_init() then makes every
 * 2 MiB page that holds no RAM uncached (it is device memory: LAPIC, HPET,
 * IOAPIC, PCI), maps RAM above 4 GiB, and unmaps the guard page below the
 * boot stack so that a stack overflow faults instead of corrupting memory.
 */
#ifndef CLOCKBENCH_KERNEL_PAGING_H
#define CLOCKBENCH_KERNEL_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/boot_info.h"

struct paging_summary {
	uint64_t mapped_bytes;	  /* identity-mapped physical address space */
	unsigned int uncached_2m; /* 2 MiB pages below 4 GiB made uncached */
	uint64_t unmapped_ram;	  /* RAM bytes above what could be mapped */
};

void paging_init(const struct boot_info *bi, struct paging_summary *sum);

/** Whether every byte of [@va, @va + @len) is mapped. */
bool paging_range_mapped(uint64_t va, uint64_t len);

/** Whether @va lies in the boot stack's guard page. */
bool paging_in_stack_guard(uint64_t va);

#endif
