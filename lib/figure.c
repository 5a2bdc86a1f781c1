// SPDX-License-Identifier: MIT
/* Grouped figures for the tables (see lib/figure.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/figure.h"

char *figure_grouped(char *buf, size_t len, double value, unsigned int decimals)
{
	char plain[FIGURE_LEN];
	size_t digits, in, out = 0;
	const char *p = plain;

	if (!len)
		return buf;
	if (!isfinite(value)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (decimals > 9)
		decimals = 9;
	snprintf(plain, sizeof(plain), "%.*f", (int)decimals, value);
	if (*p == '-' && out + 1 < len)
		buf[out++] = *p++;
	else if (*p == '-')
		p++;
	digits = strcspn(p, ".");
	for (in = 0; p[in] && out + 1 < len; in++) {
		if (in && in < digits && (digits - in) % 3 == 0) {
			buf[out++] = ',';
			if (out + 1 >= len)
				break;
		}
		buf[out++] = p[in];
	}
	buf[out] = '\0';
	return buf;
}
