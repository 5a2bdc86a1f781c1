// SPDX-License-Identifier: MIT
/* Refining the boot identity map: device memory uncached, guard page. */
#include <stddef.h>

#include "boot/boot.h"
#include "base/cpu.h"
#include "base/paging.h"
#include "base/priv.h"
#include "platform/hvm64/priv_call.h"
#include "lib/phys.h"

#define ENTRIES		512
#define GIB		(1ull << 30)
#define LOW_MAPPED	(4 * GIB)   /* what platform/hvm64/start32.S maps */
#define PML4_ENTRY_SPAN (512 * GIB) /* what one PDPT covers */
#define HIGH_PD_POOL	8 /* 2 MiB-page directories for RAM above 4 GiB */

#define CPUID_EDX_PAGE1GB (1u << 26)

extern uint64_t boot_pml4[ENTRIES], boot_pdpt[ENTRIES], boot_pd[4 * ENTRIES];
extern char boot_stack_guard[], __image_start[], __image_end[];

static uint64_t guard_pt[ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint64_t high_pd[HIGH_PD_POOL][ENTRIES]
	__attribute__((aligned(PAGE_SIZE)));

/* Whether [base, base + size) overlaps memory (RAM, ACPI, NVS, pmem). */
static bool overlaps_memory(const struct boot_info *bi, uint64_t base,
			    uint64_t size)
{
	unsigned int i;

	for (i = 0; i < bi->nr_memmap; i++) {
		const struct mem_region *r = &bi->memmap[i];
		bool memory = r->type == MEM_RAM || r->type == MEM_ACPI ||
			      r->type == MEM_NVS || r->type == MEM_PERSISTENT;

		if (memory && r->base < base + size && base < r->base + r->size)
			return true;
	}
	return false;
}

static uint64_t memory_top(const struct boot_info *bi)
{
	uint64_t top = 0;
	unsigned int i;

	for (i = 0; i < bi->nr_memmap; i++)
		if (bi->memmap[i].type == MEM_RAM &&
		    bi->memmap[i].base + bi->memmap[i].size > top)
			top = bi->memmap[i].base + bi->memmap[i].size;
	return top;
}

static void map_low_devices_uncached(const struct boot_info *bi,
				     struct paging_summary *sum)
{
	uint64_t image = (uint64_t)(uintptr_t)__image_start;
	uint64_t image_len = (uint64_t)(uintptr_t)__image_end - image;
	unsigned int i;

	/* Without a memory map there is no telling device from RAM. */
	if (!bi->nr_memmap)
		return;
	for (i = 0; i < 4 * ENTRIES; i++) {
		uint64_t base = (uint64_t)i * LARGE_PAGE_SIZE;

		if (overlaps_memory(bi, base, LARGE_PAGE_SIZE) ||
		    (image < base + LARGE_PAGE_SIZE &&
		     base < image + image_len))
			continue;
		if (!(boot_pd[i] & PTE_PCD))
			sum->uncached_2m++;
		boot_pd[i] |= PTE_PCD | PTE_PWT;
	}
}

static void map_high_ram(const struct boot_info *bi, struct paging_summary *sum)
{
	bool page1gb = cpuid(CPUID_EXT_FEATURES).edx & CPUID_EDX_PAGE1GB;
	uint64_t top = memory_top(bi), gib;
	unsigned int pool = 0;

	for (gib = LOW_MAPPED / GIB; gib * GIB < top; gib++) {
		uint64_t base = gib * GIB;
		unsigned int j;

		if (!overlaps_memory(bi, base, GIB))
			continue;
		if (base >= PML4_ENTRY_SPAN ||
		    (!page1gb && pool == HIGH_PD_POOL))
			break;
		if (page1gb) {
			boot_pdpt[gib] = base | PTE_P | PTE_W | PTE_U | PTE_PS;
		} else {
			for (j = 0; j < ENTRIES; j++)
				high_pd[pool][j] =
					(base + j * LARGE_PAGE_SIZE) | PTE_P |
					PTE_W | PTE_PS;
			boot_pdpt[gib] = (uint64_t)(uintptr_t)high_pd[pool++] |
					 PTE_P | PTE_W | PTE_U;
		}
		sum->mapped_bytes = base + GIB;
	}
	if (top > sum->mapped_bytes)
		sum->unmapped_ram = top - sum->mapped_bytes;
}

static void unmap_stack_guard(void)
{
	uint64_t guard = (uint64_t)(uintptr_t)boot_stack_guard;
	unsigned int pde = (unsigned int)(guard / LARGE_PAGE_SIZE);
	uint64_t big = boot_pd[pde];
	uint64_t flags = big & ~PTE_ADDR_MASK & ~PTE_PS;
	unsigned int i;

	for (i = 0; i < ENTRIES; i++)
		guard_pt[i] =
			((big & PTE_ADDR_MASK) + (uint64_t)i * PAGE_SIZE) |
			flags;
	guard_pt[(guard % LARGE_PAGE_SIZE) / PAGE_SIZE] = 0;
	boot_pd[pde] = (uint64_t)(uintptr_t)guard_pt | PTE_P | PTE_W | PTE_U;
}

void paging_init(const struct boot_info *bi, struct paging_summary *sum)
{
	*sum = (struct paging_summary){ .mapped_bytes = LOW_MAPPED };
	map_low_devices_uncached(bi, sum);
	map_high_ram(bi, sum);
	unmap_stack_guard();
	priv_flush_tlb();
}

/* The entry mapping @va at its level, or 0 when @va is not mapped. */
static uint64_t lookup(uint64_t va)
{
	const uint64_t *table = boot_pml4;
	unsigned int shift;

	if (va >= PML4_ENTRY_SPAN) /* only PML4[0] is ever used */
		return 0;
	for (shift = 39;; shift -= 9) {
		uint64_t e = table[(va >> shift) % ENTRIES];

		if (!(e & PTE_P))
			return 0;
		if (shift == 12 || (e & PTE_PS))
			return e;
		table = (const uint64_t *)(uintptr_t)(e & PTE_ADDR_MASK);
	}
}

bool paging_page_mapped(uint64_t va)
{
	return lookup(va) != 0;
}

static const void *identity_map(void *ctx, uint64_t paddr, size_t len)
{
	(void)ctx;
	if (paddr == 0 || !paging_range_mapped(paddr, len))
		return NULL;
	return (const void *)(uintptr_t)paddr;
}

const struct phys_mapper phys_mem = { .map = identity_map };
const struct phys_mapper boot_mem = { .map = identity_map };

/* paging_init() made every 2 MiB page without RAM below 4 GiB uncached. */
volatile void *phys_map_device(uint64_t paddr, size_t len, bool *read_only)
{
	*read_only = false;
	if (paddr == 0 || !paging_range_mapped(paddr, len))
		return NULL;
	return (volatile void *)(uintptr_t)paddr;
}
