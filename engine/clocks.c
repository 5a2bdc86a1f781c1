// SPDX-License-Identifier: MIT
/* The clock table, the platform section and the shared clock checks. */
#include <stdio.h>
#include <string.h>

#include "drivers/acpi_pm.h"
#include "drivers/hpet.h"
#include "drivers/pit.h"
#include "drivers/tsc.h"
#include "hypervisor/kvmclock.h"
#include "hypervisor/xen.h"
#include "engine/clocks.h"
#include "lib/ktap.h"

#define NS_PER_S 1000000000.0

/* Rate measurement: reads of the pair before giving up on a stuck one. */
#define RATE_MAX_READS	     50000000ull
#define RATE_BRACKET_TRIES   8
#define RATE_CHECK_TRIES     3
#define RATE_GOOD_ENOUGH_PPM 1000.0 /* narrow enough: no need to repeat */

static struct clock *const clock_table[] = {
	&tsc_clock,  &tsc_rdtscp_clock, &tsc_ordered_clock,
	&hpet_clock, &acpi_pm_clock,	&pit_clock,
	&kvm_clock,  &xen_pvclock,	NULL,
};

/* Best first: the reference for rates and for TSC calibration. */
static const char *const reference_order[] = { "hpet", "acpi_pm", "pit" };

struct clock *const *clocks_all(void)
{
	return clock_table;
}

struct clock *clocks_find(const char *name)
{
	struct clock *const *c;

	for (c = clock_table; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

const struct clock *clocks_reference_for(const struct clock *c)
{
	size_t i;

	for (i = 0; i < sizeof(reference_order) / sizeof(reference_order[0]);
	     i++) {
		const struct clock *ref = clocks_find(reference_order[i]);

		if (ref && ref->present &&
		    (!c || (!clock_same_counter(ref, c) &&
			    ref != c->calibrated_against)))
			return ref;
	}
	return NULL;
}

const struct clock *clocks_reference(void)
{
	return clocks_reference_for(NULL);
}

static bool is_tsc(const struct clock *c)
{
	return !strncmp(c->name, "tsc", 3);
}

static void probe_one(struct clock *c, const struct clock_env *env)
{
	c->absent_reason[0] = '\0';
	c->present = c->probe(c, env) == 0;
	if (!c->present && !c->absent_reason[0])
		snprintf(c->absent_reason, sizeof(c->absent_reason),
			 "its probe gave no reason");
}

void clocks_probe(const struct clock_env *env)
{
	struct clock *const *c;

	for (c = clock_table; *c; c++)
		if (!is_tsc(*c))
			probe_one(*c, env);
	for (c = clock_table; *c; c++)
		if (is_tsc(*c))
			probe_one(*c, env);
}

/* One bracket: reference, clock, reference; the narrowest of a few. */
struct bracket {
	uint64_t ref_before, value, ref_after;
};

static struct bracket best_bracket(const struct clock *c,
				   const struct clock *ref)
{
	struct bracket best = { 0 }, b;
	uint64_t best_width = ~0ull;
	int i;

	for (i = 0; i < RATE_BRACKET_TRIES; i++) {
		b.ref_before = ref->read();
		b.value = c->read();
		b.ref_after = ref->read();
		if (clock_delta(ref, b.ref_before, b.ref_after) < best_width) {
			best = b;
			best_width =
				clock_delta(ref, b.ref_before, b.ref_after);
		}
	}
	return best;
}

int clock_measure_rate(const struct clock *c, const struct clock *ref,
		       uint64_t interval_ns, struct clock_rate *out, char *why,
		       size_t whylen)
{
	struct bracket start = best_bracket(c, ref);
	uint64_t want =
		(uint64_t)((double)interval_ns * ref->freq_hz / NS_PER_S);
	uint64_t ref_last = start.ref_after, c_last = start.value;
	uint64_t ref_acc = clock_delta(ref, start.ref_before, start.ref_after);
	uint64_t c_acc = 0, reads;
	double start_width = (double)ref_acc, start_mid = ref_acc / 2.0;
	/* The narrowest of the last few brackets, as at the start. */
	double end_mid = 0, end_width = -1, end_c = 0;
	int end_tries = 0;

	/* Follow both counters through their wraps: each loop reads the
	 * clock between two reads of the reference. */
	for (reads = 0; end_tries < RATE_BRACKET_TRIES; reads++) {
		uint64_t c_now, ref_now, ref_before = ref_acc;

		if (reads == RATE_MAX_READS) {
			snprintf(why, whylen,
				 "%s did not advance %.0f ms in %llu reads",
				 ref->name, interval_ns / 1e6,
				 (unsigned long long)RATE_MAX_READS);
			return -1;
		}
		c_now = c->read();
		ref_now = ref->read();
		c_acc += clock_delta(c, c_last, c_now);
		ref_acc += clock_delta(ref, ref_last, ref_now);
		c_last = c_now;
		ref_last = ref_now;
		if (ref_acc < want)
			continue;
		end_tries++;
		if (end_width < 0 || ref_acc - ref_before < end_width) {
			end_width = (double)(ref_acc - ref_before);
			end_mid = (ref_before + ref_acc) / 2.0;
			end_c = (double)c_acc;
		}
	}
	if (end_c == 0) {
		snprintf(why, whylen, "%s did not advance while %s ran %.0f ms",
			 c->name, ref->name, interval_ns / 1e6);
		return -1;
	}
	out->interval_s = (end_mid - start_mid) / ref->freq_hz;
	out->hz = end_c / out->interval_s;
	/* Each midpoint is off by at most half its bracket; add one count
	 * of the reference for its resolution. */
	out->uncertainty_ppm = ((start_width + end_width) / 2.0 + 1.0) /
			       (end_mid - start_mid) * 1e6;
	return 0;
}

static void format_hz(char *buf, size_t len, double hz)
{
	if (hz >= 1e9)
		snprintf(buf, len, "%.6f GHz", hz / 1e9);
	else if (hz >= 1e6)
		snprintf(buf, len, "%.6f MHz", hz / 1e6);
	else
		snprintf(buf, len, "%.3f kHz", hz / 1e3);
}

static void format_flags(char *buf, size_t len, unsigned int flags)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < clock_flag_count && used < len; i++)
		if (flags & clock_flag_names[i].flag)
			used += snprintf(buf + used, len - used, ", %s",
					 clock_flag_names[i].words);
}

