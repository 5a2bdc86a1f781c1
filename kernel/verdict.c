// SPDX-License-Identifier: MIT
/* Verdict names and exit codes (pure; host-tested). */
#include "kernel/verdict.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "PASS";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_FAIL:
	default:
		return "FAIL";
	}
}

unsigned int verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return 1;
	case VERDICT_SKIP:
		return 3;
	case VERDICT_FAIL:
	default:
		return 2;
	}
}

unsigned int verdict_qemu_status(enum verdict v)
{
	return (verdict_exit_code(v) << 1) | 1;
}
