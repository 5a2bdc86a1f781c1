# SPDX-License-Identifier: MIT
"""clockbench in a LAVA lab (docs/lava.md).

  jobs     the job definitions (a qemu device, x86 hardware), their monitors, and the
           device configurations they run on
  logs     a LAVA job log, read: its console, its results, LAVA's verdict on the job
  results  `lava results`: LAVA's cases checked against the console, the run's record
  command  the `lava` command's options and its three commands
"""
