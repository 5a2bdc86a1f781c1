/* SPDX-License-Identifier: MIT */
/*
 * Xen's public interface, from libxen-dev's headers, at the interface
 * version clockbench is written against.  The Makefile sets it for every
 * file, so that none sees another version by including a Xen header
 * first; 4.7 is the first whose vcpu_time_info has its flags byte.
 */
#ifndef CLOCKBENCH_LIB_XEN_ABI_H
#define CLOCKBENCH_LIB_XEN_ABI_H

#include <stdint.h> /* the Xen headers expect it */

#ifndef __XEN_INTERFACE_VERSION__
#define __XEN_INTERFACE_VERSION__ 0x00040700
#endif

#include <xen/xen.h>

#if __XEN_INTERFACE_VERSION__ < 0x00040700
#error "clockbench needs Xen interface 4.7 or later (vcpu_time_info.flags)"
#endif

#endif
