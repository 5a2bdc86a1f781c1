// SPDX-License-Identifier: MIT
/*
 * Unit tests: clockbench-user's report (user/report.c) from synthetic
 * results: the checks each kind of finding makes, and a well-formed JSON
 * document in every case.  With CLOCKBENCH_OS_JSON_DIR set, each case's
 * document also goes to DIR/CASE.json, which tests/tools/test_os_layer.py
 * validates against docs/os-report.schema.json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/capture.h"
#include "tests/unit/json_sink.h"

#include "user/report.h"

static struct os_report rep;
static struct ktap checks;

/* One clocksource's run with every reader measured, as on a quiet host. */
static void fill_run(struct os_run *run, const char *clocksource)
{
	unsigned int nr, i;
	struct reader *r = readers_all(&nr);

	memset(run, 0, sizeof(*run));
	snprintf(run->clocksource, sizeof(run->clocksource), "%s", clocksource);
	run->nr = nr;
	for (i = 0; i < nr; i++) {
		struct read_result *res = &run->reads[i];

		r[i].present = true;
		res->reader = &r[i];
		res->through = r[i].path == READER_LIBC ? THROUGH_VDSO
			       : r[i].path == READER_SYSCALL
				       ? THROUGH_SYSCALL
				       : THROUGH_INSTRUCTION;
		res->measured = true;
		res->samples = 1000;
		res->read_ns = (struct stats_summary){ 1000, 20, 25,   30,
						       40,   90, 9000, 27.5 };
		res->batch_ns_per_read = res->batch_ns_min = 24;
		res->batch_ns_max = 26;
		res->changed = !(r[i].flags & READER_SECONDS);
		res->resolution_ns = 25;
		res->update_hz = 3.5e7;
		if (r[i].flags & READER_WARPS) {
			res->warps.measured = true;
			res->warps.cpus = 2;
			res->warps.reads = 5000;
			res->warps.crossings = 4999;
		} else {
			snprintf(res->warps.reason, sizeof(res->warps.reason),
				 "the same clock as through libc");
		}
	}
}

/* What a Linux guest read back across a stop: tsc kept, then marked
 * unstable by the watchdog and hpet taken. */
