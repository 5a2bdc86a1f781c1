// SPDX-License-Identifier: MIT
/*
 * The foundation's own checks (see report/run.h): when one of these does
 * not hold, the test itself is broken, so it is an error, not a failure of
 * what is measured.
 */
#include <string.h>

#include "base/extable.h"
#include "lib/x86.h"
#include "report/run.h"

/* A check of the test's own foundation: passed, or an error. */
static void foundation(struct ktap *k, bool ok, const char *name)
{
	if (ok)
		report(k, true, "%s", name);
	else
		report_error(k, "%s", name);
}

void report_selftest_checks(const struct run_report *run, struct ktap *k)
{
	const struct selftest_result *s = &run->selftest;
	const uint64_t long_mode = EFER_LME | EFER_LMA;

	/* boot/ set EFER.LME; the CPU set LMA entering long mode. */
	foundation(k, s->efer_read && (s->efer & long_mode) == long_mode,
		   "rdmsr_safe reads EFER with long mode on");
	report_info(
		k, "EFER (%#x) %s %#llx", s->efer_msr,
		s->efer_read ? "=" : "faulted:", (unsigned long long)s->efer);
	if (s->absent_read) {
		report_skip(k, "rdmsr_safe reports an absent MSR as not "
			       "supported");
		report_info(k,
			    "MSR %#x returned %#llx: this hypervisor ignores "
			    "unknown MSRs, so the #GP path is not exercised",
			    s->absent_msr, (unsigned long long)s->absent_value);
	} else {
		foundation(k, s->absent_value == 0,
			   "rdmsr_safe reports an absent MSR as not supported");
		report_info(k, "MSR %#x", s->absent_msr);
	}
	foundation(k, s->ud2_fault == (EXTABLE_FAULTED | X86_EXC_UD),
		   "exception table: ud2 resumes at its fixup and reports #UD");
	report_info(k, "got %#llx", (unsigned long long)s->ud2_fault);
	foundation(k, s->sse_kept, "SSE registers survive an exception");
	foundation(k, !strcmp(s->newlib_text, SELFTEST_NEWLIB_TEXT),
		   "newlib formats floats and 64-bit integers");
	report_info(k, "\"%s\"", s->newlib_text);
	foundation(k, s->qsort_sorted, "newlib qsort sorts");
	foundation(k, s->heap_bounded,
		   "heap: an allocation past the heap fails with ENOMEM and "
		   "the heap still works");
	report_info(k, "%u KiB heap", s->heap_kib);
	foundation(k, s->guard_unmapped && s->stack_mapped,
		   "the page below the boot stack is an unmapped guard page");
}
