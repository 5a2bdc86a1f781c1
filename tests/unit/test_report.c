// SPDX-License-Identifier: MIT
/*
 * Unit tests: the report (report/), written from a synthetic run that no
 * hardware measured: a two-CPU TCG-like run with every kind of clock and
 * tick source result.  The checks' names stay the same when the figures
 * change; each judged check carries the figures it was judged on and its
 * tolerance; the verdict follows the most severe result; the JSON document
 * is well formed.  With CLOCKBENCH_REPORT_JSON set, the document also goes to
 * that file, which tests/tools/test_report_host.py validates against
 * docs/report.schema.json.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/capture.h"
#include "tests/unit/json_sink.h"

#include "base/extable.h"
#include "lib/x86.h"
#include "report/run.h"
#include "report/tolerances.h"

#define GHZ 2100000000.0

/* --- a synthetic run ------------------------------------------------------ */

static struct clock clocks[] = {
	{ .name = "tsc",
	  .present = true,
	  .width_bits = 64,
	  .freq_hz = 2100000000,
	  .freq_source = "calibrated against hpet over 50 ms",
	  .flags = CLOCK_PER_CPU,
	  .native_read_ns_max = 40 },
	{ .name = "hpet",
	  .present = true,
	  .width_bits = 32,
	  .freq_hz = 100000000,
	  .freq_source = "capabilities register",
	  .notes = "at 0xfed00000",
	  .bad_reads_check = "64-bit reads as halves never kept tearing",
	  .native_read_ns_max = 1000 },
	{ .name = "acpi_pm",
	  .present = true,
	  .width_bits = 24,
	  .freq_hz = 3579545,
	  .freq_source = "fixed by the ACPI specification",
	  .flags = CLOCK_PORT_IO,
	  .ports = { 0x608 },
	  .nr_ports = 1,
	  .native_read_ns_max = 1500 },
	{ .name = "pit",
	  .present = true,
	  .width_bits = 16,
	  .freq_hz = 1193182,
	  .freq_source = "fixed by the PC design",
	  .flags = CLOCK_PORT_IO | CLOCK_MULTI_ACCESS,
	  .ports = { 0x43, 0x40 },
	  .nr_ports = 2,
	  .native_read_ns_max = 5000 },
	{ .name = "kvm_clock",
	  .absent_reason = "no KVM signature in the hypervisor leaves" },
};

#define NR_CLOCKS (sizeof(clocks) / sizeof(clocks[0]))

static struct clock *clock_table[NR_CLOCKS + 1];

static unsigned long no_bad_reads(void)
{
	return 0;
}

static struct tick_source sources[] = {
	{ .name = "lapic",
	  .description = "local APIC timer, periodic mode",
	  .present = true,
	  .notes = "timer counts at 1000 MHz" },
	{ .name = "tsc_deadline",
	  .description = "local APIC timer, TSC-deadline mode",
	  .absent_reason = "not offered: CPUID.1:ECX[24] is clear" },
};

static struct boot_info boot = {
	.protocol = BOOT_PROTO_MULTIBOOT1,
	.cmdline = "tick_rates=100,1000",
	.loader = "qemu",
	.nr_memmap = 1,
	.memmap = { { .base = 0, .size = 64 << 20, .type = MEM_RAM } },
	.ram_bytes = 64 << 20,
};

static struct run_report run;

static struct stats_summary spread(uint64_t p50)
{
	return (struct stats_summary){ .n = 1000,
				       .min = p50 / 2,
				       .p50 = p50,
				       .p90 = p50 + 1,
				       .p99 = p50 + 2,
				       .p999 = p50 + 3,
				       .max = p50 * 10 };
}

static void fill_env(void)
{
	struct env_result *e = &run.env;

	e->version = "0.1.0 (test)";
	e->boot = &boot;
	snprintf(e->cpu_text, sizeof(e->cpu_text), "AuthenticAMD family 15");
	e->hv.present = true;
	e->hv.nr = 1;
	e->hv.found[0] = (struct hv_leaf){ .base = 0x40000000,
					   .max_leaf = 0x40000001,
					   .signature = "TCGTCGTCGTCG",
					   .kind = HV_TCG };
	snprintf(e->privilege, sizeof(e->privilege), "ring 3, IOPL 3");
	e->iopl_honoured = true;
	e->io_bitmap_honoured = -1;
	e->port_io_words = "IOPL 3 honoured: ring 3 does port I/O natively";
	e->ring0_round_trip_cycles = 2400;
	e->acpi.present = true;
	e->acpi.from = "BIOS area";
	e->acpi.nr_entries = e->acpi.nr_tables = 1;
	snprintf(e->acpi.tables[0].signature, 5, "APIC");
	e->firmware_cpus = 2;
	e->console_words = "COM1, 16 bytes a wait";
	boot.entry_esp_known = true;
	boot.entry_esp = 0;
	run.clocks.tsc.invariant = true;
	snprintf(run.clocks.tsc.cpuid_frequency,
		 sizeof(run.clocks.tsc.cpuid_frequency),
		 "leaves 0x15 and 0x16 not used");
}

/* The PIT's reads as the engine keeps them, in histograms (lib/hist.h):
 * 20,000 reads around 2,600 cycles, a few slow ones; @scale moves them. */
static void fill_pit_hists(struct clock_result *r, double scale)
{
	static struct read_hists h;
	unsigned int k;

	hist_init(&h.cycles);
	hist_init(&h.ns);
	for (k = 0; k < 20000; k++) {
		uint64_t cycles = (uint64_t)((2500 + k % 200) * scale);

		if (k % 1000 == 0)
			cycles *= 40;
		hist_record(&h.cycles, (int64_t)cycles);
		hist_record(&h.ns, (int64_t)((double)cycles * 1e9 / GHZ + 0.5));
	}
	hist_summarize(&h.cycles, &r->read_cycles);
	hist_summarize(&h.ns, &r->read_ns);
	r->read_hists = &h;
}

/* The measured figures: @scale moves every one of them, as another run of
 * the same machine would. */
static void fill_measure(double scale)
{
	struct measure_result *m = &run.measure;
	unsigned int i;

	m->timed = true;
	m->tsc_hz = GHZ;
	m->budget_ms = 1500;
	m->empty_bracket = spread((uint64_t)(90 * scale));
	m->reference = &clocks[2];
	m->nr = NR_CLOCKS;
	m->steal.kind = STEAL_XEN;
	m->steal.ok = true;
	snprintf(m->steal.words, sizeof(m->steal.words),
		 "Xen runstate area, with its update flag");
	for (i = 0; i < NR_CLOCKS; i++) {
		struct clock_result *r = &m->clocks[i];

		memset(r, 0, sizeof(*r));
		r->clock = &clocks[i];
		if (!clocks[i].present)
			continue;
		r->measured = true;
		r->samples = 20000;
		r->read_cycles = spread((uint64_t)((100 + 400 * i) * scale));
		r->read_ns = spread((uint64_t)((50 + 200 * i) * scale));
		if (strcmp(clocks[i].name, "pit") == 0)
			fill_pit_hists(r, scale);
		r->batch_ns_per_read = 45 * scale;
		r->batch_ns_min = 44 * scale;
		r->batch_ns_max = 47 * scale;
		r->batches = MEASURE_BATCHES;
		r->nr_ports = clocks[i].nr_ports;
		r->port_use[0] = (struct port_use){ PORT_NATIVE, 0 };
		r->port_use[1] = (struct port_use){ PORT_NATIVE, 0 };
		r->conversion_ns = 27;
		r->changed = true;
		r->resolution_ns = 70 * scale;
		r->update_hz = 1e7 / scale;
		r->rate_measured = i != 2;
		r->rate_ppm = 0.9 * scale;
		r->rate_uncertainty_ppm = 5;
		r->rate_reference = i == 2 ? NULL : &clocks[i == 1 ? 3 : 1];
		if (!r->rate_measured)
			snprintf(r->rate_problem, sizeof(r->rate_problem),
				 "it is the reference");
		r->trapped = i == 0 && scale > 1;
		r->read_path = r->trapped ? READ_TRAPPED : READ_DIRECT;
		/* The runstate area read between the samples: 200 reads
		 * above p99, i of them taken away. */
		r->steal_tail = (struct read_steal_tail){
			.traced = true,
			.reads_with_steal = 3 * i,
			.tail_reads = 200,
			.tail_reads_with_steal = i,
		};
	}
	m->references.lean_bracket = spread((uint64_t)(40 * scale));
	m->references.lean_tsc_read = spread((uint64_t)(95 * scale));
	m->references.sequence_read = spread((uint64_t)(30 * scale));
	m->references.sequence_batch_ns = 12 * scale;
	m->lean = (struct lean_agreement){ .measured = true,
					   .read_p50_cycles = 100 * scale,
					   .lean_p50_cycles = 95 * scale,
					   .step_cycles = 1,
					   .agree = true };
}

