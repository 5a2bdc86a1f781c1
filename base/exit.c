// SPDX-License-Identifier: MIT
/* The end of a run (see base/exit.h). */
#include <stdio.h>

#include "base/console.h"
#include "base/exit.h"
#include "base/platform.h"

static enum exit_method exit_method = EXIT_AUTO;

void run_set_exit_method(enum exit_method method)
{
	exit_method = method;
}

void run_announce_end(const char *how)
{
	console_puts("clockbench: ending the run: ");
	console_puts(how);
	console_puts("\n");
	console_flush();
}

void run_exit(enum verdict verdict)
{
	const char *how = platform_end_words(exit_method);

	console_say_losses();
	printf("clockbench: %s\n", verdict_name(verdict));
	console_flush();
	if (how)
		run_announce_end(how);
	platform_leave(verdict, exit_method);
}
