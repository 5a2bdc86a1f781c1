// SPDX-License-Identifier: MIT
/*
 * Unit tests: the host's line at an event point (lib/hostline.c), which is
 * untrusted input: what a good line gives, and one sentence for each way a
 * line can be wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/hostline.h"

static int parse(const char *line, struct host_event *e, char *err)
{
	return hostline_parse(line, strlen(line), e, err, 200);
}

static void done_line_gives_every_value(void **state)
{
	struct host_event e;
	char err[200] = "";

	(void)state;
	assert_int_equal(parse("clockbench-host 2 done ready_ns=10 start_ns=20 "
			       "end_ns=1000000020 sent_ns=1000000030 "
			       "start_real_ns=1700000000000000000 stop_us=5 "
			       "resume_us=1000005 downtime_ms=7 xen_pause_ns=3 "
			       "event=stop",
			       &e, err),
			 0);
	assert_int_equal(e.seq, 2);
	assert_int_equal(e.kind, HOSTLINE_DONE);
	assert_true(host_event_has(&e, HOST_END_NS));
	assert_false(host_event_has(&e, HOST_END_REAL_NS));
	assert_int_equal(e.value[HOST_END_NS], 1000000020ull);
	assert_int_equal(e.value[HOST_START_REAL_NS], 1700000000000000000ull);
	assert_int_equal(e.value[HOST_DOWNTIME_MS], 7);
	assert_int_equal(e.unknown_keys, 1); /* a newer host's key */
	assert_string_equal(e.event, "stop");
}

static void sync_needs_only_ready_and_sent(void **state)
{
	struct host_event e;
	char err[200] = "";

	(void)state;
	assert_int_equal(
		parse("clockbench-host 1 sync ready_ns=5 sent_ns=9", &e, err),
		0);
	assert_int_equal(e.kind, HOSTLINE_SYNC);
	assert_int_equal(parse("clockbench-host 3 abort", &e, err), 0);
	assert_int_equal(e.kind, HOSTLINE_ABORT);
}

static void ping_and_its_round_trip(void **state)
{
	struct host_event e;
	char err[200] = "";

	(void)state;
	assert_int_equal(parse("clockbench-host 4 ping sent_ns=77", &e, err),
			 0);
	assert_int_equal(e.kind, HOSTLINE_PING);
	assert_int_equal(e.seq, 4);
	assert_int_equal(e.value[HOST_SENT_NS], 77);
	assert_int_equal(parse("clockbench-host 4 done ready_ns=1 start_ns=2 "
			       "end_ns=3 ping_ns=4 pong_ns=9 sent_ns=10",
			       &e, err),
			 0);
	assert_int_equal(e.value[HOST_PING_NS], 4);
	assert_int_equal(e.value[HOST_PONG_NS], 9);
	/* Without them a done line is what it was. */
	assert_int_equal(parse("clockbench-host 4 done ready_ns=1 start_ns=2 "
			       "end_ns=3 sent_ns=10",
			       &e, err),
			 0);
	assert_false(host_event_has(&e, HOST_PING_NS));
}

static void bad_lines_say_what_is_wrong(void **state)
{
	static const struct {
		const char *line, *says;
	} cases[] = {
		{ "clockbench-hos 1 done", "does not start" },
		{ "clockbench-host 0 sync ready_ns=1 sent_ns=2",
		  "event number" },
		{ "clockbench-host x sync", "event number" },
		{ "clockbench-host 1 paused", "none of sync" },
		{ "clockbench-host 1 sync ready_ns=1", "must give sent_ns" },
		{ "clockbench-host 1 done ready_ns=1 sent_ns=2 end_ns=2",
		  "must give start_ns" },
		{ "clockbench-host 1 sync ready_ns=9 sent_ns=2", "went back" },
		{ "clockbench-host 1 sync ready_ns=-1 sent_ns=2",
		  "not a decimal" },
		{ "clockbench-host 1 sync ready_ns=18446744073709551616 "
		  "sent_ns=2",
		  "not a decimal" },
		{ "clockbench-host 1 sync ready_ns=1 ready_ns=1 sent_ns=2",
		  "twice" },
		{ "clockbench-host 1 sync ready_ns", "not KEY=VALUE" },
		{ "clockbench-host 1 sync =5", "not KEY=VALUE" },
		{ "clockbench-host 1 abort event=Stop", "only a-z" },
		{ "clockbench-host 1 abort event=", "empty" },
		{ "clockbench-host 1 abort event=a event=b", "twice" },
		{ "clockbench-host 1 ping", "must give sent_ns" },
		{ "clockbench-host 1 done ready_ns=1 start_ns=2 end_ns=3 "
		  "ping_ns=4 sent_ns=10",
		  "come together" },
		{ "clockbench-host 1 done ready_ns=1 start_ns=2 end_ns=5 "
		  "ping_ns=4 pong_ns=6 sent_ns=10",
		  "ping_ns (4) is before end_ns" },
		{ "clockbench-host 1 done ready_ns=1 start_ns=2 end_ns=3 "
		  "ping_ns=4 pong_ns=12 sent_ns=10",
		  "sent_ns (10) is before pong_ns" },
	};
	struct host_event e;
	char err[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].line, &e, err), -1);
		if (!strstr(err, cases[i].says))
			fail_msg("\"%s\": \"%s\" lacks \"%s\"", cases[i].line,
				 err, cases[i].says);
	}
}

static void long_and_unterminated_lines(void **state)
{
	char line[HOSTLINE_MAX + 2], err[200];
	struct host_event e;
	const char *ok = "clockbench-host 1 sync ready_ns=1 sent_ns=2XYZ";

	(void)state;
	memset(line, 'a', sizeof(line));
	memcpy(line, HOSTLINE_PREFIX, sizeof(HOSTLINE_PREFIX) - 1);
	assert_int_equal(hostline_parse(line, sizeof(line), &e, err, 200), -1);
	assert_non_null(strstr(err, "over the"));
	/* Only @len bytes are read: no NUL needed. */
	assert_int_equal(hostline_parse(ok, strlen(ok) - 3, &e, err, 200), 0);
	assert_int_equal(e.value[HOST_SENT_NS], 2);
	assert_false(hostline_is_host_line("hello", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(done_line_gives_every_value),
		cmocka_unit_test(sync_needs_only_ready_and_sent),
		cmocka_unit_test(ping_and_its_round_trip),
		cmocka_unit_test(bad_lines_say_what_is_wrong),
		cmocka_unit_test(long_and_unterminated_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
