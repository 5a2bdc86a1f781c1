# SPDX-License-Identifier: MIT
"""The answer first: at most SUMMARY_LINES lines that head compare's text output and its
HTML page, each under TEXT_WIDTH, saying what is expensive where, whether some clock went
backwards between CPUs, which runs failed (and are left out), the before/after changes
when there are pairs, and whether the hosts could be trusted (which hosts, and runs on a
busy one)."""

import statistics

from .cells import number_text
from .clocks import tsc_p50s
from .inputs import FAILED_VERDICTS, HOSTS_OF_ONE_NAME
from .table import TEXT_WIDTH

SUMMARY_LINES = 5
# How many clocks the first line names, costliest first.
COSTLIEST_SHOWN = 2
# A run whose tick work loop moved by more than this (noise_pct, median over its rates)
# shared its CPU with other work: the guest's sign of a busy host, for records without
# the host load the runner records (runner.host_state).
BUSY_NOISE_PCT = 10.0


def _fit(head, items, width=TEXT_WIDTH):
    """`head` then as many of `items` as fit in `width` ('; ' between them), and how many
    more there are."""
    line, shown = head, 0
    for number, item in enumerate(items):
        more = len(items) - number - 1
        tail = f"; and {more} more" if more else ""
        candidate = f"{line}{'; ' if shown else ''}{item}"
        if len(candidate + tail) > width and shown:
            return f"{line}; and {len(items) - number} more"
        line, shown = candidate, shown + 1
    return line


def _shown_rows(inputs):
    """The rows the summary speaks of: with before/after pairs, the after side's."""
    if not inputs.paired:
        return set(inputs.runs)
    return {row for row, runs in inputs.runs.items()
            if runs[0].key and runs[0].key.label == inputs.paired[1]}


def costliest_line(table, inputs):
    """What is expensive where: the COSTLIEST_SHOWN costliest clocks, each where it costs
    most (p50, median over the runs), against the same environment's tsc, and how many
    clocks read trapped (the after side's, with pairs)."""
    tsc = tsc_p50s(table)
    rows = _shown_rows(inputs)
    cells = sorted((cell for _, cells in table for cell in cells
                    if not cell.missing and cell.metrics.get("p50") and cell.env in rows),
                   key=lambda cell: -cell.metrics["p50"].median)
    if not cells:
        return "costliest reads: no clock was timed"
    items, shown = [], []
    for cell in cells:  # each clock once, where it costs most
        if len(shown) == COSTLIEST_SHOWN:
            break
        if cell.subject[0] in shown:
            continue
        shown.append(cell.subject[0])
        p50 = cell.metrics["p50"].median
        versus = f" = {p50 / tsc[cell.env]:.0f}x tsc" if tsc.get(cell.env) and \
            cell.subject[0] != "tsc" else ""
        items.append(f"{cell.subject[0]} in {cell.env} {number_text(p50)} ns{versus}")
    trapped = {(run.env, clock.name) for row, runs in inputs.runs.items() if row in rows
               for run in runs for clock in run.report.clocks if clock.timed and clock.trapped}
    items.append(f"trapped: {len(trapped)} clock(s) in {len({env for env, _ in trapped})} "
                 f"environment(s)" if trapped else "no clock trapped")
    return _fit("costliest reads (p50): ", items)


def warps_line(inputs):
    """Which clocks went backwards between CPUs, where (in how many of its runs), and the
    worst step back: one item per clock."""
    warped, measured = {}, 0
    for env, runs in inputs.runs.items():
        for run in runs:
            cross = run.document.get("cross_cpu") or {}
            measured += bool(cross.get("applies"))
            for entry in cross.get("clocks", []) if cross.get("applies") else []:
                if entry.get("warps"):
                    clock = warped.setdefault(entry["clock"], {"worst": 0, "envs": {}})
                    clock["envs"][env] = clock["envs"].get(env, 0) + 1
                    clock["worst"] = max(clock["worst"], entry.get("worst_warp_ns") or 0)
    if not measured:
        return "warps: not measured (no run had two CPUs to compare)"
    if not warped:
        return f"warps: none: no clock went backwards between CPUs in {measured} run(s)"
    items = []
    for name, clock in sorted(warped.items(), key=lambda item: -item[1]["worst"]):
        where = ", ".join(f"{env} {count}/{len(inputs.runs[env])}"
                          for env, count in clock["envs"].items())
        items.append(f"{name} (worst {number_text(clock['worst'])} ns) in {where} runs")
    return _fit("warps: ", items)


def runs_line(inputs):
    """How many runs passed, which failed and whether they are left out."""
    totals = {}
    for counts in inputs.verdicts.values():
        for verdict, count in counts.items():
            totals[verdict] = totals.get(verdict, 0) + count
    words = ", ".join(f"{count} {(verdict or 'no verdict').upper()}"
                      for verdict, count in sorted(totals.items(), key=lambda i: str(i[0])))
    failed = {}
    for row, counts in inputs.verdicts.items():
        bad = sum(counts.get(verdict, 0) for verdict in FAILED_VERDICTS)
        if bad:
            failed[row] = bad
    line = f"runs: {words or 'none'}"
    if inputs.failed:
        line += f"; {len(inputs.failed)} gave no report"
    if not failed:
        return line + "; every run with a report passed its checks"
    where = ", ".join(f"{row} {count}" for row, count in failed.items())
    action = ("taken in (--include-failed)" if inputs.include_failed
              else "left out of the figures, reasons below")
    return _fit(f"{line}; FAIL/ERROR {action}: ", [where])


