/* SPDX-License-Identifier: MIT */
/*
 * Checks of the foundation itself (fault-tolerant MSR access, the
 * exception table, SSE state across exceptions, newlib, the heap bound, the
 * stack guard), and the exceptions `fault=` provokes on purpose.
 */
#ifndef CLOCKBENCH_ENGINE_SELFTEST_H
#define CLOCKBENCH_ENGINE_SELFTEST_H

#include "lib/options.h"

/** Run the foundation checks, reporting each through report(). */
void selftest_run(void);

/** Provoke the exception @fault names; returns only for FAULT_NONE. */
void selftest_provoke(enum fault_test fault);

#endif
