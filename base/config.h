/* SPDX-License-Identifier: MIT */
/*
 * The build environment as feature flags.  Every object is compiled once
 * per environment (build/<env>/, see the Makefile), which defines
 * CLOCKBENCH_ENV_<ENV>; this header turns that name into CONFIG_* values
 * and code asks only about features, preferring `if (CONFIG_X)` to #if so
 * that both branches keep compiling in every environment.
 *
 *   hvm64  multiboot 1/2 and PVH images: the kernel owns the machine (or
 *          an HVM guest of KVM, Xen, ...), with its own ring 0.
 *   pv64   the Xen PV image: Xen owns ring 0, the page tables and the
 *          interrupt controllers; the kernel asks it through hypercalls.
 */
#ifndef CLOCKBENCH_BASE_CONFIG_H
#define CLOCKBENCH_BASE_CONFIG_H

#if defined(CLOCKBENCH_ENV_PV64)
#define CONFIG_XEN_PV 1
#else
#define CONFIG_XEN_PV 0
#endif

#endif
