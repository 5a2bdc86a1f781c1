// SPDX-License-Identifier: MIT
/* The kernel's log and /proc/cpuinfo, read for clocksources (see user/kernlog.h). */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "user/kernlog.h"

/* The record's header is four decimal numbers at most 20 digits each. */
#define KMSG_NUMBER_DIGITS 20

/* @needle in @text (@len bytes, not NUL-terminated). */
static const char *find(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (!memcmp(text + i, needle, n))
			return text + i;
	return NULL;
}

static bool starts(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(text, prefix, n);
}

/* A decimal number at *@p (moved past it), at most KMSG_NUMBER_DIGITS. */
static int read_number(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int digits = 0;

	while (*p < end && **p >= '0' && **p <= '9') {
		unsigned int d = (unsigned int)(**p - '0');

		if (++digits > KMSG_NUMBER_DIGITS || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		(*p)++;
	}
	*out = v;
	return digits ? 0 : -1;
}

int kmsg_parse_record(const char *rec, size_t len, struct kmsg_record *out,
		      char *why, size_t why_len)
{
	const char *p = rec, *end = rec + len, *nl;
	uint64_t prefix;

	if (read_number(&p, end, &prefix) || p == end || *p != ',')
		return error_set(why, why_len,
				 "the record does not start with its level");
	p++;
	if (read_number(&p, end, &out->seq) || p == end || *p != ',')
		return error_set(why, why_len,
				 "the record's sequence number is malformed");
	p++;
	if (read_number(&p, end, &out->ts_us) || p == end ||
	    (*p != ',' && *p != ';'))
		return error_set(why, why_len,
				 "the record's time stamp is malformed");
	while (p < end && *p != ';' && *p != '\n')
		p++; /* the flags, and fields a newer kernel adds */
	if (p == end || *p != ';')
		return error_set(why, why_len,
				 "the record has no ';' before its text");
	p++;
	out->level = (unsigned int)(prefix & 7);
	out->text = p;
	nl = memchr(p, '\n', (size_t)(end - p));
	out->text_len = (size_t)((nl ? nl : end) - p);
	return 0;
}

bool kernlog_relevant(const char *text, size_t len)
{
	static const char *const subsystems[] = {
		"clocksource: ",
		"tsc: ",
		"kvm-clock: ",
		"sched_clock: ",
	};
	static const char *const words[] = {
		"clocksource",
		"TSC",
		"timekeeping watchdog",
		"skew",
	};
	size_t i;

	for (i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++)
		if (starts(text, len, subsystems[i]))
			return true;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (find(text, len, words[i]))
			return true;
	return false;
}

/* The name from @p up to @stop (within @end) into @name, if it is one. */
static bool take_name(const char *p, const char *end, char stop,
		      char name[CLOCKSOURCE_NAME_LEN])
{
	struct clocksource_list one;
	char buf[CLOCKSOURCE_NAME_LEN], why[8];
	size_t n = 0;

	while (p + n < end && p[n] != stop) {
		if (n + 1 >= sizeof(buf))
			return false;
		buf[n] = p[n];
		n++;
	}
	if (p + n == end || !n)
		return false;
	buf[n] = '\0';
	if (clocksource_parse_list(buf, &one, why, sizeof(why)) || one.nr != 1)
		return false;
	memcpy(name, one.names[0], CLOCKSOURCE_NAME_LEN);
	return true;
}

bool kernlog_unstable_name(const char *text, size_t len,
			   char name[CLOCKSOURCE_NAME_LEN])
{
	static const char marking[] = "Marking clocksource '";
	const char *end = text + len, *p;

	p = find(text, len, marking);
	if (p) {
		p += sizeof(marking) - 1;
		return take_name(p, end, '\'', name) &&
		       find(p, (size_t)(end - p), "' as unstable");
	}
	if (find(text, len, "Marking TSC unstable")) {
		snprintf(name, CLOCKSOURCE_NAME_LEN, "tsc");
		return true;
	}
	return false;
}

void kernlog_init(struct kernlog *log)
{
	memset(log, 0, sizeof(*log));
}

/* @text (@len bytes) into @out, cut to fit, its control bytes as '?'. */
static void copy_line(char out[KERNLOG_LINE_LEN], const char *text, size_t len)
{
	size_t i;

	if (len > KERNLOG_LINE_LEN - 1)
		len = KERNLOG_LINE_LEN - 1;
	for (i = 0; i < len; i++)
		out[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f
				 ? '?'
				 : text[i];
	out[len] = '\0';
}

static void note_unstable(struct kernlog *log, const struct kmsg_record *r)
{
	char name[CLOCKSOURCE_NAME_LEN];
	struct kernlog_unstable *u;
	unsigned int i;

	if (!kernlog_unstable_name(r->text, r->text_len, name))
		return;
	for (i = 0; i < log->nr_unstable; i++)
		if (!strcmp(log->unstable[i].clocksource, name))
			return; /* its first line says it */
	if (log->nr_unstable >= CLOCKSOURCE_MAX)
		return;
	u = &log->unstable[log->nr_unstable++];
	memcpy(u->clocksource, name, sizeof(u->clocksource));
	u->ts_us = r->ts_us;
	copy_line(u->line, r->text, r->text_len);
}

void kernlog_add(struct kernlog *log, const char *rec, size_t len)
{
	struct kmsg_record r;
	char why[80];

	if (kmsg_parse_record(rec, len, &r, why, sizeof(why))) {
		log->malformed++;
		return;
	}
	log->records++;
	if (r.seq != (log->started ? log->next_seq : 0))
		log->wrapped = true;
	log->started = true;
	log->next_seq = r.seq + 1;
	if (!kernlog_relevant(r.text, r.text_len))
		return;
	note_unstable(log, &r);
	if (log->nr >= KERNLOG_MAX_LINES) {
		log->dropped++;
		return;
	}
	log->lines[log->nr].ts_us = r.ts_us;
	copy_line(log->lines[log->nr].text, r.text, r.text_len);
	log->nr++;
}

static const char *const flag_names[CPU_FLAG_NR] = {
	[CPU_FLAG_TSC] = "tsc",
	[CPU_FLAG_CONSTANT_TSC] = "constant_tsc",
	[CPU_FLAG_NONSTOP_TSC] = "nonstop_tsc",
	[CPU_FLAG_TSC_ADJUST] = "tsc_adjust",
	[CPU_FLAG_TSC_KNOWN_FREQ] = "tsc_known_freq",
	[CPU_FLAG_TSC_RELIABLE] = "tsc_reliable",
	[CPU_FLAG_RDTSCP] = "rdtscp",
};

const char *cpu_flag_name(enum cpu_flag flag)
{
	return flag < CPU_FLAG_NR ? flag_names[flag] : "?";
}

/* The words of one flags line (@p to @end) against flag_names. */
static void read_flags(const char *p, const char *end, bool have[CPU_FLAG_NR])
{
	while (p < end) {
		const char *word;
		unsigned int f;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		word = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		for (f = 0; f < CPU_FLAG_NR; f++)
			if ((size_t)(p - word) == strlen(flag_names[f]) &&
			    !memcmp(word, flag_names[f], (size_t)(p - word)))
				have[f] = true;
	}
}

int cpuinfo_tsc_flags(const char *text, size_t len, bool have[CPU_FLAG_NR],
		      char *why, size_t why_len)
{
	const char *p = text, *end = text + len;

	memset(have, 0, CPU_FLAG_NR * sizeof(have[0]));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end, *colon;
		size_t key = 0;

		/* "flags\t\t: fpu vme ...": the key, blanks, a colon. */
		while (p + key < line_end && p[key] != ':')
			key++;
		colon = p + key;
		while (key && (p[key - 1] == ' ' || p[key - 1] == '\t'))
			key--;
		if (colon < line_end && key == 5 && !memcmp(p, "flags", 5)) {
			read_flags(colon + 1, line_end, have);
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return error_set(why, why_len, "/proc/cpuinfo has no flags line");
}
