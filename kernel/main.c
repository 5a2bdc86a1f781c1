// SPDX-License-Identifier: MIT
/*
 * kernel_boot(): the one C entry every boot head reaches, in ring 3 once
 * platform/hvm64/start32.S and ring0_init() have set up long mode and the IDT.  It
 * reads like the Xen Test Framework's xtf_main(): set up (the console, the
 * boot information, the command line), then the phases of the run in
 * order, each one line of the table below, then the checks, the JSON
 * document and the verdict.
 *
 * A phase's run() measures or collects into its plain struct in the
 * run_report (report/run.h); its print(), checks() and json() are the
 * report's and read only that struct.  The checks of each phase are made
 * as soon as it has run, so that a fault later on still reports them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/console.h"
#include "base/cpu.h"
#include "base/entry.h"
#include "base/exit.h"
#include "base/libc.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/smp.h"
#include "base/timing.h"
#include "clockbench/version.h"
#include "drivers/acpi.h"
#include "drivers/acpi_tables.h"
#include "drivers/tsc.h"
#include "engine/clocks.h"
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
#include "lib/ktap.h"
#include "lib/options.h"
#include "lib/progress.h"
#include "report/run.h"

#define JSON_BEGIN  "clockbench-json begin\n"
#define JSON_END    "clockbench-json end\n"
#define JSON_PREFIX "json| "
/* A KTAP line's bytes, about: "ok N name # figures". */
#define KTAP_LINE_ESTIMATE 100
/* The most of a bad command line quoted before what is wrong with it. */
#define CMDLINE_QUOTE_CHARS 60

extern char __image_start[], __image_end[], __image_min_ram_mib[];

/* Everything a run keeps: what it was given and what its phases found. */
struct run {
	struct boot_info boot;
	struct paging_summary paging;
	struct options opts;
	struct probe_env probe;
	struct run_report report;
};

static struct run the_run;

__attribute__((noreturn)) static void fail_early(const char *what,
						 const char *why)
{
	struct ktap *k = ktap_run();

	printf("clockbench: %s: %s\n", what, why);
	report(k, false, "%s", what);
	report_info(k, "%s", why);
	ktap_print(k);
	run_exit(ktap_verdict(k));
}

/* --- the phases' run() ---------------------------------------------------- */

static void collect_cpu(struct env_result *e)
{
	const struct cpu_info *cpu = &e->cpu;

	cpu_info_fill(&e->cpu, cpu_cpuid);
	snprintf(e->cpu_text, sizeof(e->cpu_text),
		 "%s family %u model %u stepping %u%s%s%s", cpu->vendor,
		 cpu->family, cpu->model, cpu->stepping,
		 cpu->brand[0] ? " (" : "", cpu->brand,
		 cpu->brand[0] ? ")" : "");
}

static void collect_hypervisor(struct env_result *e)
{
	unsigned int i;

	hv_scan(cpu_cpuid, &e->hv);
	for (i = 0; i < e->hv.nr; i++) {
		hv_describe_features(&e->hv.found[i], cpu_cpuid,
				     e->hv_features[i],
				     sizeof(e->hv_features[i]));
		if (e->hv.found[i].kind == HV_XEN)
			xen_cpuid_read(&e->hv.found[i], cpu_cpuid, &e->xen[i]);
	}
	e->xen_domain = platform_xen_domain();
	if (e->xen_domain)
		e->xen_guest = e->boot->protocol == BOOT_PROTO_XEN_PV ? "pv"
			       : e->boot->protocol == BOOT_PROTO_PVH  ? "pvh"
								      : "hvm";
}

