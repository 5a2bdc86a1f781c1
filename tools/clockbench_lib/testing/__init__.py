# SPDX-License-Identifier: MIT
"""The boot tests of tests/tests.cfg: the list, the checks, the results.

  testlist      reading tests/tests.cfg
  reportchecks  facts tests.cfg's report= checks require of the guest's report
  jsonmatch     tests.cfg's json= expectations on a run's record
  testreport    `test`'s TAP 13 lines, kselftest totals and JUnit XML
"""
