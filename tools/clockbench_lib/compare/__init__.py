# SPDX-License-Identifier: MIT
"""Running the image in every environment, and comparing the results.

  matrix    `clockbench matrix`: every environment, N runs each, and a manifest
  command   `clockbench compare`: the tables, CSV, plots or HTML, and the --fail-above gate
  inputs    what compare reads (matrix folders, reports, logs), grouped into rows that
            never merge different hosts or setups
  cells     a Cell per thing measured and row: medians, ranges, ratios, and their text
  clocks    the clocks table, its flags and the notes (verdicts, runs left out)
  change    before/after per environment: ratios with a bootstrap interval, the gate
  summary   the answer first: at most five lines before the tables
  pooled    --percentiles: read-cost percentiles pooled over the runs' histograms
  ticks     the tick costs table
  xentable  per kind of Xen guest: a xen_pvclock and a tsc read and their ratio
  ostable   per clocksource: the raw read beside clock_gettime (clockbench-user)
  table     compare's one table writer: aligned text, Markdown (escaped) and CSV
  plot      compare --plot: every figure the reports allow, built, then saved
  plotbase  what the figures share: matplotlib on demand, styles, the floor, captions
  plotcosts the read-cost and percentile figures
  plotcross the cross-CPU figure: offsets, drift, warps
  plotticks the tick-cost figure
  html      compare --html: one self-contained HTML report with findings, tables, plots
"""
