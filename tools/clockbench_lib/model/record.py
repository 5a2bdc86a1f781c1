# SPDX-License-Identifier: MIT
"""The record model: the documents the runner reads, as dataclasses, read through one
loader, and the one place that writes them.

  Record  what one run leaves: its schema, verdict and reason, the guest's report
          (Report) when it gave one, and where and how it ran (Runner, the record's
          `runner` member); or clockbench-user's document (clockbench-os/1), which has
          no Report.  An older clockbench/1 report or clockbench-run/0 summary is read
          into the same shape with what it holds.
  Report  the guest's JSON report (clockbench/2, docs/report.schema.json): its env
          (Env) and its clocks (Clock, with read_ns a Distribution).
  Runner  where and how the runner booted the run: host (Host), accelerator, machine,
          boot path, -cpu model, the QEMU command, versions, times, and how busy the
          host was over it (HostState).

load_record() reads a record (or report) from a JSON file and read_input() one from a
JSON file or a console log; both validate it against its schema first (report.py,
osreport.py), so that the model is built from a document known to be well formed.  A
Record keeps that document as `document`: the report= checks and json= expectations of
tests.cfg (testing/) and compare's figures read members the model does not name.
"""

import hashlib
import json
from dataclasses import dataclass

from ..base.outcome import RunnerError
from . import histogram, osreport, report
from .console import quote

# The largest JSON input read (a report is under 100 KiB, a manifest a few).
MAX_JSON_FILE_BYTES = 64 << 20
# The verdicts of a run that ended with the guest's own: its report is a measurement.
GUEST_VERDICTS = ("pass", "fail", "skip")


def _object(value):
    """`value` when it is a JSON object, else an empty one (a member an older document
    lacks, or holds as null)."""
    return value if isinstance(value, dict) else {}


