# SPDX-License-Identifier: MIT
"""The runner's base: what every other package may use, and which uses none of them.

  paths     the repository root the runner works in (or its installed copy), and where it writes
  outcome   exit statuses, verdicts, RunnerError, and how QEMU's status maps to a verdict
  hostinfo  the host's name, CPU and kernel, and a program's version line
  hoststate how busy the host was over a run (/proc/stat, load, other QEMUs, clocksource)
  revision  the project's version and revision
"""
