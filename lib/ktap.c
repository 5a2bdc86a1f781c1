// SPDX-License-Identifier: MIT
/* The checks of a run, as KTAP (see lib/ktap.h). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "lib/ktap.h"

/* What is cut to fit ends in "...", so that it does not pass for whole. */
#define CUT_MARK "..."

static struct ktap run_checks;

/* @buf of @len bytes, written up to @used (what vsnprintf() wanted): marked
 * when it was cut. */
static void mark_cut(char *buf, size_t len, size_t used)
{
	if (used >= len && len > sizeof(CUT_MARK))
		memcpy(buf + len - sizeof(CUT_MARK), CUT_MARK,
		       sizeof(CUT_MARK));
}

struct ktap *ktap_run(void)
{
	return &run_checks;
}

void ktap_init(struct ktap *k)
{
	memset(k, 0, sizeof(*k));
}

void report_prefix_push(struct ktap *k, const char *fmt, ...)
{
	size_t used = strlen(k->prefix);
	va_list ap;

	if (k->depth == KTAP_PREFIX_DEPTH)
		return;
	k->prefix_ends[k->depth++] = (unsigned int)used;
	va_start(ap, fmt);
	vsnprintf(k->prefix + used, sizeof(k->prefix) - used, fmt, ap);
	va_end(ap);
}

void report_prefix_pop(struct ktap *k)
{
	if (k->depth)
		k->prefix[k->prefix_ends[--k->depth]] = '\0';
}

/* A new check with the current prefix and the name @fmt; NULL (counted)
 * when the list is full. */
static struct ktap_check *add(struct ktap *k, enum check_result result,
			      const char *fmt, va_list ap)
{
	struct ktap_check *c;
	size_t used;

	if (k->nr == KTAP_MAX_CHECKS) {
		k->dropped++;
		return NULL;
	}
	c = &k->checks[k->nr++];
	c->result = result;
	c->nr_values = 0;
	c->tolerances = 0;
	c->values_dropped = 0;
	c->info[0] = '\0';
	used = (size_t)snprintf(c->name, sizeof(c->name), "%s", k->prefix);
	if (used < sizeof(c->name))
		used += (size_t)vsnprintf(c->name + used,
					  sizeof(c->name) - used, fmt, ap);
	mark_cut(c->name, sizeof(c->name), used);
	return c;
}

void report(struct ktap *k, bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(k, pass ? CHECK_PASS : CHECK_FAIL, fmt, ap);
	va_end(ap);
}

void report_skip(struct ktap *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(k, CHECK_SKIP, fmt, ap);
	va_end(ap);
}

void report_error(struct ktap *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(k, CHECK_ERROR, fmt, ap);
	va_end(ap);
}

void report_info(struct ktap *k, const char *fmt, ...)
{
	struct ktap_check *c;
	va_list ap;

	if (!k->nr || k->dropped)
		return;
	c = &k->checks[k->nr - 1];
	va_start(ap, fmt);
	mark_cut(c->info, sizeof(c->info),
		 (size_t)vsnprintf(c->info, sizeof(c->info), fmt, ap));
	va_end(ap);
}

static bool is_tolerance(const struct ktap_check *c, unsigned int i)
{
	return c->tolerances & (1u << i);
}

/* @key's @value for the last check, a tolerance when @tolerance. */
static void add_value(struct ktap *k, const char *key, double value,
		      bool tolerance)
{
	struct ktap_check *c;
	unsigned int i;

	/* A dropped check's values go with it. */
	if (!k->nr || k->dropped)
		return;
	c = &k->checks[k->nr - 1];
	for (i = 0; i < c->nr_values; i++)
		if (!strcmp(c->values[i].key, key) &&
		    is_tolerance(c, i) == tolerance)
			break;
	if (i == KTAP_MAX_VALUES) {
		if (c->values_dropped < UCHAR_MAX)
			c->values_dropped++;
		return;
	}
	c->values[i].key = key;
	c->values[i].value = value;
	if (tolerance)
		c->tolerances |= (unsigned char)(1u << i);
	if (i == c->nr_values)
		c->nr_values++;
}

void report_figure(struct ktap *k, const char *key, double value)
{
	add_value(k, key, value, false);
}

void report_tolerance(struct ktap *k, const char *key, double value)
{
	add_value(k, key, value, true);
}

struct ktap_counts ktap_counts(const struct ktap *k)
{
	struct ktap_counts n = { 0 };
	unsigned int i;

	for (i = 0; i < k->nr; i++)
		switch (k->checks[i].result) {
		case CHECK_PASS:
			n.passed++;
			break;
		case CHECK_SKIP:
			n.skipped++;
			break;
		case CHECK_ERROR:
			n.errors++;
			break;
		case CHECK_FAIL:
			n.failed++;
			break;
		}
	/* Checks that could not be kept: one error line says so. */
	n.errors += k->dropped ? 1 : 0;
	return n;
}

