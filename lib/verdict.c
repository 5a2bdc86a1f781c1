// SPDX-License-Identifier: MIT
/* Verdict names and exit codes (pure; host-tested). */
#include "boot/boot.h"
#include "lib/verdict.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "PASS";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_ERROR:
		return "ERROR";
	case VERDICT_FAIL:
	default:
		return "FAIL";
	}
}

unsigned int verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return ISA_DEBUG_EXIT_PASS;
	case VERDICT_SKIP:
		return ISA_DEBUG_EXIT_SKIP;
	case VERDICT_ERROR:
		return ISA_DEBUG_EXIT_ERROR;
	case VERDICT_FAIL:
	default:
		return ISA_DEBUG_EXIT_FAIL;
	}
}

unsigned int verdict_qemu_status(enum verdict v)
{
	return (verdict_exit_code(v) << 1) | 1;
}
