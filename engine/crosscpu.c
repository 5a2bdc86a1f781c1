// SPDX-License-Identifier: MIT
/* Cross-CPU measurements: warps, offsets with error bounds, drift. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stopwatch.h"
#include "engine/clocks.h"
#include "base/cpu.h"
#include "engine/crosscpu.h"
#include "base/priv.h"
#include "base/smp.h"
#include "lib/progress.h"

#define WARP_MAX_ITERATIONS 200000
#define OFFSET_BRACKETS	    16 /* per CPU, clock and round */
#define DRIFT_ROUNDS	    5
/* An AP answers within microseconds, unless the host deschedules it (4
 * vCPUs on 2 host cores): such a bracket is dropped, not waited for. */
#define BRACKET_TIMEOUT_US 50000
/* Sixteen brackets take well under a millisecond where CPU 0 and the AP
 * both run.  Where vCPUs outnumber host CPUs an answer waits for a host
 * time slice (4 vCPUs on 2 cores under TCG, beside another boot: 1440
 * brackets of 6 clocks in 17.6 s): a round that has taken ROUND_BUDGET_US
 * stops at ROUND_MIN_BRACKETS answered ones, which bounds the phase at the
 * cost of a wider bound there (20 s -> 4.3 s for that boot alone). */
#define ROUND_BUDGET_US	   10000
#define ROUND_MIN_BRACKETS 4
#define RESPONDER_IDLE_MS  3000 /* an AP gives up on a vanished CPU 0 */
#define WORK_TIMEOUT_MS	   10000

/* The result being filled by xcpu_measure() (its workers run on every
 * CPU and write their own parts). */
static struct xcpu_result *xr;

/* --- per-CPU set-up ----------------------------------------------------- */

static void read_msrs(void *arg)
{
	struct xcpu_msrs *m = &xr->cpu[cpu_index()].msrs;
	uint64_t v;

	(void)arg;
	m->tsc_adjust_ok = rdmsr_safe(MSR_IA32_TSC_ADJUST, &v);
	m->tsc_adjust = (int64_t)v;
	m->tsc_aux_ok = rdmsr_safe(MSR_TSC_AUX, &m->tsc_aux);
}

struct setup_work {
	struct clock *clock;
	int failures;
};

static void setup_clock(void *arg)
{
	struct setup_work *w = arg;

	if (cpu_index() != 0 && w->clock->setup_cpu(w->clock))
		__atomic_add_fetch(&w->failures, 1, __ATOMIC_RELAXED);
}

/* --- warp test ------------------------------------------------------------ */

static struct {
	struct spinlock lock;
	struct smp_barrier start;
	const struct clock *clock;
	uint64_t mask, half, last, last_tsc, half_wrap_cycles;
	uint64_t duration_cycles, deadline;
	bool have_last, stop;
	struct xcpu_clock *out;
} warp;

static void warp_worker(void *arg)
{
	(void)arg;
	barrier_wait(&warp.start, WORK_TIMEOUT_MS);
	/* The time limit runs from the rendezvous: an idle AP may have been
	 * blocked in the hypervisor, and takes a while to run again. */
	if (cpu_index() == 0)
		warp.deadline = tsc_read() + warp.duration_cycles;
	for (;;) {
		uint64_t now, now_tsc, step;
		int64_t gap_cycles;

		spin_lock(&warp.lock);
		/* Only CPU 0's TSC decides when time is up: the others'
		 * may be what is being measured. */
		if (cpu_index() == 0 && tsc_read() > warp.deadline)
			warp.stop = true;
		if (warp.stop || warp.out->iterations >= WARP_MAX_ITERATIONS) {
			spin_unlock(&warp.lock);
			return;
		}
		now = warp.clock->read();
		now_tsc = tsc_read();
		/* Two CPUs' TSCs: a small negative gap is their offset, not
		 * a long absence. */
		gap_cycles = (int64_t)(now_tsc - warp.last_tsc);
		if (warp.have_last) {
			step = (now - warp.last) & warp.mask;
			if (step == 0) {
				warp.out->stalls++;
			} else if (step >= warp.half && gap_cycles > 0 &&
				   clock_gap_ambiguous(
					   (uint64_t)gap_cycles,
					   clock_ns_to_counts(
						   clock_ns(warp.clock, step),
						   stopwatch_hz()),
					   warp.half_wrap_cycles)) {
				/* Over half a wrap since the last read (a CPU
				 * was descheduled holding the lock): forward
				 * and back cannot be told apart. */
				warp.out->ambiguous_gaps++;
			} else if (step >= warp.half) {
				double back = (double)clock_ns(
					warp.clock,
					(warp.last - now) & warp.mask);

				warp.out->warps++;
				if (back > warp.out->worst_warp_ns)
					warp.out->worst_warp_ns = back;
			}
		}
		warp.last = now;
		warp.last_tsc = now_tsc;
		warp.have_last = true;
		warp.out->iterations++;
		spin_unlock(&warp.lock);
	}
}

