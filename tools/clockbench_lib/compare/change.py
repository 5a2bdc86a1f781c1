# SPDX-License-Identifier: MIT
"""Before against after: each environment and clock paired with itself, the ratio of their
p50 read costs with an interval from the repeats, and the --fail-above gate.

A pair is two rows of one environment (and host, where both say it): the `before` input's
and the `after` input's (--before/--after, or two --labels), or, without two inputs to
pair, every row against the baseline row (--baseline).  The ratio is the after row's
median p50 over the runs divided by the before row's; its interval is a bootstrap over
the runs: BOOTSTRAP_RESAMPLES times, each side's runs are drawn again with replacement
(a random.Random seeded with BOOTSTRAP_SEED, so the same inputs give the same interval),
the ratio of the medians taken, and the central CONFIDENCE of those ratios kept.  A clock
fails the gate only when its ratio is above the limit and its interval lies wholly above 1
(the repeats cannot explain the change); with one run on both sides there is no interval
and the ratio alone is judged, as the line says."""

import random
import statistics
from dataclasses import dataclass

from .cells import csv_number, number_text, range_text
from .clocks import clock_order, run_p50s
from .table import Column, Row, Table

BOOTSTRAP_SEED = 32
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Pair:
    """Two rows to compare: `before` and `after` (row labels) of environment `env`."""

    env: str
    before: str
    after: str


@dataclass
class Change:
    """One clock of one Pair: the p50s (ns) of its runs on each side, the ratio of their
    medians and its interval (None with one run a side)."""

    clock: str
    pair: Pair
    before: list
    after: list
    ratio: float
    low: float = None
    high: float = None

    @property
    def noise_explains(self):
        """Whether the repeats could explain the change: its interval holds 1."""
        return self.low is not None and self.low <= 1 <= self.high

    def regressed(self, limit):
        """The gate's rule: the ratio above `limit`, and not explained by the repeats
        (the interval wholly above 1, or one run a side: the ratio alone)."""
        return self.ratio > limit and (self.low is None or self.low > 1)

    def interval_text(self):
        if self.low is None:
            return "no interval (one run a side)"
        return f"{CONFIDENCE:.0%} interval {range_text(self.low, self.high)}"


def ratio_interval(before, after, rng=None):
    """(ratio, low, high): median(after) / median(before) and its bootstrap interval over
    the runs (low, high None when both sides have one run, or a resampled before is 0)."""
    ratio = statistics.median(after) / statistics.median(before)
    if len(before) < 2 and len(after) < 2:
        return ratio, None, None
    rng = rng or random.Random(BOOTSTRAP_SEED)
    draws = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        base = statistics.median(rng.choices(before, k=len(before)))
        mine = statistics.median(rng.choices(after, k=len(after)))
        if base > 0:
            draws.append(mine / base)
    if not draws:
        return ratio, None, None
    draws.sort()
    tail = (1 - CONFIDENCE) / 2
    low = draws[int(tail * len(draws))]
    high = draws[min(len(draws) - 1, int((1 - tail) * len(draws)))]
    return ratio, low, high


def _env_and_host(runs):
    """(environment name, machine) of a row's runs: what a pair must share.  The machine
    is the host's name, CPU model and machine id, not its kernel, QEMU or Xen, whose
    upgrade may be the very change compared; None for a host the input does not name."""
    key = runs[0].key
    if key is None or key.host.startswith("input:"):
        return (key.env if key else None), None
    return key.env, (key.host, key.identity.cpu, key.identity.machine_id)


def label_pairs(inputs, before, after):
    """The Pairs of rows of label `before` and `after` of one environment, and sentences
    for the rows that have no partner.  Rows of one environment from several hosts pair
    by host; a side whose host is not named (reports before clockbench/2) pairs with the
    other side's only row of that environment."""
    sides = {before: {}, after: {}}
    for label, runs in inputs.runs.items():
        key = runs[0].key
        if key is not None and key.label in sides:
            sides[key.label].setdefault(key.env, []).append(label)
    pairs, alone = [], []
    for env, befores in sides[before].items():
        afters = list(sides[after].get(env, []))
        for row in befores:
            host = _env_and_host(inputs.runs[row])[1]
            match = [other for other in afters
                     if _env_and_host(inputs.runs[other])[1] == host]
            if not match and len(befores) == 1 and len(afters) == 1:
                match = afters
            if match:
                pairs.append(Pair(env, row, match[0]))
                afters.remove(match[0])
            else:
                alone.append(f"{row} has no {after} row of the same environment and host, "
                             f"so it is not compared.")
        alone += [f"{row} has no {before} row of the same environment and host, so it is "
                  f"not compared." for row in afters]
    alone += [f"{row} has no {before} row of the same environment, so it is not compared."
              for env, rows in sides[after].items() if env not in sides[before]
              for row in rows]
    return pairs, alone


