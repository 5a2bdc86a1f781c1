# SPDX-License-Identifier: MIT
"""`clockbench compare --html FILE`: one self-contained HTML file to attach to a bug report.

It holds a title, the inputs and what the reports say about where they came from, one line
per finding written from the data (a trapped clock and what it would cost a CPU, warps, a
CPU whose offset or drift stands beyond its uncertainty, a tick rate not delivered, a Xen
pvclock read against a tsc read, what the OS adds), compare's tables, and the plots inline
as PNG data: URIs.  No script, no style sheet, font or image from elsewhere: it reads the
same offline.  Standard library only; every text from a report goes through html.escape.
"""

import base64
import datetime
import html
from dataclasses import dataclass, field

from . import plot
from .clocks import verdict_words
from .xentable import UNSAID_GUEST
from ..base.outcome import RunnerError

# The read rate a trapped clock's cost is put at: one a microsecond, the order of what a
# busy server's timestamps ask for.
READS_PER_S = 1_000_000
NS_PER_S = 1_000_000_000
# A drift is "beyond its uncertainty" at this many standard errors (uncertainty_ppm is one).
DRIFT_STANDARD_ERRORS = 3
# Below this fraction of the rate asked for, a tick rate was not delivered (the report's
# `reached` is within 10 %).
DELIVERED_FRACTION = 0.9

STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #111; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #bbb; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.8em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.4em; vertical-align: top;
         white-space: nowrap; }
