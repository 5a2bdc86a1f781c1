// SPDX-License-Identifier: MIT
/*
 * guest-options: the image's option table, for the host runner.  Built on
 * the host from lib/options.c itself, so that the runner checks guest
 * options before a boot against the very table the image parses with.
 *
 *   guest-options               the table as JSON (OPTIONS_SCHEMA)
 *   guest-options --describe    what help=1 prints (options_describe)
 *   guest-options --parse TEXT  parse TEXT as the image does: exit 0, or
 *                               exit 1 with the image's sentence on stderr
 *
 * Exit status 2 for any other arguments.
 */
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "lib/options.h"

static void emit_stdout(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	fwrite(text, 1, len, stdout);
}

static int write_table(void)
{
	struct json_writer w;

	json_init(&w, emit_stdout, NULL, 2);
	options_json(&w);
	if (!json_finish(&w)) {
		fprintf(stderr,
			"guest-options: the JSON document is malformed\n");
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

static int parse(const char *cmdline)
{
	struct options opts;
	char err[512];

	if (options_parse(cmdline, &opts, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "%s\n", err);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return write_table();
	if (argc == 2 && !strcmp(argv[1], "--describe")) {
		options_describe(stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (argc == 3 && !strcmp(argv[1], "--parse"))
		return parse(argv[2]);
	fprintf(stderr, "usage: guest-options [--describe | --parse TEXT]\n");
	return 2;
}
