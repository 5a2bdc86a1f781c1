// SPDX-License-Identifier: MIT
/*
 * Event points (engine/lifecycle.h).  Each one: a sync (the console's
 * round trip), the cross-CPU offsets and each clock's rate and read cost,
 * "ready", then every vCPU reads every followed clock in a tight loop
 * (CPU 0 polling the console's input between rounds) until the host's
 * "done" or the bound, then the same measurements after.  Meanwhile CPU 0
 * keeps a slow heartbeat of every clock and takes the interrupts of the
 * timer armed across the event (engine/lifecycle_timer.c).  Every wait is
 * bounded by the stopwatch, every read unwrapped against the one before.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/console.h"
#include "base/cpu.h"
#include "base/platform.h"
#include "base/smp.h"
#include "base/stopwatch.h"
#include "drivers/tsc.h"
#include "engine/clocks.h"
#include "engine/crosscpu.h"
#include "engine/lifecycle.h"
#include "engine/lifecycle_timer.h"
#include "hypervisor/kvmclock.h"
#include "hypervisor/pvclock.h"
#include "hypervisor/xen.h"
#include "lib/progress.h"

/* A clock that wraps faster than this has an ambiguous advance over any
 * event worth the name (the PIT's 16 bits: 55 ms): not followed. */
#define WRAP_MIN_NS (2 * NS_PER_S)
/* The windows the rates before and after are measured over. */
#define RATE_WINDOW_MS 50
#define COST_READS     64
/* The cross-CPU offsets before and after: a short warp test and a few
 * rounds of brackets (engine/crosscpu.c). */
#define OFFSET_WARP_MS	5
#define OFFSET_DRIFT_MS 20
#define SYNC_WAIT_MS	10000
/* Between two rounds of the wait, a pause without a single exit: every clock
 * read but the TSC's, and every poll of the UART, is a trip into the
 * emulator that holds its lock, and a loop of nothing else starves the
 * thread that hands the host's line to the UART. */
#define WAIT_ROUND_GAP_NS 20000
#define AP_WAIT_MS	  1000

struct followed {
	unsigned int nr;
	const struct clock *clock[LIFECYCLE_MAX_CLOCKS];
};

/* Each vCPU's loop: its own last reads, its own counts. */
struct sampler {
	uint64_t last[LIFECYCLE_MAX_CLOCKS];
	uint64_t last_tsc;
	uint64_t advance[LIFECYCLE_MAX_CLOCKS]; /* raw counts, unwrapped */
	uint64_t largest_step[LIFECYCLE_MAX_CLOCKS];
	/* Where each one's largest step began: the TSC, and the clock's
	 * unwrapped advance. */
	uint64_t step_tsc[LIFECYCLE_MAX_CLOCKS],
		step_from[LIFECYCLE_MAX_CLOCKS];
	uint64_t back_steps[LIFECYCLE_MAX_CLOCKS];
	uint64_t worst_back[LIFECYCLE_MAX_CLOCKS]; /* raw counts */
	uint64_t loops;
	/* The longest time between two reads in a row, by the TSC: where it
	 * began and ended (CPU 0's is the event as the timer saw it). */
	uint64_t gap_start_tsc, gap_end_tsc;
	bool started;
	/* An AP's own part of a restored domain, set up again when it saw
	 * the platform's restore count change: how many times, and why not
	 * the last time it could not ("" when it could). */
	unsigned int restores, resumed;
	char resume_problem[LIFECYCLE_TEXT_LEN / 2];
};

static struct followed followed;
/* MAX_CPUS of them, from the heap when events are asked (19 KiB: the image
 * must end below 8 MiB, mem-min's RAM). */
static struct sampler *samplers;
static volatile bool samplers_stop;
static struct pvsteps_result *pvsteps;

