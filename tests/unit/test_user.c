// SPDX-License-Identifier: MIT
/*
 * Unit tests: clockbench-user's pure parts and its probes on this host
 * (user/clocksource.c, user/vdso.c, user/readers.c), and the kernel's log
 * and /proc/cpuinfo as they are read back (user/kernlog.c).
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

#include "user/clocksource.h"
#include "user/kernlog.h"
#include "user/vdso.h"

static void lists_parse(void **state)
{
	struct clocksource_list l;
	char why[128];

	(void)state;
	assert_int_equal(clocksource_parse_list("tsc hpet acpi_pm \n", &l, why,
						sizeof(why)),
			 0);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.names[0], "tsc");
	assert_string_equal(l.names[2], "acpi_pm");
	assert_true(clocksource_listed(&l, "hpet"));
	assert_false(clocksource_listed(&l, "hpe"));
	assert_int_equal(
		clocksource_parse_list("kvm-clock\n", &l, why, sizeof(why)), 0);
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.names[0], "kvm-clock");
}

static void bad_lists_say_why(void **state)
{
	struct clocksource_list l;
	char why[128], many[400] = "";
	int i;

	(void)state;
	assert_int_equal(clocksource_parse_list(" \n", &l, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "no clocksource is listed");
	assert_int_equal(
		clocksource_parse_list("tsc hpet tsc", &l, why, sizeof(why)),
		-1);
	assert_string_equal(why, "tsc is listed twice");
	assert_int_equal(clocksource_parse_list("ts/c", &l, why, sizeof(why)),
			 -1);
	assert_string_equal(why,
			    "character 0x2f is not one a clocksource name has");
	assert_int_equal(clocksource_parse_list(
				 "a123456789012345678901234567890123456789", &l,
				 why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "longer than 31"));
	for (i = 0; i < CLOCKSOURCE_MAX + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "cs%d ", i);
	assert_int_equal(clocksource_parse_list(many, &l, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "more than 16 clocksources are listed");
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A sysfs stand-in: plain files take what is written, as sysfs does when
 * the kernel accepts the clocksource. */
