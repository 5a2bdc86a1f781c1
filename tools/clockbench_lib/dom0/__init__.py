# SPDX-License-Identifier: MIT
"""Building the project's Linux dom0 (tools/dom0-build, docs/dom0.md).

  dom0build  the builder: the pinned packages, the initramfs contents
  cpio       the newc writer
  elffile    the ELF reader (NEEDED, .modinfo)
"""
