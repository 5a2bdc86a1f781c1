// SPDX-License-Identifier: MIT
/*
 * Unit tests: cross-CPU offsets and drift fits (lib/skew.c), on
 * synthetic brackets and lines whose answer is known.  No libm: the Makefile
 * links unit tests with -lcmocka only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/skew.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double tolerance)
{
	if (!(__builtin_fabs(got - want) <= tolerance))
		fail_msg("got %.17g, want %.17g within %g", got, want,
			 tolerance);
}

/* A bracket around a remote read at @offset_ns from its midpoint. */
static struct skew_bracket bracket(int64_t before_ns, int64_t width_ns,
				   int64_t offset_ns)
{
	/* An even width keeps the midpoint whole. */
	return (struct skew_bracket){
		.local_before_ns = before_ns,
		.remote_ns = before_ns + width_ns / 2 + offset_ns,
		.local_after_ns = before_ns + width_ns,
	};
}

/* The narrowest of several brackets decides, whatever its place. */
static void offset_narrowest_wins(void **state)
{
	/* Each wide bracket holds a misleading offset; the 40 ns one is true. */
	struct skew_bracket b[] = {
		bracket(0, 400, 150),	  bracket(1000, 120, -50),
		bracket(2000, 40, 12),	  bracket(3000, 60, 25),
		bracket(4000, 1000, 400),
	};
	struct skew_offset off;

	(void)state;
	assert_int_equal(skew_best_offset(b, ARRAY_SIZE(b), &off), 0);
	assert_close(off.offset_ns, 12, 0);
	assert_close(off.uncertainty_ns, 20, 0);
	assert_int_equal(off.used, ARRAY_SIZE(b));
}

/* A remote clock behind the local one; an odd width halves to .5 ns. */
static void offset_negative_and_odd_width(void **state)
{
	struct skew_bracket b[] = {
		{ .local_before_ns = 0,
		  .remote_ns = -5000,
		  .local_after_ns = 31 },
		bracket(500, 64, -7000),
	};
	struct skew_offset off;

	(void)state;
	assert_int_equal(skew_best_offset(b, ARRAY_SIZE(b), &off), 0);
	assert_close(off.offset_ns, -5015.5, 0);
	assert_close(off.uncertainty_ns, 15.5, 0);
	/* Equally narrow: the first one given wins. */
	b[1] = b[0];
	b[1].remote_ns = 0;
	assert_int_equal(skew_best_offset(b, ARRAY_SIZE(b), &off), 0);
	assert_close(off.offset_ns, -5015.5, 0);
}

/*
 * After before: the local clock stepped back or the reads were reordered.
 * Such a bracket looks narrowest of all but proves nothing: skipped.
 */
static void offset_invalid_brackets_skipped(void **state)
{
	struct skew_bracket b[] = {
		{ .local_before_ns = 100,
		  .remote_ns = 9999,
		  .local_after_ns = 90 },
		bracket(0, 80, 33),
		{ .local_before_ns = INT64_MAX,
		  .remote_ns = 0,
		  .local_after_ns = INT64_MIN },
		bracket(0, 0, -3), /* zero width: valid and exact */
	};
	struct skew_offset off;

	(void)state;
	assert_int_equal(skew_best_offset(b, 2, &off), 0);
	assert_close(off.offset_ns, 33, 0);
	assert_close(off.uncertainty_ns, 40, 0);
	assert_int_equal(off.used, 1);
	assert_int_equal(skew_best_offset(b, ARRAY_SIZE(b), &off), 0);
	assert_close(off.offset_ns, -3, 0);
	assert_close(off.uncertainty_ns, 0, 0);
	assert_int_equal(off.used, 2);
}

static void offset_none_valid(void **state)
{
	struct skew_bracket b[] = {
		{ .local_before_ns = 10, .remote_ns = 5, .local_after_ns = 9 },
		{ .local_before_ns = 0, .remote_ns = 0, .local_after_ns = -1 },
	};
	struct skew_offset off = { .used = 7 };

	(void)state;
	assert_int_equal(skew_best_offset(b, ARRAY_SIZE(b), &off), -1);
	assert_int_equal(off.used, 0);
	/* NaN, so a careless caller prints null, not a number. */
	assert_true(off.offset_ns != off.offset_ns);
	assert_true(off.uncertainty_ns != off.uncertainty_ns);
	assert_int_equal(skew_best_offset(b, 0, &off), -1);
	assert_int_equal(skew_best_offset(NULL, 0, &off), -1);
}