static void fill_kernel(struct readback *rb)
{
	static const char *const records[] = {
		"6,0,0,-;Linux version 6.1.0-57-amd64",
		"6,1,262000,-;clocksource: Switched to clocksource tsc",
		"4,2,9100000,-;clocksource: timekeeping watchdog on CPU0: "
		"Marking clocksource 'tsc' as unstable because the skew is too "
		"large:",
		"6,3,9100100,-;clocksource: Switched to clocksource hpet",
	};
	static const char *const names[] = { "tsc", "hpet", "acpi_pm" };
	unsigned int i, j;

	memset(rb, 0, sizeof(*rb));
	rb->read = true;
	snprintf(rb->release, sizeof(rb->release), "6.1.0-57-amd64");
	snprintf(rb->cmdline, sizeof(rb->cmdline), "console=ttyS0");
	rb->flags_read = true;
	rb->flags[CPU_FLAG_TSC] = rb->flags[CPU_FLAG_RDTSCP] = true;
	kernlog_init(&rb->log);
	for (i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		kernlog_add(&rb->log, records[i], strlen(records[i]));
	rb->nr_snapshots = 3;
	for (i = 0; i < 3; i++) {
		struct readback_snapshot *snap = &rb->snapshots[i];

		snprintf(snap->when, sizeof(snap->when), "%s",
			 i == 0	  ? "boot"
			 : i == 1 ? "after stop 1"
				  : "end");
		snap->uptime_s = 3.0 + 6.0 * i;
		snap->known = true;
		snprintf(snap->current, sizeof(snap->current), "%s",
			 i ? "hpet" : "tsc");
		for (j = 0; j < 3; j++)
			snprintf(snap->available.names[j], CLOCKSOURCE_NAME_LEN,
				 "%s", names[j]);
		snap->available.nr = 3;
	}
	rb->snapshots[1].event_seq = 1;
	snprintf(rb->snapshots[1].event_kind,
		 sizeof(rb->snapshots[1].event_kind), "stop");
}

static void fill_report(unsigned int runs)
{
	static const char *const names[] = { "tsc", "hpet", "acpi_pm" };
	unsigned int i;

	memset(&rep, 0, sizeof(rep));
	rep.version = "test";
	snprintf(rep.system.kernel, sizeof(rep.system.kernel), "Linux 6.1.0");
	snprintf(rep.system.machine, sizeof(rep.system.machine), "x86_64");
	rep.system.cpus = 2;
	rep.system.root = true;
	rep.system.vdso = true;
	rep.stopwatch.tsc = true;
	rep.stopwatch.hz = 2.1e9;
	snprintf(rep.stopwatch.source, sizeof(rep.stopwatch.source), "test");
	rep.stopwatch.empty_bracket =
		(struct stats_summary){ 100, 40, 42, 44, 50, 60, 90, 43 };
	rep.budget_ms = 100;
	snprintf(rep.original, sizeof(rep.original), "tsc");
	for (i = 0; i < 3; i++)
		snprintf(rep.available.names[i], CLOCKSOURCE_NAME_LEN, "%s",
			 names[i]);
	rep.available.nr = 3;
	rep.switch_asked = rep.switch_done = runs > 1;
	if (runs == 1)
		snprintf(rep.switch_reason, sizeof(rep.switch_reason),
			 "not asked");
	rep.restore_tried = rep.restored = runs > 1;
	rep.nr_runs = runs;
	for (i = 0; i < runs; i++)
		fill_run(&rep.runs[i], names[i]);
	fill_kernel(&rep.kernel);
	rep.events_asked = rep.nr_events = 1;
	rep.events[0].seq = 1;
	rep.events[0].answered = true;
	snprintf(rep.events[0].kind, sizeof(rep.events[0].kind), "stop");
}

/* Checks and JSON of rep; the document into CLOCKBENCH_OS_JSON_DIR. */
static enum verdict judge(const char *name)
{
	const char *dir = getenv("CLOCKBENCH_OS_JSON_DIR");

	ktap_init(&checks);
	os_report_checks(&rep, &checks);
	document_len = 0;
	assert_true(os_report_json(&rep, &checks, collect, NULL));
	if (dir) {
		char path[512];
		FILE *out;

		snprintf(path, sizeof(path), "%s/%s.json", dir, name);
		out = fopen(path, "w");
		assert_non_null(out);
		assert_int_equal(fwrite(document, 1, document_len, out),
				 document_len);
		fclose(out);
	}
	return ktap_verdict(&checks);
}

/* The result of the check named @name (with its prefix). */
static enum check_result result_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < checks.nr; i++)
		if (!strcmp(checks.checks[i].name, name))
			return checks.checks[i].result;
	fail_msg("no check '%s'", name);
	return CHECK_ERROR;
}

static struct read_result *find(struct os_run *run, const char *clock,
				enum reader_path path)
{
	unsigned int i;

	for (i = 0; i < run->nr; i++)
		if (run->reads[i].reader->clock &&
		    !strcmp(run->reads[i].reader->clock, clock) &&
		    run->reads[i].reader->path == path)
			return &run->reads[i];
	fail_msg("no %s", clock);
	return NULL;
}

static void a_quiet_switch_passes(void **state)
{
	(void)state;
	fill_report(3);
	assert_int_equal(judge("switched"), VERDICT_PASS);
	assert_int_equal(result_of("hpet: monotonic clocks agree across CPUs"),
			 CHECK_PASS);
	assert_int_equal(result_of("every available clocksource measured"),
			 CHECK_PASS);
	assert_non_null(strstr(document, "\"schema\": \"clockbench-os/1\""));
	assert_non_null(strstr(document, "\"verdict\": \"pass\""));
	/* Every check in the JSON, with its counts. */
	assert_non_null(strstr(
		document, "{\"name\": \"every available clocksource "
			  "measured\",\"result\": \"pass\",\"info\": \"3 of "
			  "3\",\"figures\": {\"clocksources\": 3,"
			  "\"clocksources_measured\": 3}}"));
}

