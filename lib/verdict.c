// SPDX-License-Identifier: MIT
/* Verdict names and exit codes (pure; host-tested). */
#include "boot/boot.h"
#include "lib/verdict.h"

/* Each verdict's words and code, in enum order. */
static const struct {
	const char *name, *key;
	unsigned int exit_code;
} verdicts[] = {
	[VERDICT_PASS] = { "PASS", "pass", ISA_DEBUG_EXIT_PASS },
	[VERDICT_FAIL] = { "FAIL", "fail", ISA_DEBUG_EXIT_FAIL },
	[VERDICT_SKIP] = { "SKIP", "skip", ISA_DEBUG_EXIT_SKIP },
	[VERDICT_ERROR] = { "ERROR", "error", ISA_DEBUG_EXIT_ERROR },
};

/* An unknown verdict is a failure. */
static enum verdict known(enum verdict v)
{
	return (unsigned int)v < sizeof(verdicts) / sizeof(verdicts[0])
		       ? v
		       : VERDICT_FAIL;
}

const char *verdict_name(enum verdict v)
{
	return verdicts[known(v)].name;
}

const char *verdict_key(enum verdict v)
{
	return verdicts[known(v)].key;
}

unsigned int verdict_exit_code(enum verdict v)
{
	return verdicts[known(v)].exit_code;
}

unsigned int verdict_qemu_status(enum verdict v)
{
	return (verdict_exit_code(v) << 1) | 1;
}
