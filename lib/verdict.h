/* SPDX-License-Identifier: MIT */
/*
 * A run's verdict and how it leaves the machine.  Under QEMU the verdict is
 * written to the isa-debug-exit port, and QEMU exits with
 * (code << 1) | 1; the runner (tools/clockbench) maps that status back.
 * Status 0 and 1 therefore never mean a verdict: QEMU uses them for a
 * guest that reset or powered off, and for its own failures.
 */
#ifndef CLOCKBENCH_LIB_VERDICT_H
#define CLOCKBENCH_LIB_VERDICT_H

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_SKIP,
	VERDICT_ERROR, /* the test or its environment is broken */
};

/* "PASS", "FAIL", "SKIP" or "ERROR", as the final console line prints it. */
const char *verdict_name(enum verdict v);

/* "pass", "fail", "skip" or "error", as the JSON report's "verdict". */
const char *verdict_key(enum verdict v);

/* The value written to isa-debug-exit: 1 pass, 2 fail, 3 skip, 4 error. */
unsigned int verdict_exit_code(enum verdict v);

/* QEMU's exit status for that value: 3 pass, 5 fail, 7 skip, 9 error. */
unsigned int verdict_qemu_status(enum verdict v);

#endif
