# SPDX-License-Identifier: MIT
"""The boot tests of tests/tests.cfg: the list, the assertions, the results.

  testlist      reading tests/tests.cfg
  checkmatch    check= assertions: the guest's own checks, by name and result
  jsonmatch     json= assertions on a run's record
  reportchecks  facts report= checks require of the guest's report
  testreport    `test`'s TAP 13 lines, kselftest totals and JUnit XML
  boottest      `clockbench test`: the chosen tests prepared, run side by side, judged
"""
