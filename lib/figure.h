/* SPDX-License-Identifier: MIT */
/*
 * Figures for the tables people read: a number in one fixed unit with its
 * thousands grouped ("25,612.3"), so that a column holds one unit however
 * far its values spread, and a reader sees the magnitude at a glance.
 * (printf's ' flag groups nothing in the C locale.)  Pure: the host tests
 * it.
 */
#ifndef CLOCKBENCH_LIB_FIGURE_H
#define CLOCKBENCH_LIB_FIGURE_H

#include <stddef.h>

/* Room for any double figure_grouped() prints in full (1e308 has 103
 * digits and separators), with a sign and decimals. */
#define FIGURE_LEN 128

/**
 * @value rounded to @decimals decimals (0 to 9), with a ',' between each
 * group of three integer digits, into @buf of @len bytes; "-" when @value
 * is not finite.  Returns @buf; a figure longer than @len is cut short.
 */
char *figure_grouped(char *buf, size_t len, double value,
		     unsigned int decimals);

#endif