/* The tables the root lists and the MADT's CPUs, into @e. */
static void collect_acpi_tables(struct env_result *e, struct acpi *acpi)
{
	const struct acpi_header *madt;
	struct acpi_cpu_count cpus;
	unsigned int i;
	size_t len;

	e->acpi.present = true;
	e->acpi.revision = acpi->rsdp_revision;
	snprintf(e->acpi.oem_id, sizeof(e->acpi.oem_id), "%s", acpi->oem_id);
	e->acpi.from = acpi->rsdp_from;
	e->acpi.xsdt = acpi->root_is_xsdt;
	e->acpi.nr_entries = acpi->nr_entries;
	for (i = 0; i < acpi->nr_entries; i++) {
		const struct acpi_header *h = acpi_entry(acpi, i, &len);

		if (!h)
			continue;
		if (e->acpi.nr_tables == ENV_MAX_TABLES) {
			e->acpi.tables_dropped++;
			continue;
		}
		snprintf(e->acpi.tables[e->acpi.nr_tables].signature, 5, "%.4s",
			 h->signature);
		e->acpi.tables[e->acpi.nr_tables].revision = h->revision;
		e->acpi.tables[e->acpi.nr_tables].length = len;
		snprintf(e->acpi.tables[e->acpi.nr_tables].oem_id, 7, "%.6s",
			 h->oem_id);
		e->acpi.nr_tables++;
	}
	madt = acpi_find(acpi, "APIC", 0, &len);
	if (madt &&
	    acpi_madt_count_cpus(madt, len, &cpus, e->firmware_cpus_unknown,
				 sizeof(e->firmware_cpus_unknown)) == 0) {
		e->firmware_cpus = (int)cpus.enabled;
		e->online_capable = cpus.online_capable;
		e->x2apic_entries = cpus.x2apic_entries != 0;
	}
}

static void collect_acpi(struct env_result *e, const struct boot_info *bi)
{
	struct acpi *found = acpi_tables_find(bi);
	struct acpi *acpi = acpi_tables();
	unsigned int i;

	/* Unknown until a MADT says otherwise. */
	e->firmware_cpus = -1;
	snprintf(e->firmware_cpus_unknown, sizeof(e->firmware_cpus_unknown),
		 "no ACPI MADT");
	if (acpi)
		collect_acpi_tables(e, acpi);
	/* Last, so that a table the listing or the MADT lookup skipped is
	 * among them. */
	for (i = 0; i < found->nr_warnings && i < ACPI_MAX_WARNINGS; i++)
		snprintf(e->acpi.warnings[i], sizeof(e->acpi.warnings[i]), "%s",
			 found->warnings[i]);
	e->acpi.nr_warnings = i;
}

/* The environment: what the run finds before it measures anything. */
static void run_env(struct run *r)
{
	struct env_result *e = &r->report.env;

	e->version = CLOCKBENCH_VERSION;
	e->verbose = r->opts.verbose;
	e->boot = &r->boot;
	e->unmapped_ram = r->paging.unmapped_ram;
	collect_cpu(e);
	collect_hypervisor(e);
	platform_describe_privilege(e->privilege, sizeof(e->privilege));
	e->iopl_honoured = platform_iopl_honoured();
	e->io_bitmap_honoured = platform_io_bitmap_honoured();
	e->port_io_words = platform_port_io_words();
	e->console_words = platform_console_words();
	e->ring0_round_trip_cycles = platform_ring0_round_trip_cycles();
	collect_acpi(e, &r->boot);
	r->probe.acpi = acpi_tables();
	r->probe.hv = &e->hv;
	r->probe.cpu = &e->cpu;
}

/* One table as "acpi-dump SIG PADDR OFFSET: HEX" lines, 32 bytes each. */
static void dump_table(const struct acpi_table_bytes *t, void *ctx)
{
	size_t off, i;

	(void)ctx;
	for (off = 0; off < t->len; off += 32) {
		printf("acpi-dump %s %#llx %#zx:", t->signature,
		       (unsigned long long)t->paddr, off);
		for (i = off; i < t->len && i < off + 32; i++)
			printf(" %02x", t->bytes[i]);
		printf("\n");
	}
}

static void dump_acpi(void)
{
	struct acpi *acpi = acpi_tables();

	if (!acpi) {
		printf("acpi-dump: no ACPI tables to dump\n");
		return;
	}
	acpi_for_each_table(acpi, dump_table, NULL);
}

/* acpi_dump=1: the tables' bytes, for a report on a broken firmware. */
static void run_acpi_dump(struct run *r)
{
	if (r->opts.acpi_dump)
		dump_acpi();
}

/* fault=...: the exception asked for, which ends the run. */
static void run_fault(struct run *r)
{
	selftest_provoke(r->opts.fault);
	if (r->opts.fault != FAULT_NONE)
		fail_early("a provoked exception did not happen",
			   options_value_name("fault", &r->opts));
}

