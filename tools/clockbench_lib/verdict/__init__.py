# SPDX-License-Identifier: MIT
"""The verdict: which clocksource to use here, what it costs, whether it stays safe, and
whether Linux would keep it (docs/verdict.md).

  model      what the modules hand one another: a watchdog prediction, Linux's own
             decision as a clockbench-user document read it back, their agreement
"""