enum verdict ktap_verdict(const struct ktap *k)
{
	struct ktap_counts n = ktap_counts(k);

	if (n.failed)
		return VERDICT_FAIL;
	if (n.errors)
		return VERDICT_ERROR;
	if (!n.passed && n.skipped)
		return VERDICT_SKIP;
	return VERDICT_PASS;
}

/* What the list's own check says when checks were dropped. */
static void dropped_info(const struct ktap *k, char *buf, size_t len)
{
	snprintf(buf, len, "%u more checks than its %u places were dropped",
		 k->dropped, KTAP_MAX_CHECKS);
}

static const char *const result_keys[] = {
	[CHECK_PASS] = "pass",
	[CHECK_SKIP] = "skip",
	[CHECK_ERROR] = "error",
	[CHECK_FAIL] = "fail",
};

void ktap_print(const struct ktap *k)
{
	struct ktap_counts n = ktap_counts(k);
	unsigned int i;

	printf("KTAP version 1\n");
	printf("1..%u\n", k->nr + (k->dropped ? 1 : 0));
	for (i = 0; i < k->nr; i++) {
		const struct ktap_check *c = &k->checks[i];
		bool ok = c->result == CHECK_PASS || c->result == CHECK_SKIP;

		printf("%sok %u %s", ok ? "" : "not ", i + 1, c->name);
		if (c->result == CHECK_SKIP)
			printf(" # SKIP %s", c->info);
		else if (c->result == CHECK_ERROR)
			printf(" # ERROR %s", c->info);
		else if (c->info[0])
			printf(" # %s", c->info);
		printf("\n");
	}
	if (k->dropped) {
		char info[KTAP_INFO_LEN];

		dropped_info(k, info, sizeof(info));
		printf("not ok %u %s # ERROR %s\n", k->nr + 1, KTAP_LIST_CHECK,
		       info);
	}
	printf("# %u passed, %u failed, %u skipped, %u errors\n", n.passed,
	       n.failed, n.skipped, n.errors);
}

/* A figure or tolerance: a whole number as one, exactly (a count of
 * hand-offs has more digits than json_double() keeps). */
static void json_value(struct json_writer *w, const struct ktap_value *v)
{
	if (isfinite(v->value) && v->value == trunc(v->value) &&
	    fabs(v->value) < 0x1p53)
		json_int(w, v->key, (int64_t)v->value);
	else
		json_double(w, v->key, v->value);
}

/* @c's figures (@tolerance false) or tolerances under @key, if it has any. */
static void json_values(struct json_writer *w, const char *key,
			const struct ktap_check *c, bool tolerance)
{
	unsigned int i;
	bool open = false;

	for (i = 0; i < c->nr_values; i++) {
		if (is_tolerance(c, i) != tolerance)
			continue;
		if (!open)
			json_object_begin(w, key);
		open = true;
		json_value(w, &c->values[i]);
	}
	if (open)
		json_object_end(w);
}

static void json_check(struct json_writer *w, const struct ktap_check *c)
{
	json_object_begin(w, NULL);
	json_string(w, "name", c->name);
	json_string(w, "result", result_keys[c->result]);
	json_string(w, "info", c->info);
	json_values(w, "figures", c, false);
	json_values(w, "tolerance", c, true);
	if (c->values_dropped)
		json_uint(w, "values_dropped", c->values_dropped);
	json_object_end(w);
}

void ktap_json(struct json_writer *w, const struct ktap *k)
{
	struct ktap_counts n = ktap_counts(k);
	unsigned int lines = w->newline_depth;
	unsigned int i;

	json_object_begin(w, "checks");
	json_uint(w, "passed", n.passed);
	json_uint(w, "failed", n.failed);
	json_uint(w, "skipped", n.skipped);
	json_uint(w, "errors", n.errors);
	json_array_begin(w, "list");
	/* One check a line, whatever the rest of the document does. */
	w->newline_depth = w->depth;
	for (i = 0; i < k->nr; i++)
		json_check(w, &k->checks[i]);
	if (k->dropped) {
		char info[KTAP_INFO_LEN];

		dropped_info(k, info, sizeof(info));
		json_object_begin(w, NULL);
		json_string(w, "name", KTAP_LIST_CHECK);
		json_string(w, "result", result_keys[CHECK_ERROR]);
		json_string(w, "info", info);
		json_object_begin(w, "figures");
		json_uint(w, "dropped_checks", k->dropped);
		json_object_end(w);
		json_object_begin(w, "tolerance");
		json_uint(w, "ktap_max_checks", KTAP_MAX_CHECKS);
		json_object_end(w);
		json_object_end(w);
	}
	w->newline_depth = lines;
	json_array_end(w);
	json_object_end(w);
	json_string(w, "verdict", verdict_key(ktap_verdict(k)));
}
