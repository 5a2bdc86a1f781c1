// SPDX-License-Identifier: MIT
/*
 * Memory under Xen PV (build/pv64/ only): the interface of base/paging.h
 * and lib/phys.h over Xen's page tables.  Xen mapped the image,
 * start_info and the boot stack at their link addresses; everything else
 * (shared_info, ACPI tables, the HPET, a domU's console ring) is mapped
 * here by machine address into a window of pages reserved in .bss, with
 * update_va_mapping.  Mappings are never undone, so a pointer handed out
 * stays valid for the whole run.
 */
#include <errno.h>
#include <string.h>

#include "boot/boot.h"
#include "hypervisor/hypercall.h"
#include "platform/pv64/xen_pv.h"
#include "base/extable.h"
#include "base/paging.h"
#include "lib/phys.h"

/* Enough for shared_info, the firmware area scanned for the RSDP (128 KiB),
 * QEMU's ACPI tables and the HPET, with room to spare. */
#define WINDOW_PAGES 256

extern char boot_stack_guard[];

static uint8_t window[WINDOW_PAGES][PAGE_SIZE]
	__attribute__((aligned(PAGE_SIZE)));
static uint64_t window_pte[WINDOW_PAGES]; /* what each page maps; 0 = free */
static unsigned int window_used;

static uint64_t frame_pte(uint64_t maddr, uint64_t flags)
{
	return (maddr & PTE_ADDR_MASK) | PTE_P | flags;
}

/* A run of window pages already mapping @n frames from @first as @flags. */
static int find_run(uint64_t first, unsigned int n, uint64_t flags)
{
	unsigned int i, j;

	for (i = 0; i + n <= window_used; i++) {
		for (j = 0; j < n; j++)
			if (window_pte[i + j] !=
			    frame_pte(first + (uint64_t)j * PAGE_SIZE, flags))
				break;
		if (j == n)
			return (int)i;
	}
	return -1;
}

volatile void *xen_pv_map(uint64_t maddr, size_t len, uint64_t flags, int *rc)
{
	uint64_t first = maddr & PTE_ADDR_MASK;
	uint64_t span = (maddr - first) + (len ? len : 1);
	unsigned int n = (unsigned int)((span + PAGE_SIZE - 1) / PAGE_SIZE);
	unsigned int j;
	int at;

	*rc = 0;
	if (span > (uint64_t)WINDOW_PAGES * PAGE_SIZE) {
		*rc = -ENOMEM;
		return NULL;
	}
	at = find_run(first, n, flags);
	if (at < 0) {
		if (window_used + n > WINDOW_PAGES) {
			*rc = -ENOMEM;
			return NULL;
		}
		at = (int)window_used;
		for (j = 0; j < n; j++) {
			uint64_t pte = frame_pte(
				first + (uint64_t)j * PAGE_SIZE, flags);

			*rc = (int)HYPERCALL3(__HYPERVISOR_update_va_mapping,
					      window[at + j], pte, UVMF_INVLPG);
			if (*rc) {
				/* Leave the pages mapped so far to be reused
				 * by a later request for the same frames. */
				window_used += j;
				return NULL;
			}
			window_pte[at + j] = pte;
		}
		window_used += n;
	}
	return window[at] + (maddr - first);
}

int xen_pv_remap(volatile void *va, uint64_t maddr, uint64_t flags)
{
	unsigned int i;
	uint64_t pte = maddr ? frame_pte(maddr, flags) : 0;
	int rc;

	for (i = 0; i < window_used; i++)
		if ((volatile void *)window[i] ==
		    (volatile void *)((uintptr_t)va &
				      ~(uintptr_t)(PAGE_SIZE - 1)))
			break;
	if (i == window_used)
		return -EINVAL;
	rc = (int)HYPERCALL3(__HYPERVISOR_update_va_mapping, window[i], pte,
			     UVMF_INVLPG);
	if (rc == 0)
		window_pte[i] = pte;
	return rc;
}

/* Firmware memory (ACPI tables, the BIOS area), read-only and cached. */
static const void *machine_map(void *ctx, uint64_t maddr, size_t len)
{
	int rc;

	(void)ctx;
	if (maddr == 0)
		return NULL;
	return (const void *)xen_pv_map(maddr, len, 0, &rc);
}

/* start_info and what it points to lie in the boot mapping: take the
 * address as it is; a bad one faults and is reported as a fault. */
static const void *boot_map(void *ctx, uint64_t va, size_t len)
{
	(void)ctx;
	if (va == 0 || va + len < va || va + len >= HYPERVISOR_VIRT_START)
		return NULL;
	return (const void *)(uintptr_t)va;
}

const struct phys_mapper phys_mem = { .map = machine_map };
const struct phys_mapper boot_mem = { .map = boot_map };

volatile void *phys_map_device(uint64_t paddr, size_t len, bool *read_only)
{
	int rc;

	/* Xen lends dom0 its HPET read-only (ro-hpet), and a read-only
	 * mapping is all clockbench needs of any device it only reads. */
	*read_only = true;
	if (paddr == 0)
		return NULL;
	return xen_pv_map(paddr, len, PTE_PCD | PTE_PWT, &rc);
}

void paging_init(const struct boot_info *bi, struct paging_summary *sum)
{
	*sum = (struct paging_summary){ .mapped_bytes = bi->ram_bytes };
	/* The guard page below the boot stack, and page 0, so that a stack
	 * overflow or a NULL pointer faults. */
	HYPERCALL3(__HYPERVISOR_update_va_mapping, boot_stack_guard, 0,
		   UVMF_INVLPG);
	HYPERCALL3(__HYPERVISOR_update_va_mapping, 0, 0, UVMF_INVLPG);
}

/* Xen's page tables are Xen's to walk, so ask the MMU: read one byte at
 * @va under an exception-table entry. */
bool paging_page_mapped(uint64_t va)
{
	uint64_t fault = 0;
	uint8_t byte;

	asm volatile("1: movb (%[va]), %[b]\n\t"
		     "2:\n\t" EXTABLE_ENTRY(1b, 2b)
		     : [b] "=q"(byte), "+D"(fault)
		     : [va] "r"(va)
		     : "memory");
	(void)byte;
	return !fault;
}
