// SPDX-License-Identifier: MIT
/* Cross-CPU offsets from bracketed reads, and drift by weighted fit (pure). */
#include <math.h>

#include "lib/skew.h"

int skew_best_offset(const struct skew_bracket *b, size_t n,
		     struct skew_offset *out)
{
	const struct skew_bracket *best = NULL;
	uint64_t best_width_ns = 0;
	size_t i;

	*out = (struct skew_offset){ .offset_ns = NAN, .uncertainty_ns = NAN };
	if (b == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t width_ns;

		if (b[i].local_after_ns < b[i].local_before_ns)
			continue;
		out->used++;
		/* Unsigned: after >= before, so this cannot overflow. */
		width_ns = (uint64_t)b[i].local_after_ns -
			   (uint64_t)b[i].local_before_ns;
		if (best == NULL || width_ns < best_width_ns) {
			best = &b[i];
			best_width_ns = width_ns;
		}
	}
	if (best == NULL)
		return -1;
	/* In double: exact while the times stay below 2^53 ns (104 days). */
	out->offset_ns = (double)best->remote_ns -
			 (double)best->local_before_ns -
			 (double)best_width_ns / 2;
	out->uncertainty_ns = (double)best_width_ns / 2;
	return 0;
}

/*
 * sqrt(x) for finite x > 0 without libm: glibc's sqrt() lives in libm, and
 * gcc's __builtin_sqrt keeps a call to it for errno's sake.  Halving the
 * exponent bits gives a first guess within about 6 % for a normal x; each
 * Newton step then squares the relative error, so about five steps reach
 * the last bit.  A subnormal x starts further off and takes more; the cap
 * only bounds the loop.
 */
static double skew_sqrt(double x)
{
	union {
		double d;
		uint64_t bits;
	} guess = { .d = x };
	double r, next;
	int i;

	guess.bits = (guess.bits >> 1) + ((uint64_t)1023 << 51);
	r = guess.d;
	for (i = 0; i < 64; i++) {
		next = 0.5 * (r + x / r);
		if (next == r)
			break;
		r = next;
	}
	return r;
}

static void skew_fit_fail(struct skew_fit *out)
{
	*out = (struct skew_fit){ .slope = NAN,
				  .slope_uncertainty = NAN,
				  .intercept = NAN };
}

/* The uncertainty a point counts with: an exact point gets a tiny one. */
static double skew_fit_uncertainty(double u)
{
	return u > SKEW_FIT_MIN_UNCERTAINTY ? u : SKEW_FIT_MIN_UNCERTAINTY;
}

int skew_fit_line(const double *t, const double *y, const double *u, size_t n,
		  struct skew_fit *out)
{
	double u_min, sum_w = 0, sum_wt = 0, sum_wy = 0, t_mean, y_mean;
	double s_tt = 0, s_ty = 0;
	int t_varies = 0;
	size_t i;

	skew_fit_fail(out);
	if (n < 2 || t == NULL || y == NULL || u == NULL)
		return -1;
	u_min = skew_fit_uncertainty(u[0]);
	for (i = 0; i < n; i++) {
		if (!isfinite(t[i]) || !isfinite(y[i]) || !isfinite(u[i]) ||
		    u[i] < 0)
			return -1;
		if (t[i] != t[0])
			t_varies = 1;
		if (skew_fit_uncertainty(u[i]) < u_min)
			u_min = skew_fit_uncertainty(u[i]);
	}
	if (!t_varies)
		return -1;

	/*
	 * Weights relative to the best point, (u_min / u)^2 <= 1, so that tiny
	 * uncertainties cannot overflow the sums; the true weighted S_tt is
	 * s_tt / u_min^2.  Sums about the weighted means, for precision when t
	 * is large (ns since boot) and spans little.
	 */
	for (i = 0; i < n; i++) {
		double r = u_min / skew_fit_uncertainty(u[i]);
		double w = r * r;

		sum_w += w;
		sum_wt += w * t[i];
		sum_wy += w * y[i];
	}
	t_mean = sum_wt / sum_w;
	y_mean = sum_wy / sum_w;
	for (i = 0; i < n; i++) {
		double r = u_min / skew_fit_uncertainty(u[i]);
		double w = r * r;

		s_tt += w * (t[i] - t_mean) * (t[i] - t_mean);
		s_ty += w * (t[i] - t_mean) * (y[i] - y_mean);
	}
	/* The points with weight all share one t: no slope. */
	if (!(s_tt > 0) || !isfinite(s_tt) || !isfinite(s_ty))
		return -1;
	out->slope = s_ty / s_tt;
	/* sqrt(1 / S_tt_w) = sqrt(u_min^2 / s_tt) */
	out->slope_uncertainty = u_min / skew_sqrt(s_tt);
	out->intercept = y_mean - out->slope * t_mean;
	return 0;
}
