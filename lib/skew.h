/* SPDX-License-Identifier: MIT */
/*
 * Cross-CPU clock arithmetic: the offset of a remote reading from bracketed
 * reads, and a weighted straight-line fit for drift.  Pure (only <stdint.h>,
 * <stddef.h>, <math.h>, and no libm call, so the host tests link without
 * -lm); compiled into the kernel and into a host unit test.
 *
 * Every time here is in ns of one clock.  Drift in ppm is the fitted slope
 * times 1e6 when both t and y are in ns.
 */
#ifndef CLOCKBENCH_LIB_SKEW_H
#define CLOCKBENCH_LIB_SKEW_H

#include <stddef.h>
#include <stdint.h>

/* One bracketed remote read, all in ns of the same clock, relative to the
 * first local read: local_before_ns is normally 0. */
struct skew_bracket {
	int64_t local_before_ns;
	int64_t remote_ns;
	int64_t local_after_ns;
};

struct skew_offset {
	double offset_ns;      /* remote minus the bracket's midpoint */
	double uncertainty_ns; /* half the bracket's width */
	size_t used;	       /* valid brackets among those given */
};

/**
 * The offset of the remote clock from the local one (positive: the remote
 * reads ahead), from the narrowest valid bracket among @n; valid means
 * local_after_ns >= local_before_ns.  The remote read happened somewhere
 * inside its bracket, so the narrowest bracket pins it best: offset_ns =
 * remote - (before + after) / 2, and the true offset lies within
 * +/- uncertainty_ns = (after - before) / 2 of it.  Equally narrow
 * brackets: the first given wins.
 *
 * Returns 0, or -1 when no bracket is valid (none given, or @b NULL); then
 * out->used is 0 and offset_ns and uncertainty_ns are NaN.
 */
int skew_best_offset(const struct skew_bracket *b, size_t n,
		     struct skew_offset *out);

struct skew_fit {
	double slope; /* dy/dt: ns per ns when both are ns (x 1e6 = ppm) */
	double slope_uncertainty; /* one standard error, from the given u */
	double intercept;	  /* y at t == 0, in y's unit */
};

/* An uncertainty of 0 (an exact point) counts as this, in y's unit (ns). */
#define SKEW_FIT_MIN_UNCERTAINTY 1e-6

/**
 * Weighted least squares of y against t: each y[i] has uncertainty u[i]
 * (one standard deviation, in y's unit), weight 1 / u[i]^2; u[i] == 0 is
 * treated as SKEW_FIT_MIN_UNCERTAINTY, so exact points dominate the rest.
 *
 * slope_uncertainty is the standard error that the given uncertainties
 * imply, sqrt(1 / S_tt_w) with S_tt_w = sum w (t - t_w)^2 and t_w the
 * weighted mean of t.  It is not scaled by the scatter of the residuals:
 * if the points scatter more than their u says, it is optimistic.  Half
 * bracket widths as u bound each error rather than give its standard
 * deviation (a uniform error within +/- u has sigma u / sqrt(3)), so with
 * them it errs the other way, on the safe side.  With exact points
 * (u == 0) it is the tiny bound that SKEW_FIT_MIN_UNCERTAINTY implies.
 *
 * Returns 0, or -1 with fewer than 2 points, all t equal (or only
 * negligibly weighted points elsewhere), any t, y or u not finite, or any
 * u negative; *out is then all NaN.
 */
int skew_fit_line(const double *t, const double *y, const double *u, size_t n,
		  struct skew_fit *out);

#endif