/* Uniform in [-1, 1), from a fixed 64-bit LCG (Knuth's MMIX constants). */
static double noise_unit(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*seed >> 11) / (double)(1ULL << 52) - 1.0;
}

#define DRIFT_PPM   5.0
#define FIT_POINTS  10
#define FIT_SPAN_NS 1e9 /* 1 s of run */

/*
 * Offsets sampled over 1 s of a remote clock running 5 ppm fast, starting
 * 300 ns ahead, each off by up to its stated uncertainty (uniform noise,
 * some points better measured than others).  The fit must find 5 ppm
 * within its stated uncertainty, and that uncertainty must be the one the
 * error bars imply: slope_uncertainty^2 * sum w (t - t_w)^2 == 1.
 */
static void fit_recovers_drift(void **state)
{
	double t[FIT_POINTS], y[FIT_POINTS], u[FIT_POINTS];
	unsigned int within_one = 0, trial;
	const unsigned int trials = 20;

	(void)state;
	for (trial = 0; trial < trials; trial++) {
		uint64_t seed = 0x5eed0000 + trial;
		double sum_w = 0, sum_wt = 0, s_tt = 0, t_w, error;
		struct skew_fit fit;
		size_t i;

		for (i = 0; i < FIT_POINTS; i++) {
			t[i] = 1e12 +
			       FIT_SPAN_NS * (double)i / (FIT_POINTS - 1);
			u[i] = 20 + 10 * (double)(i % 3);
			y[i] = 300 + DRIFT_PPM * 1e-6 * (t[i] - 1e12) +
			       u[i] * noise_unit(&seed);
			sum_w += 1 / (u[i] * u[i]);
			sum_wt += t[i] / (u[i] * u[i]);
		}
		t_w = sum_wt / sum_w;
		for (i = 0; i < FIT_POINTS; i++)
			s_tt += (t[i] - t_w) * (t[i] - t_w) / (u[i] * u[i]);

		assert_int_equal(skew_fit_line(t, y, u, FIT_POINTS, &fit), 0);
		assert_close(fit.slope_uncertainty * fit.slope_uncertainty *
				     s_tt,
			     1, 1e-9);
		/* About 30 ns over 1 s: 3e-8, i.e. 0.03 ppm. */
		assert_true(fit.slope_uncertainty > 1e-8 &&
			    fit.slope_uncertainty < 1e-7);
		error = __builtin_fabs(fit.slope - DRIFT_PPM * 1e-6);
		/* Uniform noise within the bars: sigma is the bar / sqrt(3). */
		assert_true(error <= 3 * fit.slope_uncertainty);
		if (error <= fit.slope_uncertainty)
			within_one++;
		/* The line passes 300 ns at t = 1e12 ns. */
		assert_close(fit.intercept + fit.slope * 1e12, 300, 30);
	}
	/* At least the 68 % a Gaussian gives; uniform noise gives more. */
	assert_true(within_one >= trials * 68 / 100);
}

/* Exact points: the exact line, and an uncertainty bounded by the floor. */
static void fit_exact_points(void **state)
{
	double t[] = { 0, 2.5e8, 5e8, 7.5e8, 1e9 };
	double y[ARRAY_SIZE(t)], u[ARRAY_SIZE(t)] = { 0 };
	struct skew_fit fit;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++)
		y[i] = -40 - 2e-6 * t[i];
	assert_int_equal(skew_fit_line(t, y, u, ARRAY_SIZE(t), &fit), 0);
	assert_close(fit.slope, -2e-6, 1e-18);
	assert_close(fit.intercept, -40, 1e-9);
	/* SKEW_FIT_MIN_UNCERTAINTY / sqrt(S_tt), S_tt = 6.25e17 ns^2 */
	assert_true(fit.slope_uncertainty > 0);
	assert_close(fit.slope_uncertainty, 1e-6 / 7.90569415042095e8, 1e-25);
}

