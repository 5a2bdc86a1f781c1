/* SPDX-License-Identifier: MIT */
/* The one C entry every boot head reaches (kernel/main.c). */
#ifndef CLOCKBENCH_BASE_ENTRY_H
#define CLOCKBENCH_BASE_ENTRY_H

#include <stdint.h>

/**
 * Run clockbench: @protocol is BOOT_PROTO_*, @info_paddr the loader's
 * structure (for Xen PV the virtual address of start_info), @magic the
 * loader's magic where the protocol has one.  Never returns.
 */
__attribute__((noreturn)) void kernel_boot(uint32_t protocol,
					   uint32_t info_paddr, uint32_t magic);

#endif
