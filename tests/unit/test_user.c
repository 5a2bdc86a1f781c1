// SPDX-License-Identifier: MIT
/*
 * Unit tests: clockbench-user's pure parts and its probes on this host
 * (user/clocksource.c, user/vdso.c, user/readers.c).
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_parse),
		cmocka_unit_test(bad_lists_say_why),
		cmocka_unit_test(switching_in_a_fake_sysfs),
		cmocka_unit_test(the_vdso_decision),
		cmocka_unit_test(the_probe_tells_every_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