static void sampler_read(struct sampler *s)
{
	uint64_t now_tsc = tsc_read_ordered();
	unsigned int k;

	for (k = 0; k < followed.nr; k++) {
		const struct clock *c = followed.clock[k];
		uint64_t now = c->read() & clock_mask(c->width_bits);
		uint64_t fwd = clock_delta(c, s->last[k], now);
		uint64_t half = clock_mask(c->width_bits) / 2;

		if (!s->started) {
			s->last[k] = now;
			continue;
		}
		/* Past half the wrap, a 64-bit clock went back; a narrower
		 * one did too when the TSC says little time passed. */
		if (fwd > half &&
		    (c->width_bits >= 64 ||
		     stopwatch_ns((double)(now_tsc - s->last_tsc)) <
			     (double)clock_ns(c, half) / 2)) {
			uint64_t back = clock_delta(c, now, s->last[k]);

			s->back_steps[k]++;
			if (back > s->worst_back[k])
				s->worst_back[k] = back;
		} else {
			s->advance[k] += fwd;
			if (fwd > s->largest_step[k]) {
				s->largest_step[k] = fwd;
				s->step_tsc[k] = s->last_tsc;
				s->step_from[k] = s->advance[k] - fwd;
			}
		}
		s->last[k] = now;
	}
	if (s->started &&
	    now_tsc - s->last_tsc > s->gap_end_tsc - s->gap_start_tsc) {
		s->gap_start_tsc = s->last_tsc;
		s->gap_end_tsc = now_tsc;
	}
	s->last_tsc = now_tsc;
	s->started = true;
	s->loops++;
	pvsteps_poll(pvsteps, (unsigned int)(s - samplers), now_tsc);
}

/* CPU 0 reads every followed clock once: the TSC that round took. */
static uint64_t sample_round(void)
{
	uint64_t start = stopwatch_read();

	sampler_read(&samplers[0]);
	return stopwatch_read() - start;
}

static void pause_round(void)
{
	uint64_t end = stopwatch_read() + stopwatch_cycles(WAIT_ROUND_GAP_NS);

	while (stopwatch_read() < end)
		cpu_relax();
}

/* On an AP: after CPU 0 brought the domain back from a restore, this
 * CPU's own part (its time record, its event channels) again. */
static void ap_resume_if_restored(struct sampler *s)
{
	unsigned int restores = platform_restores();

	if (restores == s->restores)
		return;
	s->restores = restores;
	s->resumed++;
	s->resume_problem[0] = '\0';
	platform_cpu_resumed(s->resume_problem, sizeof(s->resume_problem));
}

static void ap_sampler(void *arg)
{
	struct sampler *s = &samplers[cpu_index()];

	(void)arg;
	s->restores = platform_restores();
	while (!__atomic_load_n(&samplers_stop, __ATOMIC_ACQUIRE)) {
		sampler_read(s);
		ap_resume_if_restored(s);
		pause_round();
	}
	/* A restore in the loop's last round is taken up all the same. */
	ap_resume_if_restored(s);
}

static void choose_clocks(struct lifecycle_result *out)
{
	struct clock *const *cp;

	followed.nr = 0;
	for (cp = clocks_all(); *cp; cp++) {
		const struct clock *c = *cp;
		size_t used = strlen(out->left_out);

		if (!c->present)
			continue;
		if (clock_ns(c, clock_mask(c->width_bits)) < WRAP_MIN_NS ||
		    followed.nr == LIFECYCLE_MAX_CLOCKS) {
			snprintf(
				out->left_out + used,
				sizeof(out->left_out) - used, "%s%s (%s)",
				used ? "; " : "", c->name,
				followed.nr == LIFECYCLE_MAX_CLOCKS
					? "no room"
					: "wraps in under 2 s, so its "
					  "advance over an event is ambiguous");
			continue;
		}
		followed.clock[followed.nr++] = c;
	}
}

/* --- the console's input ---------------------------------------------------- */