static void fill_xcpu(double scale)
{
	struct xcpu_result *x = &run.xcpu;
	unsigned int i;

	x->applies = true;
	x->ncpu = x->online = 2;
	x->cpu[0].online = x->cpu[1].online = true;
	x->cpu[1].id = 1;
	x->nr = 2;
	for (i = 0; i < x->nr; i++) {
		struct xcpu_clock *c = &x->clocks[i];

		c->clock = &clocks[i];
		c->iterations = (uint64_t)(100000 * scale);
		c->cpu[1].offset_ok = c->cpu[1].drift_ok = true;
		c->cpu[1].offset.offset_ns = -6 * scale;
		c->cpu[1].offset.uncertainty_ns = 180;
		c->cpu[1].drift.slope = 1e-7 * scale;
		c->cpu[1].drift.slope_uncertainty = 5e-7;
		c->cpu[1].drift_samples = 5;
	}
}

static void fill_rate(struct tick_rate_result *r, unsigned int hz, double scale)
{
	memset(r, 0, sizeof(*r));
	r->requested_hz = hz;
	r->state = TICK_RATE_MEASURED;
	r->start.programmed_hz = hz;
	snprintf(r->start.notes, sizeof(r->start.notes), "periodic");
	r->window_s = 0.1;
	r->interrupts = hz / 10;
	r->delivered_hz = hz * (1 + 0.001 * scale);
	r->reached = true;
	r->typical_hz = hz;
	r->chunks = 5000;
	r->baseline_cycles_per_chunk = r->quiet_cycles_per_chunk = 40000;
	r->stolen_pct = 1.2 * scale;
	r->noise_pct = 2;
	r->cycles_per_interrupt = 20000 * scale;
	r->recorded = r->interrupts;
	r->handler_cycles = spread((uint64_t)(2500 * scale));
	r->lateness_known = true;
	r->lateness_ns = (struct tick_spread){ .n = r->recorded,
					       .min = (int64_t)(20000 * scale),
					       .p50 = 40000,
					       .p90 = 60000,
					       .p99 = 90000,
					       .p999 = 140000,
					       .max = 150000 };
	r->grid_uncertainty_ns = 14000;
}

static void fill_ticks(double scale)
{
	struct ticks_result *t = &run.ticks;

	t->applied = true;
	t->window_ms = 100;
	t->chunk_cycles = 39000;
	t->tsc_hz = GHZ;
	t->cpus_parked = 1;
	t->nr = 2;
	t->sources[0].source = &sources[0];
	t->sources[0].nr_rates = 3;
	fill_rate(&t->sources[0].rates[0], 100, scale);
	fill_rate(&t->sources[0].rates[1], 1000, scale);
	t->sources[0].rates[2] = (struct tick_rate_result){
		.requested_hz = 100000,
		.state = TICK_RATE_UNREACHABLE,
		.problem = "its divisor cannot go that low",
	};
	t->sources[1].source = &sources[1];
	/* The 100 Hz window read Xen's runstate area: 2 of its interrupts
	 * late while the vCPU was taken away, 1 outside the loop's reads. */
	t->steal.kind = STEAL_XEN;
	t->steal.ok = true;
	snprintf(t->steal.words, sizeof(t->steal.words),
		 "Xen runstate area, with its update flag");
	t->sources[0].rates[0].steal = (struct tick_steal){
		.traced = true,
		.steal_ns = 30000000,
		.spans = 2,
		.lateness = {
			.taken_ns = { .n = 2, .min = 900000, .p50 = 900000,
				      .p99 = 2000000, .max = 2000000 },
			.not_taken_ns = { .n = t->sources[0].rates[0].recorded - 3,
					  .min = 20000, .p50 = 40000,
					  .p99 = 60000, .max = 80000 },
			.untold = 1,
		},
	};
}

static void fill_cpus(void)
{
	struct cpus_result *c = &run.cpus;

	c->nr = c->online = 2;
	c->id_name = "APIC ID";
	c->note = "";
	c->cpu[0].online = c->cpu[1].online = true;
	c->cpu[1].id = 1;
	c->cpu[1].ran = true;
	c->cpu[1].said_index = 1;
	c->cpu[1].said_id = 1;
}

static void fill_selftest(void)
{
	struct selftest_result *s = &run.selftest;

	s->efer_msr = 0xc0000080;
	s->efer_read = true;
	s->efer = EFER_LME | EFER_LMA;
	s->absent_msr = 0x4b564dff;
	s->ud2_fault = EXTABLE_FAULTED | X86_EXC_UD;
	s->sse_kept = true;
	snprintf(s->newlib_text, sizeof(s->newlib_text), "%s",
		 SELFTEST_NEWLIB_TEXT);
	s->qsort_sorted = true;
	s->heap_kib = 4096;
	s->heap_bounded = true;
	s->guard_unmapped = s->stack_mapped = true;
}

/* A whole run, its figures scaled by @scale. */
static void fill_timing(double scale)
{
	struct timing_result *t = &run.timing;
	unsigned int p;

	memset(t, 0, sizeof(*t));
	t->timed = true;
	t->tsc_at_first_line_ms = 90 * scale;
	for (p = 0; p < TIMING_NR; p++)
		t->phase_ms[p] = (p + 1) * 10 * scale;
	t->run_ms = 660 * scale; /* 10 + 20 + ... + 110 */
	t->console_bytes = 30000;
	t->console_burst = 16;
}

static struct tick_source lifecycle_timer_source = { .name = "lapic" };

/* One stop of 1 s (scaled) under a TSC that ran on and an HPET that froze, on
 * two vCPUs, with the host's account; a periodic timer through it whose 100
 * expiries in the gap were lost but for the first; two heartbeats. */
