# SPDX-License-Identifier: MIT
"""The verdict: which clocksource to use here, what it costs, whether it stays safe, and
whether Linux would keep it (docs/verdict.md).

  model      what the modules hand one another: a watchdog prediction, Linux's own
             decision as a clockbench-user document read it back, their agreement
  linuxcs    the clocksources Linux 6.1 registers here: ratings, flags, the TSC's
             exemption and instability at boot (docs/watchdog.md)
  watchdog   predict(): Linux's clocksource watchdog replayed on the record's reads,
             per pair and setting (at rest, each lifecycle event)
  choice     predict_choice(): the clocksource Linux would pick by itself, and why
  linuxread  decisions(): Linux's own decisions from clockbench-user's document
  agree      agreements(): each prediction beside Linux's decision
  verdict    the verdict of one environment: the clocksource to use, its cost, evidence
  cost       the seed's arithmetic: the share of a CPU at a read rate, the most reads
  evidence   the safety evidence of each clocksource: warps, offsets, drift, events
  text       the verdict as a paragraph and as JSON (clockbench-verdict/1)
"""
