/* SPDX-License-Identifier: MIT */
/*
 * A small JSON writer for the report: objects, arrays, strings (escaped),
 * integers and doubles (non-finite ones become null).  It writes through a
 * callback, so the kernel can prefix each line for the console and the
 * host tests can collect into a buffer.  A newline goes before every
 * member up to a given depth, so that a document is a handful of lines,
 * one per clock.  Pure; host-tested.
 */
#ifndef CLOCKBENCH_LIB_JSON_H
#define CLOCKBENCH_LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/stats.h"

/* A tick rate's histogram bucket sits ten deep. */
#define JSON_MAX_DEPTH 12

struct json_writer {
	void (*emit)(void *ctx, const char *text, size_t len);
	void *ctx;
	unsigned int
		newline_depth; /* members at this depth or less start a line */
	unsigned int depth;
	bool first[JSON_MAX_DEPTH]; /* no member yet at this depth */
	bool error;		    /* nesting too deep or unbalanced */
};

void json_init(struct json_writer *w,
	       void (*emit)(void *ctx, const char *text, size_t len), void *ctx,
	       unsigned int newline_depth);

/* A NULL @key writes a bare value (inside arrays, or the document). */
void json_object_begin(struct json_writer *w, const char *key);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w, const char *key);
void json_array_end(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, bool value);
void json_null(struct json_writer *w, const char *key);

/** @st as {min, p50, p90, p99, p999, max} under @key, or null when not
 * @present. */
void json_stats(struct json_writer *w, const char *key,
		const struct stats_summary *st, bool present);

/** @value under @key when @have, else null. */
void json_double_if(struct json_writer *w, const char *key, bool have,
		    double value);
void json_uint_if(struct json_writer *w, const char *key, bool have,
		  uint64_t value);

/** Finish the document: a final newline; returns false if it was malformed. */
bool json_finish(struct json_writer *w);

#endif