th { background: #eee; white-space: normal; } td.num { text-align: right; white-space: normal; }
td.flag { color: #a00; font-weight: bold; white-space: normal; }
td.missing { color: #555; font-style: italic; white-space: normal; }
div.wide { overflow-x: auto; }
table.inputs td { white-space: normal; overflow-wrap: anywhere; max-width: 40em; }
table.inputs td:first-child { white-space: nowrap; }
tr.group td { border-top: 2px solid #888; }
span.bad { color: #a00; font-weight: bold; }
ul.summary li { font-weight: bold; }
li { margin: 0.2em 0; } .meta { color: #444; } code { font-size: 0.95em; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-weight: bold; margin-bottom: 0.4em; }
"""


@dataclass
class Plot:
    """One plot to inline: its title, the question it answers, and its files (either may be
    None)."""

    title: str
    question: str
    png: str = None
    svg: str = None
    caption: str = ""  # how to read it, when the plot says


@dataclass
class Finding:
    """One line for a reader: its kind (a heading) and what the data says, in words."""

    kind: str
    text: str


@dataclass
class Report:
    """Everything the HTML file holds."""

    title: str
    sources: list                                  # the RESULTS arguments as given
    inputs: object                                 # inputs.Inputs
    tables: list                                   # table.Table
    notes: list = field(default_factory=list)      # lines about what no table shows
    findings: list = field(default_factory=list)   # Finding
    plots: list = field(default_factory=list)      # Plot
    plot_notes: list = field(default_factory=list)  # why a plot is not there
    summary: list = field(default_factory=list)    # the answer first (summary.py)
    verdicts: list = field(default_factory=list)   # (env, paragraph, [line]): verdicts.py


# ---------------------------------------------------------------------------- plots

def written_plots(inputs, ticks, out_dir, formats=plot.FORMATS):
    """Write the plots into `out_dir` with plot.write_plots, in `formats`, and return
    ([Plot], [message]): one Plot per figure, from plot.PlotFile's title, question, files
    and caption.  The page embeds the PNG only."""
    written, messages = plot.write_plots(inputs, ticks, out_dir, formats)
    plots = [Plot(item.title, item.question, item.png, item.svg, item.caption)
             for item in written]
    return plots, list(messages)


# ---------------------------------------------------------------------------- findings

def _ns(value):
    """A time in ns for a sentence: three significant digits, whole ns from 1000 up."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _times(ratio):
    return f"{ratio:.0f}×" if ratio >= 100 else f"{ratio:.3g}×"


def _pct(value):
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.2g}"


def cpu_share_pct(p50_ns, reads_per_s=READS_PER_S):
    """The % of one CPU that `reads_per_s` reads a second of `p50_ns` each take."""
    return p50_ns * reads_per_s / NS_PER_S * 100


def trapped_findings(clock_table, flags_of, tsc_p50):
    """A line per clock and environment whose reads are trapped: its p50 and what reading
    it READS_PER_S times a second would take of a CPU.  `clock_table` is compare's
    [(clock, [Cell])], `flags_of(cell)` its flags, `tsc_p50` env -> the tsc p50."""
    found = []
    for clock_name, cells in clock_table:
        for cell in cells:
            if cell.missing or not cell.metrics.get("p50"):
                continue
            flags = [flag for flag in flags_of(cell) if flag.startswith("trapped")]
            if not flags:
                continue
            p50 = cell.metrics["p50"].median
            share = cpu_share_pct(p50)
            text = (f"{cell.env}: {clock_name}'s reads are {flags[0]} runs" if flags[0] !=
                    "trapped" else f"{cell.env}: {clock_name}'s reads are trapped")
            text += (f" (intercepted or emulated; p50 {_ns(p50)} ns"
                     + (f", {_times(p50 / tsc_p50[cell.env])} a tsc read"
                        if tsc_p50.get(cell.env) and clock_name != "tsc" else "")
                     + f"): at {READS_PER_S // 1_000_000} M reads a second they would take "
                     f"{_pct(share)} % of a CPU")
            if share > 100:
                text += (f", more than a whole CPU: one CPU does at most "
                         f"{NS_PER_S / p50:.0f} such reads a second")
            found.append((p50, Finding("Trapped clocks", text + ".")))
    return [finding for _, finding in sorted(found, key=lambda pair: -pair[0])]


def _cross_entries(inputs):
    """(env, clock, run number, run count, cross_cpu entry) of every run that measured one."""
    for env, runs in inputs.runs.items():
        for number, run in enumerate(runs, 1):
            cross = run.document.get("cross_cpu") or {}
            for entry in cross.get("clocks", []) if cross.get("applies") else []:
                yield env, entry["clock"], number, len(runs), entry


def warp_findings(inputs):
    """A line per clock and environment that went backwards between CPUs."""
    warps = {}
    for env, clock_name, number, count, entry in _cross_entries(inputs):
        if entry.get("warps"):
            warps.setdefault((env, clock_name, count), []).append(
                (number, entry["warps"], entry.get("worst_warp_ns") or 0))
    lines = []
    for (env, clock_name, count), found in warps.items():
        counts = ", ".join(str(n) for _, n, _ in found)
        worst = max(w for _, _, w in found)
        lines.append(Finding("Warps", (
            f"{env}: {clock_name} went backwards between CPUs in {len(found)} of {count} "
            f"run{'s' if count != 1 else ''} ({counts} times; the worst step back "
            f"{_ns(worst)} ns): code that reads it on one CPU and then on another can see "
            f"time run backwards.")))
    return lines


def cross_cpu_findings(inputs):
    """A line per clock, environment and CPU whose offset from CPU 0 lies beyond its
    uncertainty, or whose drift lies beyond DRIFT_STANDARD_ERRORS standard errors."""
    offsets, drifts = {}, {}
    for env, clock_name, number, count, entry in _cross_entries(inputs):
        for item in entry.get("offsets", []):
            off, unc = item.get("offset_ns"), item.get("uncertainty_ns")
            if off is not None and unc is not None and abs(off) > unc:
                offsets.setdefault((env, clock_name, item["cpu"], count), []).append(
                    (number, off, unc))
        for item in entry.get("drift_ppm", []):
            drift, unc = item.get("drift_ppm"), item.get("uncertainty_ppm")
            if drift is not None and unc is not None and \
                    abs(drift) > DRIFT_STANDARD_ERRORS * unc:
                drifts.setdefault((env, clock_name, item["cpu"], count), []).append(
                    (number, drift, unc))
    lines = []
    for (env, clock_name, cpu, count), found in offsets.items():
        values = "; ".join(f"run {n}: {'+' if off > 0 else '-'}{_ns(abs(off))} ns ± "
                           f"{_ns(unc)}" for n, off, unc in found)
        lines.append(Finding("CPUs that disagree", (
            f"{env}: {clock_name} on CPU {cpu} reads apart from CPU 0 by more than the "
            f"bracket's uncertainty in {len(found)} of {count} run{'s' if count != 1 else ''} "
            f"({values}; + is ahead).")))
    for (env, clock_name, cpu, count), found in drifts.items():
        values = "; ".join(f"run {n}: {drift:+.3g} ppm ± {unc:.2g}" for n, drift, unc in found)
        lines.append(Finding("CPUs that disagree", (
            f"{env}: {clock_name} on CPU {cpu} drifts against CPU 0 by more than "
            f"{DRIFT_STANDARD_ERRORS} standard errors in {len(found)} of {count} "
            f"run{'s' if count != 1 else ''} ({values}): the gap between the CPUs grows.")))
    return lines


def tick_findings(tick_table):
    """A line per tick source and environment whose interrupts did not arrive at some
    rate asked for (the median over the runs below DELIVERED_FRACTION of it), naming the
    rates; and a line per source and reason for the rates that could not be set at all,
    naming the environments and rates."""
    short, unreachable = {}, {}
    for (source, rate_hz), cells in tick_table:
        for cell in cells:
            if cell.missing:
                if cell.missing_reason.startswith(("unreachable", "failed")):
                    unreachable.setdefault((source, cell.missing_reason), {}).setdefault(
                        rate_hz, []).append(cell.env)
                continue
            arrived = cell.metrics.get("rate")
            if arrived and arrived.median < DELIVERED_FRACTION * rate_hz:
                short.setdefault((cell.env, source), []).append((rate_hz, arrived.median))
    lines = []
    for (env, source), rates in short.items():
        told = ", ".join(f"{_ns(got)} a second at {hz} Hz ({_pct(got / hz * 100)} %)"
                         for hz, got in rates)
        lines.append(Finding("Tick rates not delivered", (
            f"{env}: {source} delivered fewer than {DELIVERED_FRACTION:.0%} of the "
            f"interrupts asked for at {len(rates)} rate{'s' * (len(rates) != 1)}: {told} "
            f"(medians over the runs): a guest asking for these rates gets fewer ticks.")))
    for (source, reason), per_rate in unreachable.items():
        envs = list(dict.fromkeys(env for found in per_rate.values() for env in found))
        rates = ", ".join(f"{hz}" for hz in per_rate)
        lines.append(Finding("Tick rates not delivered", (
            f"{', '.join(envs)}: {source} at {rates} Hz was not delivered at all: "
            f"{reason}.")))
    return lines


def xen_findings(clock_table, xen_rows):
    """A line per environment with a xen_pvclock read: what it costs against a tsc read
    (with the guest type and whether Xen emulates rdtsc when the reports say)."""
    tsc = {cell.env: cell.metrics["p50"].median for cell in dict(clock_table).get("tsc", [])
           if not cell.missing and cell.metrics.get("p50")}
    xen = {row.env: row for row in xen_rows}
    lines = []
    for cell in dict(clock_table).get("xen_pvclock", []):
        if cell.missing or not cell.metrics.get("p50") or not tsc.get(cell.env):
            continue
        p50 = cell.metrics["p50"].median
        row = xen.get(cell.env)
        guest = f" ({row.guest})" if row and row.guest != UNSAID_GUEST else ""
        rdtsc = f"; rdtsc there: {row.rdtsc}" if row and row.rdtsc != "-" else ""
        lines.append(Finding("Xen pvclock against tsc", (
            f"{cell.env}{guest}: a xen_pvclock read costs {_times(p50 / tsc[cell.env])} a tsc "
            f"read ({_ns(p50)} ns against {_ns(tsc[cell.env])} ns, p50){rdtsc}.")))
    return lines


# Where clockbench-user says libc's clock_gettime was answered, in words.
VIA_WORDS = {"vdso": "answered by the vDSO, without entering the kernel",
             "syscall": "answered by the system call: no vDSO fast path for this "
                        "clocksource, every read enters the kernel"}


def os_findings(os_rows):
    """A line per clocksource measured by clockbench-user: whether the vDSO answered
    clock_gettime, against the system call, and what the OS adds to the raw read."""
    lines = []
    for row in os_rows:
        if not row.libc:
            continue
        via = VIA_WORDS.get(row.via, f"answered through {row.via}")
        text = (f"{row.env}, clocksource {row.clocksource}: clock_gettime(CLOCK_MONOTONIC) "
                f"through libc took {_ns(row.libc.median)} ns, {via}")
        if row.syscall:
            text += f" (the system call itself: {_ns(row.syscall.median)} ns)"
        if row.added is not None:
            text += (f"; the OS adds {_ns(row.added)} ns to the raw {row.raw_clock} read"
                     + (f" ({_times(row.ratio)})" if row.ratio else ""))
        lines.append(Finding("What the OS adds", text + "."))
    return lines


# ---------------------------------------------------------------------------- HTML

def _e(text):
    return html.escape(str(text), quote=True)


def _looks_numeric(text):
    head = text.split(" ", 1)[0].rstrip("x%")
    try:
        float(head.replace("−", "-"))
    except ValueError:
        return text == "-"
    return True


def table_html(table):
    """A table.Table as an HTML table: its title as caption, a row that reads as one
    sentence spanning the columns after its leading cells, flags and missing rows marked."""
    out = ["<table>"]
    if table.title:
        out.append(f"<caption>{_e(table.title)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in table.headings)
               + "</tr></thead><tbody>")
    previous = None
    for number, row in enumerate(table.rows):
        group = ' class="group"' if number and row.group != previous else ""
        previous = row.group
        cells = ["" if value is None else str(value) for value in row.cells]
        cells += [""] * (len(table.columns) - len(cells))
        tds = []
        if row.text is not None:
            lead = row.lead or 0
            tds = [f"<td>{_e(cell)}</td>" for cell in cells[:lead]]
            tds.append(f'<td class="missing" colspan="{len(table.columns) - lead}">'
                       f"{_e(row.text)}</td>")
        else:
            for column, cell in zip(table.columns, cells):
                css = "flag" if column.heading == "flags" and cell else \
                    "num" if not column.left and _looks_numeric(cell) else ""
                tds.append(f'<td class="{css}">{_e(cell)}</td>' if css else f"<td>{_e(cell)}</td>")
        out.append(f"<tr{group}>" + "".join(tds) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _scalars(mapping, prefix=""):
    """(key, value) of the scalar members of a report's dict, nested dicts flattened."""
    for key, value in mapping.items():
        if isinstance(value, dict):
            yield from _scalars(value, f"{prefix}{key}.")
        elif isinstance(value, list):
            if all(not isinstance(item, (dict, list)) for item in value):
                yield f"{prefix}{key}", " ".join(str(item) for item in value)
        elif isinstance(value, bool):
            yield f"{prefix}{key}", "true" if value else "false"
        elif value is not None:
            yield f"{prefix}{key}", value


def _runner_summary(runner):
    """The runner's record (a Runner) in a line a reader can compare across rows: host,
    accelerator, machine, boot, -cpu, QEMU and Xen versions, clockbench revision, start
    time."""
    host = runner.host
    facts = [("host", " ".join(str(part) for part in (host.name, f"({host.cpu_model})"
                                                     if host.cpu_model else None) if part)),
             ("accelerator", runner.accel), ("machine", runner.machine),
             ("boot", runner.boot), ("-cpu", runner.cpu),
             ("QEMU", runner.qemu_version), ("Xen", runner.xen_version),
             ("clockbench", runner.revision), ("started", runner.started_utc)]
    return "<br>".join(f"{_e(key)}: {_e(value)}" for key, value in facts if value)


def inputs_html(report):
    """The inputs: per environment its runs and files, the runner's record in short (host,
    accelerator, versions, when), and in a <details> element everything the guest saw
    (env) and the runner recorded (runner), with the exact QEMU command."""
    out = ["<ul>"]
    out += [f"<li>RESULTS argument: <code>{_e(source)}</code></li>" for source in report.sources]
    out.append("</ul><table class=\"inputs\"><thead><tr><th>env</th><th>runs</th>"
               "<th>verdicts</th><th>files</th><th>where it ran</th>"
               "<th>everything the reports record</th></tr></thead><tbody>")
    groups = list(report.inputs.runs.items()) + list(report.inputs.os_runs.items())
    for env, runs in groups:
        files = "<br>".join(_e(run.source) for run in runs)
        first = runs[0].document
        guest = first.get("env") if isinstance(first.get("env"), dict) else {}
        seen = "<br>".join(f"{_e(key)}: {_e(value)}" for key, value in _scalars(guest)
                           if key != "cmdline" or value)
        runner = runs[0].record.runner
        summary = _runner_summary(runner) if runner else \
            "(the reports do not say: they have no runner record)"
        recorded = "<br>".join(f"{_e(key)}: {_e(value)}"
                               for key, value in _scalars(first["runner"])) \
            if runner else "(not in these reports)"
        schema = _e(first.get("schema", "?"))
        counts = report.inputs.verdicts.get(env, {})
        verdicts = _e(verdict_words(counts)) if counts else "-"
        if any(verdict in ("fail", "error") for verdict in counts):
            verdicts = f'<span class="bad">{verdicts}</span>' + (
                "" if report.inputs.include_failed else "<br>FAIL/ERROR runs left out of "
                "the figures")
        out.append(f"<tr><td>{_e(env)}</td><td class=\"num\">{len(runs)}</td>"
                   f"<td>{verdicts}</td><td>{files}</td><td>{summary}</td>"
                   f"<td><details><summary>the guest's view and the runner's record"
                   f"</summary><p><b>the guest saw (env)</b><br>schema: {schema}<br>{seen}</p>"
                   f"<p><b>the runner recorded</b><br>{recorded}</p></details></td></tr>")
    for env, counts in report.inputs.verdicts.items():
        if env in report.inputs.runs:
            continue
        files = "<br>".join(_e(run.source) for run in report.inputs.left_out if run.env == env)
        out.append(f"<tr><td>{_e(env)}</td><td class=\"num\">0</td><td><span class=\"bad\">"
                   f"{_e(verdict_words(counts))}</span><br>every run left out of the figures"
                   f"</td><td>{files}</td><td></td><td></td></tr>")
    out.append("</tbody></table>")
    if report.notes:
        out.append("<ul>" + "".join(f"<li>{_e(note)}</li>" for note in report.notes) + "</ul>")
    return "\n".join(out)


def _data_uri(path, mime):
    try:
        with open(path, "rb") as source:
            data = source.read()
    except OSError as error:
        raise RunnerError(f"cannot read {path}: {error.strerror}.") from None
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def document_html(report, now=None):
    """The whole HTML document as a string."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    envs = ", ".join(list(report.inputs.runs) + [env for env in report.inputs.os_runs
                                                   if env not in report.inputs.runs])
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(report.title)}</title>", f"<style>{STYLE}</style></head><body>",
           f"<h1>{_e(report.title)}</h1>",
           f'<p class="meta">Environments: {_e(envs)}. Written by <code>clockbench compare '
           f"--html</code> at {_e(now.strftime('%Y-%m-%d %H:%M UTC'))}; "
           f"docs/compare.md explains every column.</p>"]
    if report.verdicts:
        out.append("<h2>Verdict</h2>")
        for env, paragraph, lines in report.verdicts:
            out.append(f"<p><b>{_e(env)}</b>: {_e(paragraph)}</p><ul>"
                       + "".join(f"<li><code>{_e(line)}</code></li>" for line in lines)
                       + "</ul>")
    if report.summary:
        out.append('<h2>Summary</h2><ul class="summary">'
                   + "".join(f"<li>{_e(line)}</li>" for line in report.summary) + "</ul>")
    out += ["<h2>Inputs</h2>", inputs_html(report), "<h2>Findings</h2>"]
    if not report.findings:
        out.append("<p>Nothing stands out: no clock is trapped, no warps, every CPU agrees "
                   "within its uncertainty and every tick rate was delivered.</p>")
    kinds = list(dict.fromkeys(finding.kind for finding in report.findings))
    for kind in kinds:
        out.append(f"<h3>{_e(kind)}</h3><ul>")
        out += [f"<li>{_e(finding.text)}</li>" for finding in report.findings
                if finding.kind == kind]
        out.append("</ul>")
    out.append("<h2>Tables</h2>")
    out += [f'<div class="wide">{table_html(table)}</div>' for table in report.tables]
    out.append("<h2>Plots</h2>")
    for item in report.plots:
        caption = item.title + (f": {item.question}" if item.question else "")
        if item.png:
            how = f'<p class="meta">{_e(item.caption)}</p>' if item.caption else ""
            out.append(f'<figure><figcaption>{_e(caption)}</figcaption>'
                       f'<img alt="{_e(item.title)}" src="{_data_uri(item.png, "image/png")}">'
                       f"{how}</figure>")
    if not report.plots and not report.plot_notes:
        out.append("<p>No plot: these reports hold nothing the plots draw (read costs, "
                   "cross-CPU offsets, tick costs).</p>")
    if report.plot_notes:
        out.append("<ul>" + "".join(f"<li>{_e(note)}</li>" for note in report.plot_notes)
                   + "</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_html(path, report):
    """Write `report` to `path` as one HTML file; RunnerError in one sentence if it cannot
    be."""
    text = document_html(report)
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
    except ValueError:  # a NUL in the name
        raise RunnerError(f"cannot write {path!r}: a file name has no NUL character.") \
            from None
