# SPDX-License-Identifier: MIT
"""What `clockbench compare` reads: matrix folders (DIR/manifest.json, DIR/ENV/run-K.json)
and single reports (a JSON file or a console log), each validated by report.py; anything
wrong is one RunnerError sentence naming the file.  Runs are grouped by what makes them
comparable (Comparable: the input's label, the environment's name, the host, the
accelerator, the guest's CPU model and hypervisor): runs that differ in any are never
merged, and each group is one row, named by its environment and, where two groups share
a name, what tells them apart (tcg-pc@host-a)."""

import json
import os
from dataclasses import dataclass, field

from ..base.outcome import RunnerError
from ..model import osreport, report
from ..model.console import quote
from .matrix import MANIFEST, MANIFEST_SCHEMA, MANIFEST_SCHEMA_0


# What ends the name of clockbench-user's document beside the image's of one environment.
OS_SUFFIX = ".os"


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
