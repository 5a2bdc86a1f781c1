# SPDX-License-Identifier: MIT
"""What `clockbench compare` reads: matrix folders (DIR/manifest.json, DIR/ENV/run-K.json)
and single reports (a JSON file or a console log), each validated by report.py; anything
wrong is one RunnerError sentence naming the file.  Runs are grouped by what makes them
comparable (Comparable: the input's label, the environment's name, the host, the
accelerator, the guest's CPU model and hypervisor): runs that differ in any are never
merged, and each group is one row, named by its environment and, where two groups share
a name, what tells them apart (tcg-pc@host-a)."""

import functools
import hashlib
import os
from dataclasses import dataclass, field

from ..base.outcome import RunnerError
from ..model import osreport
from ..model.console import guest_failures, quote
from ..model.report import read_log_lines
from ..model.manifest import load_manifest
from ..model.record import Report, load_record, read_input, record_of


# What ends the name of clockbench-user's document beside the image's of one environment.
OS_SUFFIX = ".os"


# What the sentence on rows kept apart says of hosts that share a name but not an identity.
HOSTS_OF_ONE_NAME = "different hosts of one name"
# The verdicts of a run whose figures are left out unless --include-failed takes them in.
FAILED_VERDICTS = ("fail", "error")


@dataclass(frozen=True)
class HostIdentity:
    """What a host is, beyond its name (cloud images share names): its CPU model, kernel,
    QEMU's and Xen's versions as the run's record gives them, and the hash of its machine
    id; None for what the record does not say."""

    cpu: str = None
    kernel: str = None
    qemu: str = None
    xen: str = None
    machine_id: str = None

    # (attribute, words) in the order a sentence tells their differences.
    FACTS = (("cpu", "CPU models"), ("kernel", "kernels"), ("qemu", "QEMU versions"),
             ("xen", "Xen versions"), ("machine_id", "machine ids"))

    @property
    def digest(self):
        """Four hex digits that name this identity among hosts of one name: of all but
        Xen's version, which the runner records for the Xen boots only, so that one host's
        rows carry one name."""
        text = "\n".join(str(getattr(self, fact)) for fact, _ in self.FACTS if fact != "xen")
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:4]


@dataclass(frozen=True)
class Comparable:
    """What runs must share to be merged into one row: the label of their input (None
    without --label), their environment's name, their host (its name, or for an input
    without one, that input itself, and its identity), the accelerator, and the guest's
    CPU model and hypervisor as the guest saw them."""

    label: str
    env: str
    host: str           # the host's name, or "input:PATH" when the input names none
    accel: str
    cpu: str
    hypervisor: str

    host_cpu: str = None  # the host's CPU model where the input says it (a manifest)
    identity: HostIdentity = HostIdentity()
    single: bool = False  # a single file, whose row a --label names alone

    @property
    def host_words(self):
        """The host in words: its name, or that the input names none (and its CPU, when
        the input says it)."""
        if not self.host.startswith("input:"):
            return self.host
        cpu = f"CPU {self.host_cpu}; " if self.host_cpu else ""
        return f"an unnamed host ({cpu}{self.host[len('input:'):]})"

    @property
    def host_shown(self):
        """The host as a row's name shows it: its name, or its input's file or folder."""
        if self.host.startswith("input:"):
            path = self.host[len("input:"):]
            return os.path.basename(os.path.normpath(path)) or path
        return self.host


@dataclass
class Run:
    """One validated report (or clockbench-user's document) and where it came from; `env`
    is its row's display label.  `record` and `report` are its model (model/record.py);
    `document` the JSON, for the figures the model does not name."""

    env: str
    source: str
    document: dict
    key: Comparable = None
    verdict: str = None    # the run's verdict (pass, fail, skip, error), None: not said
    left_out: str = None   # why its figures are left out (a FAIL or ERROR), or None

    @functools.cached_property
    def record(self):
        """The run's Record, made from `document` when first asked for (a test that
        changes the document does so before)."""
        return record_of(self.document, self.source)

    @functools.cached_property
    def report(self):
        """The guest's Report (a run of Inputs.runs always has one)."""
        return self.record.report or Report.from_json(self.document)


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
    left_out: list = field(default_factory=list)   # [Run] of FAIL/ERROR runs left out
    verdicts: dict = field(default_factory=dict)   # row label -> {verdict: runs}
    counted_once: list = field(default_factory=list)  # sentences: inputs given twice
    include_failed: bool = False
    paired: tuple = None  # (before, after) labels when compare pairs each environment

    def add(self, run):
        # By the schema alone: the run's model is made when it is first asked for.
        if run.document.get("schema") == osreport.OS_SCHEMA:
            self.os_runs.setdefault(run.env, []).append(run)
        else:
            self.runs.setdefault(run.env, []).append(run)


