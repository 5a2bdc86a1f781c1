// SPDX-License-Identifier: MIT
/*
 * The guest option table and its parser.  Pure C: the host unit tests
 * link it as it is.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "lib/json.h"
#include "lib/options.h"

#define MAX_CHOICES 10
/* The most of a word an error quotes: the command line may be long, the
 * sentence's buffer is not, and what is wrong comes after the quote. */
#define QUOTE_CHARS 40
/* printf arguments for "%.*s%s": at most QUOTE_CHARS of @len chars at @text,
 * then "..." when more were left out. */
#define QUOTED(text, len)                                         \
	(int)((len) < QUOTE_CHARS ? (len) : QUOTE_CHARS), (text), \
		(len) > QUOTE_CHARS ? "..." : ""

struct option_desc {
	const char *key;
	size_t offset; /* of an int-sized enum, a bool or an unsigned int */
	bool is_bool;
	const char *choices[MAX_CHOICES]; /* value names, index = value; none
					   * for a number */
	int def;
	const char *help;
	unsigned int min, max; /* a number's bounds (each of a list's) */
	const struct option_list *list; /* a list of numbers; else NULL */
};

/* A list of numbers, "a,b,c" (empty allowed): up to max_items of them go
 * to the unsigned int array at the option's offset, their count to
 * count_offset. */
struct option_list {
	unsigned int max_items;
	size_t count_offset;
	const char *def; /* the default, as it would be written */
};

#define FIELD(f) offsetof(struct options, f)

static const struct option_list tick_rates_list = {
	TICK_MAX_RATES,
	FIELD(nr_tick_rates),
	"100,1000,10000,100000",
};

static const struct option_desc option_table[] = {
	{ "exit",
	  FIELD(exit_method),
	  false,
	  { "auto", "isa", "acpi", "reset", "halt" },
	  EXIT_AUTO,
	  "how the run ends: auto = QEMU isa-debug-exit, else ACPI power-off, "
	  "else halt; reset reboots; halt stops the CPU",
	  0,
	  0,
	  NULL },
	{ "fault",
	  FIELD(fault),
	  false,
	  { "none", "de", "bp", "ud", "gp", "pf", "nmi", "df", "stack" },
	  FAULT_NONE,
	  "test only: provoke this exception after the environment section "
	  "(the run must end as failed)",
	  0,
	  0,
	  NULL },
	{ "port_io",
	  FIELD(port_io),
	  false,
	  { "bitmap", "trap" },
	  PORT_IO_BITMAP,
	  "where IOPL 3 is ignored (kvm-pvm): bitmap = the TSS I/O "
	  "permission bitmap lets ring 3 use its ports; trap = it allows "
	  "none, so each access takes the #GP path through ring 0, to measure "
	  "that detour",
	  0,
	  0,
	  NULL },
	{ "verbose",
	  FIELD(verbose),
	  true,
	  { "0", "1" },
	  0,
	  "1 prints the memory map and the ACPI tables found",
	  0,
	  0,
	  NULL },
	{ "acpi_dump",
	  FIELD(acpi_dump),
	  true,
	  { "0", "1" },
	  0,
	  "1 prints the RSDP and every ACPI table in hex (lines starting "
	  "\"acpi-dump \"; tests/fixtures/acpi/extract turns them into "
	  "files)",
	  0,
	  0,
	  NULL },
	{ "budget_ms",
	  FIELD(budget_ms),
	  false,
	  { NULL },
	  400,
	  "time for all measurements of the run, in ms (split among the "
	  "clocks)",
	  100,
	  600000,
	  NULL },
	{ "samples",
	  FIELD(samples),
	  false,
	  { NULL },
	  0,
	  "per-read samples for each clock, taken as given; 0 = until their "
	  "p50, p90 and p99 settle (from 16384 reads on, each within 1/32 of "
	  "where it was at half as many) or the budget is spent (at least "
	  "200)",
	  0,
	  MEASURE_MAX_SAMPLES,
	  NULL },
	{ "rate_ms",
	  FIELD(rate_ms),
	  false,
	  { NULL },
	  50,
	  "reference time over which the clocks' rates are measured (all at "
	  "once), in ms",
	  10,
	  60000,
	  NULL },
	{ "warp_ms",
	  FIELD(warp_ms),
	  false,
	  { NULL },
	  100,
	  "time for the cross-CPU warp test of each clock, in ms",
	  1,
	  60000,
	  NULL },
	{ "drift_ms",
	  FIELD(drift_ms),
	  false,
	  { NULL },
	  500,
	  "span over which each CPU's offset is followed to fit its drift, in "
	  "ms",
	  10,
	  600000,
	  NULL },
	{ "noise_ms",
	  FIELD(noise_ms),
	  false,
	  { NULL },
	  100,
	  "how long each CPU spins with interrupts off on the TSC in the noise "
	  "phase, recording every gap (time it was taken away), in ms",
	  1,
	  60000,
	  NULL },
	{ "noise_gap_ns",
	  FIELD(noise_gap_ns),
	  false,
	  { NULL },
	  NOISE_THRESHOLD_NS_DEFAULT,
	  "the least step between two TSC reads of the noise phase's spin that "
	  "counts as a gap, in ns",
	  100,
	  10000000,
	  NULL },
	{ "events",
	  FIELD(events),
	  false,
	  { NULL },
	  0,
	  "event points (docs/lifecycle.md): after the cross-CPU tests the "
	  "run stops this many times and waits for the host to stop, "
	  "snapshot or migrate the VM and say \"done\" on the console's "
	  "input (tools/clockbench run --event sets it)",
	  0,
	  8,
	  NULL },
	{ "event_wait_ms",
	  FIELD(event_wait_ms),
	  false,
	  { NULL },
	  30000,
	  "the most each event point waits for the host's line, in ms; a "
	  "host that never answers ends the run as an error",
	  100,
	  3600000,
	  NULL },
	{ "hold_ap",
	  FIELD(hold_ap),
	  false,
	  { NULL },
	  0,
	  "test only: do not start the CPU with this APIC ID (Xen PV: vCPU id; "
	  "0 = start all)",
	  0,
	  255,
	  NULL },
	{ "tick_rates",
	  FIELD(tick_rates_hz),
	  false,
	  { NULL },
	  0,
	  "timer interrupt rates to measure each tick source at, in Hz, "
	  "comma-separated; empty (tick_rates=) skips the tick measurements",
	  1,
	  1000000,
	  &tick_rates_list },
	{ "tick_ms",
	  FIELD(tick_ms),
	  false,
	  { NULL },
	  40,
	  "time each tick source runs at each rate, in ms (the same work "
	  "loop without a timer is timed for a quarter of it before and "
	  "after)",
	  10,
	  60000,
	  NULL },
	{ "help",
	  FIELD(help),
	  true,
	  { "0", "1" },
	  0,
	  "1 prints this list of options and ends the run as skipped",
	  0,
	  0,
	  NULL },
};

