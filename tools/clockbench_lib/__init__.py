# SPDX-License-Identifier: MIT
"""Host-side runner for clockbench: builds, boots and judges test images under QEMU.

A package per job, bottom to top (tools/layers.cfg says which may import which):
  base     paths, exit statuses and errors, the host's facts, the project's revision
  model    the record model (typed Record, Report, Runner; one loader), the console, the
           report (clockbench/2), clockbench-user's document, histograms
  boot     QEMU, Xen and Linux boots, running QEMU, one boot from start to verdict
  dom0     building the project's Linux dom0 (tools/dom0-build)
  testing  the boot tests of tests/tests.cfg: the list, the checks, the TAP results
  compare  `matrix` and `compare`: every environment, and the reports side by side
  host     `clockbench host`: clockbench-user on this machine itself
and at the top:
  cli      the command line: argument parsing, then one call per command
  version  --version: the project's version and revision, the schema versions
"""