static void report_tsc_features(void)
{
	const struct tsc_features *f = tsc_features();

	printf("  %-16s invariant %s, rdtscp %s, TSC-deadline %s, TSC_ADJUST "
	       "%s",
	       "tsc features", f->invariant ? "yes" : "no",
	       f->rdtscp ? "yes" : "no", f->deadline ? "yes" : "no",
	       f->tsc_adjust ? "yes" : "no");
	if (f->tsc_adjust && f->tsc_adjust_read)
		printf(" (%lld)", (long long)f->tsc_adjust_value);
	else if (f->tsc_adjust)
		printf(" (unreadable)");
	printf("\n");
	if (f->cpuid_frequency[0])
		printf("  %-16s CPUID: %s\n", "tsc frequency",
		       f->cpuid_frequency);
}

void clocks_report_platform(void)
{
	struct clock *const *cp;

	printf("# clocks\n");
	for (cp = clock_table; *cp; cp++) {
		const struct clock *c = *cp;
		char hz[32], flags[96];

		if (!c->present) {
			printf("  %-12s absent: %s\n", c->name,
			       c->absent_reason);
			continue;
		}
		format_hz(hz, sizeof(hz), (double)c->freq_hz);
		format_flags(flags, sizeof(flags), c->flags);
		printf("  %-12s present  %s (%s), %u-bit%s\n", c->name, hz,
		       c->freq_source, c->width_bits, flags);
		if (c->notes[0])
			printf("  %-12s %s\n", "", c->notes);
	}
	report_tsc_features();
}

int clock_measure_rate_best(const struct clock *c, const struct clock *ref,
			    uint64_t interval_ns, struct clock_rate *best,
			    char *why, size_t whylen)
{
	struct clock_rate rate = { 0 };
	int i, found = 0;

	for (i = 0; i < RATE_CHECK_TRIES; i++) {
		if (clock_measure_rate(c, ref, interval_ns, &rate, why, whylen))
			return -1;
		if (!found++ || rate.uncertainty_ppm < best->uncertainty_ppm)
			*best = rate;
		if (best->uncertainty_ppm < RATE_GOOD_ENOUGH_PPM)
			break;
	}
	return 0;
}

void clocks_check(void)
{
	if (kvm_clock.present)
		report(kvm_clock_failed_reads() == 0,
		       "kvm_clock: no read met a stuck or ever-changing "
		       "version (%lu did)",
		       kvm_clock_failed_reads());
	if (xen_pvclock.present)
		report(xen_pvclock_failed_reads() == 0,
		       "xen_pvclock: no read met a stuck or ever-changing "
		       "version (%lu did)",
		       xen_pvclock_failed_reads());
	if (hpet_clock.present)
		report(hpet_torn_reads() == 0,
		       "hpet: 64-bit reads as halves never kept tearing (%lu "
		       "did)",
		       hpet_torn_reads());
}