static void run_clocks(struct run *r)
{
	progress("probing clocks (a TSC calibration takes about 50 ms)");
	clocks_probe(&r->probe);
	r->report.clocks.table = clocks_all();
	r->report.clocks.tsc = *tsc_features();
}

static void run_cpus(struct run *r)
{
	smp_start(acpi_tables(), r->opts.hold_ap);
	cpus_collect(&r->report.cpus);
}

static void run_measure(struct run *r)
{
	const struct hv_leaf *hv = hv_primary(&r->report.env.hv);

	measure_all(&(struct measure_options){ .budget_ms = r->opts.budget_ms,
					       .samples = r->opts.samples,
					       .rate_ms = r->opts.rate_ms,
					       .translated =
						       hv && hv->kind == HV_TCG,
					       .hv = &r->report.env.hv },
		    &r->report.measure);
}

static void run_noise(struct run *r)
{
	const struct measure_result *m = &r->report.measure;
	struct noise_options opts = {
		.duration_ms = r->opts.noise_ms,
		.threshold_ns = r->opts.noise_gap_ns,
		.hv = &r->report.env.hv,
		.pvsteps = &r->report.pvsteps,
	};
	unsigned int i;

	for (i = 0; i < m->nr; i++) {
		const struct clock_result *c = &m->clocks[i];

		if (c->clock != &tsc_clock || !c->trapped)
			continue;
		opts.tsc_trapped = true;
		opts.tsc_read_ns = (double)c->read_ns.p50 > c->batch_ns_per_read
					   ? (double)c->read_ns.p50
					   : c->batch_ns_per_read;
	}
	noise_measure(&opts, &r->report.noise);
}

static void run_pvsteps(struct run *r)
{
	pvsteps_setup(&r->report.pvsteps);
}

static void run_xcpu(struct run *r)
{
	xcpu_measure(&(struct xcpu_options){ .warp_ms = r->opts.warp_ms,
					     .drift_ms = r->opts.drift_ms },
		     &r->report.xcpu);
}

static void run_lifecycle(struct run *r)
{
	lifecycle_run(
		&(struct lifecycle_options){ .events = r->opts.events,
					     .wait_ms = r->opts.event_wait_ms,
					     .pvsteps = &r->report.pvsteps,
					     .probe = &r->probe },
		&r->report.lifecycle);
}

static void run_ticks(struct run *r)
{
	ticks_measure(&r->opts, &r->probe, &r->report.ticks);
}

static void run_selftest(struct run *r)
{
	selftest_run(&r->report.selftest);
}

/* --- the phase table -------------------------------------------------- */

struct phase {
	const char *name;
	enum timing_phase timing; /* what its run() is charged to */
	void (*run)(struct run *r);
	void (*print)(const struct run_report *run);
	void (*checks)(const struct run_report *run, struct ktap *k);
	void (*json)(const struct run_report *run, struct json_writer *w);
};

/* In the order they run; the JSON document's members come in this order
 * too (docs/report-format.md). */
static const struct phase phases[] = {
	{ "environment", TIMING_ENVIRONMENT, run_env, report_env_print, NULL,
	  report_env_json },
	{ "acpi-dump", TIMING_ENVIRONMENT, run_acpi_dump, NULL, NULL, NULL },
	{ "fault", TIMING_SETUP, run_fault, NULL, NULL, NULL },
	{ "clocks", TIMING_PROBE, run_clocks, report_clocks_print, NULL, NULL },
	{ "cpus", TIMING_CPUS, run_cpus, report_cpus_print, report_cpus_checks,
	  NULL },
	{ "measure", TIMING_MEASURE, run_measure, report_measure_print,
	  report_measure_checks, report_measure_json },
	/* Charged to the measurements: the timing's phases are a fixed set
	 * (docs/report.schema.json). */
	/* The step monitor's records and monitors: it watches in the noise
	 * spin and the lifecycle waits, and is reported after both. */
	{ "pvclock-steps", TIMING_MEASURE, run_pvsteps, NULL, NULL, NULL },
	{ "noise", TIMING_MEASURE, run_noise, report_noise_print,
	  report_noise_checks, report_noise_json },
	{ "cross-cpu", TIMING_CROSS_CPU, run_xcpu, report_xcpu_print,
	  report_xcpu_checks, report_xcpu_json },
	/* Charged to the cross-CPU phase: it runs the same engine, and the
	 * timing's phases are a fixed set (docs/report.schema.json). */
	{ "lifecycle", TIMING_CROSS_CPU, run_lifecycle, report_lifecycle_print,
	  report_lifecycle_checks, report_lifecycle_json },
	/* Nothing to run: the report of what the two phases before saw. */
	{ "pvclock-steps", TIMING_CROSS_CPU, NULL, report_pvsteps_print,
	  report_pvsteps_checks, report_pvsteps_json },
	{ "ticks", TIMING_TICKS, run_ticks, report_ticks_print,
	  report_ticks_checks, report_ticks_json },
	{ "selftest", TIMING_SELFTEST, run_selftest, NULL,
	  report_selftest_checks, NULL },
};