static void fill_lifecycle(double scale)
{
	static struct lifecycle_event events[1];
	struct lifecycle_result *l = &run.lifecycle;
	struct lifecycle_event *e = &events[0];
	uint64_t window = (uint64_t)(1e9 * scale);

	memset(events, 0, sizeof(events));
	l->events = events;
	l->asked = l->nr = 1;
	l->applies = true;
	l->wait_ms = 61000;
	l->ncpu = 2;
	snprintf(l->left_out, sizeof(l->left_out), "pit (wraps in under 2 s)");
	e->seq = 1;
	e->reached = e->sampled = e->answered = true;
	snprintf(e->kind, sizeof(e->kind), "stop");
	e->round_trip_ns = 4e6 * scale;
	e->round_trip_after_ns = NAN; /* the host sent no ping */
	e->waited_ns = 1.01e9 * scale;
	e->host.seq = 1;
	e->host.kind = HOSTLINE_DONE;
	e->host.present = (1u << HOST_READY_NS) | (1u << HOST_START_NS) |
			  (1u << HOST_END_NS) | (1u << HOST_SENT_NS) |
			  (1u << HOST_STOP_US) | (1u << HOST_RESUME_US);
	e->host.value[HOST_READY_NS] = 1000;
	e->host.value[HOST_START_NS] = 2000;
	e->host.value[HOST_END_NS] = 2000 + window;
	e->host.value[HOST_SENT_NS] = 3000 + window;
	e->host.value[HOST_STOP_US] = 1764698400000000;
	e->host.value[HOST_RESUME_US] = 1764698400000000 + window / 1000;
	e->loops[0] = 1000;
	e->loops[1] = 900;
	e->nr_clocks = 2;
	e->clocks[0] =
		(struct lifecycle_clock){ .clock = &clocks[0],
					  .advance_ns = (double)window + 2e6,
					  .rate_before_ppm = 3,
					  .rate_after_ppm = NAN,
					  .cost_before_ns = 20,
					  .cost_after_ns = 21 };
	e->clocks[0].cpu[1].ok_before = e->clocks[0].cpu[1].ok_after = true;
	e->clocks[0].cpu[1].before_ns = 10 * scale;
	e->clocks[0].cpu[1].after_ns = 30 * scale;
	e->clocks[0].cpu[1].before_unc_ns = 100;
	e->clocks[0].cpu[1].after_unc_ns = 120;
	e->clocks[1] = (struct lifecycle_clock){ .clock = &clocks[1],
						 .advance_ns = 3e6 * scale,
						 .rate_before_ppm = -1,
						 .rate_after_ppm = 2,
						 .cost_before_ns = 300,
						 .cost_after_ns = 310 };
	e->clocks[0].largest_step_ns = (double)window;
	e->clocks[0].step_at_ns = e->clocks[0].step_from_ns = 1e6 * scale;
	l->timer = &lifecycle_timer_source;
	snprintf(l->timer_why, sizeof(l->timer_why), "the local APIC timer");
	e->timer = (struct lifecycle_timer){
		.source = "lapic",
		.armed = true,
		.period_ns = 1e7,
		.gap_ns = (double)window,
		.gap_at_ns = 1e6 * scale,
		.window_ns = (double)window + 1e8,
		.slack_ns = 40e3,
		.total = 12,
		.recorded = 12,
		.outcome = { .due = 110 * scale,
			     .due_in_gap = 100 * scale,
			     .interrupts = 11,
			     .fired_after = true,
			     .lost = 98 * scale },
		.first_after_late_ns = (double)window,
	};
	e->nr_beats = 2;
	e->beat_interval_ns = 1e7;
	e->beats[0] = (struct lifecycle_heartbeat){ .tsc_ns = 1e5,
						    .advance_ns = { 1e5, 0 } };
	e->beats[1] = (struct lifecycle_heartbeat){
		.tsc_ns = 1e7 + (double)window,
		.advance_ns = { 1e7 + (double)window, 1e7 }
	};
}

/* Two CPUs' spins: CPU 0 lost 1 ms in two gaps, CPU 1 nothing. */
static struct noise_tally noise_tallies[2];

static void fill_noise(double scale)
{
	struct noise_result *n = &run.noise;
	unsigned int i;

	memset(n, 0, sizeof(*n));
	n->measured = true;
	n->duration_ms = 100;
	n->threshold_ns = n->threshold_asked_ns = 5000;
	n->threshold_cycles = 10500;
	n->tsc_hz = GHZ;
	n->ncpu = n->online = 2;
	for (i = 0; i < 2; i++) {
		struct noise_tally *t = &noise_tallies[i];

		noise_tally_init(t);
		n->cpu[i] = (struct noise_cpu){ .online = true,
						.ran = true,
						.together = true,
						.id = i,
						.tally = t };
		t->reads = 5000000;
		t->span_cycles = (uint64_t)(GHZ / 10);
	}
	noise_tally_step(&noise_tallies[0], 0, (uint64_t)(700000 * scale),
			 n->threshold_cycles, GHZ);
	noise_tally_step(&noise_tallies[0], 0, (uint64_t)(1400000 * scale),
			 n->threshold_cycles, GHZ);
}

/* Two vCPUs' step monitors: CPU 0 saw three updates (+180, 0 and -40 ns)
 * and a flag change, CPU 1 two (0 and +3 ns); both stable throughout. */
static struct pvclock_step_monitor pvstep_monitors[2];

static void fill_pvsteps(double scale)
{
	struct pvsteps_result *p = &run.pvsteps;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->present = true;
	p->clock = "kvm_clock";
	p->max_tries = 100;
	p->spans = PVSTEPS_SPAN_NOISE | PVSTEPS_SPAN_LIFECYCLE;
	p->tsc_hz = GHZ;
	p->ncpu = 2;
	for (i = 0; i < 2; i++) {
		struct pvclock_step_monitor *m = &pvstep_monitors[i];

		pvclock_step_init(m);
		p->cpu[i] = (struct pvsteps_cpu){ .online = true,
						  .id = i,
						  .monitor = m };
		m->watched_cycles = (uint64_t)(GHZ / 2 * scale);
		m->first_flags = XEN_PVCLOCK_TSC_STABLE_BIT;
	}
	pvstep_monitors[0].updates = pvstep_monitors[0].stable_updates = 3;
	hist_record(&pvstep_monitors[0].step_ns, 180);
	hist_record(&pvstep_monitors[0].step_ns, 0);
	hist_record(&pvstep_monitors[0].step_ns, -40);
	pvstep_monitors[0].largest_forward_ns = 180;
	pvstep_monitors[0].largest_back_ns = -40;
	pvstep_monitors[0].nr_changes = 1;
	pvstep_monitors[0].changes[0] = (struct pvclock_flag_change){
		.update = 2,
		.version = 8,
		.before = XEN_PVCLOCK_TSC_STABLE_BIT,
		.after = XEN_PVCLOCK_TSC_STABLE_BIT | XEN_PVCLOCK_GUEST_STOPPED
	};
	pvstep_monitors[1].updates = pvstep_monitors[1].stable_updates = 2;
	hist_record(&pvstep_monitors[1].step_ns, 0);
	hist_record(&pvstep_monitors[1].step_ns, 3);
	pvstep_monitors[1].largest_forward_ns = 3;
}

static void fill_run(double scale)
{
	unsigned int i;

	memset(&run, 0, sizeof(run));
	for (i = 0; i < NR_CLOCKS; i++)
		clock_table[i] = &clocks[i];
	clocks[1].bad_reads = no_bad_reads;
	run.clocks.table = clock_table;
	run.clocks.tsc.rdtscp = true;
	fill_env();
	fill_cpus();
	fill_measure(scale);
	fill_noise(scale);
	fill_xcpu(scale);
	fill_ticks(scale);
	fill_selftest();
	fill_timing(scale);
	fill_lifecycle(scale);
	fill_pvsteps(scale);
}