struct input {
	char line[HOSTLINE_MAX + 1];
	size_t len;
	bool overlong;
	/* When the line's first byte came: the TSC, and where CPU 0's loop
	 * was (each clock's advance). */
	uint64_t first_tsc, first_advance[LIFECYCLE_MAX_CLOCKS];
	uint64_t first_round; /* the TSC the reads at the first byte took */
	/* Lines that were not the host's (a stray key press), dropped. */
	unsigned int stray;
};

static struct input input;

/* A whole host line from the console's input into @out, when one has come:
 * 1; 0 while none; -1 with @why for a host line that does not parse.
 * When @sample (CPU 0's loop is sampling), every clock is read again at a
 * line's first byte: the loop's last reads may lie on the far side of a
 * suspend the guest has just come back from (a save stops it anywhere in
 * its loop), and a line already waiting then would take their advance. */
static int input_poll(struct host_event *out, char *why, size_t whylen,
		      bool sample)
{
	int byte;

	while ((byte = platform_console_read_byte()) >= 0) {
		if (byte != '\n' && byte != '\r') {
			if (input.len == 0) {
				input.first_round = sample ? sample_round() : 0;
				input.first_tsc = stopwatch_read();
				memcpy(input.first_advance, samplers[0].advance,
				       sizeof(input.first_advance));
			}
			if (input.len == HOSTLINE_MAX)
				input.overlong = true;
			else
				input.line[input.len++] = (char)byte;
			continue;
		}
		if (input.len == 0)
			continue;
		if (input.overlong) {
			input.len = 0;
			input.overlong = false;
			snprintf(why, whylen,
				 "a console input line over %u bytes was "
				 "dropped",
				 HOSTLINE_MAX);
			return -1;
		}
		if (!hostline_is_host_line(input.line, input.len)) {
			input.len = 0; /* a stray key press: not for us */
			input.stray++;
			continue;
		}
		byte = hostline_parse(input.line, input.len, out, why, whylen);
		input.len = 0;
		return byte ? -1 : 1;
	}
	return 0;
}

/* --- before and after -------------------------------------------------------- */

static void snapshot_all(uint64_t *raw)
{
	unsigned int k;

	for (k = 0; k < followed.nr; k++)
		raw[k] = followed.clock[k]->read();
}

static double raw_ns(const struct clock *c, uint64_t from, uint64_t to)
{
	return (double)clock_ns(c, clock_delta(c, from, to));
}

static int followed_index(const struct clock *c)
{
	unsigned int k;

	for (k = 0; k < followed.nr; k++)
		if (followed.clock[k] == c)
			return (int)k;
	return -1;
}

/* Rates against each one's reference, and read costs, into @e: @after
 * says which half. */
static void rates_and_costs(struct lifecycle_event *e, bool after)
{
	uint64_t a[LIFECYCLE_MAX_CLOCKS], b[LIFECYCLE_MAX_CLOCKS], end;
	unsigned int k, i;

	snapshot_all(a);
	end = stopwatch_read() + stopwatch_cycles(RATE_WINDOW_MS * 1e6);
	while (stopwatch_read() < end)
		cpu_relax();
	snapshot_all(b);
	for (k = 0; k < followed.nr; k++) {
		const struct clock *c = followed.clock[k];
		const struct clock *ref = clocks_reference_for(c);
		int r = ref ? followed_index(ref) : -1;
		double ppm = NAN, cost;
		uint64_t t0, t1;

		if (r >= 0) {
			double ref_ns = raw_ns(ref, a[r], b[r]);

			if (ref_ns > 0)
				ppm = (raw_ns(c, a[k], b[k]) / ref_ns - 1) *
				      1e6;
		}
		t0 = tsc_read_ordered();
		for (i = 0; i < COST_READS; i++)
			(void)c->read();
		t1 = tsc_read_ordered();
		cost = stopwatch_ns((double)(t1 - t0)) / COST_READS;
		if (after) {
			e->clocks[k].rate_after_ppm = ppm;
			e->clocks[k].cost_after_ns = cost;
		} else {
			e->clocks[k].rate_before_ppm = ppm;
			e->clocks[k].cost_before_ns = cost;
		}
	}
}