static void a_step_back_or_a_warp_fails(void **state)
{
	(void)state;
	fill_report(1);
	find(&rep.runs[0], "CLOCK_MONOTONIC", READER_SYSCALL)->backward_steps =
		1;
	assert_int_equal(judge("backward"), VERDICT_FAIL);
	assert_int_equal(result_of("tsc: monotonic clocks never step back"),
			 CHECK_FAIL);
	assert_non_null(strstr(checks.checks[3].info,
			       "clock_gettime(CLOCK_MONOTONIC) via syscall"));
	assert_non_null(strstr(document, "\"reads_stepping_back\": 1}"));
	fill_report(1);
	find(&rep.runs[0], "CLOCK_BOOTTIME", READER_LIBC)->warps.warps = 3;
	find(&rep.runs[0], "CLOCK_BOOTTIME", READER_LIBC)->warps.worst = 800;
	assert_int_equal(judge("warps"), VERDICT_FAIL);
	assert_int_equal(result_of("tsc: monotonic clocks agree across CPUs"),
			 CHECK_FAIL);
	assert_non_null(strstr(document, "\"reads_warping\": 1}"));
	/* CLOCK_REALTIME may be stepped: its warps are shown, not failed. */
	fill_report(1);
	find(&rep.runs[0], "CLOCK_REALTIME", READER_LIBC)->warps.warps = 1;
	assert_int_equal(judge("realtime-warp"), VERDICT_PASS);
}

static void what_could_not_be_done_is_said(void **state)
{
	unsigned int i;

	(void)state;
	fill_report(3);
	snprintf(rep.runs[1].problem, sizeof(rep.runs[1].problem),
		 "the kernel kept tsc when asked for hpet");
	rep.restored = false;
	snprintf(rep.restore_problem, sizeof(rep.restore_problem),
		 "writing tsc to current_clocksource failed: Device busy");
	assert_int_equal(judge("refused"), VERDICT_FAIL);
	assert_int_equal(
		result_of("hpet: every read measured or absent with a reason"),
		CHECK_SKIP);
	assert_int_equal(result_of("every available clocksource measured"),
			 CHECK_FAIL);
	assert_int_equal(result_of("the original clocksource is back"),
			 CHECK_ERROR);
	/* A run that was not measured lists no reads. */
	assert_non_null(strstr(document, "\"problem\": \"the kernel kept tsc "
					 "when asked for hpet\""));

	fill_report(1);
	rep.system.cpus = 1;
	snprintf(rep.runs[0].path_problem, sizeof(rep.runs[0].path_problem),
		 "the kernel refused a seccomp filter: Invalid argument");
	for (i = 0; i < rep.runs[0].nr; i++) {
		struct read_result *r = &rep.runs[0].reads[i];

		memset(&r->warps, 0, sizeof(r->warps));
		snprintf(r->warps.reason, sizeof(r->warps.reason),
			 "this process may run on one CPU only");
		if (r->reader->path == READER_LIBC)
			r->through = THROUGH_UNKNOWN;
	}
	readers_all(&i)[8].present = false;
	snprintf(readers_all(&i)[8].absent_reason,
		 sizeof(readers_all(&i)[8].absent_reason),
		 "clock_gettime(CLOCK_TAI) fails with Invalid argument");
	rep.runs[0].reads[8].measured = false;
	rep.switch_asked = true;
	snprintf(rep.switch_reason, sizeof(rep.switch_reason),
		 "not root: only the current one, tsc, was measured");
	assert_int_equal(judge("limited"), VERDICT_PASS);
	assert_int_equal(
		result_of("tsc: each read's way to the clock is known"),
		CHECK_SKIP);
	assert_int_equal(result_of("tsc: monotonic clocks agree across CPUs"),
			 CHECK_SKIP);
	assert_int_equal(result_of("every available clocksource measured"),
			 CHECK_SKIP);
	assert_non_null(strstr(document, "\"through\": null"));
	fill_run(&rep.runs[0], "tsc"); /* the readers' table is shared */
}