/* Every check of the run, in the order kernel/main.c makes them. */
static void all_checks(struct ktap *k)
{
	ktap_init(k);
	report_cpus_checks(&run, k);
	report_measure_checks(&run, k);
	report_noise_checks(&run, k);
	report_xcpu_checks(&run, k);
	report_lifecycle_checks(&run, k);
	report_pvsteps_checks(&run, k);
	report_ticks_checks(&run, k);
	report_selftest_checks(&run, k);
}

static const report_json_member members[] = {
	report_env_json,   report_measure_json,	  report_noise_json,
	report_xcpu_json,  report_lifecycle_json, report_pvsteps_json,
	report_ticks_json, report_timing_json,
};

/* --- the JSON, collected into memory (json_sink.h) ------------------------ */

static void write_json(const struct ktap *k)
{
	document_len = 0;
	assert_true(report_json(&run, k, members,
				sizeof(members) / sizeof(members[0]), collect,
				NULL));
}

/* --- the tests ------------------------------------------------------------ */

static struct ktap first, second;

/* Two runs whose every figure differs give the same check names; the
 * figures are only in the info after "#". */
static void names_are_stable(void **state)
{
	unsigned int i, differ = 0;

	(void)state;
	fill_run(1.0);
	all_checks(&first);
	fill_run(1.7);
	all_checks(&second);
	assert_int_equal(first.nr, second.nr);
	assert_int_equal(first.dropped, 0);
	for (i = 0; i < first.nr; i++) {
		assert_string_equal(first.checks[i].name,
				    second.checks[i].name);
		differ += strcmp(first.checks[i].info, second.checks[i].info) !=
			  0;
	}
	/* Every check with a moved figure in its info: the bracket, three
	 * rates, two clocks' hand-offs, the delivered rate, CPU lost and the
	 * earliest interrupt; and the event's five: the host's window, two
	 * clocks' advances, the offsets' moves and the timer's lateness. */
	assert_int_equal(differ, 14);
	assert_int_equal(ktap_verdict(&first), VERDICT_PASS);
	/* The PM timer is the reference: its rate is not judged. */
	assert_int_equal(ktap_counts(&first).skipped, 1);
}

static const struct ktap_check *find(const struct ktap *k, const char *name)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->checks[i].name, name))
			return &k->checks[i];
	fail_msg("no check named \"%s\"", name);
	return NULL;
}

/* A clock off its rate fails; a broken foundation is an error; a failure
 * outranks an error. */
static void verdicts(void **state)
{
	struct ktap *k = &first;

	(void)state;
	fill_run(1.0);
	run.measure.clocks[3].rate_ppm = 25000;
	all_checks(k);
	assert_int_equal(
		find(k, "pit: runs at its nominal rate within 10000 ppm")
			->result,
		CHECK_FAIL);
	assert_int_equal(ktap_verdict(k), VERDICT_FAIL);

	fill_run(1.0);
	run.selftest.sse_kept = false;
	all_checks(k);
	assert_int_equal(find(k, "SSE registers survive an exception")->result,
			 CHECK_ERROR);
	assert_int_equal(ktap_verdict(k), VERDICT_ERROR);
	write_json(k);
	assert_non_null(strstr(document, "\"verdict\": \"error\""));
	assert_non_null(strstr(document, "\"errors\": 1"));

	run.ticks.sources[0].rates[1].reached = false;
	run.ticks.sources[0].rates[1].typical_hz = 500;
	all_checks(k);
	assert_int_equal(
		find(k, "ticks: lapic: at 1000 Hz, delivers within 10 % of "
			"the rate asked")
			->result,
		CHECK_FAIL);
	assert_int_equal(ktap_verdict(k), VERDICT_FAIL);
}

/* @c's figure (or, with @tolerance, tolerance) @key; a failure when it has
 * none. */
static double value_of(const struct ktap_check *c, const char *key,
		       bool tolerance)
{
	unsigned int i;

	for (i = 0; i < c->nr_values; i++)
		if (!strcmp(c->values[i].key, key) &&
		    !(c->tolerances & (1u << i)) == !tolerance)
			return c->values[i].value;
	fail_msg("\"%s\" has no %s \"%s\"", c->name,
		 tolerance ? "tolerance" : "figure", key);
	return NAN;
}

static double figure(const struct ktap *k, const char *name, const char *key)
{
	return value_of(find(k, name), key, false);
}

static double tolerance(const struct ktap *k, const char *name, const char *key)
{
	return value_of(find(k, name), key, true);
}

#define RATE_CHECK "pit: runs at its nominal rate within 10000 ppm"
#define BACK_CHECK "pit: never went backwards in back-to-back reads"
#define DELIVERY_CHECK \
	"ticks: lapic: at 1000 Hz, delivers within 10 % of the rate asked"
#define STOLEN_CHECK                                                           \
	"ticks: lapic: CPU lost lies between 0 and 100 % at every rate, give " \
	"or take the loop's own variation"
#define LATENESS_CHECK                                                        \
	"ticks: lapic: no interrupt came before its expiry, within what the " \
	"expiries are known to"

/* Every check site stays within KTAP_MAX_VALUES, whichever way it goes. */
static void values_fit_every_check(void **state)
{
	struct tick_rate_result *r = &run.ticks.sources[0].rates[1];
	unsigned int variant, i;

	(void)state;
	clocks[0].flags |= CLOCK_CLAIMS_STABLE;
	for (variant = 0; variant < 6; variant++) {
		fill_run(1.0);
		r->reached = variant == 0;
		r->typical_hz = variant == 1 ? 500 : 1000;
		r->start.no_expiries = variant == 2;
		r->delivered_hz = variant == 2 ? 700 : r->delivered_hz;
		r->state = variant == 3	  ? TICK_RATE_FAILED
			   : variant == 4 ? TICK_RATE_UNREACHABLE
					  : r->state;
		run.measure.clocks[3].backward_steps = variant == 5 ? 4 : 0;
		run.measure.clocks[3].port_use[0].path =
			variant == 5 ? PORT_RING0 : PORT_NATIVE;
		run.xcpu.clocks[0].warps = variant;
		run.cpus.cpu[1].ran = variant != 1;
		all_checks(&first);
		for (i = 0; i < first.nr; i++)
			assert_int_equal(first.checks[i].values_dropped, 0);
	}
	clocks[0].flags &= ~CLOCK_CLAIMS_STABLE;
}

/* A clock's checks carry what they were judged on, and against. */
static void clock_checks_carry_their_figures(void **state)
{
	struct ktap *k = &first;

	(void)state;
	fill_run(1.0);
	run.measure.clocks[3].rate_ppm = -25000;
	run.measure.clocks[3].backward_steps = 4;
	run.measure.clocks[3].worst_backward_ns = 800;
	all_checks(k);
	assert_int_equal(find(k, RATE_CHECK)->result, CHECK_FAIL);
	assert_true(figure(k, RATE_CHECK, "rate_ppm") == -25000);
	assert_true(figure(k, RATE_CHECK, "rate_uncertainty_ppm") == 5);
	assert_true(tolerance(k, RATE_CHECK, "rate_limit_ppm") ==
		    RATE_LIMIT_PPM);
	assert_int_equal(find(k, BACK_CHECK)->result, CHECK_FAIL);
	assert_true(figure(k, BACK_CHECK, "backward_steps") == 4);
	assert_true(figure(k, BACK_CHECK, "worst_backward_ns") == 800);
	assert_true(tolerance(k, BACK_CHECK, "backward_steps_max") == 0);
	assert_true(figure(k,
			   "the empty TSC bracket is measured and "
			   "subtracted",
			   "empty_bracket_p50_cycles") == 90);
	/* Not judged where ring 0 carried the port accesses: the figures
	 * stay, the bound goes. */
	run.measure.clocks[3].port_use[0].path = PORT_RING0;
	all_checks(k);
	assert_int_equal(find(k, BACK_CHECK)->result, CHECK_SKIP);
	assert_true(figure(k, BACK_CHECK, "backward_steps") == 4);
	assert_int_equal(find(k, BACK_CHECK)->tolerances, 0);
	/* A rate not measured has nothing to show. */
	assert_int_equal(find(k, "acpi_pm: runs at its nominal rate within "
				 "10000 ppm")
				 ->nr_values,
			 0);
}

