// SPDX-License-Identifier: MIT
/*
 * Where the run's time went (base/timing.h): one line after the JSON
 * document, and the document's last member, "timing" (see report/run.h).
 */
#include <stdio.h>

#include "report/run.h"

#define KIB 1024.0

/* Each phase's name in the line and the JSON (docs/report-format.md). */
static const char *const phase_names[TIMING_NR] = {
	[TIMING_SETUP] = "setup",	  [TIMING_ENVIRONMENT] = "environment",
	[TIMING_PROBE] = "probe",	  [TIMING_CALIBRATE] = "calibrate",
	[TIMING_CPUS] = "cpus",		  [TIMING_MEASURE] = "measure",
	[TIMING_CROSS_CPU] = "cross_cpu", [TIMING_TICKS] = "ticks",
	[TIMING_SELFTEST] = "selftest",	  [TIMING_REPORT] = "report",
	[TIMING_PRINT] = "print",
};

static double console_bytes_per_s(const struct timing_result *t)
{
	double ms = t->phase_ms[TIMING_PRINT];

	return ms > 0 ? (double)t->console_bytes / (ms / 1e3) : 0;
}

void report_timing_print(const struct timing_result *t)
{
	enum timing_phase p;

	if (!t->timed) {
		printf("# timing: not timed (the TSC's rate is unknown)\n");
		return;
	}
	printf("# timing: %.0f ms from the first line:", t->run_ms);
	for (p = 0; p < TIMING_NR; p++)
		printf("%s %s %.0f", p ? "," : "", phase_names[p],
		       t->phase_ms[p]);
	printf(" ms (printing %.0f %%); console %.1f KiB at %.1f KiB/s",
	       t->run_ms > 0 ? 100 * t->phase_ms[TIMING_PRINT] / t->run_ms : 0,
	       t->console_bytes / KIB, console_bytes_per_s(t) / KIB);
	if (t->console_burst)
		printf(", %u bytes per wait", t->console_burst);
	printf("; the TSC had counted %.0f ms at the first line\n",
	       t->tsc_at_first_line_ms);
}

void report_timing_json(const struct run_report *run, struct json_writer *w)
{
	report_timing_result_json(&run->timing, w);
}

void report_timing_result_json(const struct timing_result *t,
			       struct json_writer *w)
{
	enum timing_phase p;

	json_object_begin(w, "timing");
	json_bool(w, "timed", t->timed);
	json_double_if(w, "run_ms", t->timed, t->run_ms);
	json_double_if(w, "tsc_at_first_line_ms", t->timed,
		       t->tsc_at_first_line_ms);
	if (t->timed) {
		json_object_begin(w, "phases_ms");
		for (p = 0; p < TIMING_NR; p++)
			json_double(w, phase_names[p], t->phase_ms[p]);
		json_object_end(w);
	} else {
		json_null(w, "phases_ms");
	}
	json_object_begin(w, "console");
	json_uint(w, "bytes", t->console_bytes);
	json_uint(w, "lost_bytes", t->console_lost_bytes);
	json_double_if(w, "bytes_per_s", t->timed, console_bytes_per_s(t));
	json_uint_if(w, "burst_bytes", t->console_burst != 0, t->console_burst);
	json_object_end(w);
	json_object_end(w);
}