/* CPU 0's pvclock record now: kvm-clock's where there is one, else Xen's. */
static int pvclock_sample_now(struct pvclock_sample *s)
{
	return kvm_clock.present ? kvm_clock_sample(s) : xen_pvclock_sample(s);
}

static void pvclock_sample_into(struct lifecycle_pvclock *p, bool after)
{
	struct pvclock_sample s;
	bool ok;

	if (!p->present)
		return;
	ok = pvclock_sample_now(&s) == 0;
	if (after) {
		p->ok_after = ok;
		p->version_after = s.version;
		p->flags_after = s.flags;
	} else {
		p->ok_before = ok;
		p->version_before = s.version;
		p->flags_before = s.flags;
	}
}

static void offsets_into(struct lifecycle_event *e, bool after)
{
	/* From the heap, for the moment it is needed: 43 KiB. */
	struct xcpu_result *x;
	unsigned int i, cpu;

	if (smp_cpus_online() < 2)
		return;
	x = malloc(sizeof(*x));
	if (!x) {
		progress("event %u: no offsets %s: the heap has no room for "
			 "them",
			 e->seq, after ? "after" : "before");
		return;
	}
	xcpu_measure(&(struct xcpu_options){ .warp_ms = OFFSET_WARP_MS,
					     .drift_ms = OFFSET_DRIFT_MS },
		     x);
	for (i = 0; x->applies && i < x->nr; i++) {
		int k = followed_index(x->clocks[i].clock);

		if (k < 0)
			continue;
		for (cpu = 1; cpu < x->ncpu && cpu < MAX_CPUS; cpu++) {
			const struct xcpu_per_cpu *pc = &x->clocks[i].cpu[cpu];
			typeof(e->clocks[k].cpu[cpu]) *o =
				&e->clocks[k].cpu[cpu];

			if (!pc->offset_ok)
				continue;
			if (after) {
				o->ok_after = true;
				o->after_ns = pc->offset.offset_ns;
				o->after_unc_ns = pc->offset.uncertainty_ns;
			} else {
				o->ok_before = true;
				o->before_ns = pc->offset.offset_ns;
				o->before_unc_ns = pc->offset.uncertainty_ns;
			}
		}
	}
	free(x);
}

/* --- one event ------------------------------------------------------------------ */

/* Where CPU 0's loop was when the first byte of the awaited line came: a
 * line takes milliseconds to trickle into the UART, and only its first
 * byte's delay is the round trip's.  The line's own: a stray line before
 * it (dropped) must not move it. */
static uint64_t first_byte_tsc, first_byte_advance[LIFECYCLE_MAX_CLOCKS];
static uint64_t first_byte_round;

/* From the last ping's first byte to the guest's pong, by the TSC. */
static double ping_held_ns;

/* "ready" as CPU 0's loop saw it: the TSC, and each clock's advance. */
static uint64_t ready_tsc, ready_advance[LIFECYCLE_MAX_CLOCKS];

/* A heartbeat into @e when its interval has passed since the last. */
static void heartbeat(struct lifecycle_event *e, uint64_t now_tsc)
{
	struct lifecycle_heartbeat *b;
	double at_ns = stopwatch_ns((double)(now_tsc - ready_tsc));
	unsigned int i, k;

	if (e->nr_beats &&
	    at_ns - e->beats[e->nr_beats - 1].tsc_ns < e->beat_interval_ns)
		return;
	if (e->nr_beats == LIFECYCLE_HEARTBEATS) {
		for (i = 0; i < LIFECYCLE_HEARTBEATS / 2; i++)
			e->beats[i] = e->beats[2 * i];
		e->nr_beats = LIFECYCLE_HEARTBEATS / 2;
		e->beat_interval_ns *= 2;
	}
	b = &e->beats[e->nr_beats++];
	b->tsc_ns = at_ns;
	for (k = 0; k < followed.nr; k++)
		b->advance_ns[k] = (double)clock_ns(followed.clock[k],
						    samplers[0].advance[k] -
							    ready_advance[k]);
}