static void switching_in_a_fake_sysfs(void **state)
{
	char dir[] = "/tmp/clockbench-cs-XXXXXX", current[CLOCKSOURCE_NAME_LEN];
	struct clocksource_list l;
	char why[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "current_clocksource", "acpi_pm\n");
	write_file(dir, "available_clocksource", "tsc hpet acpi_pm\n");
	assert_int_equal(clocksource_read(dir, current, &l, why, sizeof(why)),
			 0);
	assert_string_equal(current, "acpi_pm");
	assert_int_equal(l.nr, 3);
	assert_int_equal(clocksource_switch(dir, "tsc", why, sizeof(why)), 0);
	assert_int_equal(clocksource_read(dir, current, &l, why, sizeof(why)),
			 0);
	assert_string_equal(current, "tsc");
	clocksource_restore_on_signals(dir, "acpi_pm");
	assert_int_equal(clocksource_restore_now(why, sizeof(why)), 0);
	assert_int_equal(clocksource_read(dir, current, &l, why, sizeof(why)),
			 0);
	assert_string_equal(current, "acpi_pm");
	snprintf(why, sizeof(why), "%s/current_clocksource", dir);
	assert_int_equal(unlink(why), 0);
	assert_int_equal(clocksource_switch(dir, "hpet", why, sizeof(why)), -1);
	assert_string_equal(why, "writing hpet to current_clocksource failed: "
				 "No such file or directory");
	write_file(dir, "current_clocksource", "tsc hpet\n");
	assert_int_equal(clocksource_read(dir, current, &l, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "current_clocksource names 2 clocksources, "
				 "not one");
	assert_int_equal(
		clocksource_read("/nonexistent", current, &l, why, sizeof(why)),
		-1);
	assert_string_equal(why,
			    "cannot open /nonexistent/current_clocksource: "
			    "No such file or directory");
	write_file(dir, "current_clocksource", "");
	assert_int_equal(clocksource_read(dir, current, &l, why, sizeof(why)),
			 -1);
	assert_string_equal(why,
			    "current_clocksource: no clocksource is listed");
	snprintf(why, sizeof(why), "rm -r %s", dir);
	assert_int_equal(system(why), 0);
}

static void the_vdso_decision(void **state)
{
	(void)state;
	assert_int_equal(vdso_decide(READER_LIBC, 0), THROUGH_VDSO);
	assert_int_equal(vdso_decide(READER_LIBC, VDSO_PROBE_ERRNO),
			 THROUGH_SYSCALL);
	assert_int_equal(vdso_decide(READER_LIBC, EINVAL), THROUGH_UNKNOWN);
	assert_int_equal(vdso_decide(READER_LIBC, -1), THROUGH_UNKNOWN);
	assert_int_equal(vdso_decide(READER_SYSCALL, 0), THROUGH_SYSCALL);
	assert_int_equal(vdso_decide(READER_INSTRUCTION, 0),
			 THROUGH_INSTRUCTION);
	assert_string_equal(vdso_through_key(THROUGH_VDSO), "vdso");
	assert_null(vdso_through_key(THROUGH_UNKNOWN));
}

/*
 * The probe on this host: whatever the clocksource, each libc read is
 * found to go one way or the other, and the system-call reads (which the
 * filter makes fail in the child) are the kernel's.
 */
static void the_probe_tells_every_read(void **state)
{
	enum reader_through through[64];
	unsigned int nr, i;
	const struct reader *r;
	char why[256];

	(void)state;
	readers_probe();
	r = readers_all(&nr);
	assert_true(nr <= 64);
	assert_int_equal(vdso_probe(r, nr, through, why, sizeof(why)), 0);
	for (i = 0; i < nr; i++) {
		if (!r[i].present)
			continue;
		if (r[i].path == READER_LIBC)
			assert_true(through[i] == THROUGH_VDSO ||
				    through[i] == THROUGH_SYSCALL);
		else if (r[i].path == READER_SYSCALL)
			assert_int_equal(through[i], THROUGH_SYSCALL);
		else
			assert_int_equal(through[i], THROUGH_INSTRUCTION);
	}
}

/* One /dev/kmsg record of @text at @seq, into @log. */
static void add(struct kernlog *log, unsigned long long seq,
		unsigned long long ts_us, const char *text)
{
	char rec[512];
	int n = snprintf(rec, sizeof(rec), "6,%llu,%llu,-;%s\n", seq, ts_us,
			 text);

	kernlog_add(log, rec, (size_t)n);
}

static void kmsg_records_parse(void **state)
{
	static const char rec[] = "4,812,12100312,-,caller=T1;clocksource: "
				  "Switched to clocksource tsc\n SUBSYSTEM=x\n";
	struct kmsg_record r;
	char why[80];

	(void)state;
	assert_int_equal(
		kmsg_parse_record(rec, sizeof(rec) - 1, &r, why, sizeof(why)),
		0);
	assert_int_equal(r.level, 4);
	assert_int_equal(r.seq, 812);
	assert_int_equal(r.ts_us, 12100312);
	assert_int_equal(r.text_len, strlen("clocksource: Switched to "
					    "clocksource tsc"));
	assert_memory_equal(r.text, "clocksource: Switched", 21);
	assert_int_equal(kmsg_parse_record("6,1,2;", 6, &r, why, sizeof(why)),
			 0);
	assert_int_equal(r.text_len, 0);
	assert_int_equal(kmsg_parse_record("6,x,2;a", 7, &r, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "the record's sequence number is malformed");
	assert_int_equal(kmsg_parse_record("6,1,2,-", 7, &r, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "the record has no ';' before its text");
	assert_int_equal(kmsg_parse_record("6,1,123456789012345678901;a", 27,
					   &r, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "the record's time stamp is malformed");
	assert_int_equal(kmsg_parse_record("", 0, &r, why, sizeof(why)), -1);
}

static void clocksource_lines_are_kept(void **state)
{
	static const char *const kept[] = {
		"clocksource: Switched to clocksource kvm-clock",
		"clocksource: tsc: mask: 0xffffffffffffffff max_cycles: "
		"0x2d9ed1dba58, max_idle_ns: 440795231985 ns",
		"tsc: Refined TSC clocksource calibration: 2095.999 MHz",
		"TSC deadline timer available",
		"kvm-clock: using sched offset of 1 cycles",
		"clocksource: timekeeping watchdog on CPU1: Marking "
		"clocksource 'tsc' as unstable because the skew is too large:",
		"clocksource:                       'kvm-clock' wd_nsec: 50",
		"Measured 123 cycles TSC warp between CPUs, turning off TSC "
		"clock.",
	};
	static const char *const dropped[] = {
		"NMI watchdog: Perf NMI watchdog permanently disabled",
		"virtio_blk virtio1: [vda] 2048 512-byte logical blocks",
		"Run /init as init process",
		"tsc",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_true(kernlog_relevant(kept[i], strlen(kept[i])));
	for (i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		assert_false(kernlog_relevant(dropped[i], strlen(dropped[i])));
}

static void unstable_names_are_read(void **state)
{
	static const char watchdog[] =
		"clocksource: timekeeping watchdog on CPU0: Marking "
		"clocksource "
		"'kvm-clock' as unstable because the skew is too large:";
	static const char tsc[] =
		"tsc: Marking TSC unstable due to clocksource watchdog";
	static const char *const not_marked[] = {
		"clocksource: Marking clocksource 'tsc' as stable",
		"clocksource: Marking clocksource 'ts c' as unstable",
		"clocksource: Marking clocksource '' as unstable",
		"clocksource: Marking clocksource 'tsc",
		"clocksource: Override clocksource tsc is unstable and not "
		"HRT compatible - cannot switch while in HRT/NOHZ mode",
		"sched_clock: Marking stable (1, 2)->(3, 4)",
	};
	char name[CLOCKSOURCE_NAME_LEN];
	size_t i;

	(void)state;
	assert_true(kernlog_unstable_name(watchdog, strlen(watchdog), name));
	assert_string_equal(name, "kvm-clock");
	assert_true(kernlog_unstable_name(tsc, strlen(tsc), name));
	assert_string_equal(name, "tsc");
	for (i = 0; i < sizeof(not_marked) / sizeof(not_marked[0]); i++)
		assert_false(kernlog_unstable_name(
			not_marked[i], strlen(not_marked[i]), name));
}

static void a_log_is_kept_and_its_gaps_seen(void **state)
{
	static struct kernlog log;
	unsigned int i;

	(void)state;
	kernlog_init(&log);
	add(&log, 0, 0, "Linux version 6.1.0-57-amd64");
	add(&log, 1, 262000, "clocksource: Switched to clocksource tsc-early");
	add(&log, 2, 12100000,
	    "clocksource: timekeeping watchdog on CPU1: Marking clocksource "
	    "'tsc' as unstable because the skew is too large:");
	add(&log, 3, 12100100,
	    "tsc: Marking TSC unstable due to clocksource "
	    "watchdog");
	add(&log, 4, 12100200, "clocksource: Switched to clocksource hpet");
	kernlog_add(&log, "garbage", 7);
	assert_false(log.wrapped);
	assert_int_equal(log.records, 5);
	assert_int_equal(log.malformed, 1);
	assert_int_equal(log.nr, 4);
	assert_int_equal(log.lines[0].ts_us, 262000);
	assert_string_equal(log.lines[3].text,
			    "clocksource: Switched to clocksource hpet");
	/* tsc is said twice; its first line stands. */
	assert_int_equal(log.nr_unstable, 1);
	assert_string_equal(log.unstable[0].clocksource, "tsc");
	assert_int_equal(log.unstable[0].ts_us, 12100000);
	assert_non_null(strstr(log.unstable[0].line, "skew is too large"));
	add(&log, 6, 13000000, "clocksource: a gap before this one");
	assert_true(log.wrapped);

	/* A log read after the buffer wrapped starts past 0. */
	kernlog_init(&log);
	add(&log, 1500, 100, "clocksource: Switched to clocksource tsc");
	assert_true(log.wrapped);

	/* Past its lines, the log counts what it dropped; control bytes
	 * are not kept as they are. */
	kernlog_init(&log);
	for (i = 0; i < KERNLOG_MAX_LINES + 3; i++)
		add(&log, i, i, i ? "tsc: line" : "tsc: a\tb");
	assert_int_equal(log.nr, KERNLOG_MAX_LINES);
	assert_int_equal(log.dropped, 3);
	assert_string_equal(log.lines[0].text, "tsc: a?b");
}

static void cpu_flags_of_the_first_cpu(void **state)
{
	static const char cpuinfo[] =
		"processor\t: 0\nvendor_id\t: AuthenticAMD\n"
		"flags\t\t: fpu tsc msr constant_tsc rep_good nopl "
		"tsc_known_freq rdtscp\nvmx flags\t: tsc_offset\n\n"
		"processor\t: 1\nflags\t\t: fpu nonstop_tsc tsc_reliable\n";
	bool have[CPU_FLAG_NR];
	char why[80];

	(void)state;
	assert_int_equal(cpuinfo_tsc_flags(cpuinfo, sizeof(cpuinfo) - 1, have,
					   why, sizeof(why)),
			 0);
	assert_true(have[CPU_FLAG_TSC]);
	assert_true(have[CPU_FLAG_CONSTANT_TSC]);
	assert_true(have[CPU_FLAG_TSC_KNOWN_FREQ]);
	assert_true(have[CPU_FLAG_RDTSCP]);
	assert_false(have[CPU_FLAG_NONSTOP_TSC]);  /* CPU 1's only */
	assert_false(have[CPU_FLAG_TSC_RELIABLE]); /* CPU 1's only */
	assert_false(have[CPU_FLAG_TSC_ADJUST]);
	assert_string_equal(cpu_flag_name(CPU_FLAG_TSC_ADJUST), "tsc_adjust");
	assert_int_equal(cpuinfo_tsc_flags("processor\t: 0\n", 14, have, why,
					   sizeof(why)),
			 -1);
	assert_string_equal(why, "/proc/cpuinfo has no flags line");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_parse),
		cmocka_unit_test(kmsg_records_parse),
		cmocka_unit_test(clocksource_lines_are_kept),
		cmocka_unit_test(unstable_names_are_read),
		cmocka_unit_test(a_log_is_kept_and_its_gaps_seen),
		cmocka_unit_test(cpu_flags_of_the_first_cpu),
		cmocka_unit_test(bad_lists_say_why),
		cmocka_unit_test(switching_in_a_fake_sysfs),
		cmocka_unit_test(the_vdso_decision),
		cmocka_unit_test(the_probe_tells_every_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