/* Delivery at the checked rate: the figures and bounds of the verdict, and
 * of its exemptions. */
static void delivery_carries_its_figures(void **state)
{
	struct tick_rate_result *r = &run.ticks.sources[0].rates[1];
	struct ktap *k = &first;

	(void)state;
	fill_run(1.0);
	r->reached = false;
	r->delivered_hz = 600;
	r->typical_hz = 990;
	r->long_gaps = 7;
	all_checks(k);
	/* Held up: its median interval kept the rate. */
	assert_int_equal(find(k, DELIVERY_CHECK)->result, CHECK_SKIP);
	assert_true(figure(k, DELIVERY_CHECK, "delivered_hz") == 600);
	assert_true(figure(k, DELIVERY_CHECK, "typical_hz") == 990);
	assert_true(figure(k, DELIVERY_CHECK, "long_gaps") == 7);
	assert_true(
		tolerance(k, DELIVERY_CHECK, "tick_delivered_tolerance_pct") ==
		TICK_DELIVERED_TOLERANCE_PCT);
	assert_true(tolerance(k, DELIVERY_CHECK, "tick_long_gap_periods") ==
		    TICK_LONG_GAP_PERIODS);
	assert_true(tolerance(k, DELIVERY_CHECK, "tick_checked_rate_hz") ==
		    TICK_CHECKED_RATE_HZ);
	r->typical_hz = 600;
	all_checks(k);
	assert_int_equal(find(k, DELIVERY_CHECK)->result, CHECK_FAIL);
	assert_true(figure(k, DELIVERY_CHECK, "typical_hz") == 600);
	/* A rate that failed to start has no figures, only its bounds. */
	r->state = TICK_RATE_FAILED;
	all_checks(k);
	assert_int_equal(find(k, DELIVERY_CHECK)->result, CHECK_FAIL);
	assert_true(tolerance(k, DELIVERY_CHECK, "tick_checked_rate_hz") ==
		    TICK_CHECKED_RATE_HZ);
	assert_int_equal(find(k, DELIVERY_CHECK)->tolerances,
			 (1u << find(k, DELIVERY_CHECK)->nr_values) - 1);
}

/* Checks over every rate give the figures of the rate that decided: the
 * one nearest its bounds, not the first or the earliest. */
static void the_deciding_rate_is_shown(void **state)
{
	struct tick_rate_result *slow = &run.ticks.sources[0].rates[0];
	struct tick_rate_result *fast = &run.ticks.sources[0].rates[1];
	struct ktap *k = &first;

	(void)state;
	fill_run(1.0);
	fast->stolen_pct = -9; /* allowed: at least 10 points below 0 */
	all_checks(k);
	assert_int_equal(find(k, STOLEN_CHECK)->result, CHECK_PASS);
	assert_true(figure(k, STOLEN_CHECK, "rate_hz") == 1000);
	assert_true(figure(k, STOLEN_CHECK, "cpu_stolen_pct") == -9);
	assert_true(figure(k, STOLEN_CHECK, "noise_pct") == 2);
	assert_true(tolerance(k, STOLEN_CHECK, "stolen_noise_floor_pct") ==
		    STOLEN_NOISE_FLOOR_PCT);
	assert_true(tolerance(k, STOLEN_CHECK, "stolen_noise_spreads") ==
		    STOLEN_NOISE_SPREADS);
	assert_true(tolerance(k, STOLEN_CHECK, "stolen_noise_margin_pct") ==
		    STOLEN_NOISE_MARGIN_PCT);
	slow->stolen_pct = 101;
	all_checks(k);
	assert_int_equal(find(k, STOLEN_CHECK)->result, CHECK_FAIL);
	assert_true(figure(k, STOLEN_CHECK, "rate_hz") == 100);
	slow->stolen_pct = NAN;
	all_checks(k);
	assert_int_equal(find(k, STOLEN_CHECK)->result, CHECK_FAIL);
	assert_true(figure(k, STOLEN_CHECK, "rate_hz") == 100);

	/* The earliest interrupt is within its rate's allowance; a later
	 * one at another rate is not. */
	fill_run(1.0);
	slow->lateness_ns.min = -50000;
	slow->grid_uncertainty_ns = 100000;
	fast->lateness_ns.min = -20000;
	all_checks(k);
	assert_int_equal(find(k, LATENESS_CHECK)->result, CHECK_FAIL);
	assert_string_equal(find(k, LATENESS_CHECK)->info,
			    "earliest -50000 ns, expiries known to 100000 ns");
	assert_true(figure(k, LATENESS_CHECK, "rate_hz") == 1000);
	assert_true(figure(k, LATENESS_CHECK, "lateness_min_ns") == -20000);
	assert_true(figure(k, LATENESS_CHECK, "grid_uncertainty_ns") == 14000);
}

/* The cross-CPU and CPU checks carry their counts. */
static void cpu_checks_carry_their_figures(void **state)
{
	const char *warped = "tsc, which claims stability across CPUs, never "
			     "warped";
	const char *online = "CPU 1 (APIC ID 1) comes online and runs "
			     "on_cpu() work";
	struct ktap *k = &first;

	(void)state;
	clocks[0].flags |= CLOCK_CLAIMS_STABLE;
	fill_run(1.0);
	run.xcpu.clocks[0].warps = 3;
	run.xcpu.clocks[0].worst_warp_ns = 77;
	run.cpus.cpu[1].ran = false;
	all_checks(k);
	clocks[0].flags &= ~CLOCK_CLAIMS_STABLE;
	assert_int_equal(find(k, warped)->result, CHECK_FAIL);
	assert_true(figure(k, warped, "warps") == 3);
	assert_true(figure(k, warped, "worst_warp_ns") == 77);
	assert_true(figure(k, warped, "hand_offs") == 100000);
	assert_true(tolerance(k, warped, "xcpu_warps_max") == XCPU_WARPS_MAX);
	assert_true(figure(k,
			   "tsc: the warp test ran and every CPU's offset "
			   "from CPU 0 was measured",
			   "offsets_missing") == 0);
	assert_int_equal(find(k, online)->result, CHECK_FAIL);
	assert_true(figure(k, online, "online") == 1);
	assert_true(isnan(figure(k, online, "said_index")));
	write_json(k);
	assert_non_null(strstr(document, "\"figures\": {\"online\": 1,"
					 "\"said_index\": null,\"said_id\": "
					 "null}"));
}

/* What is not measured says why, in the checks and in the JSON. */
static void absent_and_not_applied(void **state)
{
	struct ktap *k = &first;

	(void)state;
	fill_run(1.0);
	run.ticks.applied = false;
	snprintf(run.ticks.not_applied, sizeof(run.ticks.not_applied),
		 "tick_rates is empty");
	run.xcpu.applies = false;
	snprintf(run.xcpu.reason, sizeof(run.xcpu.reason), "only 1 CPU");
	all_checks(k);
	assert_int_equal(find(k, "ticks")->result, CHECK_SKIP);
	assert_string_equal(find(k, "ticks")->info, "tick_rates is empty");
	assert_string_equal(find(k, "cross-CPU checks")->info, "only 1 CPU");
	write_json(k);
	assert_non_null(
		strstr(document, "\"reason\": \"tick_rates is empty\""));
	assert_non_null(strstr(document,
			       "\"absent_reason\": \"no KVM "
			       "signature in the hypervisor leaves\""));
}

