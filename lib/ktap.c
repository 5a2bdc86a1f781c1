// SPDX-License-Identifier: MIT
/* The checks of a run, as KTAP (see lib/ktap.h). */
#include <stdarg.h>
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
	if (k->dropped)
		printf("not ok %u the checks fit the list # ERROR %u more "
		       "checks than its %u places were dropped\n",
		       k->nr + 1, k->dropped, KTAP_MAX_CHECKS);
	printf("# %u passed, %u failed, %u skipped, %u errors\n", n.passed,
	       n.failed, n.skipped, n.errors);
}

void ktap_json(struct json_writer *w, const struct ktap *k)
{
	struct ktap_counts n = ktap_counts(k);

	json_object_begin(w, "checks");
	json_uint(w, "passed", n.passed);
	json_uint(w, "failed", n.failed);
	json_uint(w, "skipped", n.skipped);
	json_uint(w, "errors", n.errors);
	json_object_end(w);
	json_string(w, "verdict", verdict_key(ktap_verdict(k)));
}
