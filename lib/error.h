/* SPDX-License-Identifier: MIT */
/*
 * How the pure parsers say what was wrong: one sentence into a
 * caller-supplied buffer, and -1 to return.
 */
#ifndef CLOCKBENCH_LIB_ERROR_H
#define CLOCKBENCH_LIB_ERROR_H

#include <stddef.h>

/** Format the sentence into @err (of @errlen bytes); returns -1. */
int error_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
