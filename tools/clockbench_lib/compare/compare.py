# SPDX-License-Identifier: MIT
"""`clockbench compare`: the same measurements side by side across environments.

Inputs are matrix folders (DIR/manifest.json, DIR/ENV/run-K.json) or single reports (a
JSON file or a console log).  Every report is validated by report.py; anything wrong is one
RunnerError sentence naming the file.  Runs are grouped by what makes them comparable
(Comparable: the input's label, the environment's name, the host, the accelerator, the
guest's CPU model and hypervisor): runs that differ in any are never merged, and each
group is one row, named by its environment and, where two groups share a name, what tells
them apart (tcg-pc@host-a).  Per clock and group the figures of all runs are reduced to the
median of the per-run values and their min-max range; ratios are medians against the
baseline's medians.  --fail-above gates a change (regressions()).
"""

import functools
import json
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass, field

from ..model import osreport, report
from . import html, plot
from ..model.console import quote
from .matrix import MANIFEST, MANIFEST_SCHEMA, MANIFEST_SCHEMA_0
from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from .table import Column, Row, Table

DEFAULT_BASELINE = "tcg-pc"
# What ends the name of clockbench-user's document beside the image's of one environment.
OS_SUFFIX = ".os"
FORMATS = ("table", "markdown", "csv")
# The largest JSON input read (a report is under 100 KiB, a manifest a few).
MAX_JSON_FILE_BYTES = 64 << 20


@dataclass(frozen=True)
class Comparable:
    """What runs must share to be merged into one row: the label of their input (None
    without --label), their environment's name, their host (its name, or for an input
    without one, that input itself), the accelerator, and the guest's CPU model and
    hypervisor as the guest saw them."""

    label: str
    env: str
    host: str           # the host's name, or "input:PATH" when the input names none
    accel: str
    cpu: str
    hypervisor: str

    host_cpu: str = None  # the host's CPU model where the input says it (a manifest)

    @property
    def host_words(self):
        """The host in words: its name, or that the input names none (and its CPU, when
        the input says it)."""
        if not self.host.startswith("input:"):
            return self.host
        cpu = f"CPU {self.host_cpu}; " if self.host_cpu else ""
        return f"an unnamed host ({cpu}{self.host[len('input:'):]})"


@dataclass
class Run:
    """One validated report and where it came from; `env` is its row's display label."""

    env: str
    source: str
    document: dict
    key: Comparable = None


@dataclass
class Inputs:
    """Everything read: reports per row (a display label, in order of first appearance),
    the environments that did not run and the runs that gave no report, with reasons, and
    the sentences saying which rows of one name were kept apart and why."""

    runs: dict = field(default_factory=dict)       # display label -> [Run]
    os_runs: dict = field(default_factory=dict)    # env -> [Run] of clockbench-os/1
    skipped: dict = field(default_factory=dict)    # env -> reason
    failed: list = field(default_factory=list)     # (env, source, reason)
    apart: list = field(default_factory=list)      # sentences: rows kept apart, and why

    def add(self, run):
        if run.document.get("schema") == osreport.OS_SCHEMA:
            self.os_runs.setdefault(run.env, []).append(run)
        else:
            self.runs.setdefault(run.env, []).append(run)


# ---------------------------------------------------------------------------- reading

