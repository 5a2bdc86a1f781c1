# SPDX-License-Identifier: MIT
"""What the guest prints and the documents the runner reads and writes: the record model.

  record     the typed model (Record, Report, Runner, Env, Clock, Host), its one loader
             (load_record, read_input) and the one writer (write_json)
  manifest   a matrix folder's manifest, typed, and its constants
  report     the guest's JSON report (clockbench/2): extraction, validation, summaries
  osreport   clockbench-user's document (clockbench-os/1), framed and checked the same way
  console    cleaning serial-console lines and parsing the guest's KTAP and environment
  histogram  the log-linear histogram a report's distributions carry, and JSON layout
  parse      the `parse` command
"""