def single_file_env(path, record=None):
    """The environment name of a lone report: the environment its record says it ran in
    (runner.environment), else its folder for run-K files, else its stem, without a last
    ".os" (tcg.os.json is clockbench-user's document of environment tcg)."""
    if record is not None and record.runner and record.runner.environment:
        return record.runner.environment
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem.endswith(OS_SUFFIX) and len(stem) > len(OS_SUFFIX):
        stem = stem[:-len(OS_SUFFIX)]
    if stem.startswith("run-"):
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or stem
    return stem


@dataclass
class Pending:
    """A report read, before its row is known: the environment's name, its Record, the
    input's label, and the host the input names (its name and CPU model, None: none)."""

    env: str
    record: object
    label: str = None
    host: str = None
    input_path: str = ""
    accel: str = None   # the manifest's, for reports whose runner member does not say
    host_cpu: str = None  # the manifest's host CPU model
    log: str = None     # the run's console log, where there is one (for a FAIL's reason)
    single: bool = False  # a single file (a labelled one's row is its label)


def _shown(env, label):
    """An environment's name as notes show it: with its input's label, when it has one."""
    return f"{env}@{label}" if label else env


def load_matrix(folder, inputs, pending, label=None):
    """Add the runs of one matrix folder to `pending` (and its skipped environments and
    runs without a report to `inputs`)."""
    manifest = load_manifest(folder)
    for env in manifest.environments:
        shown = _shown(env.name, label)
        if env.skipped:
            inputs.skipped.setdefault(shown, quote(env.reason or "skipped"))
            continue
        for run in env.runs:
            reason = quote(run.reason or run.verdict or "no report")
            if run.json:
                record = load_record(os.path.join(folder, run.json))
                reason = record.no_report_reason
                if reason is None:
                    pending.append(Pending(env.name, record, label, manifest.host.name,
                                           folder, env.accel, manifest.host.cpu_model,
                                           os.path.join(folder, run.log) if run.log
                                           else None))
                    continue
            inputs.failed.append((shown, os.path.join(folder, run.log or "?"), reason))


def comparable(item):
    """The Comparable of a Pending report."""
    runner, env = item.record.runner, item.record.report.env
    host_name = runner.host.name if runner and runner.host.name else item.host
    accel = (runner.accel if runner else None) or item.accel or {
        "TCG": "tcg", "KVM": "kvm"}.get(env.hypervisor)
    identity = HostIdentity()
    if runner and runner.host.name:
        identity = HostIdentity(runner.host.cpu_model, runner.host.kernel,
                                runner.qemu_version, runner.xen_version,
                                runner.host.machine_id)
    return Comparable(item.label, item.env, host_name or f"input:{item.input_path}",
                      str(accel or "?"), str(env.cpu or "?"), str(env.hypervisor or "?"),
                      None if host_name else item.host_cpu, identity, item.single)


def failure_reason(record, log=None):
    """Why a FAIL or ERROR run failed, in words: the checks the guest failed (its report's
    checks.list, else the `not ok` lines of its console log `log`), else the record's
    reason, else the report's counts."""
    failures = record.failures()
    if not failures and log and os.path.isfile(log):
        try:
            failures = tuple(line[len("not ok "):].split(" ", 1)[-1]
                             for line in guest_failures(read_log_lines(log)))
        except RunnerError:
            failures = ()
    if failures:
        more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        return "; ".join(quote(text, 120) for text in failures[:3]) + more
    if record.reason:
        return quote(record.reason)
    checks = record.document.get("checks") or {}
    return (f"{checks.get('failed', '?')} check(s) failed, {checks.get('errors', 0)} met "
            f"an error (the report names none)")


# The facts that keep two rows of one name apart, in the order their differences are told.
_FACTS = (("host", "hosts"), ("accel", "accelerators"), ("cpu", "CPU models"),
          ("hypervisor", "hypervisors"))


# Which fact names rows apart, first that tells them all apart: tcg-pc@kvm, tcg-pc@host-b.
_SUFFIX_FACTS = ("accel", "host", "host identity", "hypervisor", "cpu")