def _load_json_file(path):
    """The parsed JSON at `path`; RunnerError in one sentence when it cannot be."""
    try:
        with open(path, "rb") as source:
            data = source.read(MAX_JSON_FILE_BYTES + 1)
    except OSError as error:
        raise RunnerError(f"cannot read {quote(path)}: {error.strerror}.") from None
    except ValueError:  # a NUL in the name
        raise RunnerError(f"cannot read {quote(repr(path))}: a file name has no NUL "
                          f"character.") from None
    if len(data) > MAX_JSON_FILE_BYTES:
        raise RunnerError(f"{path}: more than {MAX_JSON_FILE_BYTES >> 20} MiB, far more "
                          f"than any report, so it is not read.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RunnerError(f"{path}: not a text file (it is not UTF-8).") from None
    return report.load_json_text(text, path)


def load_record(path):
    """A validated clockbench/2 document (a report or a run's record, with or without the
    guest's report), or an older clockbench/1 report or clockbench-run/0 summary, from a
    JSON file."""
    document = _load_json_file(path)
    report.validate_document(document, path, summaries=True)
    return document


def no_report_reason(document):
    """Why a valid document is no measurement, or None when it is one: it holds the
    guest's report and its run ended with the guest's verdict."""
    if report.has_guest_report(document) and document["verdict"] in ("pass", "fail", "skip"):
        return None
    return (f"verdict {quote(document.get('verdict'), 20)}: "
            f"{quote(document.get('reason') or 'no report')}")


def load_report_json(path):
    """A validated report (clockbench/2 or clockbench/1) from a JSON file; RunnerError for
    a record of a run that gave no report."""
    document = load_record(path)
    reason = no_report_reason(document)
    if reason:
        raise RunnerError(f"{path}: this records a run that gave no report "
                          f"({document['schema']}, {reason}), so it has nothing to compare.")
    return document


def load_report_any(path):
    """A validated report from a JSON file or (anything else) a console log: the image's
    (clockbench/2, or an older clockbench/1) or clockbench-user's (clockbench-os/1)."""
    if path.endswith(".json"):
        document = _load_json_file(path)
        if isinstance(document, dict) and document.get("schema") == osreport.OS_SCHEMA:
            osreport.validate_os_document(document, path)
            return document
        return load_report_json(path)
    lines = report.read_log_lines(path)
    if osreport.has_os_report(lines) and not report.has_report(lines):
        return osreport.load_os_report(lines, path)
    return report.load_report(lines, path)


def single_file_env(path):
    """The environment name of a lone report: its folder for run-K files, else its stem,
    without a last ".os" (tcg.os.json is clockbench-user's document of environment tcg)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem.endswith(OS_SUFFIX) and len(stem) > len(OS_SUFFIX):
        stem = stem[:-len(OS_SUFFIX)]
    if stem.startswith("run-"):
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or stem
    return stem


def _manifest_error(path, what):
    return RunnerError(f"{path}: {what}; it is not a clockbench matrix manifest "
                       f"({MANIFEST_SCHEMA}).")


@dataclass
class Pending:
    """A report read, before its row is known: the environment's name, where the report
    came from, the input's label, and the host the input names (None: none)."""

    env: str
    source: str
    document: dict
    label: str = None
    host: str = None
    input_path: str = ""
    accel: str = None   # the manifest's, for reports whose runner member does not say
    host_cpu: str = None  # the manifest's host CPU model


def _manifest_host(manifest):
    """(host name or None, host CPU model or None) of a matrix manifest, of either schema."""
    host = manifest.get("host") if isinstance(manifest.get("host"), dict) else {}
    cpu = host.get("cpu")
    model = cpu.get("model") if isinstance(cpu, dict) else cpu
    name = host.get("name")
    return (name if isinstance(name, str) and name else None,
            model if isinstance(model, str) else None)


def _shown(env, label):
    """An environment's name as notes show it: with its input's label, when it has one."""
    return f"{env}@{label}" if label else env


def load_matrix(folder, inputs, pending, label=None):
    """Add the runs of one matrix folder to `pending` (and its skipped environments and
    runs without a report to `inputs`)."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        raise RunnerError(f"{folder}: no {MANIFEST} here, so it is not a matrix folder "
                          f"(made by `clockbench matrix`).")
    manifest = _load_json_file(path)
    if not isinstance(manifest, dict) or "schema" not in manifest:
        raise _manifest_error(path, "the 'schema' key is missing")
    if manifest["schema"] not in (MANIFEST_SCHEMA, MANIFEST_SCHEMA_0):
        raise RunnerError(f"{path}: manifest schema is {quote(json.dumps(manifest['schema']))}; "
                          f"this tool reads {MANIFEST_SCHEMA} and {MANIFEST_SCHEMA_0}.")
    host_name, host_cpu = _manifest_host(manifest)
    environments = manifest.get("environments")
    if not isinstance(environments, list):
        raise _manifest_error(path, "'environments' is missing or not a list")
    for index, env in enumerate(environments):
        if not isinstance(env, dict) or not isinstance(env.get("name"), str) \
                or not isinstance(env.get("runs"), list):
            raise _manifest_error(path, f"environments[{index}] lacks a 'name' or 'runs'")
        shown = _shown(env["name"], label)
        if env.get("skipped"):
            inputs.skipped.setdefault(shown, quote(env.get("reason") or "skipped"))
            continue
        for number, run in enumerate(env["runs"]):
            where = f"environments[{index}].runs[{number}]"
            if not isinstance(run, dict):
                raise _manifest_error(path, f"{where} is not an object")
            for key in ("json", "log"):
                if run.get(key) is not None and not isinstance(run[key], str):
                    raise _manifest_error(path, f"{where}.{key} is not a file name")
            reason = quote(run.get("reason") or run.get("verdict") or "no report")
            if run.get("json"):
                source = os.path.join(folder, run["json"])
                document = load_record(source)
                reason = no_report_reason(document)
                if reason is None:
                    pending.append(Pending(env["name"], source, document, label, host_name,
                                           folder, env.get("accel"), host_cpu))
                    continue
            inputs.failed.append((shown, os.path.join(folder, run.get("log") or "?"), reason))


def _runner(document):
    runner = document.get("runner")
    return runner if isinstance(runner, dict) else {}


def comparable(item):
    """The Comparable of a Pending report."""
    runner = _runner(item.document)
    env = item.document.get("env") or {}
    host = runner.get("host") if isinstance(runner.get("host"), dict) else {}
    host_name = host.get("name") if isinstance(host.get("name"), str) and host.get(
        "name") else item.host
    hypervisor = env.get("hypervisor")
    accel = runner.get("accel") or item.accel or {"TCG": "tcg", "KVM": "kvm"}.get(hypervisor)
    return Comparable(item.label, item.env, host_name or f"input:{item.input_path}",
                      str(accel or "?"), str(env.get("cpu") or "?"), str(hypervisor or "?"),
                      None if host_name else item.host_cpu)


# The facts that keep two rows of one name apart, in the order their differences are told.
_FACTS = (("host", "hosts"), ("accel", "accelerators"), ("cpu", "CPU models"),
          ("hypervisor", "hypervisors"))


# Which fact names rows apart, first that tells them all apart: tcg-pc@kvm, tcg-pc@host-b.
_SUFFIX_FACTS = ("accel", "host", "hypervisor", "cpu")


def _suffix_value(key, fact):
    value = getattr(key, fact)
    if fact == "host" and value.startswith("input:"):
        return os.path.basename(os.path.normpath(value[len("input:"):])) or value
    return value


def _apart_sentence(name, keys, labels):
    """The sentence saying why rows of one environment name are kept apart: where each
    came from, and every fact that differs (with the values, but for hosts)."""
    froms = " and ".join(f"{name} from {key.host_words}" for key in keys)
    reasons = []
    for fact, words in _FACTS:
        values = list(dict.fromkeys(getattr(key, fact) for key in keys))
        if len(values) > 1:
            shown = "" if fact == "host" else f" ({', '.join(quote(v, 80) for v in values)})"
            reasons.append(f"different {words}{shown}")
    why = "; ".join(reasons) or "different inputs"
    if any(key.host.startswith("input:") for key in keys) and len(
            {key.host for key in keys}) > 1:
        why += (" (an input that names no host, as reports before clockbench/2 do, counts "
                "as a host of its own)")
    return f"{froms} are kept apart as {', '.join(labels)}: {why}."


def _base_name(key):
    """A row's name before what tells rows apart: its environment's, with its input's
    label (a labelled single file's environment is its label, so the label alone)."""
    return key.env if key.label in (None, key.env) else _shown(key.env, key.label)


def _labels(keys):
    """A display label per Comparable (in order): the environment's name (LABEL for a
    labelled single file, ENV@LABEL for a labelled folder's environment), and where
    several share it, @ the first of _SUFFIX_FACTS that tells them apart (a host that
    has no name by its input's file or folder name), else #N."""
    base = {key: _base_name(key) for key in keys}
    labels = {}
    for name in dict.fromkeys(base.values()):
        same = [key for key in keys if base[key] == name]
        if len(same) == 1:
            labels[same[0]] = name
            continue
        fact = next((fact for fact in _SUFFIX_FACTS
                     if len({_suffix_value(k, fact) for k in same}) == len(same)), None)
        for number, key in enumerate(same, start=1):
            labels[key] = (f"{name}@{_suffix_value(key, fact)}" if fact
                           else f"{name}#{number}")
    return labels


def group_runs(pending, inputs):
    """Put every Pending report into `inputs`, one row per Comparable, and say in
    `inputs.apart` which rows of one name were kept apart and why."""
    keys = list(dict.fromkeys(comparable(item) for item in pending))
    labels = _labels(keys)
    for item in pending:
        key = comparable(item)
        inputs.add(Run(labels[key], item.source, item.document, key))
    shown = {}
    for key in keys:
        shown.setdefault(_base_name(key), []).append(key)
    for name, same in shown.items():
        if len(same) > 1:
            inputs.apart.append(_apart_sentence(name, same, [labels[k] for k in same]))


def parse_labels(specs, paths):
    """{input path: label} from --label NAME=PATH options; RunnerError for one that is
    malformed, names no input, or repeats a name or an input."""
    labels = {}
    for spec in specs or ():
        name, equals, path = spec.partition("=")
        if not equals or not name or not path:
            raise RunnerError(f"--label {quote(spec)}: give NAME=PATH, PATH one of the "
                              f"RESULTS as written.")
        if "@" in name or "#" in name:
            raise RunnerError(f"--label {quote(spec)}: a label has no '@' or '#', which "
                              f"name rows.")
        if path not in paths:
            raise RunnerError(f"--label {quote(spec)}: {quote(path)} is not one of the "
                              f"RESULTS ({', '.join(paths)}).")
        if path in labels:
            raise RunnerError(f"--label: {quote(path)} is labelled twice.")
        if name in labels.values():
            raise RunnerError(f"--label: {quote(name)} names two inputs.")
        labels[path] = name
    return labels


def load_inputs(paths, labels=None):
    """Read every RESULTS argument into one Inputs; `labels` maps an input (as written)
    to its --label."""
    labels = labels or {}
    inputs, pending = Inputs(), []
    for path in paths:
        label = labels.get(path)
        if os.path.isdir(path):
            load_matrix(path, inputs, pending, label)
        elif os.path.exists(path):
            document = load_report_any(path)
            env = label or single_file_env(path)  # a labelled file's row is its label
            if document.get("schema") == osreport.OS_SCHEMA:
                inputs.add(Run(env, path, document))
                continue
            pending.append(Pending(env, path, document, label, None, path))
        else:
            raise RunnerError(f"{path}: no such file or folder.")
    group_runs(pending, inputs)
    if not inputs.runs and not inputs.os_runs:
        raise RunnerError(f"{', '.join(paths)}: no report to compare (every run failed or "
                          f"was skipped).")
    return inputs


# ---------------------------------------------------------------------------- figures

def _cross_cpu_entry(document, name):
    cross = document.get("cross_cpu") or {}
    if not cross.get("applies"):
        return None
    return next((entry for entry in cross.get("clocks", []) if entry["clock"] == name), None)


def _max_abs_drift(entry):
    values = [abs(d["drift_ppm"]) for d in entry["drift_ppm"] if d["drift_ppm"] is not None]
    return max(values) if values else None


# Metric name -> (heading, unit, function of (clock entry, document), ratio shown).
METRICS = {
    "p50": ("p50", "ns", lambda c, d: c["read_ns"]["p50"] if c.get("read_ns") else None, True),
    "p99": ("p99", "ns", lambda c, d: c["read_ns"]["p99"] if c.get("read_ns") else None, True),
    "batch": ("batch", "ns/read", lambda c, d: c.get("batch_ns_per_read"), True),
    "resolution": ("resolution", "ns", lambda c, d: c.get("resolution_ns"), False),
    "warps": ("warps", "", lambda c, d: (_cross_cpu_entry(d, c["name"]) or {}).get("warps"),
              False),
    "drift": ("max |drift|", "ppm",
              lambda c, d: _max_abs_drift(_cross_cpu_entry(d, c["name"]))
              if _cross_cpu_entry(d, c["name"]) else None, False),
}


@dataclass
class Spread:
    """One metric over the runs of one environment."""

    median: float
    low: float
    high: float
    count: int


def spread(values):
    """Median of the per-run values and their range, or None when there are none."""
    values = [value for value in values if value is not None]
    if not values:
        return None
    return Spread(statistics.median(values), min(values), max(values), len(values))


@dataclass
class Cell:
    """One thing measured in one environment (a clock, or a tick source at one rate): its
    spreads over the runs that measured it, or why none did."""

    subject: tuple      # what was measured: (clock,) or (tick source, rate Hz)
    env: str
    runs: int
    measured_runs: int  # runs with figures: the clock present and timed, the rate measured
    metrics: dict = field(default_factory=dict)   # metric -> Spread or None
    ratios: dict = field(default_factory=dict)    # metric -> float or None
    missing_reason: str = None

    @property
    def missing(self):
        return self.measured_runs == 0


def build_cell(subject, env, runs, figures_of, metrics):
    """The Cell of `subject` over `runs` of `env`.

    `figures_of(run)` returns (arguments, None) for a run that measured `subject`, where
    the arguments are what the value function of each of `metrics` is called with, or
    (None, why that run did not).  The first such reason is the cell's when no run did.
    """
    found, reasons = [], []
    for run in runs:
        arguments, reason = figures_of(run)
        if arguments is None:
            reasons.append(reason)
        else:
            found.append(arguments)
    cell = Cell(subject, env, len(runs), len(found))
    if not found:
        cell.missing_reason = reasons[0] if reasons else "no run"
    for metric, (_, _, value_of, _) in metrics.items():
        cell.metrics[metric] = spread([value_of(*arguments) for arguments in found])
    return cell


def add_ratios(cells, baseline, metrics, ratio_of):
    """Set the ratio of every metric of `metrics` that shows one, in each of `cells`:
    `ratio_of(cell, base, metric)` against the cell of the `baseline` environment, or None
    when that environment is not among them."""
    base = next((cell for cell in cells if cell.env == baseline), None)
    for cell in cells:
        for metric, (_, _, _, with_ratio) in metrics.items():
            if with_ratio:
                cell.ratios[metric] = ratio_of(cell, base, metric) if base else None


def _median_ratio(cell, base, metric):
    """The cell's median over the baseline's; None when either has none or the baseline's
    is 0."""
    mine, theirs = cell.metrics[metric], base.metrics[metric]
    return mine.median / theirs.median if mine and theirs and theirs.median else None


def clock_order(inputs):
    """Clock names in report order, first appearance first."""
    names = []
    for runs in inputs.runs.values():
        for run in runs:
            for clock in run.document["clocks"]:
                if clock["name"] not in names:
                    names.append(clock["name"])
    return names


def _clock_figures(clock_name, run):
    """(clock entry, document) when `clock_name` was present and timed in `run`, else
    (None, why not)."""
    clock = next((c for c in run.document["clocks"] if c["name"] == clock_name), None)
    if clock is None:
        return None, "not in the report"
    if not clock["present"] or not clock.get("measured", True):
        return None, clock.get("absent_reason") or "present but not measured"
    return (clock, run.document), None


def compare(inputs, baseline=DEFAULT_BASELINE):
    """The Cells, grouped per clock in environment order: [(clock, [Cell])]."""
    table = []
    for clock_name in clock_order(inputs):
        figures_of = functools.partial(_clock_figures, clock_name)
        cells = [build_cell((clock_name,), env, runs, figures_of, METRICS)
                 for env, runs in inputs.runs.items()]
        add_ratios(cells, baseline, METRICS, _median_ratio)
        table.append((clock_name, cells))
    return table


# ---------------------------------------------------------------------------- the gate

@dataclass
class Regression:
    """A clock that costs more in an environment than in the baseline by more than the
    limit, beyond the spread of their runs."""

    clock: str
    env: str
    low_ns: float        # the environment's smallest p50 over its runs
    base_high_ns: float  # the baseline's largest p50 over its runs
    runs: int
    base_runs: int

    @property
    def ratio(self):
        return self.low_ns / self.base_high_ns


def _p50s(runs, clock_name):
    """The p50 read costs (ns) of `clock_name` in the runs that measured it."""
    found = [_clock_figures(clock_name, run)[0] for run in runs]
    return [clock["read_ns"]["p50"] for clock, _ in filter(None, found)
            if clock.get("read_ns") and clock["read_ns"]["p50"] is not None]


def regressions(inputs, baseline, limit):
    """(the Regressions, the clocks not gated and why) of every row against `baseline`.

    The rule: a clock regressed in a row when the row's smallest p50 read cost over its
    runs, divided by the baseline's largest p50 over its runs, is above `limit`.  Taking
    the row's best run against the baseline's worst leaves out any difference the spread
    over repeats could explain.  A clock the baseline did not measure, or measured at a p50
    of 0 ns (no ratio), is not gated; one a row did not measure has nothing to gate.
    """
    found, not_gated = [], []
    for clock_name in clock_order(inputs):
        base = _p50s(inputs.runs[baseline], clock_name)
        if not base:
            continue
        if max(base) <= 0:
            not_gated.append(f"{clock_name}: not gated: its p50 in {baseline} is 0 ns, so "
                             f"there is no ratio")
            continue
        for env, runs in inputs.runs.items():
            mine = _p50s(runs, clock_name) if env != baseline else []
            if mine and min(mine) / max(base) > limit:
                found.append(Regression(clock_name, env, min(mine), max(base), len(mine),
                                        len(base)))
    return found, not_gated


def regression_line(found, baseline, limit):
    """One line naming a regressed clock, its row and the figures the rule compared."""
    return (f"{found.clock} in {found.env}: p50 {_number(found.low_ns)} ns at best "
            f"(min over {found.runs} run{'s' * (found.runs != 1)}) is "
            f"{found.ratio:.2f}x {baseline}'s {_number(found.base_high_ns)} ns at worst "
            f"(max over {found.base_runs} run{'s' * (found.base_runs != 1)}), above "
            f"--fail-above {limit:g}")


# ---------------------------------------------------------------------------- Xen guests

@dataclass
class XenRow:
    """What a xen_pvclock and a tsc read cost (p50 ns) in one Xen environment, and their
    ratio, over its runs: the question the project grew from, per kind of Xen guest."""

    env: str
    guest: str            # "pvh dom0", from the reports' env.xen
    runs: int
    pvclock: Spread = None
    tsc: Spread = None
    ratio: Spread = None  # of the per-run ratios xen_pvclock / tsc
    rdtsc: str = "-"      # "emulated by Xen", "native", or "-" when Xen did not say


def _read_p50(document, name):
    clock = next((c for c in document["clocks"] if c["name"] == name), None)
    if not clock or not clock["present"] or not clock.get("read_ns"):
        return None
    return clock["read_ns"]["p50"]


def compare_xen(inputs):
    """One XenRow per environment whose reports ran under Xen (env.xen), in input order."""
    rows = []
    for env, runs in inputs.runs.items():
        kinds = [run.document["env"].get("xen") for run in runs]
        if not any(kinds):
            continue
        kind = next(k for k in kinds if k)
        pvclock = [_read_p50(run.document, "xen_pvclock") for run in runs]
        tsc = [_read_p50(run.document, "tsc") for run in runs]
        ratios = [p / t for p, t in zip(pvclock, tsc) if p is not None and t]
        emulated = kind.get("tsc_emulated")
        rows.append(XenRow(env, f"{kind['guest']} {kind['domain']}", len(runs),
                           spread(pvclock), spread(tsc), spread(ratios),
                           "-" if emulated is None else
                           "emulated by Xen" if emulated else "native"))
    return rows


XEN_HEADINGS = ("env", "guest", "runs", "xen_pvclock p50 ns", "tsc p50 ns",
                "xen_pvclock / tsc", "rdtsc")


XEN_TITLE = ("Xen guests: what a xen_pvclock and a tsc read cost (p50, median over the "
             "runs), and their ratio")


def xen_table(rows):
    """The Xen guests' clock costs (a Table)."""
    columns = [Column(heading, index in (0, 1, 6)) for index, heading in enumerate(XEN_HEADINGS)]
    return Table(XEN_TITLE, columns, [
        [row.env, row.guest, str(row.runs), _spread_text(row.pvclock), _spread_text(row.tsc),
         "-" if row.ratio is None else _ratio_text(row.ratio.median), row.rdtsc]
        for row in rows])


def format_xen_table(rows, markdown=False):
    """The Xen guests' clock costs as aligned text columns or a Markdown table."""
    return xen_table(rows).lines("markdown" if markdown else "table")


def format_xen_csv(rows):
    """The Xen guests' clock costs as CSV, numbers unformatted."""
    heading = ["env", "guest", "runs"]
    for name in ("xen_pvclock_p50_ns", "tsc_p50_ns", "xen_pvclock_over_tsc"):
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    lines = []
    for row in rows:
        line = [row.env, row.guest, row.runs]
        for value in (row.pvclock, row.tsc, row.ratio):
            line += ["", "", ""] if value is None else [value.median, value.low, value.high]
        lines.append(line + [row.rdtsc])
    return Table("", heading + ["rdtsc"], lines).csv()


# ---------------------------------------------------------------------------- the OS layer

# The image's raw clock -> the Linux clocksource that reads the same counter.
RAW_TO_CLOCKSOURCE = {"tsc": "tsc", "hpet": "hpet", "acpi_pm": "acpi_pm",
                      "kvm_clock": "kvm-clock", "xen_pvclock": "xen"}
OS_CLOCK = "CLOCK_MONOTONIC"


@dataclass
class OsRow:
    """One clocksource in one environment: the image's raw read of its counter beside
    clock_gettime(CLOCK_MONOTONIC) through libc and through the system call, p50 ns over
    the runs (docs/os-layer.md)."""

    env: str
    clocksource: str
    raw_clock: str        # the image's clock of the same counter, or "-"
    raw: Spread = None
    libc: Spread = None
    syscall: Spread = None
    via: str = "-"        # where the libc reads were answered: vdso, syscall, or both
    added: float = None   # libc median - raw median, ns
    ratio: float = None   # libc median / raw median


def _os_read_p50(run, path):
    """The p50 of the OS_CLOCK read through `path` in `run`, or None."""
    read = next((r for r in run["reads"] if r["clock"] == OS_CLOCK and r["path"] == path),
                None)
    if not read or not read["measured"] or not read["read_ns"]:
        return None, None
    return read["read_ns"]["p50"], read["through"]


def _os_runs_of(document, clocksource):
    return [run for run in document["runs"]
            if run["clocksource"] == clocksource and not run["problem"]]


def compare_os(inputs):
    """One OsRow per clocksource of each environment with clockbench-user documents."""
    rows = []
    for env, os_runs in inputs.os_runs.items():
        sources = []
        for run in os_runs:
            sources += [r["clocksource"] for r in run.document["runs"]
                        if r["clocksource"] not in sources]
        for source in sources:
            raw_clock = next((clock for clock, cs in RAW_TO_CLOCKSOURCE.items()
                              if cs == source), None)
            libc, syscall, through = [], [], set()
            for os_run in os_runs:
                for run in _os_runs_of(os_run.document, source):
                    value, via = _os_read_p50(run, "libc")
                    libc.append(value)
                    through.add(via)
                    syscall.append(_os_read_p50(run, "syscall")[0])
            raw = [_read_p50(run.document, raw_clock) for run in inputs.runs.get(env, [])] \
                if raw_clock else []
            row = OsRow(env, source, raw_clock or "-", spread(raw), spread(libc),
                        spread(syscall), "/".join(sorted(v for v in through if v)) or "-")
            if row.raw and row.libc:
                row.added = row.libc.median - row.raw.median
                row.ratio = row.libc.median / row.raw.median if row.raw.median else None
            rows.append(row)
    return rows


OS_HEADINGS = ("env", "clocksource", "raw clock", "raw p50 ns",
               f"clock_gettime({OS_CLOCK}) p50 ns", "via", "OS adds ns", "OS / raw",
               "syscall p50 ns")


def os_notes(inputs, rows):
    """What the OS table cannot show: environments with no image report to set beside."""
    return [f"{env}: no image report of this environment, so no raw read to set beside "
            f"(name the image's report {env}.json and clockbench-user's {env}{OS_SUFFIX}"
            f".json)" for env in dict.fromkeys(row.env for row in rows)
            if env not in inputs.runs]


OS_TITLE = (f"What the OS adds: clock_gettime({OS_CLOCK}) through libc against the raw "
            f"read of the same counter (p50, median over the runs)")


def os_table(rows):
    """Raw against OS (a Table): what clock_gettime adds to the raw read, per clocksource."""
    columns = [Column(heading, index in (0, 1, 2, 5)) for index, heading in enumerate(OS_HEADINGS)]
    return Table(OS_TITLE, columns, [
        [row.env, row.clocksource, row.raw_clock, _spread_text(row.raw),
         _spread_text(row.libc), row.via, "-" if row.added is None else _number(row.added),
         _ratio_text(row.ratio), _spread_text(row.syscall)] for row in rows])


def format_os_table(rows, inputs, markdown=False):
    """Raw against OS as aligned text columns or a Markdown table, then what it cannot
    show."""
    return os_table(rows).lines("markdown" if markdown else "table") + os_notes(inputs, rows)


def format_os_csv(rows):
    """Raw against OS as CSV, numbers unformatted."""
    heading = ["env", "clocksource", "raw_clock"]
    for name in ("raw_p50_ns", "clock_gettime_p50_ns", "syscall_p50_ns"):
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    lines = []
    for row in rows:
        line = [row.env, row.clocksource, row.raw_clock]
        for value in (row.raw, row.libc, row.syscall):
            line += ["", "", ""] if value is None else [value.median, value.low, value.high]
        lines.append(line + [row.via, "" if row.added is None else row.added,
                             "" if row.ratio is None else row.ratio])
    return Table("", heading + ["via", "os_adds_ns", "os_over_raw"], lines).csv()


# ---------------------------------------------------------------------------- tick costs

def _late_p50(rate):
    late = rate.get("lateness_ns")
    return late["p50"] if late else None


# Tick metric -> (heading, unit, function of a measured rate entry, ratio shown).
TICK_METRICS = {
    "rate": ("intr/s", "", lambda r: r.get("interrupts_per_s"), False),
    "stolen": ("CPU lost", "%", lambda r: r.get("cpu_stolen_pct"), True),
    "cycles": ("cyc/intr", "", lambda r: r.get("cycles_per_interrupt"), True),
    "late": ("late p50", "ns", _late_p50, False),
}
# Computed with the others, not shown as a column: what the CPU lost is judged against.
TICK_NOISE = ("noise", "%", lambda r: r.get("noise_pct"), False)
TICK_FIGURES = {**TICK_METRICS, "noise": TICK_NOISE}


def _tick_sources(document):
    ticks = document.get("ticks") or {}
    return ticks.get("sources", []) if ticks.get("applies") else []


def has_ticks(inputs):
    """Whether any report holds tick measurements."""
    return any(_tick_sources(run.document) for runs in inputs.runs.values() for run in runs)


def tick_order(inputs):
    """(source, rate) pairs in report order, first appearance first, rates ascending within
    a source."""
    order = {}
    for runs in inputs.runs.values():
        for run in runs:
            for source in _tick_sources(run.document):
                rates = order.setdefault(source["name"], [])
                for rate in source["rates"]:
                    if rate["requested_hz"] not in rates:
                        rates.append(rate["requested_hz"])
    return [(name, hz) for name, rates in order.items() for hz in sorted(rates)]


def _tick_figures(source_name, rate_hz, run):
    """(rate entry,) when `source_name` was measured at `rate_hz` in `run`, else
    (None, why not)."""
    source = next((s for s in _tick_sources(run.document) if s["name"] == source_name), None)
    rate = next((r for r in source["rates"] if r["requested_hz"] == rate_hz),
                None) if source else None
    if source is None:
        return None, ("not in the report" if run.document.get("ticks") else
                      "no tick measurements in the report")
    if not source["present"]:
        return None, f"absent: {source['absent_reason']}"
    if rate is None:
        return None, "rate not asked for"
    if rate["state"] != "measured":
        return None, f"{rate['state']}: {rate['problem']}"
    return (rate,), None


def tick_cost_measured(cell):
    """Whether a cell's CPU lost stands above its noise (the median of each over the runs):
    below it, the cost and cycles per interrupt are noise, and so would a ratio be."""
    stolen, noise = cell.metrics.get("stolen"), cell.metrics.get("noise")
    return bool(stolen and stolen.median > (noise.median if noise else 0.0))


def _tick_cost_ratio(cell, base, metric):
    """The cell's median over the baseline's, when both costs stand above their noise and
    both medians are above 0; else None."""
    mine, theirs = cell.metrics[metric], base.metrics[metric]
    measured = tick_cost_measured(cell) and tick_cost_measured(base)
    return (mine.median / theirs.median if measured and mine and theirs and theirs.median > 0
            and mine.median > 0 else None)


def compare_ticks(inputs, baseline=DEFAULT_BASELINE):
    """The Cells grouped per (source, rate) in environment order:
    [((source, rate_hz), [Cell])]."""
    table = []
    for source_name, rate_hz in tick_order(inputs):
        figures_of = functools.partial(_tick_figures, source_name, rate_hz)
        cells = [build_cell((source_name, rate_hz), env, runs, figures_of, TICK_FIGURES)
                 for env, runs in inputs.runs.items()]
        add_ratios(cells, baseline, TICK_METRICS, _tick_cost_ratio)
        table.append(((source_name, rate_hz), cells))
    return table


# ---------------------------------------------------------------------------- output

def _number(value):
    return report._number(value)  # pylint: disable=protected-access


def _spread_text(value):
    if value is None:
        return "-"
    if value.count == 1 or value.low == value.high:
        return _number(value.median)
    return f"{_number(value.median)} ({_number(value.low)}-{_number(value.high)})"


def _ratio_text(value):
    return "-" if value is None else f"{value:.2f}x"


# A ratio column is headed by its metric's key, but where the key is not the words the
# metric's own column uses: the tick table's CPU lost ("stolen" is the report's member).
RATIO_HEADINGS = {"stolen": "lost"}


def _headings(subject, metrics, baseline):
    """Column headings: those naming the subject, env, runs, then each metric's (and its
    ratio's)."""
    headings = [*subject, "env", "runs"]
    for metric, (heading, unit, _, with_ratio) in metrics.items():
        headings.append(f"{heading} {unit}".strip())
        if with_ratio:
            headings.append(f"{RATIO_HEADINGS.get(metric, metric)} / {baseline}")
    return headings


def _runs_text(cell):
    return str(cell.runs) if cell.measured_runs == cell.runs else \
        f"{cell.measured_runs} of {cell.runs}"


def _row(cell, metrics):
    """The cells of a measured cell's row: the subject, env, runs and each metric's spread
    (and ratio)."""
    row = [*(str(part) for part in cell.subject), cell.env, _runs_text(cell)]
    for metric, (_, _, _, with_ratio) in metrics.items():
        row.append(_spread_text(cell.metrics[metric]))
        if with_ratio:
            row.append(_ratio_text(cell.ratios[metric]))
    return row


def _missing_row(subject, cells, group):
    """One row for the missing `cells` of one subject that share one reason: the envs
    named together, so that a reason repeated by every environment (or every rate) is one
    line.  `subject` is the row's leading cells (the clock; the tick source and its rates)."""
    envs = [cell.env for cell in cells]
    runs = sorted({cell.runs for cell in cells})
    runs_cell = ", ".join(str(count) for count in runs)
    reason = f"missing: {cells[0].missing_reason}"
    if len(cells) == 1:
        return Row([*subject, envs[0], runs_cell, reason], group,
                   lead=len(subject) + 2, text=reason)
    each = f"{runs[0]} run{'s' if runs[0] != 1 else ''} each" if len(runs) == 1 else \
        f"{runs_cell} runs"
    return Row([*subject, ", ".join(envs), runs_cell, reason], group, lead=len(subject),
               text=f"{', '.join(envs)} ({each}): {reason}")


def _collapsed_missing(cells):
    """The missing cells of `cells` grouped by reason, in order of first appearance:
    [[Cell]]."""
    by_reason = {}
    for cell in cells:
        if cell.missing:
            by_reason.setdefault(cell.missing_reason, []).append(cell)
    return list(by_reason.values())


def clock_flags(inputs, cell):
    """What a reader must not miss about one clock in one environment, as words: `trapped`
    (its reads are intercepted or emulated: the report's `trapped`, in every run that timed
    it or in some) and `warps` (it went backwards between CPUs, with the worst step)."""
    trapped, timed, worst_warp_ns, warped = 0, 0, None, 0
    for run in inputs.runs.get(cell.env, []):
        clock = next((c for c in run.document["clocks"] if c["name"] == cell.subject[0]),
                     None)
        if clock and clock["present"] and clock.get("measured", True):
            timed += 1
            trapped += bool(clock.get("trapped"))
        entry = _cross_cpu_entry(run.document, cell.subject[0])
        if entry and entry.get("warps"):
            warped += 1
            worst = entry.get("worst_warp_ns")
            if worst is not None:
                worst_warp_ns = max(worst, worst_warp_ns or 0)
    flags = []
    if trapped:
        flags.append("trapped" if trapped == timed else f"trapped in {trapped} of {timed}")
    if warped:
        flags.append("warps" + (f" (worst {_number(worst_warp_ns)} ns)"
                                if worst_warp_ns is not None else ""))
    return flags


def _tsc_p50(table):
    """env -> the median tsc p50 of that environment, where tsc was timed."""
    cells = dict(table).get("tsc", [])
    return {cell.env: cell.metrics["p50"].median for cell in cells
            if not cell.missing and cell.metrics.get("p50")}


def over_tsc(cell, tsc_p50):
    """The cell's p50 over the tsc p50 of the same environment, or None."""
    mine, theirs = cell.metrics.get("p50"), tsc_p50.get(cell.env)
    return mine.median / theirs if mine and theirs else None


def clock_table(table, inputs, baseline):
    """The clocks table (a Table): per clock and environment the metrics, `× tsc` (the p50
    over the same environment's tsc p50) after the p50 and its ratio, and the flags; one
    row per clock and reason for the environments where the clock is missing."""
    columns = [Column("clock", True), Column("env", True), Column("runs")]
    for metric, (heading, unit, _, with_ratio) in METRICS.items():
        columns.append(Column(f"{heading} {unit}".strip()))
        if metric == "p50":
            columns.append(Column("× tsc"))
        if with_ratio:
            columns.append(Column(f"{metric} / {baseline}"))
    columns.append(Column("flags", True))
    tsc_p50 = _tsc_p50(table)
    rows = []
    for clock_name, cells in table:
        missing = {id(group[0]): group for group in _collapsed_missing(cells)}
        for cell in cells:
            if id(cell) in missing:
                rows.append(_missing_row([clock_name], missing[id(cell)], clock_name))
            elif not cell.missing:
                row = _row(cell, METRICS)
                row.insert(4, _ratio_text(over_tsc(cell, tsc_p50)))
                rows.append(Row(row + [", ".join(clock_flags(inputs, cell))], clock_name))
    return Table(f"clocks: what one read costs (median over the runs, their range in "
                 f"brackets), against the same environment's tsc and against {baseline}",
                 columns, rows)


def notes(inputs, baseline):
    """Lines about what is not in the table: skipped environments, failed runs, baseline."""
    lines = list(inputs.apart)
    lines += [f"{env}: skipped: {reason}" for env, reason in inputs.skipped.items()]
    lines += [f"{env}: a run gave no report ({source}): {reason}"
              for env, source, reason in inputs.failed]
    if baseline not in inputs.runs:
        lines.append(f"baseline {baseline} is not in the results, so there are no ratios "
                     f"(--baseline picks another: {', '.join(inputs.runs)})")
    return lines


def format_table(table, inputs, baseline, markdown=False):
    """The comparison as aligned text columns or a Markdown table, then the notes."""
    lines = clock_table(table, inputs, baseline).lines("markdown" if markdown else "table")
    extra = notes(inputs, baseline)
    if extra:
        lines.append("")
        lines += [f"- {text}" if markdown else text for text in extra]
    return lines


TICK_TITLE = ("tick costs: each source at each rate on CPU 0, CPU lost by a work loop "
              "(docs/report-format.md, ticks)")


def tick_table(table, baseline):
    """The tick costs (a Table): per source, rate and environment the metrics; per source,
    one row per reason for what was not measured, naming the rates (`all` for every rate of
    the source) and the environments it holds for."""
    columns = [Column("source", True), Column("rate Hz"), Column("env", True), Column("runs")]
    columns += [Column(heading) for heading in _headings((), TICK_METRICS, baseline)[2:]]
    rows = []
    sources = list(dict.fromkeys(source for (source, _), _ in table))
    for source in sources:
        rates = [(rate, cells) for (name, rate), cells in table if name == source]
        missing = {}  # reason -> env -> [rate]
        for rate, cells in rates:
            for cell in cells:
                if cell.missing:
                    missing.setdefault(cell.missing_reason, {}).setdefault(
                        cell.env, []).append((rate, cell))
                else:
                    rows.append(Row(_row(cell, TICK_METRICS), source))
        every_rate = [rate for rate, _ in rates]
        for per_env in missing.values():
            by_rates = {}  # the rates an env misses for this reason -> its cells
            for env_cells in per_env.values():
                key = tuple(rate for rate, _ in env_cells)
                by_rates.setdefault(key, []).append(env_cells[0][1])
            for key, cells in by_rates.items():
                rates_text = "all" if list(key) == every_rate and len(key) > 1 else \
                    ", ".join(str(rate) for rate in key)
                rows.append(_missing_row([source, rates_text], cells, source))
    return Table(TICK_TITLE, columns, rows)


def format_tick_table(table, baseline, markdown=False):
    """The tick costs as aligned text columns or a Markdown table (a title line first)."""
    return tick_table(table, baseline).lines("markdown" if markdown else "table")


def _csv(table, heading, metrics, names, baseline, extra=()):
    """`table` as CSV lines, numbers unformatted: the `heading` columns (the subject, env,
    runs, runs measured, missing_reason), then per metric of `metrics` its median, min and
    max (and ratio), named by `names[metric]`: (the values' prefix, the ratio's), then the
    `extra` columns: (heading, function of a cell)."""
    heading = list(heading)
    for metric, (_, _, _, with_ratio) in metrics.items():
        value_name, ratio_name = names[metric]
        heading += [f"{value_name}_median", f"{value_name}_min", f"{value_name}_max"]
        if with_ratio:
            heading.append(f"{ratio_name}_ratio_to_{baseline}")
    heading += [name for name, _ in extra]
    rows = []
    for _, cells in table:
        for cell in cells:
            row = [*cell.subject, cell.env, cell.runs, cell.measured_runs,
                   cell.missing_reason or ""]
            for metric, (_, _, _, with_ratio) in metrics.items():
                value = cell.metrics[metric]
                row += ["", "", ""] if value is None else [value.median, value.low, value.high]
                if with_ratio:
                    ratio = cell.ratios[metric]
                    row.append("" if ratio is None else round(ratio, 4))
            rows.append(row + [value_of(cell) for _, value_of in extra])
    return Table("", heading, rows).csv()


# The tick CSV's name of each metric's columns.
TICK_CSV_NAMES = {"rate": "interrupts_per_s", "stolen": "cpu_stolen_pct",
                  "cycles": "cycles_per_interrupt", "late": "lateness_p50_ns",
                  "noise": "noise_pct"}


def format_tick_csv(table, baseline):
    """The tick costs as CSV: one row per source, rate and environment, numbers
    unformatted."""
    names = {metric: (name, name) for metric, name in TICK_CSV_NAMES.items()}
    return _csv(table, ("source", "rate_hz", "env", "runs", "measured_runs", "missing_reason"),
                TICK_FIGURES, names, baseline)


def format_csv(table, baseline, inputs=None):
    """The comparison as CSV: one row per clock and environment, numbers unformatted.
    Its present_runs are the cells' measured_runs: the runs where the clock was present
    and timed.  Then p50_over_tsc (the × tsc column) and, with `inputs`, flags."""
    names = {}
    for metric, (_, unit, _, _) in METRICS.items():
        suffix = f"_{unit.replace('/', '_per_')}" if unit else ""
        names[metric] = (f"{metric}{suffix}", metric)
    tsc_p50 = _tsc_p50(table)

    def ratio(cell):
        value = over_tsc(cell, tsc_p50)
        return "" if value is None else round(value, 4)
    extra = [("p50_over_tsc", ratio)]
    if inputs is not None:
        extra.append(("flags", lambda cell: "; ".join(clock_flags(inputs, cell))))
    return _csv(table, ("clock", "env", "runs", "present_runs", "missing_reason"), METRICS,
                names, baseline, extra)


def cmd_compare(args):
    """`clockbench compare`: print the side-by-side table, and write plots with --plot."""
    report.require_jsonschema()
    inputs = load_inputs(args.results, parse_labels(getattr(args, "label", None),
                                                     args.results))
    fail_above = getattr(args, "fail_above", None)
    if (args.baseline != DEFAULT_BASELINE or fail_above is not None) \
            and args.baseline not in inputs.runs:
        raise RunnerError(f"--baseline {args.baseline}: no report from that environment in "
                          f"the results (there are: {', '.join(inputs.runs) or 'none'}).")
    if inputs.runs and args.baseline not in inputs.runs and args.format == "csv":
        # A table says so in its notes; a CSV file has none.
        say(f"the default baseline {args.baseline} is not in the results, so there are no "
            f"ratios; the environments are: {', '.join(inputs.runs)} (--baseline ENV "
            f"picks one).")
    which = args.table or ("clocks" if args.format == "csv" and inputs.runs else
                           "os" if args.format == "csv" else "all")
    lines = []
    os_rows = compare_os(inputs) if which in ("all", "os") else []
    if which == "os" and not os_rows:
        raise RunnerError(f"{', '.join(args.results)}: no clockbench-user document "
                          f"({osreport.OS_SCHEMA}) among the results.")
    if which in ("clocks", "ticks", "xen") and not inputs.runs:
        raise RunnerError(f"{', '.join(args.results)}: only clockbench-user documents, "
                          f"which have no {which} table (--table os is theirs).")
    xen_rows = compare_xen(inputs) if which in ("all", "xen") else []
    if which == "xen" and not xen_rows:
        raise RunnerError(f"{', '.join(args.results)}: no report ran under Xen (an env.xen "
                          f"that is not null).")
    ticks = compare_ticks(inputs, args.baseline) if which != "clocks" or args.plot else []
    if which in ("all", "clocks") and inputs.runs:
        table = compare(inputs, args.baseline)
        if args.format == "csv":
            lines = format_csv(table, args.baseline, inputs)
        else:
            lines = format_table(table, inputs, args.baseline,
                                 markdown=args.format == "markdown")
    if which in ("all", "ticks"):
        if not ticks and which == "ticks":
            raise RunnerError(f"{', '.join(args.results)}: no report has tick "
                              f"measurements (a 'ticks' section that applies).")
        if ticks and args.format == "csv":
            lines = format_tick_csv(ticks, args.baseline)
        elif ticks:
            lines += [""] if lines else []
            lines += format_tick_table(ticks, args.baseline,
                                       markdown=args.format == "markdown")
    if xen_rows and args.format == "csv" and which == "xen":
        lines = format_xen_csv(xen_rows)
    elif xen_rows and args.format != "csv":
        lines += [""] if lines else []
        lines += format_xen_table(xen_rows, markdown=args.format == "markdown")
    if os_rows and args.format == "csv" and which == "os":
        lines = format_os_csv(os_rows)
    elif os_rows and args.format != "csv":
        lines += [""] if lines else []
        lines += format_os_table(os_rows, inputs, markdown=args.format == "markdown")
    print("\n".join(lines), flush=True)
    if which not in ("all", "clocks") or args.format == "csv" or not inputs.runs:
        for sentence in inputs.apart:  # the clocks table's notes say them otherwise
            say(sentence)
    messages = []
    if getattr(args, "html", None):
        messages = write_html_report(args, inputs)
    elif args.plot:
        written, messages = plot.write_plots(inputs, ticks, args.plot)
        messages = [f"wrote {path}" for item in written for path in (item.png, item.svg)] \
            + messages
    for message in messages:
        say(message)
    if fail_above is not None:
        return gate(inputs, args.baseline, fail_above)
    return EXIT_PASS


def say(message):
    """One line of compare's own on stderr, so that stdout keeps the tables (or CSV)."""
    print(f"clockbench compare: {message}", file=sys.stderr, flush=True)


def gate(inputs, baseline, limit):
    """--fail-above: say each regressed clock (regressions()), one line each; EXIT_FAIL
    when there is one, else EXIT_PASS."""
    found, not_gated = regressions(inputs, baseline, limit)
    for line in not_gated:
        say(line)
    for regression in found:
        say("FAIL: " + regression_line(regression, baseline, limit))
    if found:
        say(f"{len(found)} clock{'s' * (len(found) != 1)} above --fail-above {limit:g} "
            f"against {baseline} (the smallest p50 of a row over the largest of {baseline}).")
        return EXIT_FAIL
    say(f"no clock above --fail-above {limit:g} against {baseline}: no row's smallest p50 is "
        f"more than {limit:g}x {baseline}'s largest.")
    return EXIT_PASS


def findings(inputs, table, ticks, xen_rows, os_rows):
    """The HTML report's findings, each a line written from the data (html.Finding)."""
    flags_of = functools.partial(clock_flags, inputs)
    return (html.trapped_findings(table, flags_of, _tsc_p50(table))
            + html.warp_findings(inputs) + html.cross_cpu_findings(inputs)
            + html.tick_findings(ticks) + html.xen_findings(table, xen_rows)
            + html.os_findings(os_rows))


def write_html_report(args, inputs):
    """`--html FILE`: every table, the findings and the plots in one HTML file.  The plots
    go to --plot DIR when given (and stay), else to a scratch folder.  Returns the lines
    to tell the user."""
    table = compare(inputs, args.baseline) if inputs.runs else []
    ticks = compare_ticks(inputs, args.baseline)
    xen_rows, os_rows = compare_xen(inputs), compare_os(inputs)
    tables = [clock_table(table, inputs, args.baseline)] if table else []
    tables += [tick_table(ticks, args.baseline)] if ticks else []
    tables += [xen_table(xen_rows)] if xen_rows else []
    tables += [os_table(os_rows)] if os_rows else []
    envs = list(inputs.runs) + [env for env in inputs.os_runs if env not in inputs.runs]
    report_ = html.Report(f"clockbench compare: {', '.join(envs)}", list(args.results),
                          inputs, tables, notes(inputs, args.baseline) + os_notes(inputs, os_rows),
                          findings(inputs, table, ticks, xen_rows, os_rows))
    messages = []
    with tempfile.TemporaryDirectory(prefix="clockbench-plots-") as scratch:
        try:
            report_.plots, report_.plot_notes = html.written_plots(inputs, ticks,
                                                                   args.plot or scratch)
        except RunnerError as error:
            if args.plot:
                raise
            report_.plot_notes = [f"no plots: {error}"]
        if args.plot:
            messages += [f"wrote {path}" for item in report_.plots
                         for path in (item.png, item.svg) if path]
        html.write_html(args.html, report_)
    return messages + report_.plot_notes + [f"wrote {args.html}"]