/* Without a stopwatch rate nothing is timed, but a driver's count of bad
 * reads (its probe read too) is still checked. */
static void nothing_timed(void **state)
{
	struct ktap *k = &first;
	unsigned int i;

	(void)state;
	fill_run(1.0);
	run.measure.timed = false;
	for (i = 0; i < run.measure.nr; i++)
		run.measure.clocks[i].measured = false;
	run.measure.clocks[1].bad_reads = 3;
	ktap_init(k);
	report_measure_checks(&run, k);
	assert_int_equal(k->nr, 1);
	assert_string_equal(k->checks[0].name,
			    "hpet: 64-bit reads as halves never kept tearing");
	assert_string_equal(k->checks[0].info, "3 did");
	assert_int_equal(ktap_verdict(k), VERDICT_FAIL);
	write_json(k);
	assert_non_null(strstr(document, "\"empty_bracket_cycles\": null"));
}

/* The tables for people come out without touching anything but the run. */
static void printers(void **state)
{
	int saved = dup(STDOUT_FILENO);

	(void)state;
	fill_run(1.0);
	assert_non_null(freopen("/dev/null", "w", stdout));
	report_env_print(&run);
	report_clocks_print(&run);
	report_cpus_print(&run);
	report_measure_print(&run);
	report_xcpu_print(&run);
	report_pvsteps_print(&run);
	report_ticks_print(&run);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

/* What @print writes to stdout, into @out (at most @len bytes, NUL-ended). */
static void printed_by(void (*print)(const struct run_report *), char *out,
		       size_t len)
{
	struct capture c;

	capture_begin(&c);
	print(&run);
	capture_end(&c, out, len);
}

/*
 * A firmware whose MADT lists no enabled CPU (issue 19): the run still has
 * its boot CPU.  The JSON keeps "cpus" in its range (null) and gives the
 * firmware's 0 apart; the table says so in words.
 */
static void firmware_lists_no_cpu(void **state)
{
	char printed[4096];

	(void)state;
	fill_run(1.0);
	run.env.firmware_cpus = 0;
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"cpus\": null"));
	assert_non_null(strstr(document, "\"firmware_cpus\": 0"));
	assert_non_null(strstr(document, "\"cpus_online\": 2"));
	assert_non_null(strstr(document, "\"verdict\": \"pass\""));

	printed_by(report_env_print, printed, sizeof(printed));
	assert_non_null(strstr(printed,
			       "  cpus (firmware)  0: the ACPI MADT lists no "
			       "enabled CPU, although the boot CPU runs\n"));

	run.env.firmware_cpus = 2;
	write_json(&first);
	assert_non_null(strstr(document, "\"cpus\": 2"));
	assert_non_null(strstr(document, "\"firmware_cpus\": 2"));
	run.env.firmware_cpus = -1;
	write_json(&first);
	assert_non_null(strstr(document, "\"firmware_cpus\": null"));
}

/* True when @cell is a bare figure: digits, grouping, a point, a sign. */
static bool bare_figure(const char *cell, size_t len)
{
	return len && strspn(cell, "0123456789,.+-") >= len;
}

/* Every figure of the clock table is in its column's unit (the header's),
 * with no unit of its own, however far the figures spread: a slow read
 * stays in ns, a fast update rate in Hz, both grouped by thousands. */
static void table_columns_keep_one_unit(void **state)
{
	static const double scales[] = { 1.0, 600.0 };
	static char table[1 << 14];
	unsigned int s;

	(void)state;
	for (s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
		const char *line;
		unsigned int rows = 0;

		fill_run(scales[s]);
		printed_by(report_measure_print, table, sizeof(table));
		assert_non_null(strstr(table,
				       "clock            p50 ns     p99 ns  "
				       "p50 cyc  p99 cyc   batch ns     "
				       "resol ns     update Hz   stalls  "
				       "back  rate ppm  notes\n"));
		for (line = table; *line; line = strchr(line, '\n') + 1) {
			const char *cell = line;
			unsigned int col;
			size_t len;

			if (strncmp(line, "  tsc ", 6) &&
			    strncmp(line, "  hpet ", 7))
				continue;
			cell += strspn(cell, " ");
			cell += strcspn(cell, " "); /* the clock's name */
			cell += strspn(cell, " ");
			if (!strchr("0123456789-", *cell))
				continue; /* a line of notes, not a row */
			for (col = 0; col < 10; col++) {
				cell += strspn(cell, " ");
				len = strcspn(cell, " \n");
				if (!bare_figure(cell, len))
					fail_msg("column %u of '%.60s' is "
						 "'%.*s'",
						 col + 2, line, (int)len, cell);
				cell += len;
			}
			rows++;
		}
		assert_true(rows >= 2);
	}
	assert_non_null(strstr(table, " 30,000 "));   /* tsc p50: 50 ns x 600 */
	assert_non_null(strstr(table, " 27,000.0 ")); /* batch: 45 ns x 600 */
	assert_non_null(strstr(table, " 16,667 "));   /* update: 1e7 Hz / 600 */
	fill_run(1.0);
	printed_by(report_measure_print, table, sizeof(table));
	assert_non_null(strstr(table, " 10,000,000 ")); /* update: 1e7 Hz */
	printed_by(report_ticks_print, table, sizeof(table));
	assert_non_null(strstr(table, " handler cyc late p50 us   p99 us   "
				      "max us  notes\n"));
}

/* A read the batch figure shows trapped where the median does not (a
 * trapped stopwatch swamped it) says both figures and the reference
 * sequence it was judged against; the JSON carries the judgement. */
static void trapped_by_the_batch_figure(void **state)
{
	struct clock_result *r = &run.measure.clocks[2]; /* acpi_pm, 1500 ns */

	(void)state;
	fill_run(1.0);
	r->read_ns = spread(731);
	r->batch_ns_per_read = 29045;
	r->trapped = true;
	r->read_path = READ_TRAPPED;
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document,
			       "trapped: a read takes 731 ns (median), "
			       "29045.0 ns in batches, above the 1500 ns it "
			       "can take natively and 30 times the reference "
			       "sequence (14.3 ns, 12.0 in batches)"));
	assert_non_null(strstr(document, "\"read_judgement\": {\"result\": "
					 "\"trapped\""));
	r->batch_ns_per_read = 45;
	r->trapped = false;
	r->read_path = READ_DIRECT;
	write_json(&first);
	assert_non_null(strstr(document, "not trapped: a read takes 731 ns "
					 "(median), 45.0 ns in batches, within "
					 "the 1500 ns"));
	assert_null(strstr(document, "\"result\": \"trapped\""));
}

/* Under TCG a read is said to be translated, never trapped, whatever its
 * figures. */
static void translated_under_tcg(void **state)
{
	struct clock_result *r = &run.measure.clocks[0];

	(void)state;
	fill_run(1.0);
	run.measure.translated = true;
	r->read_path = READ_TRANSLATED;
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "translated: a read takes "));
	assert_non_null(strstr(document, "under TCG every read is translated "
					 "code, never intercepted"));
	assert_non_null(strstr(document, "\"read_judgement\": {\"result\": "
					 "\"translated\""));
	assert_non_null(strstr(document, "\"translated\": true"));
}

/* The noise section: each CPU's availability and gaps in the JSON, its
 * checks passing; where it did not run, one skip that says why. */
