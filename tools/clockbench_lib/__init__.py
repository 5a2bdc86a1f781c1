# SPDX-License-Identifier: MIT
"""Host-side runner for clockbench: builds, boots and judges test images under QEMU.

Modules:
  paths     the repository root the runner works in (or its installed copy), and where it writes
  outcome   exit statuses, verdicts and how QEMU's status maps to them
  console   cleaning serial-console lines and parsing the guest's KTAP and environment
  report    the guest's JSON report (clockbench/2): extraction, validation, tables
  reportchecks  facts tests.cfg's report= checks require of that report
  qemu      KVM detection, dependency checks and QEMU command lines
  xen       Xen under QEMU: its command line, and what Xen's own console lines say
  process   running QEMU with a timeout while logging its output
  testlist  reading tests/tests.cfg
  testreport  `test`'s TAP 13 lines, kselftest totals and JUnit XML
  guestopts the image's guest options (build/guest-options.json): checks and help
  version   --version: the project's version and revision, the schema versions
  revision  the project's version and revision alone (for runinfo)
  hostinfo  the host's name, CPU and kernel, and a program's version line
  runinfo   the runner member of a run's record: host, versions, revision, argv, times
  boot      one boot from start to verdict (shared by `run` and `test`), and its record
  matrix    `clockbench matrix`: every environment, N runs each, and a manifest
  compare   `clockbench compare`: reports side by side across environments, never
            merging different hosts or setups, and the --fail-above gate
  table     compare's one table writer: aligned text, Markdown (escaped) and CSV
  plot      compare's plots
  html      compare --html: one self-contained HTML report with findings, tables, plots
  cli       the `run`, `test`, `parse`, `matrix` and `compare` subcommands
"""
