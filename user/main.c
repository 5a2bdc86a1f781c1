// SPDX-License-Identifier: MIT
/*
 * clockbench-user: what Linux adds to a clock read (docs/os-layer.md).
 * It measures each clock id of clock_gettime(), gettimeofday() and time()
 * through libc (the vDSO) and through the system call, and the TSC from
 * user space, with the image's method; on the current clocksource, or with
 * --switch on every available one in turn, the original restored at the
 * end.  Tables and KTAP on stdout, the JSON document (clockbench-os/1) into
 * --json FILE or, with --console, framed on stdout as the image frames its
 * report; the last line is the verdict, and the exit status says it too:
 * 0 pass, 1 fail, 77 skip, 2 error.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clockbench/version.h"
#include "lib/ktap.h"
#include "user/report.h"

#define DEFAULT_BUDGET_MS 2000
#define MIN_BUDGET_MS	  50
#define MAX_BUDGET_MS	  600000

/* An event's snapshot is read this long after the host's "done": four
 * rounds of Linux's clocksource watchdog (every 0.5 s), and a margin. */
#define EVENT_SETTLE_MS	      2500
#define DEFAULT_EVENT_WAIT_MS 90000
#define MAX_EVENT_WAIT_MS     900000

#define EXIT_PASS  0
#define EXIT_FAIL  1
#define EXIT_ERROR 2
#define EXIT_SKIP  77

#define JSON_BEGIN  "clockbench-os-json begin"
#define JSON_END    "clockbench-os-json end"
#define JSON_PREFIX "json| "

static struct os_report os;

struct options {
	bool do_switch, console;
	unsigned int budget_ms;
	unsigned int events, event_wait_ms; /* --events, --event-wait-ms */
	const char *json_file;
	const char *sysfs_dir; /* --sysfs DIR, for tests: NULL the real one */
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: clockbench-user [--switch] [--budget-ms N] "
		"[--json FILE] [--console]\n"
		"  --switch       as root: every available clocksource in "
		"turn, "
		"the current one restored at the end\n"
		"  --budget-ms N  measuring time per clocksource (%u..%u, "
		"default %u)\n"
		"  --json FILE    the JSON document (clockbench-os/1) into "
		"FILE "
		"('-': stdout)\n"
		"  --console      the JSON document framed on stdout, as the "
		"image prints its report\n"
		"  --events N     N event points (1..%u) before measuring, "
		"answered by the host on stdin (docs/lifecycle.md)\n"
		"  --event-wait-ms N  the longest wait for each host line "
		"(%u..%u, default %u)\n",
		MIN_BUDGET_MS, MAX_BUDGET_MS, DEFAULT_BUDGET_MS,
		USER_MAX_EVENTS, MIN_BUDGET_MS, MAX_EVENT_WAIT_MS,
		DEFAULT_EVENT_WAIT_MS);
}

/* @text as a number from @min to @max; exits with status 2 and one
 * sentence when it is not one. */
static unsigned int number_option(const char *option, const char *what,
				  const char *text, unsigned long min,
				  unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		fprintf(stderr,
			"clockbench-user: %s takes %s from %lu to %lu, not "
			"'%s'.\n",
			option, what, min, max, text);
		exit(EXIT_ERROR);
	}
	return (unsigned int)v;
}

/* Options into @o; exits with status 2 and one sentence on a bad one. */
static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "switch", no_argument, NULL, 's' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "json", required_argument, NULL, 'j' },
		{ "console", no_argument, NULL, 'c' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "events", required_argument, NULL, 'e' },
		{ "event-wait-ms", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->budget_ms = DEFAULT_BUDGET_MS;
	o->event_wait_ms = DEFAULT_EVENT_WAIT_MS;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o->do_switch = true;
			break;
		case 'c':
			o->console = true;
			break;
		case 'j':
			o->json_file = optarg;
			break;
		case 'S':
			o->sysfs_dir = optarg;
			break;
		case 'b':
			o->budget_ms = number_option(
				"--budget-ms", "a number of ms", optarg,
				MIN_BUDGET_MS, MAX_BUDGET_MS);
			break;
		case 'e':
			o->events = number_option("--events",
						  "a number of event "
						  "points",
						  optarg, 1, USER_MAX_EVENTS);
			break;
		case 'w':
			o->event_wait_ms = number_option(
				"--event-wait-ms", "a number of ms", optarg,
				MIN_BUDGET_MS, MAX_EVENT_WAIT_MS);
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_PASS);
		default: /* getopt_long() has said what was wrong */
			fprintf(stderr, "clockbench-user: --help lists the "
					"options.\n");
			exit(EXIT_ERROR);
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"clockbench-user: '%s' is not an option (--help lists "
			"them).\n",
			argv[optind]);
		exit(EXIT_ERROR);
	}
}

