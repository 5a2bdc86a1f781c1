// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the guest options on the command line (lib/options.c).
 * Input: the command line, at most as long as struct boot_info keeps it.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/boot_info.h"
#include "lib/options.h"

/* The options whose values have names. */
static const char *const named[] = { "exit",	   "fault", "port_io",
				     "verbose",	   "help",  "acpi_dump",
				     "no_such_key" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char cmdline[BOOT_CMDLINE_MAX];
	struct options opts;
	char err[256];
	unsigned int i;

	if (size >= sizeof(cmdline))
		size = sizeof(cmdline) - 1;
	memcpy(cmdline, data, size);
	cmdline[size] = '\0';
	if (options_parse(cmdline, &opts, err, sizeof(err))) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort(); /* a failure always says why */
		return 0;
	}
	if (err[0] || opts.nr_tick_rates > TICK_MAX_RATES)
		abort();
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!options_value_name(named[i], &opts))
			abort();
	return 0;
}