static void unknown_clocksources(void **state)
{
	(void)state;
	fill_report(1);
	rep.available.nr = 0;
	snprintf(rep.clocksource_problem, sizeof(rep.clocksource_problem),
		 "cannot open /sys/devices/system/clocksource/clocksource0/"
		 "current_clocksource: No such file or directory");
	snprintf(rep.runs[0].clocksource, sizeof(rep.runs[0].clocksource),
		 "unknown");
	assert_int_equal(judge("no-sysfs"), VERDICT_PASS);
	assert_int_equal(result_of("clocksources listed"), CHECK_SKIP);
	assert_non_null(strstr(document, "\"original\": null"));
}

/* The table: each column in the unit its header names, thousands grouped,
 * however far the figures spread (a slow read, a fast update rate). */
static void what_linux_decided_is_read_back(void **state)
{
	static char table[1 << 15];
	struct capture c;

	(void)state;
	fill_report(1);
	assert_int_equal(judge("readback"), VERDICT_PASS);
	assert_int_equal(
		result_of("the kernel's clocksource decisions were read back"),
		CHECK_PASS);
	assert_int_equal(result_of("event 1: the host answered"), CHECK_PASS);
	assert_non_null(strstr(document, "\"kernel_clocksource\": {"));
	assert_non_null(strstr(document, "\"when\": \"after stop 1\",\n"
					 "  \"event\": {\"seq\": 1,\"kind\": "
					 "\"stop\"}"));
	assert_non_null(strstr(document, "\"unstable\": [\n  {\n  "
					 "\"clocksource\": \"tsc\",\n  "
					 "\"uptime_s\": 9.1,"));
	assert_non_null(strstr(document, "\"log_complete\": true"));
	capture_begin(&c);
	os_report_print(&rep);
	capture_end(&c, table, sizeof(table));
	assert_non_null(strstr(table, "Linux chose tsc of tsc hpet acpi_pm\n"));
	assert_non_null(
		strstr(table, "after stop 1        9.00 s  current hpet of"));
	assert_non_null(strstr(table, "marked unstable: tsc (at 9.100 s)\n"));

	/* Not read back: said, and not a pass. */
	fill_report(1);
	rep.kernel.read = false;
	snprintf(rep.kernel.reason, sizeof(rep.kernel.reason),
		 "the kernel's log (/dev/kmsg) could not be opened: "
		 "Operation not permitted");
	rep.nr_events = 0;
	rep.kernel.nr_snapshots = 0;
	assert_int_equal(judge("unread"), VERDICT_ERROR);
	assert_int_equal(
		result_of("the kernel's clocksource decisions were read back"),
		CHECK_SKIP);
	assert_int_equal(result_of("every event point reached"), CHECK_ERROR);
	assert_non_null(strstr(document, "\"read\": false,\n  \"reason\": "
					 "\"the kernel's log"));
}

static void table_columns_keep_one_unit(void **state)
{
	static char table[1 << 15];
	struct read_result *slow;
	struct capture c;

	(void)state;
	fill_report(1);
	slow = &rep.runs[0].reads[0];
	slow->read_ns.p50 = 25612;
	slow->batch_ns_per_read = 1234567.25;
	slow->resolution_ns = 4000000;
	capture_begin(&c);
	os_report_print(&rep);
	capture_end(&c, table, sizeof(table));
	assert_non_null(strstr(table, "   p50 ns    p99 ns  batch ns     "
				      "resol ns     update Hz  back  warps in "
				      "cross-CPU reads (worst ns)\n"));
	assert_non_null(strstr(table, "    25,612 "));
	assert_non_null(strstr(table, " 1,234,567.2 ") ||
			strstr(table, " 1,234,567.3 "));
	assert_non_null(strstr(table, "  4,000,000.0 "));
	assert_non_null(strstr(table, "    35,000,000 "));
	assert_non_null(strstr(table, " 0 in 4,999"));
	assert_null(strstr(table, " M "));
	assert_null(strstr(table, " us "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_quiet_switch_passes),
		cmocka_unit_test(a_step_back_or_a_warp_fails),
		cmocka_unit_test(what_could_not_be_done_is_said),
		cmocka_unit_test(unknown_clocksources),
		cmocka_unit_test(what_linux_decided_is_read_back),
		cmocka_unit_test(table_columns_keep_one_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
