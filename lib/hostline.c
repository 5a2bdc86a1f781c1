// SPDX-License-Identifier: MIT
/* The host's line at an event point: see lib/hostline.h. */
#include <string.h>

#include "lib/error.h"
#include "lib/hostline.h"

/* A value's digits at most: 2^64 has 20. */
#define VALUE_DIGITS_MAX 20
#define KEY_CHARS_MAX	 32

static const char *const key_names[HOST_NR_KEYS] = {
	[HOST_READY_NS] = "ready_ns",
	[HOST_START_NS] = "start_ns",
	[HOST_END_NS] = "end_ns",
	[HOST_SENT_NS] = "sent_ns",
	[HOST_START_REAL_NS] = "start_real_ns",
	[HOST_END_REAL_NS] = "end_real_ns",
	[HOST_STOP_US] = "stop_us",
	[HOST_RESUME_US] = "resume_us",
	[HOST_DOWNTIME_MS] = "downtime_ms",
	[HOST_TOTAL_MS] = "total_ms",
	[HOST_PING_NS] = "ping_ns",
	[HOST_PONG_NS] = "pong_ns",
};

static const struct {
	const char *name;
	enum hostline_kind kind;
} kinds[] = {
	{ "sync", HOSTLINE_SYNC },
	{ "ping", HOSTLINE_PING },
	{ "done", HOSTLINE_DONE },
	{ "abort", HOSTLINE_ABORT },
};

const char *hostline_key_name(enum hostline_key key)
{
	return (unsigned int)key < HOST_NR_KEYS ? key_names[key] : "?";
}

bool hostline_is_host_line(const char *line, size_t len)
{
	size_t n = sizeof(HOSTLINE_PREFIX) - 1;

	return len >= n && memcmp(line, HOSTLINE_PREFIX, n) == 0;
}

/* The next space-separated word of [*pos, end): its start and length. */
static size_t next_word(const char *line, size_t len, size_t *pos,
			const char **word)
{
	size_t start;

	while (*pos < len && line[*pos] == ' ')
		(*pos)++;
	start = *pos;
	while (*pos < len && line[*pos] != ' ')
		(*pos)++;
	*word = line + start;
	return *pos - start;
}

/* Decimal digits only, no sign, no overflow. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > VALUE_DIGITS_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static bool printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	return true;
}

static int parse_event_name(const char *v, size_t n, struct host_event *out,
			    char *err, size_t errlen)
{
	size_t i;

	if (out->event[0])
		return error_set(err, errlen, "event is given twice");
	if (n == 0 || n >= HOSTLINE_EVENT_LEN)
		return error_set(err, errlen,
				 "the event's name is empty or over %u "
				 "characters",
				 HOSTLINE_EVENT_LEN - 1);
	for (i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || v[i] == '-' ||
		      (v[i] >= '0' && v[i] <= '9')))
			return error_set(err, errlen,
					 "the event's name may hold only "
					 "a-z, 0-9 and \"-\"");
	memcpy(out->event, v, n);
	out->event[n] = '\0';
	return 0;
}

static int parse_pair(const char *w, size_t n, struct host_event *out,
		      char *err, size_t errlen)
{
	const char *eq = memchr(w, '=', n);
	size_t klen;
	uint64_t v;
	unsigned int k;

	if (!eq || eq == w)
		return error_set(
			err, errlen, "the word \"%.*s\" is not KEY=VALUE",
			(int)(n > KEY_CHARS_MAX ? KEY_CHARS_MAX : n), w);
	klen = (size_t)(eq - w);
	if (klen > KEY_CHARS_MAX || !printable(w, n))
		return error_set(err, errlen,
				 "a key is over %u characters long or not "
				 "printable ASCII",
				 KEY_CHARS_MAX);
	if (klen == 5 && memcmp(w, "event", 5) == 0)
		return parse_event_name(eq + 1, n - klen - 1, out, err, errlen);
	for (k = 0; k < HOST_NR_KEYS; k++)
		if (strlen(key_names[k]) == klen &&
		    memcmp(key_names[k], w, klen) == 0)
			break;
	if (parse_u64(eq + 1, n - klen - 1, &v))
		return error_set(err, errlen,
				 "the value of %.*s is not a decimal number "
				 "of at most %u digits below 2^64",
				 (int)klen, w, VALUE_DIGITS_MAX);
	if (k == HOST_NR_KEYS) {
		out->unknown_keys++;
		return 0;
	}
	if (out->present & (1u << k))
		return error_set(err, errlen, "%s is given twice",
				 key_names[k]);
	out->present |= 1u << k;
	out->value[k] = v;
	return 0;
}

/* Whether a line of @kind must give @key: 1, may: 0, need not: -1 (then
 * it is not checked for order either). */
