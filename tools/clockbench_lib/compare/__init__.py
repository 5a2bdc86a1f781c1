# SPDX-License-Identifier: MIT
"""Running the image in every environment and comparing the results.

  matrix   `clockbench matrix`: every environment, N runs each, and a manifest
  compare  `clockbench compare`: reports side by side across environments, never merging
           different hosts or setups, and the --fail-above gate
  table    compare's one table writer: aligned text, Markdown (escaped) and CSV
  plot     compare's plots
  html     compare --html: one self-contained HTML report with findings, tables, plots
"""