static void measure_warps(struct xcpu_clock *x, unsigned int warp_ms)
{
	memset(&warp, 0, sizeof(warp));
	warp.clock = x->clock;
	warp.mask = clock_mask(x->clock->width_bits);
	warp.half = warp.mask / 2 + 1;
	warp.half_wrap_cycles = clock_ns_to_counts(
		clock_ns(x->clock, warp.half), stopwatch_hz());
	warp.out = x;
	warp.start.count = smp_cpus_online();
	warp.duration_cycles = stopwatch_cycles((double)warp_ms * 1e6);
	on_all_cpus(warp_worker, NULL, WORK_TIMEOUT_MS);
}

/* --- offsets and drift ------------------------------------------------------- */

/* One per CPU: CPU 0 asks (request), the AP reads and answers. */
static struct probe {
	const struct clock *clock;
	unsigned int request, answer;
	uint64_t value;
	bool done;
} probes[MAX_CPUS];

/* Every responder and CPU 0 before the first round: an idle AP may have
 * been blocked in the hypervisor, and takes a while to run again. */
static struct smp_barrier responders_ready;

static void responder(void *arg)
{
	struct probe *p = &probes[cpu_index()];
	/* Before the rendezvous: CPU 0 asks nothing until it is over. */
	unsigned int seen = __atomic_load_n(&p->request, __ATOMIC_ACQUIRE);
	uint64_t idle_since;

	(void)arg;
	barrier_wait(&responders_ready, WORK_TIMEOUT_MS);
	idle_since = tsc_read();
	while (!__atomic_load_n(&p->done, __ATOMIC_ACQUIRE)) {
		unsigned int r = __atomic_load_n(&p->request, __ATOMIC_ACQUIRE);

		if (r != seen) {
			p->value = p->clock->read();
			__atomic_store_n(&p->answer, r, __ATOMIC_RELEASE);
			seen = r;
			idle_since = tsc_read();
		} else if (tsc_read() - idle_since >
			   stopwatch_cycles(RESPONDER_IDLE_MS * 1e6)) {
			return;
		}
		cpu_relax();
	}
}

/* Signed distance in ns from @from to @to of a clock that may wrap. */
static int64_t signed_ns(const struct clock *c, uint64_t from, uint64_t to)
{
	uint64_t mask = clock_mask(c->width_bits);
	uint64_t forward = (to - from) & mask;

	if (forward >= mask / 2 + 1)
		return -(int64_t)clock_ns(c, (from - to) & mask);
	return (int64_t)clock_ns(c, forward);
}

/* The best of up to OFFSET_BRACKETS brackets of CPU @cpu's @c against CPU
 * 0's (ROUND_BUDGET_US says when fewer); each valid bracket's estimate also
 * into @all (when not NULL). */
static bool offset_round(const struct clock *c, unsigned int cpu,
			 struct skew_offset *out, struct hist *all)
{
	struct skew_bracket b[OFFSET_BRACKETS];
	struct probe *p = &probes[cpu];
	unsigned int i, n = 0, timeouts = 0;
	uint64_t round_end =
		tsc_read() + stopwatch_cycles(ROUND_BUDGET_US * 1e3);

	p->clock = c;
	for (i = 0; i < OFFSET_BRACKETS; i++) {
		unsigned int ticket = p->request + 1;
		uint64_t before, after, end;

		bool answered = true;

		before = c->read();
		__atomic_store_n(&p->request, ticket, __ATOMIC_RELEASE);
		end = tsc_read() + stopwatch_cycles(BRACKET_TIMEOUT_US * 1e3);
		while (__atomic_load_n(&p->answer, __ATOMIC_ACQUIRE) !=
		       ticket) {
			if (tsc_read() > end) {
				answered = false;
				break;
			}
			cpu_relax();
		}
		after = c->read();
		if (!answered) {
			/* Twice unanswered: the AP is not running now;
			 * try again next round rather than wait here. */
			if (++timeouts == 2)
				break;
			continue;
		}
		b[n].local_before_ns = 0;
		b[n].remote_ns = signed_ns(c, before, p->value);
		b[n].local_after_ns = signed_ns(c, before, after);
		if (all && b[n].local_after_ns >= 0)
			hist_record(all,
				    llround((double)b[n].remote_ns -
					    (double)b[n].local_after_ns / 2));
		n++;
		if (n >= ROUND_MIN_BRACKETS && tsc_read() > round_end)
			break;
	}
	return skew_best_offset(b, n, out) == 0;
}