#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

/* --- the JSON document on the console ------------------------------------ */

/*
 * Every line of the document gets the prefix, and the lines go out a
 * console burst at a time (one notification or hypercall each, where a
 * line took three): the host reads the document whole, between its
 * markers, so holding a few lines back loses nothing it could use.
 */
#define JSON_BURST_BYTES 4096

struct line_sink {
	char line[512];
	size_t len;
	char out[JSON_BURST_BYTES];
	size_t out_len;
};

static struct line_sink sink;

static void sink_flush(struct line_sink *s)
{
	if (s->out_len)
		console_write(s->out, s->out_len);
	s->out_len = 0;
}

static void sink_put(struct line_sink *s, const char *text, size_t len)
{
	if (s->out_len + len > sizeof(s->out))
		sink_flush(s);
	memcpy(s->out + s->out_len, text, len);
	s->out_len += len;
}

static void flush_line(struct line_sink *s)
{
	sink_put(s, JSON_PREFIX, sizeof(JSON_PREFIX) - 1);
	sink_put(s, s->line, s->len);
	sink_put(s, "\n", 1);
	s->len = 0;
}

static void emit(void *ctx, const char *text, size_t len)
{
	struct line_sink *s = ctx;
	size_t i;

	for (i = 0; i < len; i++) {
		if (text[i] == '\n') {
			flush_line(s);
			continue;
		}
		/* A long line is split; the parser joins the lines anyway. */
		if (s->len == sizeof(s->line))
			flush_line(s);
		s->line[s->len++] = text[i];
	}
}

/* Where the run's time went, up to the document's last member: collected as
 * that member is written (all but the document's last lines are on the
 * console by then), apart from the run's report, which the document's
 * members may only read; the time line after the document prints it. */
static struct timing_result document_timing;

static void json_timing(const struct run_report *run, struct json_writer *w)
{
	(void)run;
	sink_flush(&sink);
	timing_collect(platform_console_burst(), &document_timing);
	report_timing_result_json(&document_timing, w);
}

/* The document's members, in order: the phases' and the timing last. */
static report_json_member members[NR_PHASES + 1];

static size_t document_members(void)
{
	size_t i, n = 0;

	for (i = 0; i < NR_PHASES; i++)
		if (phases[i].json)
			members[n++] = phases[i].json;
	members[n++] = json_timing;
	return n;
}

static void print_json(const struct run_report *run, const struct ktap *k)
{
	size_t n = document_members();

	console_puts(JSON_BEGIN);
	if (!report_json(run, k, members, n, emit, &sink))
		printf("clockbench: the JSON writer found the document "
		       "malformed\n");
	if (sink.len)
		flush_line(&sink);
	sink_flush(&sink);
	console_puts(JSON_END);
}

/* Counts what the JSON document will take on the console. */
static void count_bytes(void *ctx, const char *text, size_t len)
{
	size_t *bytes = ctx, i;

	*bytes += len;
	for (i = 0; i < len; i++)
		*bytes += text[i] == '\n' ? sizeof(JSON_PREFIX) - 1 : 0;
}

/* The printing ahead, and about how long it takes at the rate this console
 * has managed so far (the document is counted by writing it to nowhere). */
static void announce_printing(const struct run_report *run,
			      const struct ktap *k)
{
	struct timing_result so_far;
	size_t bytes = 0;

	report_json(run, k, members, document_members(), count_bytes, &bytes);
	bytes += (size_t)k->nr * KTAP_LINE_ESTIMATE;
	timing_collect(platform_console_burst(), &so_far);
	if (!so_far.timed || so_far.phase_ms[TIMING_PRINT] <= 0)
		return;
	progress("printing %u checks and the JSON report: about %zu KiB, "
		 "%.0f ms at the %.1f KiB/s this console has managed",
		 k->nr, bytes / 1024,
		 (double)bytes * so_far.phase_ms[TIMING_PRINT] /
			 (double)so_far.console_bytes,
		 (double)so_far.console_bytes / so_far.phase_ms[TIMING_PRINT] *
			 1000 / 1024);
}

