/* SPDX-License-Identifier: MIT */
/*
 * The kernel's page tables, the platform's (base/platform.h).  Natively
 * (platform/hvm64/paging.c) physical memory is
 * mapped 1:1.  platform/hvm64/start32.S
 * maps the low 4 GiB with 2 MiB pages; paging_init() then makes every
 * 2 MiB page that holds no RAM uncached (it is device memory: LAPIC, HPET,
 * IOAPIC, PCI), maps RAM above 4 GiB, and unmaps the guard page below the
 * boot stack so that a stack overflow faults instead of corrupting memory.
 * Under Xen PV (platform/pv64/xen_pv_mm.c) the page tables are Xen's: the
 * image stays where Xen mapped it, the same guard page is unmapped, and
 * firmware and device memory are mapped on demand by machine address.
 */
#ifndef CLOCKBENCH_BASE_PAGING_H
#define CLOCKBENCH_BASE_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/boot_info.h"
#include "lib/phys.h"
#include "lib/x86.h" /* PTE_* */

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

/*
 * The kernel's mappers.  phys_mem reads firmware and loader memory by
 * physical address: identity over what is mapped natively
 * (platform/hvm64/paging.c), machine frames mapped read-only on demand under Xen
 * PV (platform/pv64/xen_pv_mm.c).  boot_mem reads the structures the loader
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
