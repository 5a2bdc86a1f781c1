// SPDX-License-Identifier: MIT
/* error_set(): the parsers' one way to report (pure; host-tested). */
#include <stdarg.h>
#include <stdio.h>

#include "lib/error.h"

int error_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
