# SPDX-License-Identifier: MIT
"""A LAVA job log, read: as `lava-run` writes it on stderr (one YAML flow mapping a line,
{"dt": ..., "lvl": ..., "msg": ...}) or as `lavacli jobs logs --raw` fetches it from a
server (the same mappings as a YAML list, "- {dt: ..., lvl: ..., msg: ...}").

What clockbench reads of it: the console ("target" lines, in which LAVA writes every `"`
as `\\"`), the test cases ("results" lines: a mapping each, with its definition, case,
result and, for a measurement, the figure and its unit), LAVA's own verdict on the job
(the case "job" of the definition "lava", with the error's type when it failed), the QEMU
command and version LAVA started, and when the job ran.  A log LAVA's job result does not
end was cut (or the job is still running): what is there is kept, and `cut` says why.
"""

import re
from dataclasses import dataclass, field

from ..base.outcome import RunnerError
from ..model.console import clean_line, quote

# The largest log read: a job of this image logs about 100 KiB.
MAX_LOG_BYTES = 256 << 20
LAVA_DEFINITION = "lava"
_BOOT_COMMAND = "Boot command: "
_QEMU_VERSION = re.compile(r"^qemu(?:-system-\S+)?, installed at version: (\S+)")
_DISPATCHER_VERSION = re.compile(r"^lava-dispatcher, installed at version: (\S+)")


def _yaml_loader():
    """PyYAML's fastest safe loader (Debian's python3-yaml, which lava-dispatcher needs)."""
    try:
        import yaml  # pylint: disable=import-outside-toplevel  (only `lava results` needs it)
    except ImportError:
        raise RunnerError("reading a LAVA log needs PyYAML (Debian's python3-yaml; "
                          "`make deps` installs it).") from None
    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class LavaLog:
    """What one LAVA job log says (see the module's comment)."""

    source: str
    console: list = field(default_factory=list)   # the target lines, unescaped
    results: list = field(default_factory=list)   # every results mapping, in order
    times: tuple = ()          # the first and last entry's time (LAVA's dt, UTC)
    console_times: tuple = ()  # the first and last console line's time
    boot_command: str = None
    qemu_version: str = None
    dispatcher_version: str = None
    cut: str = None   # why the log is incomplete, or None

    def cases(self, definition):
        """The results of test definition `definition`, in order."""
        return [result for result in self.results if result.get("definition") == definition]

    @property
    def job_result(self):
        """LAVA's verdict on the job (its case "job"), or None when the log has none."""
        return next((result for result in self.results
                     if result.get("definition") == LAVA_DEFINITION
                     and result.get("case") == "job"), None)

    @property
    def lab_error(self):
        """The error LAVA ended the job with, in words ("its Infrastructure error
        'Connection closed'"), or None."""
        job = self.job_result
        if not job or job.get("result") == "pass":
            return None
        kind = job.get("error_type") or "unnamed"
        message = " ".join(str(job.get("error_msg") or "no message").split())
        return f"its {kind} error {quote(message)}"


def _entries(text, source):
    """(line number, entry) of each of the log's entries; RunnerError when the log is not
    LAVA's; a last line that is not whole is the cut's."""
    yaml, loader = _yaml_loader()
    lines = text.splitlines()
    entries, cut = [], None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        body = line[2:] if line.startswith("- ") else line
        try:
            entry = yaml.load(body, Loader=loader)
        except yaml.YAMLError:
            entry = None
        if isinstance(entry, dict) and "lvl" in entry and "msg" in entry:
            entries.append((number, entry))
            continue
        if not entries:
            raise RunnerError(f"{source}: not a LAVA job log: its first line is not a LAVA "
                              f"log entry (a {{dt, lvl, msg}} mapping, as lava-run writes "
                              f"them and `lavacli jobs logs --raw` fetches them): "
                              f"{quote(line, 80)}.")
        if number == len(lines):
            cut = f"its last line (line {number}) is cut off mid-entry"
            break
        raise RunnerError(f"{source}: line {number} is not a LAVA log entry: "
                          f"{quote(line, 80)}.")
    if not entries:
        raise RunnerError(f"{source}: not a LAVA job log: it is empty.")
    return entries, cut


def read_log(path):
    """The LavaLog of the file at `path`; RunnerError in one sentence when it cannot be
    read or is not a LAVA job log."""
    try:
        with open(path, "rb") as source:
            data = source.read(MAX_LOG_BYTES + 1)
    except OSError as error:
        raise RunnerError(f"cannot read {quote(path)}: {error.strerror}.") from None
    if len(data) > MAX_LOG_BYTES:
        raise RunnerError(f"{path}: more than {MAX_LOG_BYTES >> 20} MiB, far more than a "
                          f"LAVA job of this image logs, so it is not read.")
    return parse_log(data.decode("utf-8", errors="replace"), path)


def parse_log(text, source):
    """The LavaLog of the log `text` (read from `source`)."""
    entries, cut = _entries(text, source)
    log = LavaLog(source=source)
    for _, entry in entries:
        level, message = entry.get("lvl"), entry.get("msg")
        when = str(entry.get("dt") or "")
        if when:
            log.times = (log.times[0] if log.times else when, when)
        if level == "target" and isinstance(message, str):
            log.console.append(clean_line(message.replace('\\"', '"')))
            if when:
                log.console_times = (log.console_times[0] if log.console_times else when,
                                     when)
        elif level == "results" and isinstance(message, dict):
            log.results.append(message)
        elif isinstance(message, str):
            if message.startswith(_BOOT_COMMAND):
                log.boot_command = message[len(_BOOT_COMMAND):].replace('\\"', '"')
            elif match := _QEMU_VERSION.match(message):
                log.qemu_version = match.group(1)
            elif match := _DISPATCHER_VERSION.match(message):
                log.dispatcher_version = match.group(1)
    if log.job_result is None:
        log.cut = cut or ("it ends before LAVA's result for the job: the log was cut "
                          "mid-run, or the job had not finished when it was fetched")
    return log
