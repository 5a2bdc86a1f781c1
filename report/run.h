/* SPDX-License-Identifier: MIT */
/*
 * A run's results, as the report takes them: one plain struct per phase
 * (kernel/main.c runs the phases and fills these), and the report's
 * printers, checks and JSON writer, which read nothing else.  Nothing here
 * touches hardware: a host test builds a run_report of its own and checks
 * the JSON it gives against docs/report.schema.json.
 */
#ifndef CLOCKBENCH_REPORT_RUN_H
#define CLOCKBENCH_REPORT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/timing.h"
#include "drivers/acpi.h"
#include "drivers/tsc.h"
#include "engine/cpus.h"
#include "engine/crosscpu.h"
#include "engine/lifecycle.h"
#include "engine/measure.h"
#include "engine/noise.h"
#include "engine/pvsteps.h"
#include "engine/selftest.h"
#include "engine/ticks.h"
#include "hypervisor/detect.h"
#include "hypervisor/xen.h"
#include "lib/boot_info.h"
#include "lib/cpuinfo.h"
#include "lib/json.h"
#include "lib/ktap.h"

#define ENV_MAX_TABLES 32
#define ENV_TEXT_LEN   160

/* The environment: what the run found before measuring anything. */
struct env_result {
	const char *version;
	bool verbose;		      /* verbose=1: the maps in full */
	const struct boot_info *boot; /* protocol, loader, command line, map */
	uint64_t unmapped_ram;	      /* RAM beyond what could be mapped */
	struct cpu_info cpu;
	char cpu_text[ENV_TEXT_LEN]; /* vendor, family, model, brand */
	struct hv_info hv;
	char hv_features[HV_MAX_FOUND][256]; /* each interface's, in words */
	struct xen_cpuid_info xen[HV_MAX_FOUND]; /* for the Xen ones */
	/* As a guest of Xen: "pv", "pvh" or "hvm", and "dom0" or "domU";
	 * NULL elsewhere. */
	const char *xen_guest, *xen_domain;
	char privilege[ENV_TEXT_LEN];
	/* How port I/O works here (base/platform.h): whether IOPL 3 lets
	 * ring 3 do it, whether the TSS I/O permission bitmap does (1, 0,
	 * -1 not tried), and in words. */
	bool iopl_honoured;
	int io_bitmap_honoured;
	const char *port_io_words;
	const char *console_words; /* where the output goes, and how */
	/* A privileged request's round trip to ring 0 and back, in TSC
	 * cycles (0: ring 0 is not the kernel's). */
	uint64_t ring0_round_trip_cycles;
	/* ACPI: the root, each table, what was wrong with them. */
	struct {
		bool present;
		unsigned int revision;
		char oem_id[7];
		const char *from;
		bool xsdt;
		unsigned int nr_entries, nr_tables;
		struct {
			char signature[5];
			unsigned int revision;
			size_t length;
			char oem_id[7];
		} tables[ENV_MAX_TABLES];
		unsigned int tables_dropped; /* beyond ENV_MAX_TABLES */
		unsigned int nr_warnings;
		char warnings[ACPI_MAX_WARNINGS][ACPI_WARNING_LEN];
	} acpi;
	/* The CPUs the firmware lists: -1 when unknown, and why. */
	int firmware_cpus;
	unsigned int online_capable;
	bool x2apic_entries;
	char firmware_cpus_unknown[ENV_TEXT_LEN];
};

/* The clocks as probed: the table, and what CPUID says of the TSC. */
struct clocks_result {
	struct clock *const *table; /* NULL-terminated, in report order */
	struct tsc_features tsc;
};

/* Which phases have run (an early end leaves the rest out). */
struct run_report {
	struct env_result env;
	struct clocks_result clocks;
	struct cpus_result cpus;
	struct measure_result measure;
	struct noise_result noise;
	struct xcpu_result xcpu;
	struct lifecycle_result lifecycle;
	struct pvsteps_result pvsteps;
	struct ticks_result ticks;
	struct selftest_result selftest;
	/* A finished run's timing, for report_timing_json(); the kernel
	 * collects its own as the document goes out (kernel/main.c). */
	struct timing_result timing;
};

/* A ring-0 round trip longer than this means the hypervisor emulates
 * guest ring 0 (kvm-pvm does): natively and under VT-x or SVM an int and
 * iret take well under 2,000 cycles; this is microseconds at any clock
 * rate.  In cycles, because the environment is reported before the TSC's
 * rate is known. */
#define RING0_EMULATED_CYCLES 10000

/* The sections for people. */
void report_env_print(const struct run_report *run);
void report_clocks_print(const struct run_report *run);
void report_cpus_print(const struct run_report *run);
void report_measure_print(const struct run_report *run);
void report_noise_print(const struct run_report *run);
void report_xcpu_print(const struct run_report *run);
void report_lifecycle_print(const struct run_report *run);
void report_pvsteps_print(const struct run_report *run);
void report_ticks_print(const struct run_report *run);
void report_timing_print(const struct timing_result *t);

/** A phase's steal line when its record was not read (@s: none, or not set
 * up), and true; false when it was, for the phase to say how. */
bool report_steal_unread(const struct steal_setup *s);

/* The checks each section's results are held to. */
void report_selftest_checks(const struct run_report *run, struct ktap *k);
void report_cpus_checks(const struct run_report *run, struct ktap *k);
void report_measure_checks(const struct run_report *run, struct ktap *k);
void report_noise_checks(const struct run_report *run, struct ktap *k);
void report_xcpu_checks(const struct run_report *run, struct ktap *k);
void report_lifecycle_checks(const struct run_report *run, struct ktap *k);
void report_pvsteps_checks(const struct run_report *run, struct ktap *k);
void report_ticks_checks(const struct run_report *run, struct ktap *k);

/* The JSON document's members. */
void report_env_json(const struct run_report *run, struct json_writer *w);
void report_measure_json(const struct run_report *run, struct json_writer *w);
void report_noise_json(const struct run_report *run, struct json_writer *w);
void report_xcpu_json(const struct run_report *run, struct json_writer *w);
void report_lifecycle_json(const struct run_report *run, struct json_writer *w);
void report_pvsteps_json(const struct run_report *run, struct json_writer *w);
void report_ticks_json(const struct run_report *run, struct json_writer *w);
void report_timing_json(const struct run_report *run, struct json_writer *w);

/** The "timing" member of @t: report_timing_json() of a timing taken apart from a run
 * (the kernel's, collected as the document's last member is written). */
void report_timing_result_json(const struct timing_result *t,
			       struct json_writer *w);

/* Where the JSON document goes, a line at a time or in pieces. */
typedef void (*report_sink)(void *ctx, const char *text, size_t len);

/* A writer of some of the document's members (report_env_json, ...). */
typedef void (*report_json_member)(const struct run_report *run,
				   struct json_writer *w);

/**
 * The JSON document ("clockbench/2", docs/report-format.md) of @run: its
 * schema name, the @nr writers of @members in order, and @checks' counts
 * and verdict, written to @sink.  Returns false when the JSON writer found
 * it malformed.
 */
bool report_json(const struct run_report *run, const struct ktap *checks,
		 const report_json_member *members, size_t nr, report_sink sink,
		 void *ctx);

#endif
