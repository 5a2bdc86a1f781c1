/* SPDX-License-Identifier: MIT */
/*
 * Progress lines: what a run is doing now and about how long it takes
 * ("# measuring tsc: ..."), the one way engines print anything.  Not part
 * of the report; readers skip "# " lines outside it.
 */
#ifndef CLOCKBENCH_LIB_PROGRESS_H
#define CLOCKBENCH_LIB_PROGRESS_H

/** One line "# @fmt ...". */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
