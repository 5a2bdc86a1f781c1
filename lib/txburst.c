// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/* Console bytes in bursts (see lib/txburst.h); ring 0 prints with it too. */
#include "lib/txburst.h"

void txburst_start(struct txburst *t, const char *buf, size_t len)
{
	t->buf = buf;
	t->len = len;
	t->pos = 0;
	t->cr_sent = false;
}

size_t txburst_next(struct txburst *t, char *out, size_t room)
{
	size_t n = 0;

	while (n < room && t->pos < t->len) {
		char c = t->buf[t->pos];

		if (c == '\n' && !t->cr_sent) {
			out[n++] = '\r';
			t->cr_sent = true;
			continue;
		}
		out[n++] = c;
		t->cr_sent = false;
		t->pos++;
	}
	return n;
}