/* Wait for the host's line of @kind for event @e->seq, at most @wait_ms,
 * reading every clock meanwhile when @sample: 0, or -1 with the problem
 * in @e. */
static int wait_host(struct lifecycle_event *e, enum hostline_kind kind,
		     struct host_event *got, unsigned int wait_ms, bool sample)
{
	uint64_t start = stopwatch_read();
	uint64_t bound = stopwatch_cycles((double)wait_ms * 1e6);
	char why[LIFECYCLE_TEXT_LEN - 40];
	uint32_t last_version = e->pvclock.version_before;
	unsigned int stray = input.stray;
	int rc;

	for (;;) {
		if (sample) {
			sampler_read(&samplers[0]);
			heartbeat(e, samplers[0].last_tsc);
			if (e->pvclock.present) {
				struct pvclock_sample s;

				if (pvclock_sample_now(&s) == 0) {
					if (s.flags & XEN_PVCLOCK_GUEST_STOPPED)
						e->pvclock.stopped_seen = true;
					if (s.version != last_version)
						e->pvclock.updates++;
					last_version = s.version;
				}
			}
		}
		if (sample) {
			char said[LIFECYCLE_TEXT_LEN - 40];
			int polled;

			/* A suspend takes no interrupt on its way. */
			lifecycle_timer_hold(&e->timer, true);
			polled = platform_event_poll(said, sizeof(said));
			lifecycle_timer_hold(&e->timer, false);

			if (polled > 0) {
				e->suspended++;
				pvsteps_refresh(pvsteps);
			}
			if (polled && said[0])
				snprintf(e->platform_said,
					 sizeof(e->platform_said), "%s", said);
		}
		rc = input_poll(got, why, sizeof(why), sample);
		e->stray_lines += input.stray - stray;
		stray = input.stray;
		if (rc < 0) {
			snprintf(e->problem, sizeof(e->problem),
				 "the host's line is unusable: %s", why);
			return -1;
		}
		if (rc > 0 && got->seq != e->seq) {
			snprintf(e->problem, sizeof(e->problem),
				 "the host answered event %u while event %u "
				 "waited",
				 got->seq, e->seq);
			return -1;
		}
		if (rc > 0 && got->kind == HOSTLINE_ABORT) {
			e->aborted = true;
			snprintf(e->problem, sizeof(e->problem),
				 "the host could not carry out event %u "
				 "(its runner says why)",
				 e->seq);
			return -1;
		}
		if (rc > 0 && got->kind == HOSTLINE_PING) {
			/* The host asks whether the way back works after the
			 * event: at once, and how long the guest held it. */
			uint64_t held = stopwatch_read() - input.first_tsc;

			printf("clockbench-event %u pong\n", e->seq);
			e->pings++;
			ping_held_ns = stopwatch_ns((double)held);
		} else if (rc > 0 && got->kind == kind) {
			first_byte_tsc = input.first_tsc;
			first_byte_round = input.first_round;
			memcpy(first_byte_advance, input.first_advance,
			       sizeof(first_byte_advance));
			return 0;
		}
		pause_round();
		if (stopwatch_read() - start > bound) {
			snprintf(e->problem, sizeof(e->problem),
				 "no answer from the host within %u ms "
				 "(\"clockbench-host %u %s ...\" on the "
				 "console's input)",
				 wait_ms, e->seq,
				 kind == HOSTLINE_SYNC ? "sync" : "done");
			return -1;
		}
	}
}

/* What the APs did after a restore in the wait (the platform's count of
 * restores was @restores before it), into @e. */
