// SPDX-License-Identifier: MIT
/* JSON writer (pure; host-tested). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/json.h"

static void put(struct json_writer *w, const char *s, size_t len)
{
	w->emit(w->ctx, s, len);
}

static void puts_(struct json_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

void json_init(struct json_writer *w,
	       void (*emit)(void *ctx, const char *text, size_t len), void *ctx,
	       unsigned int newline_depth)
{
	memset(w, 0, sizeof(*w));
	w->emit = emit;
	w->ctx = ctx;
	w->newline_depth = newline_depth;
	w->first[0] = true;
}

static void put_escaped(struct json_writer *w, const char *s)
{
	char buf[8];

	put(w, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[0] = '\\';
			buf[1] = (char)c;
			put(w, buf, 2);
		} else if (c == '\n') {
			put(w, "\\n", 2);
		} else if (c == '\t') {
			put(w, "\\t", 2);
		} else if (c == '\r') {
			put(w, "\\r", 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(buf, sizeof(buf), "\\u%04x", c);
			puts_(w, buf);
		} else {
			put(w, (const char *)&c, 1);
		}
	}
	put(w, "\"", 1);
}

/* The separator and key before a value at the current depth. */
static void member(struct json_writer *w, const char *key)
{
	if (!w->first[w->depth])
		put(w, ",", 1);
	w->first[w->depth] = false;
	if (w->depth > 0 && w->depth <= w->newline_depth) {
		put(w, "\n", 1);
		put(w, "  ", w->depth > 1 ? 2 : 1);
	}
	if (key) {
		put_escaped(w, key);
		put(w, ": ", 2);
	}
}

static void open_container(struct json_writer *w, const char *key,
			   const char *bracket)
{
	member(w, key);
	puts_(w, bracket);
	if (w->depth + 1 >= JSON_MAX_DEPTH) {
		w->error = true;
		return;
	}
	w->depth++;
	w->first[w->depth] = true;
}

static void close_container(struct json_writer *w, const char *bracket)
{
	if (w->depth == 0) {
		w->error = true;
		return;
	}
	w->depth--;
	puts_(w, bracket);
}

void json_object_begin(struct json_writer *w, const char *key)
{
	open_container(w, key, "{");
}

void json_object_end(struct json_writer *w)
{
	close_container(w, "}");
}

void json_array_begin(struct json_writer *w, const char *key)
{
	open_container(w, key, "[");
}

void json_array_end(struct json_writer *w)
{
	close_container(w, "]");
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
	member(w, key);
	if (value)
		put_escaped(w, value);
	else
		puts_(w, "null");
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
	char buf[24];

	member(w, key);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)value);
	puts_(w, buf);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
	char buf[24];

	member(w, key);
	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	puts_(w, buf);
}

void json_double(struct json_writer *w, const char *key, double value)
{
	char buf[40];

	member(w, key);
	if (!isfinite(value)) {
		puts_(w, "null");
		return;
	}
	/* Ten significant digits: more than any measurement here carries;
	 * %g may print an exponent, which JSON allows. */
	snprintf(buf, sizeof(buf), "%.10g", value);
	puts_(w, buf);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
	member(w, key);
	puts_(w, value ? "true" : "false");
}

void json_null(struct json_writer *w, const char *key)
{
	member(w, key);
	puts_(w, "null");
}

bool json_finish(struct json_writer *w)
{
	put(w, "\n", 1);
	return !w->error && w->depth == 0;
}

void json_stats(struct json_writer *w, const char *key,
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

void json_double_if(struct json_writer *w, const char *key, bool have,
		    double value)
{
	if (have)
		json_double(w, key, value);
	else
		json_null(w, key);
}

void json_uint_if(struct json_writer *w, const char *key, bool have,
		  uint64_t value)
{
	if (have)
		json_uint(w, key, value);
	else
		json_null(w, key);
}
