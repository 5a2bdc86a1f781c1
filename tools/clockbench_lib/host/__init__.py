# SPDX-License-Identifier: MIT
"""The host layer: clockbench-user on this machine itself (`clockbench host`).

  host  the `host` command: the program's tables streamed, its document checked
"""
