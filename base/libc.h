/* SPDX-License-Identifier: MIT */
/* The static heap behind newlib's malloc. */
#ifndef CLOCKBENCH_BASE_LIBC_H
#define CLOCKBENCH_BASE_LIBC_H

#include <stdbool.h>
#include <stddef.h>

#define HEAP_SIZE (4u << 20) /* bytes; the image must run in 32 MiB of RAM */

/** Bytes handed to malloc so far. */
size_t heap_bytes_used(void);

/** Whether a refusal prints its message (self-tests refuse on purpose). */
void heap_quiet_refusals(bool quiet);

/** How many times the heap refused to grow. */
unsigned int heap_refused_count(void);

#endif