/* Two points: the line through them; equal weights. */
static void fit_two_points(void **state)
{
	double t[] = { 1000, 3000 }, y[] = { 10, 14 }, u[] = { 1, 1 };
	struct skew_fit fit;

	(void)state;
	assert_int_equal(skew_fit_line(t, y, u, 2, &fit), 0);
	assert_close(fit.slope, 0.002, 1e-15);
	assert_close(fit.intercept, 8, 1e-12);
	/* 1 / sqrt(2 * 1000^2) */
	assert_close(fit.slope_uncertainty, 7.0710678118654757e-4, 1e-17);
}

/*
 * An outlier 1 ms off: with a huge uncertainty it barely moves the slope,
 * with an ordinary one it drags the slope far off.
 */
static void fit_weights_matter(void **state)
{
	double t[FIT_POINTS + 1], y[FIT_POINTS + 1], u[FIT_POINTS + 1];
	struct skew_fit fit;
	size_t i;

	(void)state;
	for (i = 0; i < FIT_POINTS; i++) {
		t[i] = FIT_SPAN_NS * (double)i / (FIT_POINTS - 1);
		y[i] = DRIFT_PPM * 1e-6 * t[i];
		u[i] = 10;
	}
	t[FIT_POINTS] = FIT_SPAN_NS;
	y[FIT_POINTS] = DRIFT_PPM * 1e-6 * FIT_SPAN_NS + 1e6;

	u[FIT_POINTS] = 1e9;
	assert_int_equal(skew_fit_line(t, y, u, FIT_POINTS + 1, &fit), 0);
	assert_true(__builtin_fabs(fit.slope - DRIFT_PPM * 1e-6) <
		    0.01 * fit.slope_uncertainty);

	u[FIT_POINTS] = 10;
	assert_int_equal(skew_fit_line(t, y, u, FIT_POINTS + 1, &fit), 0);
	assert_true(__builtin_fabs(fit.slope - DRIFT_PPM * 1e-6) > 1e-4);
}

/* With points at a second t only through negligible weight: no slope. */
static void fit_negligible_spread(void **state)
{
	double t[] = { 0, 0, 1e9 }, y[] = { 1, 1, 5 }, u[] = { 0, 0, 1e300 };
	struct skew_fit fit;

	(void)state;
	assert_int_equal(skew_fit_line(t, y, u, 3, &fit), -1);
}

static void assert_fit_failed(const double *t, const double *y, const double *u,
			      size_t n)
{
	struct skew_fit fit = { 1, 1, 1 };

	assert_int_equal(skew_fit_line(t, y, u, n, &fit), -1);
	assert_true(fit.slope != fit.slope);
	assert_true(fit.slope_uncertainty != fit.slope_uncertainty);
	assert_true(fit.intercept != fit.intercept);
}

static void fit_refuses(void **state)
{
	double t[] = { 5e8, 5e8, 5e8 }, y[] = { 1, 2, 3 }, u[] = { 1, 1, 1 };
	double t_ok[] = { 0, 1, 2 };
	double bad_y[] = { 1, __builtin_nan(""), 3 };
	double bad_t[] = { 0, __builtin_inf(), 2 };
	double bad_u[] = { 1, -1, 1 };

	(void)state;
	assert_fit_failed(t, y, u, 3);	  /* all t equal */
	assert_fit_failed(t_ok, y, u, 1); /* one point */
	assert_fit_failed(t_ok, y, u, 0); /* none */
	assert_fit_failed(t_ok, bad_y, u, 3);
	assert_fit_failed(bad_t, y, u, 3);
	assert_fit_failed(t_ok, y, bad_u, 3);
	assert_fit_failed(NULL, y, u, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offset_narrowest_wins),
		cmocka_unit_test(offset_negative_and_odd_width),
		cmocka_unit_test(offset_invalid_brackets_skipped),
		cmocka_unit_test(offset_none_valid),
		cmocka_unit_test(fit_recovers_drift),
		cmocka_unit_test(fit_exact_points),
		cmocka_unit_test(fit_two_points),
		cmocka_unit_test(fit_weights_matter),
		cmocka_unit_test(fit_negligible_spread),
		cmocka_unit_test(fit_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
