/* SPDX-License-Identifier: MIT */
/*
 * The Xen PV environment (build/pv64/ only): what boot/head-xenpv.S
 * starts, and what the platform-neutral kernel asks of Xen in place of the
 * machine — console, exceptions, leaving, other vCPUs, memory.
 */
#ifndef CLOCKBENCH_PLATFORM_PV64_XEN_PV_H
#define CLOCKBENCH_PLATFORM_PV64_XEN_PV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/xen_abi.h"
#include "lib/options.h"
#include "lib/verdict.h"

/* start_info as Xen left it (its virtual address, in the boot mapping). */
extern const struct start_info *xen_start_info;

/* The result of PHYSDEVOP_set_iopl on the boot vCPU (0 = port I/O is ours
 * to try; Xen still checks every port). */
extern int xen_pv_iopl_rc;

/** From boot/head-xenpv.S: set up, then kernel_boot(). */
__attribute__((noreturn)) void xen_pv_start(const struct start_info *si);

/* The console (console_io as dom0, the PV console ring as a domU) and
 * leaving (the isa-debug-exit port if the exit method allows, then
 * SCHEDOP_shutdown) are the platform interface's (base/platform.h). */

/** Power the domain off: a PV guest cannot stop its vCPU for good. */
__attribute__((noreturn)) void xen_pv_halt(void);

/**
 * Whether the domain has vCPU @vcpu: 1 yes, 0 no (Xen says -ENOENT), -1
 * when Xen answered something else (the reason is then in @why, which is
 * empty otherwise).
 */
int xen_pv_vcpu_exists(unsigned int vcpu, char *why, size_t whylen);

/**
 * Start vCPU @vcpu at @entry(@vcpu) on the stack ending at @stack_top, with
 * the boot vCPU's page tables and trap table.  Returns 0, or a negative
 * Xen errno with the reason in @why (-ENOENT: no such vCPU).
 */
int xen_pv_vcpu_up(unsigned int vcpu, void (*entry)(unsigned int),
		   void *stack_top, char *why, size_t whylen);

/** What an AP does first under Xen PV (port I/O privilege is per vCPU). */
void xen_pv_ap_setup(void);

/** Note that CPU @cpu runs as vCPU @vcpu (platform_cpu_id()). */
void xen_pv_record_vcpu(unsigned int cpu, uint32_t vcpu);

/**
 * Map @len bytes at machine address @maddr into the kernel's window;
 * @flags are page-table bits beyond present (PTE_W, PTE_PCD, ...).
 * Returns the virtual address, or NULL with Xen's error in *@rc.
 */
volatile void *xen_pv_map(uint64_t maddr, size_t len, uint64_t flags, int *rc);

/** Point the window page holding @va (from xen_pv_map()) at @maddr with
 * @flags, or unmap it (@maddr 0): 0, or update_va_mapping's error
 * (-EINVAL for a page not of the window). */
int xen_pv_remap(volatile void *va, uint64_t maddr, uint64_t flags);

/** After a resume: the console ring's new event channel (start_info's). */
void xen_pv_console_resume(void);

#endif