static void resumes_into(struct lifecycle_event *e, unsigned int restores)
{
	unsigned int cpu;

	if (platform_restores() == restores)
		return;
	for (cpu = 1; cpu < smp_nr_cpus() && cpu < MAX_CPUS; cpu++) {
		const struct sampler *s = &samplers[cpu];

		if (!smp_cpu(cpu)->online)
			continue;
		e->cpus_to_resume++;
		if (s->resumed && !s->resume_problem[0])
			e->cpus_resumed++;
		else if (!e->cpu_resume_problem[0])
			snprintf(e->cpu_resume_problem,
				 sizeof(e->cpu_resume_problem), "CPU %u: %s",
				 cpu,
				 s->resumed ? s->resume_problem
					    : "it never saw the restore");
	}
}

static int run_event(struct lifecycle_event *e, struct tick_source *timer,
		     unsigned int wait_ms)
{
	uint64_t t0, t1, ready_round, adv0[LIFECYCLE_MAX_CLOCKS];
	unsigned int k, cpu, ncpu = smp_nr_cpus(),
			     restores = platform_restores();

	e->reached = true;
	e->pvclock.present = kvm_clock.present || xen_pvclock.present;
	e->pvclock.clock =
		kvm_clock.present ? kvm_clock.name : xen_pvclock.name;
	for (k = 0; k < followed.nr; k++) {
		e->clocks[k].clock = followed.clock[k];
		e->clocks[k].rate_before_ppm = e->clocks[k].rate_after_ppm =
			NAN;
	}
	e->nr_clocks = followed.nr;
	e->round_trip_after_ns = NAN;
	/* The round trip, with nothing happening. */
	t0 = stopwatch_read();
	printf("clockbench-event %u sync\n", e->seq);
	if (wait_host(e, HOSTLINE_SYNC, &e->sync,
		      wait_ms < SYNC_WAIT_MS ? wait_ms : SYNC_WAIT_MS, false))
		return -1;
	/* To the answer's first byte: the rest of the line trickles in a
	 * FIFO's worth at a time, and the done line's advance ends there too. */
	e->round_trip_ns = stopwatch_ns((double)(first_byte_tsc - t0)) -
			   (double)(e->sync.value[HOST_SENT_NS] -
				    e->sync.value[HOST_READY_NS]);
	if (e->round_trip_ns < 0)
		e->round_trip_ns = 0;
	offsets_into(e, false);
	rates_and_costs(e, false);
	pvclock_sample_into(&e->pvclock, false);

	memset(samplers, 0, MAX_CPUS * sizeof(*samplers));
	__atomic_store_n(&samplers_stop, false, __ATOMIC_RELEASE);
	for (cpu = 1; cpu < ncpu; cpu++)
		if (smp_cpu(cpu)->online)
			on_cpu_post(cpu, ap_sampler, NULL);
	if (timer)
		lifecycle_timer_arm(timer, wait_ms, &e->timer);
	ready_round = sample_round();
	memcpy(adv0, samplers[0].advance, sizeof(adv0));
	memcpy(ready_advance, adv0, sizeof(ready_advance));
	ready_tsc = samplers[0].last_tsc;
	e->beat_interval_ns = LIFECYCLE_HEARTBEAT_FIRST_NS;
	t0 = stopwatch_read();
	printf("clockbench-event %u ready\n", e->seq);
	e->sampled = true;
	sampler_read(&samplers[0]);
	if (wait_host(e, HOSTLINE_DONE, &e->host, wait_ms, true) == 0)
		e->answered = true;
	/* Each clock's two reads lie somewhere in their rounds. */
	e->read_rounds_ns = stopwatch_ns(
		(double)(ready_round + (e->answered ? first_byte_round : 0)));
	if (e->answered && e->pings && host_event_has(&e->host, HOST_PING_NS)) {
		e->round_trip_after_ns = (double)(e->host.value[HOST_PONG_NS] -
						  e->host.value[HOST_PING_NS]) -
					 ping_held_ns;
		if (e->round_trip_after_ns < 0)
			e->round_trip_after_ns = 0;
	}
	t1 = stopwatch_read();
	sampler_read(&samplers[0]);
	if (timer)
		lifecycle_timer_finish(timer, ready_tsc,
				       samplers[0].gap_start_tsc,
				       samplers[0].gap_end_tsc, &e->timer);
	__atomic_store_n(&samplers_stop, true, __ATOMIC_RELEASE);
	for (cpu = 1; cpu < ncpu; cpu++)
		if (smp_cpu(cpu)->online)
			on_cpu_wait(cpu, AP_WAIT_MS);
	for (cpu = 0; cpu < ncpu; cpu++)
		pvsteps_pause(pvsteps, cpu, PVSTEPS_SPAN_LIFECYCLE);
	resumes_into(e, restores);
	e->waited_ns = stopwatch_ns((double)(t1 - t0));
	memcpy(e->kind, e->host.event, sizeof(e->kind));
	for (k = 0; k < followed.nr; k++) {
		struct lifecycle_clock *lc = &e->clocks[k];
		const struct clock *c = followed.clock[k];

		lc->advance_ns = (double)clock_ns(
			c, (e->answered ? first_byte_advance[k]
					: samplers[0].advance[k]) -
				   adv0[k]);
		lc->largest_step_ns =
			(double)clock_ns(c, samplers[0].largest_step[k]);
		lc->step_at_ns = stopwatch_ns(
			(double)(int64_t)(samplers[0].step_tsc[k] - ready_tsc));
		lc->step_from_ns =
			(double)clock_ns(c, samplers[0].step_from[k] - adv0[k]);
		for (cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
			const struct sampler *s = &samplers[cpu];
			double back = (double)clock_ns(c, s->worst_back[k]);

			e->loops[cpu] = s->loops;
			lc->back_steps += s->back_steps[k];
			if (s->back_steps[k] && back > lc->worst_back_ns) {
				lc->worst_back_ns = back;
				lc->back_cpu = cpu;
			}
		}
	}
	if (!e->answered)
		return -1;
	pvclock_sample_into(&e->pvclock, true);
	rates_and_costs(e, true);
	offsets_into(e, true);
	return 0;
}

