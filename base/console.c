// SPDX-License-Identifier: MIT
/*
 * Console: the platform's (base/platform.h: COM1 natively, Xen's console
 * for a PV guest) behind newlib's stdio, unbuffered.  Its time is charged
 * to printing (base/timing.h), whichever phase prints.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/console.h"
#include "base/platform.h"
#include "base/timing.h"
#include "lib/consloss.h"

static uint64_t written_bytes;

void console_init(void)
{
	platform_console_init();
	/* No stdio buffering: a line is on the wire before the code after
	 * the printf runs, even if that code brings the machine down. */
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

void console_write(const char *buf, size_t len)
{
	enum timing_phase was = timing_enter(TIMING_PRINT);

	platform_console_write(buf, len);
	written_bytes += len;
	timing_console_bytes(len);
	timing_enter(was);
}

void console_puts(const char *s)
{
	console_write(s, strlen(s));
}

void console_flush(void)
{
	enum timing_phase was;

	fflush(stdout);
	was = timing_enter(TIMING_PRINT);
	platform_console_flush();
	timing_enter(was);
}

uint64_t console_lost_bytes(void)
{
	struct console_loss loss = { 0 };

	platform_console_losses(&loss);
	return loss.lost_bytes;
}

void console_say_losses(void)
{
	struct console_loss loss = { 0 };
	char words[2 * CONSLOSS_WHY_LEN];

	consloss_written(&loss, written_bytes);
	platform_console_losses(&loss);
	consloss_words(&loss, words, sizeof(words));
	printf("clockbench: console: %s\n", words);
}
