// SPDX-License-Identifier: MIT
/*
 * The noise phase (see engine/noise.h).  Each CPU's spin is bounded twice:
 * by its span on the TSC and by a cap on reads (a TSC that stopped would
 * otherwise never end it), the way Linux's tsc_sync.c bounds its warp
 * test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "engine/noise.h"
#include "hypervisor/steal.h"
#include "lib/progress.h"

/* Reads a spin may take at most, per ns of its span: a TSC read takes
 * more than a ns anywhere (5 natively at the fastest), so the cap only
 * ends a spin whose TSC stopped. */
#define NOISE_READS_PER_NS 1
/* Beyond the spin itself, the most a CPU may take to start and finish. */
#define NOISE_SLACK_MS 2000

static struct {
	struct noise_result *out;
	uint64_t span_cycles, threshold_cycles, max_reads;
	struct smp_barrier start;
	struct pvsteps_result *pvsteps;
} spin;

/* One CPU's spin: interrupts off, the TSC read back to back, every step
 * counted in its tally; with a steal record, the record read before each
 * clock read and its steal given to the runs of gaps (lib/steal.h). */
static void noise_worker(void *arg)
{
	unsigned int cpu = cpu_index();
	struct noise_cpu *c = &spin.out->cpu[cpu];
	struct noise_tally *t = c->tally;
	double hz = spin.out->tsc_hz;
	uint64_t start, prev, now, reads, steal_first = 0, steal = 0;
	struct steal_runs runs;

	(void)arg;
	if (spin.out->steal_kind != STEAL_NONE)
		c->steal_ok = !steal_setup_cpu(cpu, c->steal_why,
					       sizeof(c->steal_why));
	/* Every CPU arrives, tally or not, so that the others start. */
	c->together = barrier_wait(&spin.start, NOISE_SLACK_MS);
	if (!t)
		return;
	/* Off already: the run keeps interrupts off except in the tick
	 * windows (engine/ticks.c), so they are not turned on after the
	 * spin either (a PV guest has no event callback yet, an HVM guest's
	 * timers are not set up). */
	irq_disable();
	/* The steal record's first read starts the spin, after the
	 * rendezvous: a vCPU kept waiting there by its hypervisor would
	 * otherwise count that wait as steal against the spin's first gap. */
	if (c->steal_ok && steal_read_cpu(cpu, &steal_first)) {
		c->steal_ok = false;
		snprintf(c->steal_why, sizeof(c->steal_why),
			 "its steal record never settled at the spin's "
			 "start");
	}
	steal = steal_first;
	steal_runs_start(&runs, steal_first);
	start = prev = tsc_read();
	for (reads = 1; reads < spin.max_reads; reads++) {
		bool gap;

		if (c->steal_ok)
			steal = steal_read_or_last(cpu, steal,
						   &c->steal.failed_reads);
		now = tsc_read();
		gap = noise_tally_step(t, prev, now, spin.threshold_cycles, hz);
		if (c->steal_ok)
			steal_runs_step(&runs, &c->steal, steal,
					gap ? (double)(now - prev) * 1e9 / hz
					    : 0);
		/* A step back leaves prev where it was: the span is measured
		 * from the first read to the furthest. */
		if (now > prev)
			prev = now;
		if (prev - start >= spin.span_cycles)
			break;
		/* The poll's cost (a load; a full read of the record at an
		 * update) falls in the next step, counted like any other. */
		if (reads % PVSTEPS_NOISE_POLL_EVERY == 0)
			pvsteps_poll(spin.pvsteps, cpu, now);
	}
	pvsteps_pause(spin.pvsteps, cpu, PVSTEPS_SPAN_NOISE);
	t->reads = reads;
	t->span_cycles = prev - start;
	if (c->steal_ok) {
		/* A last read that never settles leaves the last good one. */
		steal = steal_read_or_last(cpu, steal, &c->steal.failed_reads);
		steal_runs_end(&runs, &c->steal, steal);
		c->steal_total_ns =
			steal >= steal_first ? steal - steal_first : 0;
	}
	steal_stop_cpu(cpu);
	c->ran = true;
}

void noise_measure(const struct noise_options *opts, struct noise_result *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->duration_ms = opts->duration_ms;
	out->threshold_ns = opts->threshold_ns;
	out->threshold_asked_ns = opts->threshold_ns;
	out->tsc_hz = (double)stopwatch_hz();
	out->ncpu = smp_nr_cpus();
	if (out->ncpu > MAX_CPUS)
		out->ncpu = MAX_CPUS;
	if (out->tsc_hz <= 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "the TSC's frequency is unknown, so no gap can be "
			 "timed");
		return;
	}
	out->tsc_trapped = opts->tsc_trapped;
	out->tsc_read_ns = opts->tsc_read_ns;
	if (opts->tsc_trapped &&
	    NOISE_TRAPPED_READ_FACTOR * opts->tsc_read_ns > opts->threshold_ns)
		out->threshold_ns = (unsigned int)(NOISE_TRAPPED_READ_FACTOR *
							   opts->tsc_read_ns +
						   0.5);
	out->threshold_cycles =
		noise_threshold_cycles(out->threshold_ns, out->tsc_hz);
	out->steal_kind = steal_choose(opts->hv, out->steal_words,
				       sizeof(out->steal_words));
	for (i = 0; i < out->ncpu; i++) {
		const struct cpu *cpu = smp_cpu(i);
		struct noise_cpu *c = &out->cpu[i];

		c->id = cpu->apic_id;
		c->online = cpu->online;
		if (!c->online)
			continue;
		out->online++;
		c->tally = malloc(sizeof(*c->tally));
		if (c->tally)
			noise_tally_init(c->tally);
	}
	spin.out = out;
	spin.pvsteps = opts->pvsteps;
	spin.span_cycles = stopwatch_cycles((double)opts->duration_ms * 1e6);
	spin.threshold_cycles = out->threshold_cycles;
	spin.max_reads =
		(uint64_t)opts->duration_ms * 1000000 * NOISE_READS_PER_NS;
	spin.start = (struct smp_barrier){ .count = smp_cpus_online() };
	progress("spinning on the TSC with interrupts off on %u CPU%s for "
		 "%u ms, gaps above %u ns",
		 out->online, out->online == 1 ? "" : "s", opts->duration_ms,
		 out->threshold_ns);
	on_all_cpus(noise_worker, NULL, opts->duration_ms + NOISE_SLACK_MS);
	out->measured = true;
}
