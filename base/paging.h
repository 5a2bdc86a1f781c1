/* SPDX-License-Identifier: MIT */
/*
 * The kernel's page tables.  Natively (kernel/paging.c) physical memory is
 * mapped 1:1.  boot/start32.S
 * maps the low 4 GiB with 2 MiB pages; paging_init() then makes every
 * 2 MiB page that holds no RAM uncached (it is device memory: LAPIC, HPET,
 * IOAPIC, PCI), maps RAM above 4 GiB, and unmaps the guard page below the
 * boot stack so that a stack overflow faults instead of corrupting memory.
 * Under Xen PV (hypervisor/xen_pv_mm.c) the page tables are Xen's: the
 * image stays where Xen mapped it, the same guard page is unmapped, and
 * firmware and device memory are mapped on demand by machine address.
 */
#ifndef CLOCKBENCH_BASE_PAGING_H
#define CLOCKBENCH_BASE_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/boot_info.h"

/* Page-table entry bits (x86 architecture). */
#define PTE_P	      (1ull << 0)
#define PTE_W	      (1ull << 1)
#define PTE_U	      (1ull << 2)
#define PTE_PWT	      (1ull << 3)
#define PTE_PCD	      (1ull << 4)
#define PTE_PS	      (1ull << 7)
#define PTE_ADDR_MASK 0x000ffffffffff000ull

struct paging_summary {
	uint64_t mapped_bytes;	  /* identity-mapped physical address space */
	unsigned int uncached_2m; /* 2 MiB pages below 4 GiB made uncached */
	uint64_t unmapped_ram;	  /* RAM bytes above what could be mapped */
};

void paging_init(const struct boot_info *bi, struct paging_summary *sum);

/** Whether the page holding @va is mapped (readable). */
bool paging_page_mapped(uint64_t va);

/** Whether every byte of [@va, @va + @len) is mapped (readable). */
bool paging_range_mapped(uint64_t va, uint64_t len);

/** Whether @va lies in the boot stack's guard page. */
bool paging_in_stack_guard(uint64_t va);

#endif
