// SPDX-License-Identifier: MIT
/* CLOCKBENCH_GPR_ONLY: built with general registers only (see the Makefile). */
/* The pvclock step monitor (see hypervisor/pvclock_step.h). */
#include <string.h>

#include "hypervisor/pvclock_step.h"

/* As in hypervisor/pvclock.c: orders the loads before it ahead of the
 * loads after it (a compiler barrier on x86, whose loads stay in order). */
static inline void step_read_fence(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static bool shift_in_range(int8_t shift)
{
	return shift < 64 && shift > -64;
}

int pvclock_params_read(const volatile struct vcpu_time_info *ti,
			uint64_t (*read_tsc)(void), unsigned int max_tries,
			struct pvclock_params *out, uint64_t *tsc)
{
	unsigned int attempt;

	if (!max_tries)
		max_tries = 1;
	for (attempt = 0; attempt < max_tries; attempt++) {
		uint32_t version_after;

		out->version = ti->version;
		step_read_fence();
		*tsc = read_tsc();
		out->tsc_timestamp = ti->tsc_timestamp;
		out->system_time = ti->system_time;
		out->mul_frac = ti->tsc_to_system_mul;
		out->shift = ti->tsc_shift;
		out->flags = ti->flags;
		step_read_fence();
		version_after = ti->version;
		if (!(out->version & 1) && version_after == out->version)
			return 0;
	}
	return -1;
}

int pvclock_params_time(const struct pvclock_params *p, uint64_t tsc,
			int64_t *ns)
{
	if (!shift_in_range(p->shift))
		return -1;
	/* system_time is unsigned ns since the hypervisor's origin; as the
	 * difference of two such times is what is wanted, wrapping int64
	 * arithmetic gives it exactly while they lie within 292 years. */
	if (tsc >= p->tsc_timestamp)
		*ns = (int64_t)(p->system_time +
				pvclock_scale_delta(tsc - p->tsc_timestamp,
						    p->mul_frac, p->shift));
	else
		*ns = (int64_t)(p->system_time -
				pvclock_scale_delta(p->tsc_timestamp - tsc,
						    p->mul_frac, p->shift));
	return 0;
}

int pvclock_step_ns(const struct pvclock_params *old,
		    const struct pvclock_params *new, uint64_t tsc,
		    int64_t *step)
{
	int64_t before, after;

	if (pvclock_params_time(old, tsc, &before) ||
	    pvclock_params_time(new, tsc, &after))
		return -1;
	*step = (int64_t)((uint64_t)after - (uint64_t)before);
	return 0;
}

int64_t pvclock_step_bound_ns(const struct pvclock_params *p)
{
	uint64_t one = pvclock_scale_delta(1, p->mul_frac, p->shift);

	/* A cycle scales to floor(ns); its true worth is below one more. */
	return (int64_t)(one > (uint64_t)INT64_MAX - 2 ? INT64_MAX - 2 : one) +
	       2;
}

void pvclock_step_init(struct pvclock_step_monitor *m)
{
	memset(m, 0, sizeof(*m));
	hist_init(&m->step_ns);
}

void pvclock_step_pause(struct pvclock_step_monitor *m)
{
	m->started = false;
}

static void note_flags(struct pvclock_step_monitor *m, uint8_t before,
		       const struct pvclock_params *now)
{
	struct pvclock_flag_change *c;

	if (before == now->flags)
		return;
	if (m->nr_changes == PVCLOCK_FLAG_HISTORY) {
		m->changes_dropped++;
		return;
	}
	c = &m->changes[m->nr_changes++];
	c->update = m->updates;
	c->version = now->version;
	c->before = before;
	c->after = now->flags;
}

static void count_step(struct pvclock_step_monitor *m,
		       const struct pvclock_params *now, int64_t step)
{
	hist_record(&m->step_ns, step);
	if (step > m->largest_forward_ns)
		m->largest_forward_ns = step;
	if (step < m->largest_back_ns)
		m->largest_back_ns = step;
	if (!(m->last.flags & now->flags & XEN_PVCLOCK_TSC_STABLE_BIT))
		return;
	m->stable_updates++;
	if (step < -pvclock_step_bound_ns(now) &&
	    step < -pvclock_step_bound_ns(&m->last)) {
		m->stable_back_beyond++;
		if (step < m->stable_worst_back_ns)
			m->stable_worst_back_ns = step;
	}
}

bool pvclock_step_poll(struct pvclock_step_monitor *m,
		       const volatile struct vcpu_time_info *ti, uint64_t tsc,
		       uint64_t (*read_tsc)(void), unsigned int max_tries)
{
	struct pvclock_params now;
	uint64_t at;
	int64_t step;
	uint32_t version = ti->version;

	if (m->started && tsc > m->last_poll_tsc)
		m->watched_cycles += tsc - m->last_poll_tsc;
	m->polls++;
	if (m->started && version == m->last.version) {
		m->last_poll_tsc = tsc;
		return false;
	}
	if (version & 1)
		m->odd_polls++;
	if (pvclock_params_read(ti, read_tsc, max_tries, &now, &at)) {
		m->unreadable++;
		m->last_poll_tsc = tsc;
		return false;
	}
	if (at > tsc && m->started)
		m->watched_cycles += at - tsc;
	m->last_poll_tsc = at > tsc ? at : tsc;
	if (!m->started) {
		if (!m->ever_started)
			m->first_flags = now.flags;
		else
			note_flags(m, m->last.flags, &now);
		m->ever_started = true;
		m->last = now;
		m->started = true;
		return false;
	}
	m->updates++;
	if (pvclock_step_ns(&m->last, &now, at, &step))
		m->refused++;
	else
		count_step(m, &now, step);
	note_flags(m, m->last.flags, &now);
	m->last = now;
	return true;
}