def _text(value):
    """`value` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class Host:
    """The machine a run was booted on, as the runner member (or a matrix manifest) names
    it; None for what the document does not say."""

    name: str = None
    cpu_model: str = None
    cpu_vendor: str = None
    kernel: str = None
    machine_id: str = None  # a hash of /etc/machine-id (runinfo.machine_id()), not the id

    @classmethod
    def from_json(cls, host):
        """From a record's runner.host, or a manifest's host (in clockbench-matrix/0 its
        cpu is the model's name alone)."""
        host = _object(host)
        cpu = host.get("cpu")
        return cls(name=_text(host.get("name")),
                   cpu_model=_text(cpu.get("model") if isinstance(cpu, dict) else cpu),
                   cpu_vendor=_text(cpu.get("vendor") if isinstance(cpu, dict) else None),
                   kernel=_text(host.get("kernel")),
                   machine_id=_text(host.get("machine_id")))


@dataclass(frozen=True)
class HostState:
    """How busy the host was over a run (the runner member's host_state, made by
    tools/clockbench_lib/base/hoststate.py): None for what the record does not say."""

    busy: bool = None
    others_pct: float = None   # CPU time of processes other than the run's QEMU
    steal_pct: float = None
    other_qemus: int = None
    clocksource: str = None
    said: str = None

    @classmethod
    def from_json(cls, state):
        """From a runner's host_state, or None when the record has none."""
        if not isinstance(state, dict):
            return None
        shares = _object(state.get("cpu_pct"))
        busy = state.get("busy")
        return cls(busy=busy if isinstance(busy, bool) else None,
                   others_pct=shares.get("others"), steal_pct=shares.get("steal"),
                   other_qemus=_object(state.get("other_qemus")).get("count"),
                   clocksource=_text(state.get("clocksource")),
                   said=_text(state.get("said")))


@dataclass(frozen=True)
class Runner:
    """A record's runner member: where and how tools/clockbench booted the run.  A
    clockbench/1 record's member has fewer facts; what it lacks is None."""

    host: Host
    accel: str = None
    machine: str = None
    boot: str = None
    cpu: str = None            # QEMU's -cpu argument
    cpu_choice: str = None     # why that model, when the runner chose it
    smp: int = None
    memory_mib: int = None
    qemu_command: tuple = None  # None when the run ended before QEMU started
    seconds: float = None
    environment: str = None
    qemu_version: str = None
    xen_version: str = None
    revision: str = None
    argv: tuple = ()
    started_utc: str = None
    ended_utc: str = None
    host_state: HostState = None  # None in records made before it

    @classmethod
    def from_json(cls, runner):
        runner = _object(runner)
        command = runner.get("qemu_command")
        return cls(host=Host.from_json(runner.get("host")), accel=runner.get("accel"),
                   machine=runner.get("machine"), boot=runner.get("boot"),
                   cpu=runner.get("cpu"), cpu_choice=runner.get("cpu_choice"),
                   smp=runner.get("smp"), memory_mib=runner.get("memory_mib"),
                   qemu_command=tuple(command) if isinstance(command, list) else None,
                   seconds=runner.get("seconds"), environment=runner.get("environment"),
                   qemu_version=runner.get("qemu_version"),
                   xen_version=runner.get("xen_version"), revision=runner.get("revision"),
                   argv=tuple(runner.get("argv") or ()),
                   started_utc=runner.get("started_utc"), ended_utc=runner.get("ended_utc"),
                   host_state=HostState.from_json(runner.get("host_state")))


@dataclass(frozen=True)
class Env:
    """What the guest saw of its machine (the report's env member)."""

    boot: str = None
    cmdline: str = None
    cpu: str = None
    hypervisor: str = None      # "TCG", "KVM", "Xen", ... as the guest names it
    xen: dict = None            # under Xen, what kind of guest: {"type", "domain", ...}
    cpus: int = None
    memory_mib: int = None
    tsc_hz: int = None

    @classmethod
    def from_json(cls, env):
        env = _object(env)
        xen = env.get("xen")
        return cls(boot=env.get("boot"), cmdline=env.get("cmdline"), cpu=env.get("cpu"),
                   hypervisor=env.get("hypervisor"),
                   xen=xen if isinstance(xen, dict) else None, cpus=env.get("cpus"),
                   memory_mib=env.get("memory_mib"), tsc_hz=env.get("tsc_hz"))


@dataclass(frozen=True)
class Distribution:
    """The percentiles of one measured quantity (a clock's read_ns, in ns), None where the
    report has none."""

    p50: float = None
    p90: float = None
    p99: float = None
    p999: float = None
    min: float = None
    max: float = None

    @classmethod
    def from_json(cls, values):
        """From a distribution member, or None when there is none."""
        if not isinstance(values, dict):
            return None
        return cls(**{key: values.get(key) for key in ("p50", "p90", "p99", "p999", "min",
                                                       "max")})


@dataclass(frozen=True)
class Clock:
    """One clock of the report (its clocks[] entry); `entry` is the entry itself."""

    name: str
    present: bool
    measured: bool          # a clockbench/1 report has no `measured`: its clocks are
    absent_reason: str = None
    flags: tuple = ()
    trapped: bool = False
    read_ns: Distribution = None
    batch_ns_per_read: float = None
    resolution_ns: float = None
    entry: dict = None

    @classmethod
    def from_json(cls, entry):
        return cls(name=entry["name"], present=bool(entry["present"]),
                   measured=bool(entry.get("measured", True)),
                   absent_reason=entry.get("absent_reason"),
                   flags=tuple(entry.get("flags") or ()), trapped=bool(entry.get("trapped")),
                   read_ns=Distribution.from_json(entry.get("read_ns")),
                   batch_ns_per_read=entry.get("batch_ns_per_read"),
                   resolution_ns=entry.get("resolution_ns"), entry=entry)

    @property
    def timed(self):
        """Whether the clock was there and its reads were timed."""
        return self.present and self.measured

    @property
    def read_p50_ns(self):
        """What a read costs at the median (ns), or None when the clock was absent or not
        timed."""
        return self.read_ns.p50 if self.present and self.read_ns else None


@dataclass(frozen=True)
class Report:
    """The guest's JSON report.  `document` is the report as read."""

    schema: str
    verdict: str
    env: Env
    clocks: tuple
    document: dict

    @classmethod
    def from_json(cls, document):
        return cls(schema=document.get("schema"), verdict=document.get("verdict"),
                   env=Env.from_json(document.get("env")),
                   clocks=tuple(Clock.from_json(entry) for entry in document["clocks"]),
                   document=document)

    def clock(self, name):
        """The Clock called `name`, or None when the report does not list it."""
        return next((clock for clock in self.clocks if clock.name == name), None)


@dataclass(frozen=True)
class Record:
    """What one run left: a record of the runner's (clockbench/2, with `runner`), the
    guest's report alone, an older report or summary, or clockbench-user's document.
    `report` is the guest's report when the document holds one; `runner` None when the
    document has no runner member; `source` names where it was read."""

    schema: str
    verdict: str
    reason: str
    report: Report
    runner: Runner
    document: dict
    source: str = ""

    @property
    def run_id(self):
        """The unique id the runner gave this run (`run_id`), or None in a record made
        before run ids, or a guest's report alone."""
        return _text(self.document.get("run_id"))

    @property
    def identity(self):
        """What tells this run from every other: its run id, else a hash of the whole
        document (two copies of one report are one run; two runs never share a report
        to the last figure)."""
        if self.run_id:
            return f"run_id:{self.run_id}"
        text = json.dumps(self.document, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def failures(self):
        """The checks the guest failed or met an error in, as its KTAP text ('name # info'),
        from the report's checks.list; () when the report lists none."""
        listed = _object(self.document.get("checks")).get("list")
        if not isinstance(listed, list):
            return ()
        return tuple(f"{check['name']}" + (f" # {check['info']}" if check.get("info") else "")
                     for check in listed if isinstance(check, dict)
                     and check.get("result") in ("fail", "error"))

    @property
    def is_os_document(self):
        """Whether this is clockbench-user's document (clockbench-os/1), not the image's."""
        return self.schema == osreport.OS_SCHEMA

    @property
    def no_report_reason(self):
        """Why this is no measurement, or None when it is one: it holds the guest's report
        and its run ended with the guest's verdict."""
        if self.report is not None and self.verdict in GUEST_VERDICTS:
            return None
        return (f"verdict {quote(self.verdict, 20)}: "
                f"{quote(self.reason or 'no report')}")


def record_of(document, source=""):
    """The Record of a validated `document` (read from `source`)."""
    os_document = document.get("schema") == osreport.OS_SCHEMA
    guest = not os_document and report.has_guest_report(document)
    runner = document.get("runner")
    return Record(schema=document.get("schema"), verdict=document.get("verdict"),
                  reason=document.get("reason"),
                  report=Report.from_json(document) if guest else None,
                  runner=Runner.from_json(runner) if isinstance(runner, dict) and runner
                  else None,
                  document=document, source=source)


# ---------------------------------------------------------------------------- reading

# The SHA-256 of every JSON file this process has validated (compare, and the tests that
# run it in one process, read the same fixtures many times; a schema check of a record
# takes about 0.1 s of CPU).
_VALIDATED = set()


def _json_file(path):
    """(the parsed JSON at `path`, the SHA-256 of its bytes); RunnerError in one sentence
    when it cannot be read or parsed."""
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
    return report.load_json_text(text, path), hashlib.sha256(data).digest()


def load_json_file(path):
    """The parsed JSON at `path`; RunnerError in one sentence when it cannot be."""
    return _json_file(path)[0]


def _validated_record(document, digest, path):
    """The Record of `document` (the file at `path`, whose bytes hash to `digest`): a
    clockbench/2 document, or an older clockbench/1 report or clockbench-run/0 summary,
    validated once per process."""
    if digest not in _VALIDATED:
        report.validate_document(document, path, summaries=True)
        _VALIDATED.add(digest)
    return record_of(document, path)


def load_record(path):
    """The Record in a JSON file: a clockbench/2 document (a report or a run's record,
    with or without the guest's report), or an older clockbench/1 report or
    clockbench-run/0 summary, validated."""
    return _validated_record(*_json_file(path), path)


def _measurement(record, path):
    """`record`, or RunnerError when it records a run that gave no report."""
    reason = record.no_report_reason
    if reason:
        raise RunnerError(f"{path}: this records a run that gave no report "
                          f"({record.schema}, {reason}), so it has nothing to compare.")
    return record


def load_measurement(path):
    """The Record of a JSON file that holds a measurement (see Record.no_report_reason);
    RunnerError for a record of a run that gave no report."""
    return _measurement(load_record(path), path)


def read_input(path):
    """The Record of a measurement in a JSON file or (anything else) a console log: the
    image's report (clockbench/2, or an older clockbench/1) or clockbench-user's document
    (clockbench-os/1), validated."""
    if path.endswith(".json"):
        document, digest = _json_file(path)
        if isinstance(document, dict) and document.get("schema") == osreport.OS_SCHEMA:
            osreport.validate_os_document(document, path)
            return record_of(document, path)
        return _measurement(_validated_record(document, digest, path), path)
    lines = report.read_log_lines(path)
    if osreport.has_os_report(lines) and not report.has_report(lines):
        return record_of(osreport.load_os_report(lines, path), path)
    return record_of(report.load_report(lines, path), path)


# ---------------------------------------------------------------------------- writing

def write_json(path, document):
    """Write `document` as pretty JSON to `path` ('-': standard output)."""
    if path == "-":
        print(histogram.dumps(document), flush=True)
        return
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(histogram.dumps(document) + "\n")
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
