# SPDX-License-Identifier: MIT
"""Host-side runner for clockbench: builds, boots and judges test images under QEMU.

Modules:
  outcome   exit statuses, verdicts and how QEMU's status maps to them
  console   cleaning serial-console lines and parsing the guest's report
  qemu      KVM detection, dependency checks and QEMU command lines
  process   running QEMU with a timeout while logging its output
  testlist  reading tests/tests.cfg
  boot      one boot from start to verdict (shared by `run` and `test`)
  cli       the `run` and `test` subcommands
"""