void lifecycle_run(const struct lifecycle_options *opts,
		   struct lifecycle_result *out)
{
	const char *missing = platform_console_input_missing();
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->asked = opts->events;
	pvsteps = opts->pvsteps;
	out->wait_ms = opts->wait_ms;
	out->ncpu = smp_nr_cpus();
	if (!opts->events) {
		snprintf(out->reason, sizeof(out->reason),
			 "no event asked (events=0)");
		return;
	}
	if (missing) {
		snprintf(out->reason, sizeof(out->reason),
			 "the host cannot answer here: %s", missing);
		return;
	}
	if (!stopwatch_hz()) {
		snprintf(out->reason, sizeof(out->reason),
			 "the stopwatch has no rate, so no wait is bounded");
		return;
	}
	out->events = calloc(opts->events < LIFECYCLE_MAX_EVENTS
				     ? opts->events
				     : LIFECYCLE_MAX_EVENTS,
			     sizeof(*out->events));
	if (!samplers)
		samplers = calloc(MAX_CPUS, sizeof(*samplers));
	if (!out->events || !samplers) {
		snprintf(out->reason, sizeof(out->reason),
			 "the heap has no room for the events' records");
		return;
	}
	out->applies = true;
	choose_clocks(out);
	if (opts->probe)
		lifecycle_timer_choose(opts->probe, out);
	else
		snprintf(out->timer_why, sizeof(out->timer_why),
			 "no probe environment to find a timer with");
	for (i = 0; i < opts->events && i < LIFECYCLE_MAX_EVENTS; i++) {
		struct lifecycle_event *e = &out->events[i];

		e->seq = i + 1;
		out->nr = i + 1;
		progress("event %u of %u: waiting for the host (at most %u "
			 "ms)",
			 e->seq, opts->events, opts->wait_ms);
		if (run_event(e, out->timer, opts->wait_ms))
			break; /* the host is gone or broken: no more events */
	}
}