/* --- the run ------------------------------------------------------------ */

/* The boot information and the command line, or an early end. */
static void setup(struct run *r, uint32_t protocol, uint32_t info_paddr,
		  uint32_t magic)
{
	char err[256];

	if (boot_info_parse(&r->boot, (int)protocol, magic, info_paddr,
			    &boot_mem, err, sizeof(err)))
		fail_early("the boot information is unusable", err);
	platform_boot_info_complete(&r->boot);
	/* Options cut off are options silently changed: refuse them. */
	if (r->boot.cmdline_truncated) {
		snprintf(err, sizeof(err),
			 "the command line is longer than the %u bytes "
			 "clockbench keeps (counting the image path the boot "
			 "loader may put first); it ends, cut, in \"...%s\": "
			 "give fewer or shorter options",
			 BOOT_CMDLINE_MAX - 1,
			 r->boot.cmdline +
				 (strlen(r->boot.cmdline) > 40
					  ? strlen(r->boot.cmdline) - 40
					  : 0));
		fail_early("the command line is too long", err);
	}
	/* platform/hvm64/start32.S found RAM there; the map must call it RAM too. */
	if (!boot_info_ram_covers(&r->boot, (uintptr_t)__image_start,
				  (uintptr_t)__image_end)) {
		snprintf(err, sizeof(err),
			 "the memory map does not list all of the image "
			 "(0x%lx-0x%lx) as RAM; boot it with at least %lu MiB",
			 (unsigned long)(uintptr_t)__image_start,
			 (unsigned long)(uintptr_t)__image_end - 1,
			 (unsigned long)(uintptr_t)__image_min_ram_mib);
		fail_early("too little RAM", err);
	}
	paging_init(&r->boot, &r->paging);
	if (options_parse(r->boot.cmdline, &r->opts, err, sizeof(err))) {
		char why[sizeof(err) + CMDLINE_QUOTE_CHARS + 8];
		size_t len = strlen(r->boot.cmdline);

		/* The environment section is not printed yet: say what the
		 * command line was, in part when long, so that what is wrong
		 * with it still fits the KTAP line (KTAP_INFO_LEN). */
		snprintf(why, sizeof(why), "\"%.*s%s\": %s",
			 (int)(len < CMDLINE_QUOTE_CHARS ? len
							 : CMDLINE_QUOTE_CHARS),
			 r->boot.cmdline,
			 len > CMDLINE_QUOTE_CHARS ? "..." : "", err);
		fail_early("bad command line", why);
	}
	run_set_exit_method(r->opts.exit_method);
	if (r->opts.port_io == PORT_IO_TRAP)
		platform_ports_deny_all();
	if (r->opts.help) {
		struct ktap *k = ktap_run();

		printf("# options (key=value on the command line)\n");
		options_describe(stdout);
		report_skip(k, "help");
		report_info(k, "help=1: options listed, nothing measured");
		ktap_print(k);
		run_exit(ktap_verdict(k));
	}
}

void kernel_boot(uint32_t protocol, uint32_t info_paddr, uint32_t magic)
{
	struct run *r = &the_run;
	struct ktap *k = ktap_run();
	size_t i;

	timing_start();
	console_init();
	printf("\nclockbench %s\n", CLOCKBENCH_VERSION);
	setup(r, protocol, info_paddr, magic);
	for (i = 0; i < NR_PHASES; i++) {
		timing_enter(phases[i].timing);
		if (phases[i].run)
			phases[i].run(r);
		timing_enter(TIMING_REPORT);
		if (phases[i].print)
			phases[i].print(&r->report);
		if (phases[i].checks)
			phases[i].checks(&r->report, k);
	}
	announce_printing(&r->report, k);
	ktap_print(k);
	print_json(&r->report, k);
	/* The time line after the document, from the same accounts. */
	report_timing_print(&document_timing);
	run_exit(ktap_verdict(k));
}
