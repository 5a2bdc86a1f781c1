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
} spin;

/* One CPU's spin: interrupts off, the TSC read back to back, every step
 * counted in its tally. */
static void noise_worker(void *arg)
{
	struct noise_cpu *c = &spin.out->cpu[cpu_index()];
	struct noise_tally *t = c->tally;
	double hz = spin.out->tsc_hz;
	uint64_t start, prev, now, reads;

	(void)arg;
	/* Every CPU arrives, tally or not, so that the others start. */
	c->together = barrier_wait(&spin.start, NOISE_SLACK_MS);
	if (!t)
		return;
	irq_disable();
	start = prev = tsc_read();
	for (reads = 1; reads < spin.max_reads; reads++) {
		now = tsc_read();
		noise_tally_step(t, prev, now, spin.threshold_cycles, hz);
		/* A step back leaves prev where it was: the span is measured
		 * from the first read to the furthest. */
		if (now > prev)
			prev = now;
		if (prev - start >= spin.span_cycles)
			break;
	}
	irq_enable();
	t->reads = reads;
	t->span_cycles = prev - start;
	c->ran = true;
}

void noise_measure(const struct noise_options *opts, struct noise_result *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->duration_ms = opts->duration_ms;
	out->threshold_ns = opts->threshold_ns;
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
	if (opts->tsc_trapped) {
		snprintf(out->reason, sizeof(out->reason),
			 "the TSC's reads are trapped here: every read of the "
			 "spin would be a gap");
		return;
	}
	out->threshold_cycles =
		noise_threshold_cycles(opts->threshold_ns, out->tsc_hz);
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
	spin.span_cycles = stopwatch_cycles((double)opts->duration_ms * 1e6);
	spin.threshold_cycles = out->threshold_cycles;
	spin.max_reads =
		(uint64_t)opts->duration_ms * 1000000 * NOISE_READS_PER_NS;
	spin.start = (struct smp_barrier){ .count = smp_cpus_online() };
	progress("spinning on the TSC with interrupts off on %u CPU%s for "
		 "%u ms, gaps above %u ns",
		 out->online, out->online == 1 ? "" : "s", opts->duration_ms,
		 opts->threshold_ns);
	on_all_cpus(noise_worker, NULL, opts->duration_ms + NOISE_SLACK_MS);
	out->measured = true;
}
