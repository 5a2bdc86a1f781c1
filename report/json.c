// SPDX-License-Identifier: MIT
/* The JSON document of a run, and the pieces its members share (see
 * report/run.h, docs/report-format.md). */
#include "report/run.h"

#define REPORT_SCHEMA "clockbench/2"

/* The document's nesting depth up to which each member starts a line:
 * a handful of lines, one per clock. */
#define REPORT_NEWLINE_DEPTH 2

bool report_json(const struct run_report *run, const struct ktap *checks,
		 const report_json_member *members, size_t nr, report_sink sink,
		 void *ctx)
{
	struct json_writer w;
	size_t i;

	json_init(&w, sink, ctx, REPORT_NEWLINE_DEPTH);
	json_object_begin(&w, NULL);
	json_string(&w, "schema", REPORT_SCHEMA);
	for (i = 0; i < nr; i++)
		members[i](run, &w);
	ktap_json(&w, checks);
	json_object_end(&w);
	return json_finish(&w);
}
