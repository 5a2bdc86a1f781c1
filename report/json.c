// SPDX-License-Identifier: MIT
/* The JSON document of a run, and the pieces its members share (see
 * report/run.h, docs/report-format.md). */
#include "report/run.h"

#define REPORT_SCHEMA "clockbench/1"

/* The document's nesting depth up to which each member starts a line:
 * a handful of lines, one per clock. */
#define REPORT_NEWLINE_DEPTH 2

void report_json_stats(struct json_writer *w, const char *key,
		       const struct stats_summary *st, bool present)
{
	if (!present) {
		json_null(w, key);
		return;
	}
	json_object_begin(w, key);
	json_uint(w, "min", st->min);
	json_uint(w, "p50", st->p50);
	json_uint(w, "p90", st->p90);
	json_uint(w, "p99", st->p99);
	json_uint(w, "p999", st->p999);
	json_uint(w, "max", st->max);
	json_object_end(w);
}

void report_json_double_if(struct json_writer *w, const char *key, bool have,
			   double value)
{
	if (have)
		json_double(w, key, value);
	else
		json_null(w, key);
}

void report_json_uint_if(struct json_writer *w, const char *key, bool have,
			 uint64_t value)
{
	if (have)
		json_uint(w, key, value);
	else
		json_null(w, key);
}

bool report_json(const struct run_report *run, const struct ktap *checks,
		 const report_json_member *members, size_t nr, report_sink sink,
		 void *ctx)
{
	struct ktap_counts n = ktap_counts(checks);
	struct json_writer w;
	size_t i;

	json_init(&w, sink, ctx, REPORT_NEWLINE_DEPTH);
	json_object_begin(&w, NULL);
	json_string(&w, "schema", REPORT_SCHEMA);
	for (i = 0; i < nr; i++)
		members[i](run, &w);
	json_object_begin(&w, "checks");
	json_uint(&w, "passed", n.passed);
	json_uint(&w, "failed", n.failed);
	json_uint(&w, "skipped", n.skipped);
	json_uint(&w, "errors", n.errors);
	json_object_end(&w);
	json_string(&w, "verdict", verdict_key(ktap_verdict(checks)));
	json_object_end(&w);
	return json_finish(&w);
}