#define NR_OPTIONS (sizeof(option_table) / sizeof(option_table[0]))

static bool is_list(const struct option_desc *d)
{
	return d->list != NULL;
}

static bool is_number(const struct option_desc *d)
{
	return !d->choices[0] && !is_list(d);
}

static void set_field(struct options *opts, const struct option_desc *d,
		      int value)
{
	char *field = (char *)opts + d->offset;

	if (d->is_bool)
		*(bool *)field = value;
	else if (is_number(d))
		*(unsigned int *)field = (unsigned int)value;
	else
		*(int *)field = value;
}

/* A decimal number within the option's bounds; -1 with a sentence if not. */
static int parse_number(const struct option_desc *d, const char *text,
			size_t len, struct options *opts, char *err,
			size_t errlen)
{
	unsigned long long value = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9' || value > d->max)
			break;
		value = value * 10 + (unsigned int)(text[i] - '0');
	}
	if (len == 0 || i < len || value < d->min || value > d->max)
		return error_set(
			err, errlen,
			"option '%s': '%.*s%s' is not valid (expected a "
			"whole number from %u to %u)",
			d->key, QUOTED(text, len), d->min, d->max);
	set_field(opts, d, (int)value);
	return 0;
}

/* "a,b,c" within the option's bounds, or nothing; -1 with a sentence. */
static int parse_list(const struct option_desc *d, const char *text, size_t len,
		      struct options *opts, char *err, size_t errlen)
{
	unsigned int *items = (unsigned int *)((char *)opts + d->offset);
	unsigned int *count =
		(unsigned int *)((char *)opts + d->list->count_offset);
	unsigned int n = 0;
	size_t i = 0;

	while (i < len) {
		unsigned long long value = 0;
		size_t start = i;

		for (; i < len && text[i] >= '0' && text[i] <= '9' &&
		       value <= d->max;
		     i++)
			value = value * 10 + (unsigned int)(text[i] - '0');
		if (i == start || (i < len && text[i] != ',') ||
		    value < d->min || value > d->max ||
		    n == d->list->max_items || (i + 1 == len && text[i] == ','))
			return error_set(err, errlen,
					 "option '%s': '%.*s%s' is not valid "
					 "(expected up to %u whole numbers "
					 "from %u to %u, separated by commas, "
					 "or nothing)",
					 d->key, QUOTED(text, len),
					 d->list->max_items, d->min, d->max);
		items[n++] = (unsigned int)value;
		i += i < len; /* the comma */
	}
	*count = n;
	return 0;
}

static int get_field(const struct options *opts, const struct option_desc *d)
{
	const char *field = (const char *)opts + d->offset;

	return d->is_bool ? *(const bool *)field : *(const int *)field;
}

static const struct option_desc *find_option(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++)
		if (strlen(option_table[i].key) == len &&
		    !memcmp(option_table[i].key, key, len))
			return &option_table[i];
	return NULL;
}

/* "a, b or c" into @buf. */
static void join_names(char *buf, size_t len, const char *const *names,
		       size_t count, size_t stride)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < count; i++) {
		const char *name = *(const char *const *)((const char *)names +
							  i * stride);
		const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";

		if (!name)
			break;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s", sep, name);
	}
}