static void noise_per_cpu(void **state)
{
	(void)state;
	fill_run(1.0);
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"noise\": {\n  \"measured\": true"));
	assert_non_null(strstr(document, "\"gaps\": 2"));
	assert_non_null(strstr(document, "\"availability_pct\": 99,"));
	assert_non_null(strstr(document, "\"availability_pct\": 100,"));
	assert_non_null(strstr(document, "\"gaps_per_s\": 20,"));
	assert_non_null(strstr(document, "\"longest_ns\": 666666.6667"));
	assert_non_null(strstr(document, "{\"name\": \"noise: every online "
					 "CPU spun to its end\",\"result\": "
					 "\"pass\""));
	run.noise.cpu[1].ran = false;
	noise_tallies[0].backward_steps = 1;
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "{\"name\": \"noise: every online "
					 "CPU spun to its end\",\"result\": "
					 "\"fail\""));
	assert_non_null(strstr(document,
			       "{\"name\": \"noise: no CPU's TSC "
			       "stepped back in its spin\",\"result\": "
			       "\"fail\""));
	run.noise.measured = false;
	snprintf(run.noise.reason, sizeof(run.noise.reason),
		 "the TSC's reads are trapped here");
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document,
			       "\"result\": \"skip\",\"info\": "
			       "\"the TSC's reads are trapped here\""));
	assert_non_null(strstr(document, "\"cpus\": []"));
}

/* Each vCPU's updates a second, steps and flag changes; a stable step back
 * beyond the resolution fails, and no record at all skips in a sentence. */
static void pvsteps_per_cpu(void **state)
{
	(void)state;
	fill_run(1.0);
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"pvclock_steps\": {\n  \"present\": "
					 "true"));
	assert_non_null(strstr(document, "\"updates_per_s\": 6,"));
	assert_non_null(strstr(document, "\"largest_forward_ns\": 180,"));
	assert_non_null(strstr(document, "\"largest_back_ns\": -40,"));
	assert_non_null(strstr(document, "\"set\": \"guest stopped\""));
	assert_non_null(strstr(document, "{\"name\": \"pvclock steps: no step "
					 "back beyond the record's "
					 "resolution while TSC stable\","
					 "\"result\": \"pass\""));
	pvstep_monitors[1].stable_back_beyond = 1;
	pvstep_monitors[1].stable_worst_back_ns = -500;
	pvstep_monitors[0].unreadable = 1;
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "{\"name\": \"pvclock steps: no step "
					 "back beyond the record's "
					 "resolution while TSC stable\","
					 "\"result\": \"fail\""));
	assert_non_null(strstr(document, "{\"name\": \"pvclock steps: every "
					 "record settled within its read "
					 "bound\",\"result\": \"fail\""));
	run.pvsteps.present = false;
	snprintf(run.pvsteps.reason, sizeof(run.pvsteps.reason),
		 "no pvclock record here");
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"result\": \"skip\",\"info\": "
					 "\"no pvclock record here\""));
	assert_non_null(strstr(document, "\"clock\": null"));
}

/* With a steal record, each CPU says how much of its gap time it
 * accounts as steal; without one, steal is null and the words say why. */
static void noise_steal_attribution(void **state)
{
	struct noise_cpu *c = &run.noise.cpu[0];

	(void)state;
	fill_run(1.0);
	write_json(&first);
	assert_non_null(strstr(document, "\"steal_interface\": null"));
	assert_non_null(strstr(document, "\"steal\": null"));
	run.noise.steal_kind = STEAL_XEN;
	snprintf(run.noise.steal_words, sizeof(run.noise.steal_words),
		 "Xen runstate area, with its update flag");
	c->steal_ok = true;
	c->steal_total_ns = 950000;
	steal_attribute(&c->steal, 1000000, 950000);
	snprintf(run.noise.cpu[1].steal_why, sizeof(run.noise.cpu[1].steal_why),
		 "VCPUOP_register_runstate_memory_area for vCPU 1 failed: -38");
	write_json(&first);
	assert_non_null(strstr(document, "\"steal_interface\": \"Xen runstate "
					 "area\""));
	assert_non_null(strstr(document,
			       "\"steal\": {\"registered\": true,"
			       "\"reason\": null,\"total_ns\": "
			       "950000,\"in_gaps_ns\": 950000,"
			       "\"outside_ns\": 0,\"share_pct\": 95,"));
	assert_non_null(strstr(document, "\"steal\": {\"registered\": false,"
					 "\"reason\": \"VCPUOP_register_"
					 "runstate_memory_area for vCPU 1 "
					 "failed: -38\",\"total_ns\": null"));
}

/* A clock that takes another's rate (the same counter) names it, in the
 * JSON and in its notes; the others name none. */
static void a_shared_rate_names_its_source(void **state)
{
	struct clock_result *r = &run.measure.clocks[3]; /* pit */

	(void)state;
	fill_run(1.0);
	r->rate_shared_from = &clocks[0];
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"rate_shared_from\": \"tsc\""));
	assert_non_null(strstr(document, "Its rate is tsc's: the same counter, "
					 "so its rate was measured once."));
	assert_non_null(strstr(document, "\"rate_shared_from\": null"));
	r->rate_shared_from = NULL;
	write_json(&first);
	assert_null(strstr(document, "\"rate_shared_from\": \"tsc\""));
	assert_null(strstr(document, "Its rate is"));
}

/* The read-cost tails against the steal record: one line under the
 * table, each clock's count in the JSON; without a steal interface the
 * line says so and each clock's steal_tail is null. */
static void read_tails_against_steal(void **state)
{
	struct measure_result *m = &run.measure;
	char table[16384];

	(void)state;
	fill_run(1.0);
	printed_by(report_measure_print, table, sizeof(table));
	assert_non_null(strstr(table, "  steal: Xen runstate area, with its "
				      "update flag, read between the per-read "
				      "samples"));
	assert_non_null(strstr(table, " tsc 0 of 200 (0 of all 20000 reads), "
				      "hpet 1 of 200 (3 of all 20000 reads)"));
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"tail_reads_with_steal\": 1,"));
	m->steal.kind = STEAL_NONE;
	snprintf(m->steal.words, sizeof(m->steal.words),
		 "no steal interface: TCG keeps none");
	for (unsigned int i = 0; i < m->nr; i++)
		m->clocks[i].steal_tail.traced = false;
	printed_by(report_measure_print, table, sizeof(table));
	assert_non_null(
		strstr(table, "  steal: no steal interface: TCG keeps none\n"));
	write_json(&first);
	assert_null(strstr(document, "\"tail_reads\""));
	assert_non_null(strstr(document, "\"read_steal_interface\": null"));
}

/* A window that read a steal record says its steal and splits its
 * lateness by it, in a line under the table and in the JSON; without a
 * steal interface the section says so once and each rate's steal is
 * null. */
