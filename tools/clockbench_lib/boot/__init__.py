# SPDX-License-Identifier: MIT
"""Booting an image: QEMU and Xen command lines, the Linux boots, running QEMU, and one
boot from start to verdict with its record.

  qemu       KVM detection, dependency checks and QEMU command lines
  xen        Xen under QEMU: its command line, and what Xen's own console lines say
  linux      the Linux boots of clockbench-user: command lines and the judgement
  acpipatch  the patched firmware tables of the hostile-environment boots
  cpumodel   the -cpu model this host's KVM starts
  kvmprobe   whether this host's KVM emulates guest ring 0 (one probe boot)
  guestopts  the image's guest options (build/guest-options.json): checks and help
  process    running QEMU with a timeout while logging its output (and counting it)
  contend    --contend: a busy loop pinned beside each vCPU thread (QMP, sched_setaffinity)
  runinfo    the runner member of a run's record: host, versions, revision, argv, times
  once       one boot from start to verdict (shared by `run`, `test` and `matrix`)
  bootgate   which boots run alone when boot tests run side by side
"""
