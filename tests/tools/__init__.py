# SPDX-License-Identifier: MIT
"""Tests of the host runner tools/clockbench."""