static void tick_lateness_split_by_steal(void **state)
{
	struct ticks_result *t = &run.ticks;
	char table[8192];

	(void)state;
	fill_run(1.0);
	printed_by(report_ticks_print, table, sizeof(table));
	assert_non_null(strstr(table, "  steal: Xen runstate area, with its "
				      "update flag, read once a chunk"));
	assert_non_null(strstr(
		table, "  lapic        at 100 Hz: steal 30.0 ms, 30.0 % of the "
		       "window; late while taken away 2 (p50 900.0, p99 "
		       "2000.0, max 2000.0 us), not taken away 7 (p50 40.0, "
		       "p99 60.0, max 80.0 us), 1 untold (outside the loop's "
		       "reads)\n"));
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"steal_interface\": \"Xen runstate "
					 "area\""));
	assert_non_null(strstr(document, "\"preempted_lateness_ns\": {"));
	assert_non_null(strstr(document, "\"unclassified\": 1"));
	t->steal.kind = STEAL_NONE;
	snprintf(t->steal.words, sizeof(t->steal.words),
		 "no steal interface: TCG keeps none");
	t->sources[0].rates[0].steal.traced = false;
	printed_by(report_ticks_print, table, sizeof(table));
	assert_non_null(
		strstr(table, "  steal: no steal interface: TCG keeps none\n"));
	assert_null(strstr(table, "at 100 Hz: steal"));
	write_json(&first);
	assert_null(strstr(document, "\"preempted_lateness_ns\""));
	assert_non_null(strstr(document, "\"steal_words\": \"no steal "
					 "interface: TCG keeps none\""));
}

/* The document of a passing run, for the schema test on the host. */
/* The event's checks: the host answered, no steps back, the offsets within
 * bounds; the TSC ran on and the HPET froze, said in their infos. */
static void lifecycle_checks_describe_each_clock(void **state)
{
	const struct ktap_check *c;
	unsigned int i, seen = 0;

	(void)state;
	fill_run(1.0);
	all_checks(&first);
	for (i = 0; i < first.nr; i++) {
		c = &first.checks[i];
		if (strncmp(c->name, "event 1: ", 9))
			continue;
		seen++;
		assert_int_equal(c->result, CHECK_PASS);
		if (!strcmp(c->name,
			    "event 1: tsc never steps back on any vCPU"))
			assert_non_null(strstr(c->info, "ran on: "));
		if (!strcmp(c->name,
			    "event 1: hpet never steps back on any vCPU"))
			assert_non_null(strstr(c->info, "frozen: "));
	}
	assert_int_equal(seen, 6);
	run.lifecycle.events[0].clocks[1].back_steps = 1;
	run.lifecycle.events[0].clocks[0].cpu[1].after_ns = 1e6;
	all_checks(&first);
	assert_int_equal(ktap_verdict(&first), VERDICT_FAIL);
	run.lifecycle.events[0].answered = false;
	snprintf(run.lifecycle.events[0].problem, LIFECYCLE_TEXT_LEN,
		 "no answer from the host within 61000 ms");
	run.lifecycle.events[0].clocks[1].back_steps = 0;
	all_checks(&first);
	assert_int_equal(ktap_verdict(&first), VERDICT_ERROR);
}

static const struct ktap_check *find_check(const struct ktap *k,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->checks[i].name, name))
			return &k->checks[i];
	return NULL;
}

/* A clock 20 ms past the host's window jumped by a 4 ms round trip, but ran
 * on when the ping after the event took 30 ms (the done line's way, attached
 * anew, was that slow): the bound is the longer round trip, and the time the
 * two rounds of reads took. */
static void lifecycle_bound_takes_the_longer_round_trip(void **state)
{
	const char *tsc = "event 1: tsc never steps back on any vCPU";
	struct lifecycle_event *e;
	const struct ktap_check *c;

	(void)state;
	fill_run(1.0);
	e = &run.lifecycle.events[0];
	e->clocks[0].advance_ns = (double)(e->host.value[HOST_SENT_NS] -
					   e->host.value[HOST_READY_NS]) +
				  20e6;
	all_checks(&first);
	c = find_check(&first, tsc);
	assert_non_null(c);
	assert_non_null(strstr(c->info, "jumped: +20.000 ms"));
	assert_non_null(strstr(c->info, "(+-9.000)"));
	e->round_trip_after_ns = 30e6;
	e->pings = 1;
	all_checks(&first);
	c = find_check(&first, tsc);
	assert_non_null(strstr(c->info, "ran on: +20.000 ms"));
	assert_non_null(strstr(c->info, "(+-35.000)"));
	c = find_check(&first, "event 1: the host answered");
	assert_non_null(strstr(c->info, "30.000 ms after the event"));
	/* Each clock was read somewhere in its two rounds of reads. */
	e->read_rounds_ns = 2e6;
	all_checks(&first);
	c = find_check(&first, tsc);
	assert_non_null(strstr(c->info, "(+-37.000)"));
}

/* The timer's checks: never early, fires after; what became of the missed
 * expiries described (lost here), an early interrupt or none after the gap
 * failed. */
static void lifecycle_timer_checks(void **state)
{
	const char *early = "event 1: timer: no interrupt before its deadline";
	const char *after =
		"event 1: timer: the pending timer fires after the event";
	struct lifecycle_timer *t;
	const struct ktap_check *c;
	unsigned int i, found = 0;

	(void)state;
	fill_run(1.0);
	t = &run.lifecycle.events[0].timer;
	all_checks(&first);
	for (i = 0; i < first.nr; i++) {
		c = &first.checks[i];
		if (!strcmp(c->name, early)) {
			found++;
			assert_int_equal(c->result, CHECK_PASS);
		}
		if (!strcmp(c->name, after)) {
			found++;
			assert_int_equal(c->result, CHECK_PASS);
			assert_non_null(
				strstr(c->info, "lost: 1000.000 ms late"));
		}
	}
	assert_int_equal(found, 2);
	/* 150 us early: beyond the 40 us slack and the 100 us allowed. */
	t->earliest_ns = -150e3;
	t->outcome.early = 1;
	all_checks(&first);
	assert_int_equal(ktap_verdict(&first), VERDICT_FAIL);
	t->earliest_ns = -120e3; /* within both */
	t->outcome.fired_after = false;
	all_checks(&first);
	assert_int_equal(ktap_verdict(&first), VERDICT_FAIL);
	t->outcome.fired_after = true;
	all_checks(&first);
	assert_int_equal(ktap_verdict(&first), VERDICT_PASS);
}

static void document_for_the_schema(void **state)
{
	const char *path = getenv("CLOCKBENCH_REPORT_JSON");
	FILE *out;

	(void)state;
	fill_run(1.0);
	all_checks(&first);
	write_json(&first);
	assert_non_null(strstr(document, "\"verdict\": \"pass\""));
	if (!path)
		return;
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(fwrite(document, 1, document_len, out), document_len);
	assert_int_equal(fclose(out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trapped_by_the_batch_figure),
		cmocka_unit_test(translated_under_tcg),
		cmocka_unit_test(noise_per_cpu),
		cmocka_unit_test(noise_steal_attribution),
		cmocka_unit_test(pvsteps_per_cpu),
		cmocka_unit_test(a_shared_rate_names_its_source),
		cmocka_unit_test(names_are_stable),
		cmocka_unit_test(verdicts),
		cmocka_unit_test(values_fit_every_check),
		cmocka_unit_test(clock_checks_carry_their_figures),
		cmocka_unit_test(delivery_carries_its_figures),
		cmocka_unit_test(the_deciding_rate_is_shown),
		cmocka_unit_test(cpu_checks_carry_their_figures),
		cmocka_unit_test(absent_and_not_applied),
		cmocka_unit_test(nothing_timed),
		cmocka_unit_test(printers),
		cmocka_unit_test(firmware_lists_no_cpu),
		cmocka_unit_test(table_columns_keep_one_unit),
		cmocka_unit_test(lifecycle_checks_describe_each_clock),
		cmocka_unit_test(lifecycle_bound_takes_the_longer_round_trip),
		cmocka_unit_test(lifecycle_timer_checks),
		cmocka_unit_test(read_tails_against_steal),
		cmocka_unit_test(tick_lateness_split_by_steal),
		cmocka_unit_test(document_for_the_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
