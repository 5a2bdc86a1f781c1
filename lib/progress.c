// SPDX-License-Identifier: MIT
/* Progress lines (see lib/progress.h). */
#include <stdarg.h>
#include <stdio.h>

#include "lib/progress.h"

void progress(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}