def baseline_pairs(inputs, baseline):
    """Every row against the baseline row."""
    return [Pair(label, baseline, label) for label in inputs.runs if label != baseline]


def changes(inputs, pairs):
    """(the Changes of every clock measured on both sides of each pair, and the clocks
    that have no ratio as (why, "CLOCK in ENV")): why is `before` (not timed before, as
    xen_pvclock against a baseline without Xen), `after` (timed before, not after) or
    `zero` (a p50 of 0 ns before)."""
    found, one_side = [], []
    for clock_name in clock_order(inputs):
        for pair in pairs:
            before = run_p50s(inputs.runs[pair.before], clock_name)
            after = run_p50s(inputs.runs[pair.after], clock_name)
            if not before and not after:
                continue
            where = f"{clock_name} in {pair.env}"
            if not before or not after:
                one_side.append(("after" if before else "before", where))
            elif statistics.median(before) <= 0:
                one_side.append(("zero", where))
            else:
                found.append(Change(clock_name, pair, before, after,
                                    *ratio_interval(before, after)))
    return found, one_side


def not_gated_lines(one_side, before, after):
    """One sentence per reason a clock has no ratio, naming every such clock."""
    words = {"before": f"not timed in {before}, so there is nothing to compare it with",
             "after": f"timed in {before}, not in {after}",
             "zero": f"a p50 of 0 ns in {before}, so there is no ratio"}
    lines = []
    for why, text in words.items():
        where = [place for reason, place in one_side if reason == why]
        if where:
            lines.append(f"{', '.join(where)}: {text}.")
    return lines


def _runs(count):
    return f"{count} run{'s' * (count != 1)}"


def change_line(change, limit):
    """One line naming a clock that failed the gate and the figures it failed on."""
    pair = change.pair
    return (f"{change.clock} in {pair.env}: p50 {number_text(statistics.median(change.after))}"
            f" ns in {pair.after} ({_runs(len(change.after))}) against "
            f"{number_text(statistics.median(change.before))} ns in {pair.before} "
            f"({_runs(len(change.before))}): {change.ratio:.2f}x, {change.interval_text()}, "
            f"above --fail-above {limit:g}")


def verdict_text(change, limit=None):
    """What a change is, in a word or three: slower, faster, within the noise."""
    if limit is not None and change.regressed(limit):
        return "FAIL: slower"
    if change.noise_explains:
        return "within the noise"
    if change.low is None:
        return "slower" if change.ratio > 1 else "faster" if change.ratio < 1 else "same"
    return "slower" if change.low > 1 else "faster"


def change_table(found, limit=None, before="before", after="after"):
    """The before/after table: per clock and pair, both medians, the ratio, its interval
    and what it is; `before` and `after` name the sides in the headings."""
    columns = [Column("clock", True), Column("env", True), Column(f"{before} p50 ns"),
               Column(f"{after} p50 ns"), Column(f"{after} / {before}"),
               Column(f"{CONFIDENCE:.0%} interval"), Column("change", True)]
    rows = []
    for change in found:
        interval = "-" if change.low is None else range_text(change.low, change.high)
        rows.append(Row([change.clock, change.pair.env,
                         number_text(statistics.median(change.before)),
                         number_text(statistics.median(change.after)), f"{change.ratio:.2f}x",
                         interval, verdict_text(change, limit)], change.clock))
    return Table(f"{before} and {after}: each environment's clock against itself (p50, "
                 f"median over the runs; the interval: a bootstrap over the runs, seed "
                 f"{BOOTSTRAP_SEED})", columns, rows)


def change_csv(found, before="before", after="after"):
    """The before/after table as CSV: one row per clock and pair, every run's p50 count,
    the medians, the ratio and its interval at the tables' precision."""
    heading = ["clock", "env", f"{before}_row", f"{after}_row", f"{before}_runs",
               f"{after}_runs", f"{before}_p50_ns", f"{after}_p50_ns", "ratio",
               "interval_low", "interval_high", "change"]
    rows = [[c.clock, c.pair.env, c.pair.before, c.pair.after, len(c.before), len(c.after),
             csv_number(statistics.median(c.before)), csv_number(statistics.median(c.after)),
             round(c.ratio, 2), "" if c.low is None else round(c.low, 2),
             "" if c.high is None else round(c.high, 2), verdict_text(c)] for c in found]
    return Table("", heading, rows).csv()