def changes_line(found, limit):
    """The before/after changes: which clocks got slower or faster beyond the noise."""
    slower = [c for c in found if (c.regressed(limit) if limit else
                                   c.low is not None and c.low > 1)]
    faster = [c for c in found if c.high is not None and c.high < 1]
    if not slower and not faster:
        return (f"before/after: {len(found)} clock(s) compared, no change beyond the "
                f"noise of the repeats")
    by_clock = {}
    for change in slower:
        by_clock.setdefault(change.clock, []).append(change)
    items = []
    for clock, found_here in by_clock.items():
        ratios = [change.ratio for change in found_here]
        spread = f"{min(ratios):.2f}x" if len(ratios) == 1 else \
            f"{min(ratios):.2f}x … {max(ratios):.2f}x"
        items.append(f"{clock} {spread} in {', '.join(c.pair.env for c in found_here)}")
    head = (f"before/after: {len(slower)} slower beyond the noise"
            + (f" and above --fail-above {limit:g}" if limit else "")
            + f", {len(faster)} faster, of {len(found)}: ")
    return _fit(head, items or ["none slower"])


def _noise(run):
    ticks = run.document.get("ticks") or {}
    values = [rate.get("noise_pct") for source in ticks.get("sources", [])
              if ticks.get("applies") for rate in source.get("rates", [])
              if rate.get("state") == "measured" and rate.get("noise_pct") is not None]
    return statistics.median(values) if values else None


def busy_line(inputs):
    """The runs on a busy host: by the host's load the runner recorded (runner.host_state,
    by tools/clockbench_lib/base/hoststate.py's rule) where the record has it; else, for
    older records, by the guest's own sign, tick noise above BUSY_NOISE_PCT (a weak one:
    a host busy between the work loop's timings goes unseen)."""
    recorded, noisy = {}, {}
    judged_recorded = judged_noise = 0
    every = [run for runs in inputs.runs.values() for run in runs] + inputs.left_out
    for run in every:  # a FAIL left out may be the very run a busy host spoilt
        runner = run.record.runner
        state = runner.host_state if runner else None
        if state is not None and state.busy is not None:
            judged_recorded += 1
            if state.busy:
                recorded[run.env] = recorded.get(run.env, 0) + 1
            continue
        noise = _noise(run)
        judged_noise += noise is not None
        if noise is not None and noise > BUSY_NOISE_PCT:
            noisy[run.env] = noisy.get(run.env, 0) + 1
    words = []
    if judged_recorded:
        words.append(f"{sum(recorded.values())} of {judged_recorded} runs by the host load "
                     f"the runner recorded" + (f" ({', '.join(recorded)})" if recorded
                                               else ""))
    if judged_noise:
        words.append(f"{sum(noisy.values())} of {judged_noise} runs "
                     + ("without it " if judged_recorded else "")
                     + f"with tick noise above {BUSY_NOISE_PCT:g} %"
                     + (f" ({', '.join(noisy)})" if noisy else ""))
    if not words:
        return "busy host: not known (no host load recorded, no tick measurements)"
    return "busy host: " + "; ".join(words)


def hosts_line(inputs):
    """Which hosts the rows come from, whether rows of one name were kept apart or inputs
    counted once, and the runs on a busy host (busy_line())."""
    hosts = {}
    for runs in inputs.runs.values():
        key = runs[0].key
        if key:
            words = (f"{key.host_shown}: unnamed ({key.host_cpu or 'CPU unknown'})"
                     if key.host.startswith("input:") else
                     f"{key.host} ({key.identity.cpu or 'CPU unknown'})")
            hosts.setdefault(words, None)
    parts = [f"hosts: {', '.join(hosts) or 'none named'}"]
    if any(HOSTS_OF_ONE_NAME in sentence for sentence in inputs.apart):
        parts.append("hosts of one name told apart by CPU, kernel, versions, machine id")
    if inputs.apart:
        parts.append(f"{len(inputs.apart)} name(s) kept apart, reasons below")
    if inputs.counted_once:
        parts.append(f"{len(inputs.counted_once)} input(s) repeated, counted once")
    parts.append(busy_line(inputs))
    return _fit("", parts)


def summary_lines(inputs, table, found=None, limit=None):
    """At most SUMMARY_LINES lines: the answer before the tables."""
    lines = [costliest_line(table, inputs), warps_line(inputs), runs_line(inputs)]
    if found:
        lines.append(changes_line(found, limit))
    lines.append(hosts_line(inputs))
    return [line if len(line) <= TEXT_WIDTH else line[:TEXT_WIDTH - 1] + "…"
            for line in lines[:SUMMARY_LINES]]