/* The text of @path's first line into @buf, or "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* The hypervisor as Linux names it (sysfs), else as CPUID's leaf does. */
static void find_hypervisor(char *out, size_t len)
{
	char type[32], guest[32];
	static const struct {
		char sig[13];
		const char *name;
	} signatures[] = {
		{ "KVMKVMKVM\0\0\0", "KVM" },	{ "XenVMMXenVMM", "Xen" },
		{ "TCGTCGTCGTCG", "QEMU TCG" }, { "Microsoft Hv", "Hyper-V" },
		{ "VMwareVMware", "VMware" },	{ "bhyve bhyve ", "bhyve" },
	};
	unsigned int eax, ebx, ecx, edx, sig[3];
	const char *name = "";
	size_t i;

	read_line("/sys/hypervisor/type", type, sizeof(type));
	read_line("/sys/hypervisor/guest_type", guest, sizeof(guest));
	if (type[0]) {
		snprintf(out, len, "%s%s%s%s", type, guest[0] ? " (" : "",
			 guest, guest[0] ? " guest)" : "");
		return;
	}
	out[0] = '\0';
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 31)))
		return;
	__cpuid(0x40000000, eax, sig[0], sig[1], sig[2]);
	(void)eax;
	for (i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++)
		if (!memcmp(sig, signatures[i].sig, 12))
			name = signatures[i].name;
	snprintf(out, len, "%s%sCPUID signature \"%.12s\"%s", name,
		 name[0] ? " (" : "", (const char *)sig, name[0] ? ")" : "");
}

static void find_system(struct os_system *s)
{
	unsigned int nr, i, brand[12];
	struct reader *r = readers_all(&nr);
	struct utsname u;
	cpu_set_t allowed;

	if (uname(&u) == 0) {
		snprintf(s->kernel, sizeof(s->kernel), "%s %s", u.sysname,
			 u.release);
		snprintf(s->machine, sizeof(s->machine), "%s", u.machine);
	}
	if (__get_cpuid(0x80000004, &brand[0], &brand[1], &brand[2],
			&brand[3])) {
		for (i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, brand[4 * i], brand[4 * i + 1],
				brand[4 * i + 2], brand[4 * i + 3]);
		snprintf(s->cpu_model, sizeof(s->cpu_model), "%.48s",
			 (const char *)brand);
		/* Trailing and leading blanks are padding. */
		for (i = (unsigned int)strlen(s->cpu_model);
		     i && s->cpu_model[i - 1] == ' '; i--)
			s->cpu_model[i - 1] = '\0';
		memmove(s->cpu_model, s->cpu_model + strspn(s->cpu_model, " "),
			strlen(s->cpu_model + strspn(s->cpu_model, " ")) + 1);
	}
	find_hypervisor(s->hypervisor, sizeof(s->hypervisor));
	s->cpus = sched_getaffinity(0, sizeof(allowed), &allowed) == 0
			  ? (unsigned int)CPU_COUNT(&allowed)
			  : 1;
	s->root = geteuid() == 0;
	s->vdso = getauxval(AT_SYSINFO_EHDR) != 0;
	for (i = 0; i < nr; i++)
		if (!strcmp(r[i].call, "rdtsc") && !r[i].present)
			snprintf(s->tsc_refused, sizeof(s->tsc_refused), "%s",
				 r[i].absent_reason);
}

/* Keep the measuring thread on one CPU, so that no bracket spans two TSCs. */
static void stay_on_one_cpu(void)
{
	cpu_set_t allowed, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed))
			break;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static void measure_run(struct os_run *run, unsigned int budget_ms)
{
	enum reader_through through[OS_MAX_READERS];
	unsigned int nr, i, present = 0;
	struct reader *r = readers_all(&nr);

	if (nr > OS_MAX_READERS)
		nr = OS_MAX_READERS;
	if (vdso_probe(r, nr, through, run->path_problem,
		       sizeof(run->path_problem)) == 0)
		run->path_problem[0] = '\0';
	for (i = 0; i < nr; i++)
		present += r[i].present;
	run->nr = nr;
	for (i = 0; i < nr; i++) {
		struct read_result *res = &run->reads[i];

		memset(res, 0, sizeof(*res));
		res->reader = &r[i];
		res->through = through[i];
		if (!r[i].present)
			continue;
		printf("# %s: measuring %s through %s\n", run->clocksource,
		       r[i].name, reader_path_key(r[i].path));
		measure_read(&os.stopwatch, res,
			     present ? budget_ms / present : budget_ms);
	}
}