def _suffix_value(key, fact):
    """What names a row by `fact`; a host by its name, and when hosts of that name differ
    (Comparable.identity), with four hex digits of its identity: tcg-pc@vm.3f2a."""
    if fact == "host":
        return key.host_shown
    if fact == "host identity":
        return f"{key.host_shown}.{key.identity.digest}"
    return getattr(key, fact)


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
    if len({key.host for key in keys}) == 1 and len({key.identity for key in keys}) > 1:
        told = []
        for fact, words in HostIdentity.FACTS:
            values = list(dict.fromkeys(getattr(key.identity, fact) for key in keys))
            if len(values) > 1:
                told.append(f"{words} {', '.join(quote(str(v), 80) for v in values)}")
        reasons.append(f"{HOSTS_OF_ONE_NAME} ({'; '.join(told)})")
    why = "; ".join(reasons) or "different inputs"
    if any(key.host.startswith("input:") for key in keys) and len(
            {key.host for key in keys}) > 1:
        why += (" (an input that names no host, as reports before clockbench/2 do, counts "
                "as a host of its own)")
    return f"{froms} are kept apart as {', '.join(labels)}: {why}."


def _base_name(key):
    """A row's name before what tells rows apart: its environment's, with its input's
    label (a labelled single file's row is its label alone)."""
    if key.label and key.single:
        return key.label
    return key.env if key.label is None else _shown(key.env, key.label)


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


def _verdict(record):
    """A run's verdict: its record's, else its report's."""
    return record.verdict or (record.report.verdict if record.report else None)


def _once(pending, inputs):
    """`pending` without the runs given more than once (the same run id, or for a record
    before run ids the same document) under one label, and a sentence in
    `inputs.counted_once` per pair of inputs that shared runs."""
    seen, kept, shared = {}, [], {}
    for item in pending:
        identity = (item.label, item.record.identity)
        if identity in seen:
            pair = (seen[identity].input_path, item.input_path)
            shared[pair] = shared.get(pair, 0) + 1
            continue
        seen[identity] = item
        kept.append(item)
    for (first, again), count in shared.items():
        runs = f"{count} run{'s' * (count != 1)}"
        if first == again:
            inputs.counted_once.append(f"{first} holds the same {runs} more than once "
                                       f"(the same run ids), each counted once.")
        else:
            inputs.counted_once.append(f"{again} repeats {runs} of {first} (the same run "
                                       f"ids, or the same reports): each counted once.")
    return kept


def group_runs(pending, inputs):
    """Put every Pending report into `inputs`, one row per Comparable, and say in
    `inputs.apart` which rows of one name were kept apart and why.  A run given twice
    counts once; a FAIL or ERROR run goes to `inputs.left_out` (unless
    inputs.include_failed) and every run's verdict is counted in `inputs.verdicts`."""
    pending = _once(pending, inputs)
    keys = list(dict.fromkeys(comparable(item) for item in pending))
    labels = _labels(keys)
    for item in pending:
        key = comparable(item)
        verdict = _verdict(item.record)
        run = Run(labels[key], item.record.source, item.record.document, key, verdict)
        counts = inputs.verdicts.setdefault(labels[key], {})
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict in FAILED_VERDICTS:
            run.left_out = failure_reason(item.record, item.log)
            if not inputs.include_failed:
                inputs.left_out.append(run)
                continue
        inputs.add(run)
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


def load_inputs(paths, labels=None, include_failed=False):
    """Read every RESULTS argument into one Inputs; `labels` maps an input (as written)
    to its --label.  An input given twice (one file or folder, however written) is read
    once; FAIL and ERROR runs are left out of the figures unless `include_failed`."""
    labels = labels or {}
    inputs, pending = Inputs(include_failed=include_failed), []
    read = {}  # (real path, label) -> the input as first written
    for path in paths:
        label = labels.get(path)
        real = (os.path.realpath(path), label)
        if real in read:
            inputs.counted_once.append(
                f"{path} is given twice" + (f" (as {read[real]} and {path})"
                                            if read[real] != path else "")
                + ": its runs are counted once.")
            continue
        read[real] = path
        if os.path.isdir(path):
            load_matrix(path, inputs, pending, label)
        elif os.path.exists(path):
            record = read_input(path)
            env = single_file_env(path, record)
            if record.is_os_document:
                inputs.add(Run(label or env, path, record.document))
                continue
            log = os.path.splitext(path)[0] + ".log" if path.endswith(".json") else path
            # A labelled file's row is its label (_base_name); its environment pairs it.
            pending.append(Pending(env, record, label, None, path, log=log, single=True))
        else:
            raise RunnerError(f"{path}: no such file or folder.")
    group_runs(pending, inputs)
    if not inputs.runs and not inputs.os_runs:
        left = (f" ({len(inputs.left_out)} FAIL or ERROR run"
                f"{'s' * (len(inputs.left_out) != 1)} left out: --include-failed takes them "
                f"in)") if inputs.left_out else ""
        raise RunnerError(f"{', '.join(paths)}: no report to compare (every run failed or "
                          f"was skipped){left}.")
    return inputs