static void measure_offsets(unsigned int drift_ms)
{
	/* Too big for a stack: tens of KiB. */
	static double t[MAX_XCLOCKS][MAX_CPUS][DRIFT_ROUNDS];
	static struct skew_offset o[MAX_XCLOCKS][MAX_CPUS][DRIFT_ROUNDS];
	unsigned int ncpu = smp_nr_cpus(), cpu, round, k;
	uint64_t start;
	double tsc_hz = (double)stopwatch_hz();

	responders_ready = (struct smp_barrier){ .count = smp_cpus_online() };
	for (cpu = 1; cpu < ncpu; cpu++) {
		probes[cpu].done = false;
		if (smp_cpu(cpu)->online)
			on_cpu_post(cpu, responder, NULL);
	}
	barrier_wait(&responders_ready, WORK_TIMEOUT_MS);
	for (k = 0; k < xr->nr; k++)
		for (cpu = 1; cpu < ncpu; cpu++) {
			struct hist *h;

			if (!smp_cpu(cpu)->online)
				continue;
			h = malloc(sizeof(*h));
			if (h)
				hist_init(h);
			xr->clocks[k].cpu[cpu].bracket_offsets_ns = h;
		}
	start = tsc_read();
	for (round = 0; round < DRIFT_ROUNDS; round++) {
		uint64_t due =
			start + (uint64_t)((double)drift_ms * 1e-3 * tsc_hz *
					   round / (DRIFT_ROUNDS - 1));

		while (tsc_read() < due)
			cpu_relax();
		for (k = 0; k < xr->nr; k++) {
			struct xcpu_clock *x = &xr->clocks[k];

			for (cpu = 1; cpu < ncpu; cpu++) {
				struct xcpu_per_cpu *pc = &x->cpu[cpu];
				struct skew_offset *r =
					&o[k][cpu][pc->drift_samples];

				if (!smp_cpu(cpu)->online ||
				    !offset_round(x->clock, cpu, r,
						  pc->bracket_offsets_ns))
					continue;
				t[k][cpu][pc->drift_samples++] =
					(double)(tsc_read() - start) * 1e9 /
					tsc_hz;
				if (!pc->offset_ok ||
				    r->uncertainty_ns <
					    pc->offset.uncertainty_ns)
					pc->offset = *r;
				pc->offset_ok = true;
			}
		}
	}
	for (cpu = 1; cpu < ncpu; cpu++) {
		__atomic_store_n(&probes[cpu].done, true, __ATOMIC_RELEASE);
		on_cpu_wait(cpu, WORK_TIMEOUT_MS);
	}
	for (k = 0; k < xr->nr; k++) {
		for (cpu = 1; cpu < ncpu; cpu++) {
			struct xcpu_per_cpu *pc = &xr->clocks[k].cpu[cpu];
			double y[DRIFT_ROUNDS], u[DRIFT_ROUNDS];

			for (round = 0; round < pc->drift_samples; round++) {
				y[round] = o[k][cpu][round].offset_ns;
				u[round] = o[k][cpu][round].uncertainty_ns;
			}
			pc->drift_ok = skew_fit_line(t[k][cpu], y, u,
						     pc->drift_samples,
						     &pc->drift) == 0;
		}
	}
}

void xcpu_measure(const struct xcpu_options *opts, struct xcpu_result *out)
{
	struct clock *const *cp;
	unsigned int online = smp_cpus_online(), cpu;

	memset(out, 0, sizeof(*out));
	xr = out;
	out->ncpu = smp_nr_cpus();
	out->online = online;
	for (cpu = 0; cpu < out->ncpu; cpu++) {
		out->cpu[cpu].online = smp_cpu(cpu)->online;
		out->cpu[cpu].id = smp_cpu(cpu)->apic_id;
	}
	on_all_cpus(read_msrs, NULL, WORK_TIMEOUT_MS);
	if (online < 2) {
		snprintf(out->reason, sizeof(out->reason),
			 "only %u CPU is online: there is nothing to compare",
			 online);
		return;
	}
	out->applies = true;
	for (cp = clocks_all(); *cp && out->nr < MAX_XCLOCKS; cp++) {
		struct clock *c = *cp;

		if (!c->present)
			continue;
		if (c->flags & CLOCK_NEEDS_CPU_SETUP) {
			struct setup_work w = { c, 0 };

			if (on_all_cpus(setup_clock, &w, WORK_TIMEOUT_MS) !=
				    online ||
			    w.failures) {
				progress("%s could not be set up on every CPU; "
					 "left out of the cross-CPU tests",
					 c->name);
				continue;
			}
		}
		out->clocks[out->nr++].clock = c;
	}
	progress("cross-CPU: warp test on %u clocks (%u ms each), then "
		 "offsets followed for %u ms",
		 out->nr, opts->warp_ms, opts->drift_ms);
	for (unsigned int k = 0; k < out->nr; k++)
		measure_warps(&out->clocks[k], opts->warp_ms);
	measure_offsets(opts->drift_ms);
}