static size_t nr_choices(const struct option_desc *d)
{
	size_t n = 0;

	while (n < MAX_CHOICES && d->choices[n])
		n++;
	return n;
}

static int parse_word(const char *word, size_t len, struct options *opts,
		      unsigned int *seen, char *err, size_t errlen)
{
	const char *eq = memchr(word, '=', len);
	const struct option_desc *d;
	size_t keylen, vallen, i, n;
	char valid[200]; /* every option's name, joined */

	if (!eq || eq == word)
		return error_set(err, errlen,
				 "option '%.*s%s' is not of the form key=value",
				 QUOTED(word, len));
	keylen = (size_t)(eq - word);
	vallen = len - keylen - 1;
	d = find_option(word, keylen);
	if (!d) {
		join_names(valid, sizeof(valid), &option_table[0].key,
			   NR_OPTIONS, sizeof(option_table[0]));
		return error_set(err, errlen,
				 "unknown option '%.*s%s' (valid options: %s)",
				 QUOTED(word, keylen), valid);
	}
	if (*seen & (1u << (d - option_table)))
		return error_set(err, errlen, "option '%s' is given twice",
				 d->key);
	*seen |= 1u << (d - option_table);

	if (is_list(d))
		return parse_list(d, eq + 1, vallen, opts, err, errlen);
	if (is_number(d))
		return parse_number(d, eq + 1, vallen, opts, err, errlen);
	n = nr_choices(d);
	for (i = 0; i < n; i++) {
		if (strlen(d->choices[i]) == vallen &&
		    !memcmp(d->choices[i], eq + 1, vallen)) {
			set_field(opts, d, (int)i);
			return 0;
		}
	}
	join_names(valid, sizeof(valid), d->choices, n, sizeof(d->choices[0]));
	return error_set(err, errlen,
			 "option '%s': '%.*s%s' is not valid (expected %s)",
			 d->key, QUOTED(eq + 1, vallen), valid);
}

int options_parse(const char *cmdline, struct options *opts, char *err,
		  size_t errlen)
{
	static const char space[] = " \t\r\n";
	unsigned int seen = 0;
	size_t i;

	err[0] = '\0';
	memset(opts, 0, sizeof(*opts));
	for (i = 0; i < NR_OPTIONS; i++) {
		const struct option_desc *d = &option_table[i];

		if (is_list(d))
			parse_list(d, d->list->def, strlen(d->list->def), opts,
				   err, errlen);
		else
			set_field(opts, d, d->def);
	}

	for (;;) {
		size_t len;

		cmdline += strspn(cmdline, space);
		if (*cmdline == '\0')
			return 0;
		len = strcspn(cmdline, space);
		if (parse_word(cmdline, len, opts, &seen, err, errlen))
			return -1;
		cmdline += len;
	}
}

void options_describe(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++) {
		const struct option_desc *d = &option_table[i];
		char valid[160];

		if (is_list(d)) {
			fprintf(out,
				"  %-9s up to %u of %u to %u, comma-separated "
				"(default %s)\n            %s\n",
				d->key, d->list->max_items, d->min, d->max,
				d->list->def, d->help);
			continue;
		}
		if (is_number(d)) {
			fprintf(out,
				"  %-9s %u to %u (default %d)\n            "
				"%s\n",
				d->key, d->min, d->max, d->def, d->help);
			continue;
		}
		join_names(valid, sizeof(valid), d->choices, nr_choices(d),
			   sizeof(d->choices[0]));
		fprintf(out, "  %-9s %s (default %s)\n            %s\n", d->key,
			valid, d->choices[d->def], d->help);
	}
}

static const char *option_kind(const struct option_desc *d)
{
	if (is_list(d))
		return "list";
	if (is_number(d))
		return "number";
	return d->is_bool ? "bool" : "choice";
}

void options_json(struct json_writer *w)
{
	size_t i, j;

	json_object_begin(w, NULL);
	json_string(w, "schema", OPTIONS_SCHEMA);
	json_array_begin(w, "options");
	for (i = 0; i < NR_OPTIONS; i++) {
		const struct option_desc *d = &option_table[i];
		char def[16];

		json_object_begin(w, NULL);
		json_string(w, "name", d->key);
		json_string(w, "kind", option_kind(d));
		if (is_list(d) || is_number(d)) {
			json_uint(w, "min", d->min);
			json_uint(w, "max", d->max);
		} else {
			json_array_begin(w, "values");
			for (j = 0; j < nr_choices(d); j++)
				json_string(w, NULL, d->choices[j]);
			json_array_end(w);
		}
		if (is_list(d)) {
			json_uint(w, "max_items", d->list->max_items);
			json_string(w, "default", d->list->def);
		} else if (is_number(d)) {
			snprintf(def, sizeof(def), "%d", d->def);
			json_string(w, "default", def);
		} else {
			json_string(w, "default", d->choices[d->def]);
		}
		json_string(w, "help", d->help);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

const char *options_value_name(const char *key, const struct options *opts)
{
	const struct option_desc *d = find_option(key, strlen(key));

	if (!d || is_number(d) || is_list(d))
		return "?";
	return d->choices[get_field(opts, d)];
}
