/* SPDX-License-Identifier: MIT */
/*
 * How a run ends: the verdict line, then the machine left the way the
 * exit= option says (the platform's part: platform_leave()).
 */
#ifndef CLOCKBENCH_BASE_EXIT_H
#define CLOCKBENCH_BASE_EXIT_H

#include "lib/options.h"
#include "lib/verdict.h"

/** Choose how run_exit() leaves the machine (default EXIT_AUTO). */
void run_set_exit_method(enum exit_method method);

/**
 * End the run: print "clockbench: VERDICT", drain the console, then leave
 * the machine the chosen way, first saying how ("clockbench: ending the
 * run: ...") unless isa-debug-exit ends it.  Never returns; halts when
 * nothing else worked.
 */
__attribute__((noreturn)) void run_exit(enum verdict verdict);

/**
 * Say how the run ends, after the verdict, whenever that is not by
 * isa-debug-exit: QEMU then ends without the verdict in its status (power
 * off, reset) or does not end at all (halt), and the runner takes the
 * console's verdict once this line follows it
 * (tools/clockbench_lib/model/console.py: "clockbench: ending the run: ...";
 * a way that starts with "halt" leaves the machine on).
 */
void run_announce_end(const char *how);

#endif
