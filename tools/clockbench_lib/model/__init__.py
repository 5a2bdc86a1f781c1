# SPDX-License-Identifier: MIT
"""What the guest prints and the documents the runner reads: the record model.

  console    cleaning serial-console lines and parsing the guest's KTAP and environment
  report     the guest's JSON report (clockbench/2): extraction, validation, summaries
  osreport   clockbench-user's document (clockbench-os/1), framed and checked the same way
  histogram  the log-linear histogram a report's distributions carry, and JSON writing
"""
