/* SPDX-License-Identifier: MIT */
/* The CPUs the run started: their environment lines, and their checks. */
#ifndef CLOCKBENCH_ENGINE_CPUS_H
#define CLOCKBENCH_ENGINE_CPUS_H

/** The environment lines for the CPUs. */
void smp_print(void);

/** Checks: each CPU came online (unless held) and runs on_cpu() work. */
void smp_checks(void);

#endif