/* Which clocksources to measure, and switching to each. */
static void measure_clocksources(const struct options *o)
{
	unsigned int i;

	os.switch_asked = o->do_switch;
	if (clocksource_read(o->sysfs_dir, os.original, &os.available,
			     os.clocksource_problem,
			     sizeof(os.clocksource_problem)))
		snprintf(os.original, sizeof(os.original), "unknown");
	else
		os.clocksource_problem[0] = '\0';

	if (!o->do_switch)
		snprintf(os.switch_reason, sizeof(os.switch_reason),
			 "not asked (--switch): only the current clocksource "
			 "was measured");
	else if (os.clocksource_problem[0])
		snprintf(os.switch_reason, sizeof(os.switch_reason),
			 "the clocksources are unknown, so none was switched "
			 "to");
	else if (!os.system.root && !o->sysfs_dir)
		snprintf(os.switch_reason, sizeof(os.switch_reason),
			 "not root: switching clocksources writes %s, so only "
			 "the current one, %s, was measured",
			 "current_clocksource", os.original);
	else
		os.switch_done = true;

	if (!os.switch_done) {
		struct os_run *run = &os.runs[os.nr_runs++];

		snprintf(run->clocksource, sizeof(run->clocksource), "%s",
			 os.original);
		measure_run(run, os.budget_ms);
		return;
	}
	clocksource_restore_on_signals(o->sysfs_dir, os.original);
	os.restore_tried = true;
	for (i = 0; i < os.available.nr; i++) {
		struct os_run *run = &os.runs[os.nr_runs++];

		memcpy(run->clocksource, os.available.names[i],
		       sizeof(run->clocksource));
		printf("# switching to clocksource %s\n", run->clocksource);
		if (clocksource_switch(o->sysfs_dir, run->clocksource,
				       run->problem, sizeof(run->problem)))
			continue;
		run->problem[0] = '\0';
		measure_run(run, os.budget_ms);
	}
	os.restored = clocksource_restore_now(os.restore_problem,
					      sizeof(os.restore_problem)) == 0;
}

/* The event points, each followed by a snapshot of Linux's clocksources
 * once its watchdog has had time to judge what the event did. */
static void run_events(const struct options *o)
{
	const struct timespec settle = { EVENT_SETTLE_MS / 1000,
					 (EVENT_SETTLE_MS % 1000) * 1000000L };
	unsigned int i;

	os.events_asked = o->events;
	for (i = 0; i < o->events; i++) {
		struct user_event *e = &os.events[os.nr_events++];

		if (!user_event_point(i + 1, o->event_wait_ms, e)) {
			printf("# event %u: %s\n", i + 1, e->problem);
			break; /* the host is gone or confused: measure on */
		}
		printf("# event %u (%s) done: reading Linux's clocksources in "
		       "%u ms\n",
		       e->seq, e->kind, EVENT_SETTLE_MS);
		clock_nanosleep(CLOCK_BOOTTIME, 0, &settle, NULL);
		readback_after_event(&os.kernel, o->sysfs_dir, e->seq, e->kind);
	}
	user_events_finish();
}

/* The JSON document's text, into a FILE. */
static void emit_file(void *ctx, const char *text, size_t len)
{
	fwrite(text, 1, len, ctx);
}

/* ... or onto the console, each line after JSON_PREFIX. */
static bool console_line_start = true;

static void emit_console(void *ctx, const char *text, size_t len)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < len; i++) {
		if (console_line_start)
			fputs(JSON_PREFIX, stdout);
		putchar(text[i]);
		console_line_start = text[i] == '\n';
	}
}

/* Write the JSON document where asked; false (and why, on stderr) if not. */
static bool write_json(const struct options *o, const struct ktap *k)
{
	bool ok = true;

	if (o->console) {
		printf("%s\n", JSON_BEGIN);
		ok = os_report_json(&os, k, emit_console, NULL);
		printf("%s\n", JSON_END);
	}
	if (o->json_file) {
		FILE *f = strcmp(o->json_file, "-") ? fopen(o->json_file, "we")
						    : stdout;

		if (!f) {
			fprintf(stderr,
				"clockbench-user: cannot write %s: %s.\n",
				o->json_file, strerror(errno));
			return false;
		}
		ok = os_report_json(&os, k, emit_file, f) && ok;
		if (f != stdout && fclose(f)) {
			fprintf(stderr,
				"clockbench-user: writing %s failed: %s.\n",
				o->json_file, strerror(errno));
			return false;
		}
	}
	return ok;
}

int main(int argc, char **argv)
{
	struct options o;
	struct ktap *k = ktap_run();
	enum verdict v;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_options(argc, argv, &o);
	os.version = CLOCKBENCH_VERSION;
	os.budget_ms = o.budget_ms;
	readers_probe();
	find_system(&os.system);
	warp_remember_cpus();
	stay_on_one_cpu();
	stopwatch_setup(&os.stopwatch, !os.system.tsc_refused[0]);
	stopwatch_measure_empty(&os.stopwatch);
	readback_begin(&os.kernel, o.sysfs_dir);
	run_events(&o);
	measure_clocksources(&o);
	readback_end(&os.kernel, o.sysfs_dir);

	ktap_init(k);
	os_report_checks(&os, k);
	os_report_print(&os);
	ktap_print(k);
	v = ktap_verdict(k);
	if (!write_json(&o, k)) {
		fprintf(stderr, "clockbench-user: the JSON document was not "
				"written whole.\n");
		v = VERDICT_ERROR;
	}
	printf("clockbench-user: %s\n", verdict_name(v));
	switch (v) {
	case VERDICT_PASS:
		return EXIT_PASS;
	case VERDICT_FAIL:
		return EXIT_FAIL;
	case VERDICT_SKIP:
		return EXIT_SKIP;
	case VERDICT_ERROR:
		break;
	}
	return EXIT_ERROR;
}