static int needed(enum hostline_kind kind, enum hostline_key key)
{
	switch (key) {
	case HOST_READY_NS:
		return kind == HOSTLINE_PING ? -1 : 1;
	case HOST_START_NS:
	case HOST_END_NS:
		return kind == HOSTLINE_DONE ? 1 : -1;
	case HOST_PING_NS:
	case HOST_PONG_NS:
		return kind == HOSTLINE_DONE ? 0 : -1;
	default:
		return 1;
	}
}

static int check_needed(const struct host_event *e, char *err, size_t errlen)
{
	static const enum hostline_key order[] = {
		HOST_READY_NS, HOST_START_NS, HOST_END_NS,
		HOST_PING_NS,  HOST_PONG_NS,  HOST_SENT_NS,
	};
	unsigned int i, prev = HOST_NR_KEYS;

	if (e->kind == HOSTLINE_ABORT)
		return 0;
	if (host_event_has(e, HOST_PING_NS) != host_event_has(e, HOST_PONG_NS))
		return error_set(err, errlen,
				 "ping_ns and pong_ns come together or not "
				 "at all");
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum hostline_key k = order[i];
		int need = needed(e->kind, k);

		if (need < 0 || (need == 0 && !host_event_has(e, k)))
			continue;
		if (!host_event_has(e, k))
			return error_set(err, errlen,
					 "a \"%s\" line must give %s",
					 kinds[e->kind].name, key_names[k]);
		if (prev != HOST_NR_KEYS && e->value[k] < e->value[prev])
			return error_set(err, errlen,
					 "%s (%llu) is before %s (%llu): the "
					 "host's monotonic clock went back",
					 key_names[k],
					 (unsigned long long)e->value[k],
					 key_names[prev],
					 (unsigned long long)e->value[prev]);
		prev = k;
	}
	return 0;
}

int hostline_parse(const char *line, size_t len, struct host_event *out,
		   char *err, size_t errlen)
{
	size_t pos = sizeof(HOSTLINE_PREFIX) - 1, n;
	const char *w;
	uint64_t seq;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (len > HOSTLINE_MAX)
		return error_set(err, errlen,
				 "the line is %zu bytes long, over the %u kept",
				 len, HOSTLINE_MAX);
	if (!hostline_is_host_line(line, len))
		return error_set(err, errlen,
				 "the line does not start with \"%s\"",
				 HOSTLINE_PREFIX);
	n = next_word(line, len, &pos, &w);
	if (parse_u64(w, n, &seq) || seq == 0 || seq > 1000000)
		return error_set(err, errlen,
				 "the event number \"%.*s\" is not a number "
				 "from 1 to 1000000",
				 (int)(n > KEY_CHARS_MAX ? KEY_CHARS_MAX : n),
				 w);
	out->seq = (unsigned int)seq;
	n = next_word(line, len, &pos, &w);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == n &&
		    memcmp(kinds[i].name, w, n) == 0)
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return error_set(err, errlen,
				 "the kind \"%.*s\" is none of sync, ping, "
				 "done, abort",
				 (int)(n > KEY_CHARS_MAX ? KEY_CHARS_MAX : n),
				 w);
	out->kind = kinds[i].kind;
	while ((n = next_word(line, len, &pos, &w)))
		if (parse_pair(w, n, out, err, errlen))
			return -1;
	return check_needed(out, err, errlen);
}
