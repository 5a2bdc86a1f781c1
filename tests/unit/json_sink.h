/* SPDX-License-Identifier: MIT */
/*
 * A JSON writer's sink into memory, for the unit tests that read a document
 * back: json_init(&w, collect, NULL, ...) or report_json(..., collect, NULL)
 * appends to document (NUL-terminated), document_len = 0 starts anew.
 * Include after <cmocka.h>, once per test program.
 */
#ifndef CLOCKBENCH_TESTS_UNIT_JSON_SINK_H
#define CLOCKBENCH_TESTS_UNIT_JSON_SINK_H

#include <stddef.h>
#include <string.h>

static char document[1 << 17];
static size_t document_len;

static inline void collect(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	assert_true(document_len + len < sizeof(document));
	memcpy(document + document_len, text, len);
	document_len += len;
	document[document_len] = '\0';
}

#endif
