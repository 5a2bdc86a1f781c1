# SPDX-License-Identifier: MIT
"""The guest's JSON report (schema clockbench/2): finding it in a console log, parsing
it, validating it against docs/report.schema.json, and showing it as a table.

The one place that knows the report's console framing (docs/report-format.md):

    clockbench-json begin
    json| {"schema": "clockbench/2",
    json|  ...}
    clockbench-json end

The document is the concatenation of the text after `json| ` on the lines between the
markers; lines without the prefix (other CPUs, QEMU's messages) are ignored.  Every
problem is a RunnerError holding one sentence that starts with the log's name.
"""

import functools
import importlib
import json
from dataclasses import dataclass
import math
import os
import pathlib
import sys

from ..base import paths
from .console import (HELD_CHARS, MAX_LINE_BYTES, HeldLines, LineSplitter, is_cut,
                      is_dropped_note, quote)
from ..base.outcome import RunnerError

SCHEMA = "clockbench/2"
# The guest's report before clockbench/2 (the same guest members; a `runner` key of fewer
# facts), and what `run --json` wrote then when a run gave no report.  Both are still read.
REPORT_SCHEMA_1 = "clockbench/1"
RUN_SUMMARY_SCHEMA_0 = "clockbench-run/0"
OLD_SCHEMAS = (REPORT_SCHEMA_1, RUN_SUMMARY_SCHEMA_0)
# The members the guest's report has and a runner's record of a run without one lacks.
GUEST_MEMBERS = ("version", "env", "budget_ms", "empty_bracket_cycles", "clocks", "checks")
BEGIN = "clockbench-json begin"
END = "clockbench-json end"
PREFIX = "json| "
PERCENTILES = ("min", "p50", "p90", "p99", "p999", "max")
SCHEMA_FILE = os.path.join("docs", "report.schema.json")
JSONSCHEMA_PACKAGE = "python3-jsonschema"


@dataclass(frozen=True)
class Framing:
    """How a JSON document travels on a console, and the schema it follows."""

    begin: str
    end: str
    prefix: str
    schema: str        # the document's "schema" value
    schema_file: str   # relative to the repository root


# The image's report; clockbench-user's (osreport.OS_FRAMING) is framed the same way.
IMAGE_FRAMING = Framing(BEGIN, END, PREFIX, SCHEMA, SCHEMA_FILE)
_MESSAGE_CHARS = 160
_READ_CHUNK_BYTES = 1 << 20


def read_log_lines(path):
    """The cleaned lines of a console log, raw (CR LF, ANSI escapes) or as saved by `run`.

    `-` reads standard input.  Read as the runner reads QEMU's output: in chunks, each
    line cut to console.MAX_LINE_BYTES and at most console.HELD_CHARS of them held.
    RunnerError when the file cannot be read.
    """
    splitter, held = LineSplitter(), HeldLines()
    try:
        with (open(sys.stdin.fileno(), "rb", closefd=False) if path == "-"
              else open(path, "rb")) as log:
            while chunk := log.read(_READ_CHUNK_BYTES):
                for line in splitter.feed(chunk):
                    held.append(line)
    except OSError as error:
        raise RunnerError(f"cannot read {path}: {error.strerror}.") from None
    tail = splitter.finish()
    if tail is not None:
        held.append(tail)
    return held.to_list()


def has_report(lines, framing=IMAGE_FRAMING):
    """True when the console shows the start of a report (complete or not)."""
    return any(line.strip() == framing.begin for line in lines)


def _report_block(lines, source, framing=IMAGE_FRAMING):
    """The (log line number, text) pairs of the JSON lines of the last report in `lines`."""
    begins = [index for index, line in enumerate(lines) if line.strip() == framing.begin]
    if not begins:
        raise RunnerError(f"{source}: there is no JSON report (no '{framing.begin}' line): the "
                          f"guest stopped before printing it, or predates "
                          f"{REPORT_SCHEMA_1 if framing is IMAGE_FRAMING else framing.schema}")
    block = []
    prefix = framing.prefix
    for index in range(begins[-1] + 1, len(lines)):
        line = lines[index]
        if line.strip() == framing.end:
            return block
        if is_dropped_note(line):
            raise RunnerError(f"{source}: the report runs through more output than the "
                              f"runner holds ({HELD_CHARS >> 20} M characters of lines)")
        if line.startswith(prefix) and is_cut(line):
            raise RunnerError(f"{source}: log line {index + 1} of the report is longer than "
                              f"{MAX_LINE_BYTES} bytes, the most the runner reads of a line")
        if line.startswith(prefix) or line.rstrip() == prefix.rstrip():
            block.append((index + 1, line[len(prefix):]))
    raise RunnerError(f"{source}: the report ends before '{framing.end}' (truncated log?)")


# Deeper than any document this project writes (the report nests 5 levels), and far
# from Python's recursion limit, which a deeper one would hit in the parser or the
# schema validator.
MAX_JSON_DEPTH = 64
# Digits a JSON integer may have (Python refuses to convert more than 4300).
MAX_INT_DIGITS = 400


def _reject_constant(name):
    """json.loads hook: NaN and Infinity are not JSON (the guest prints null instead)."""
    raise ValueError(f"{name} is not JSON (a non-finite value must be printed as null)")


def _finite_float(text):
    """json.loads hook: a number too large for a double (1e999) is refused, not made
    infinite."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {quote(text, 40)} is too large for a double")
    return value


def _bounded_int(text):
    """json.loads hook: an integer of more than MAX_INT_DIGITS digits is refused."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits is too large "
                         f"(at most {MAX_INT_DIGITS})")
    return int(text)


def _no_duplicate_keys(pairs):
    """json.loads hook: an object that names a key twice is refused."""
    document = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"the key '{quote(key, 60)}' appears twice in one object")
        document[key] = value
    return document


def _json_problem(document):
    """Why a parsed document cannot be used, or None: nested deeper than MAX_JSON_DEPTH,
    or a string (key or value) holding a lone UTF-16 surrogate, which is no character."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth > MAX_JSON_DEPTH:
            return f"it nests deeper than {MAX_JSON_DEPTH} levels"
        items = (list(value) + list(value.values()) if isinstance(value, dict)
                 else value if isinstance(value, list) else [value])
        for item in items:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return f"the string '{quote(item, 60)!r}' holds a lone UTF-16 surrogate"
            elif isinstance(item, (dict, list)):
                stack.append((item, depth + 1))
    return None


def load_json_text(text, source, what="the file", place=None):
    """`text` parsed as JSON the same strict way wherever it comes from (a log's report,
    a JSON file, a manifest): NaN, Infinity, numbers beyond a double, huge integers,
    duplicate keys, lone surrogates and nesting deeper than MAX_JSON_DEPTH are refused.
    RunnerError "SOURCE: WHAT is not valid JSON: ..." otherwise; `place(position)` says
    where a syntax error is (default: line and column of `text`)."""
    def refuse(why):
        return RunnerError(f"{source}: {what} is not valid JSON: {why}")

    try:
        document = json.loads(text, parse_constant=_reject_constant,
                              parse_float=_finite_float, parse_int=_bounded_int,
                              object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as error:
        where = (place(error.pos) if place
                 else f"line {error.lineno}, column {error.colno}")
        raise refuse(f"{error.msg} ({where})") from None
    except ValueError as error:
        raise refuse(str(error)) from None
    except RecursionError:
        raise refuse(f"it nests deeper than {MAX_JSON_DEPTH} levels") from None
    problem = _json_problem(document)
    if problem:
        raise refuse(problem)
    return document


def _json_error_place(block, position):
    """Where character `position` of the joined document is: "log line N, column C"."""
    offset = 0
    for line_no, text in block:
        if position <= offset + len(text):
            return f"log line {line_no}, column {position - offset + len(PREFIX) + 1}"
        offset += len(text)
    return f"log line {block[-1][0]}, at its end"


def parse_document(block, source, framing=IMAGE_FRAMING):
    """Turn the report's JSON lines into a Python object; RunnerError when it is not JSON."""
    if not block:
        raise RunnerError(f"{source}: the report has no '{framing.prefix.strip()}' lines "
                          f"between '{framing.begin}' and '{framing.end}'")
    text = "".join(part for _, part in block)
    return load_json_text(text, source, "the report",
                          lambda position: _json_error_place(block, position))


def require_jsonschema():
    """RunnerError naming the Debian package when python3-jsonschema is not installed."""
    try:
        importlib.import_module("jsonschema")
    except ImportError:
        raise RunnerError(f"validating the report needs the Python module jsonschema: "
                          f"install the Debian package {JSONSCHEMA_PACKAGE} (`make deps` "
                          f"installs all of clockbench's dependencies).") from None


@functools.lru_cache(maxsize=None)
def _validator(schema_path):
    """A Draft 2020-12 validator for the schema file at `schema_path` (read once)."""
    require_jsonschema()
    # pylint: disable=import-outside-toplevel
    from jsonschema import Draft202012Validator, RefResolver
    try:
        with open(schema_path, encoding="utf-8") as schema_file:
            schema = json.load(schema_file)
    except OSError as error:
        raise RunnerError(f"cannot read {schema_path}: {error.strerror}.") from None
    except ValueError as error:
        raise RunnerError(f"{schema_path} is not valid JSON: {error}.") from None
    # A $ref to another schema file names it relative to this one (the OS document's
    # runner member is the report schema's).
    base = pathlib.Path(os.path.abspath(schema_path)).as_uri()
    return Draft202012Validator(schema, resolver=RefResolver(base, schema))


def json_path(parts):
    """A validation error's place as text: ('clocks', 3, 'read_ns') -> clocks[3].read_ns."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shorten(message):
    """Keep a validator message (which may quote a whole object) to one readable line."""
    return message if len(message) <= _MESSAGE_CHARS else message[:_MESSAGE_CHARS - 3] + "..."


# What each branch of the clock schema's allOf requires, for error messages.
_CLOCK_BRANCH_WORDS = {
    0: " (a present clock's facts are not null)",
    1: " (a present clock that was not timed keeps its facts, null measurements and a note)",
    2: " (an absent clock gives its reason, and its measurements are null)",
}


def _error_message(error):
    """A jsonschema error as words, with values in JSON spelling (null, not None)."""
    if error.validator == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        message = f"{json.dumps(error.instance)} is not of type {wanted}"
    elif error.validator == "minItems":
        message = (f"has {len(error.instance)} entries, expected at least "
                   f"{error.validator_value}")
    elif error.validator == "uniqueItems":
        message = f"{json.dumps(error.instance)} names an item twice"
    else:
        message = error.message
    schema_path = list(error.absolute_schema_path)
    if "then" in schema_path and schema_path[0] != "allOf":  # not the document's own
        # The clock schema's allOf holds one if/then per kind of clock.
        branch = schema_path[schema_path.index("then") - 1]
        message += _CLOCK_BRANCH_WORDS.get(branch, "")
    return _shorten(message)


def validate_document(document, source, schema_path=None, framing=IMAGE_FRAMING,
                      summaries=False):
    """RunnerError with one sentence unless `document` is a valid report of `framing`'s
    schema (clockbench/2 by default, whose reader also takes a clockbench/1 report and,
    when `summaries` (a file `run --json` wrote), a clockbench-run/0 summary)."""
    if not isinstance(document, dict):
        raise RunnerError(f"{source}: the report is a JSON {type(document).__name__}, "
                          f"not an object")
    if framing is IMAGE_FRAMING and (document.get("schema") == REPORT_SCHEMA_1 or summaries
                                     and document.get("schema") == RUN_SUMMARY_SCHEMA_0):
        _validate_old(document, source, schema_path)
        return
    if "schema" in document and document["schema"] != framing.schema:
        found = document["schema"]
        shown = quote(f"'{found}'" if isinstance(found, str) else json.dumps(found), 80)
        raise RunnerError(f"{source}: report schema is {shown}; this tool reads {framing.schema}"
                      f"{_also_read(framing)}")
    validator = _validator(schema_path or paths.root_path(framing.schema_file))
    errors = sorted(validator.iter_errors(document),
                    key=lambda error: (len(error.absolute_path), json_path(error.absolute_path)))
    if not errors:
        return
    from jsonschema.exceptions import best_match  # pylint: disable=import-outside-toplevel
    error = best_match(errors)
    where = json_path(error.absolute_path)
    more = len(errors) - 1
    more = f" (and {more} more problem{'s' * (more > 1)})" if more else ""
    raise RunnerError(f"{source}: {where + ': ' if where else ''}{_error_message(error)}"
                      f"{more}")


def _also_read(framing):
    """The older schemas a framing's documents are still read in, as words ("" for none)."""
    return f" (and {REPORT_SCHEMA_1} reports)" if framing is IMAGE_FRAMING else ""


def _validate_old(document, source, schema_path):
    """RunnerError unless `document` is a valid clockbench/1 report or clockbench-run/0
    summary.  A clockbench/1 report's guest members are those of clockbench/2 and are
    checked as such; its `runner` (fewer facts) and a run summary (the runner's own
    shape) only for what readers use."""
    if document["schema"] == REPORT_SCHEMA_1:
        guest = {key: value for key, value in document.items() if key != "runner"}
        guest["schema"] = SCHEMA
        validate_document(guest, source, schema_path)
        runner = document.get("runner")
        if runner is not None and not isinstance(runner, dict):
            raise RunnerError(f"{source}: runner: {json.dumps(runner)[:40]} is not of type "
                              f"object")
        return
    for key, kinds in (("verdict", str), ("reason", (str, type(None)))):
        if not isinstance(document.get(key), kinds):
            raise RunnerError(f"{source}: {key}: {json.dumps(document.get(key))[:40]} is not "
                              f"what a {RUN_SUMMARY_SCHEMA_0} summary holds there")


def has_guest_report(document):
    """Whether a valid document holds the guest's measurements (every guest member): the
    guest's report, or a runner's record of a run that gave one.  A clockbench-run/0
    summary, or a clockbench/2 record of a run without a report, does not."""
    return all(key in document for key in GUEST_MEMBERS)


def load_report(lines, source, schema_path=None, framing=IMAGE_FRAMING):
    """Find, parse and validate the report in console `lines`; returns the document.

    `source` names the log in error sentences.  With several reports in one log, the last
    one is read.
    """
    document = parse_document(_report_block(lines, source, framing), source, framing)
    validate_document(document, source, schema_path, framing)
    return document


def load_report_file(path, shown=None):
    """load_report() on the log at `path` (`shown` is how sentences name it)."""
    return load_report(read_log_lines(path), shown or path)


# ---------------------------------------------------------------------------- tables

def _number(value, digits=3):
    """A number with about `digits` significant digits, or "-" for null."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 10 ** digits:
        return f"{value:.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(magnitude)))
    return f"{value:.{decimals}f}"


def _hz(value):
    """A rate in Hz with an SI prefix and no unit (e.g. 3.30 M), or "-"."""
    if value is None:
        return "-"
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{_number(value / factor)} {prefix}"
    return _number(value)


def _grouped(value):
    """A whole number with its thousands grouped (3,300,000), or "-": a column of them
    stays in one unit however far its values spread."""
    return "-" if value is None else f"{value:,.0f}"


def format_hz(value):
    """A frequency with its unit, e.g. 2.30 GHz."""
    return f"{_hz(value)}Hz" if value is not None and abs(value) >= 1e3 else f"{_hz(value)} Hz"


def _ppm(clock):
    """Rate against the reference: "+1.5 ± 3" ppm, or "-"."""
    if clock.get("rate_ppm") is None:
        return "-"
    text = f"{clock['rate_ppm']:+.1f}"
    if clock.get("rate_uncertainty_ppm") is not None:
        text += f" ± {_number(clock['rate_uncertainty_ppm'], 2)}"
    return text


def _percentile(clock, field, key):
    values = clock.get(field) or {}
    return _number(values.get(key))


def _backward(clock):
    """Backward steps of the raw counter / of the converted ns."""
    return f"{clock['backward_steps']}/{clock['backward_steps_ns']}"


# Table columns: (heading, function of a present clock's entry, right-aligned).
COLUMNS = {
    "clock": ("clock", lambda c: c["name"], False),
    "present": ("present", lambda c: "yes" if c["present"] else "no", False),
    "p50": ("p50 ns", lambda c: _percentile(c, "read_ns", "p50"), True),
    "p99": ("p99 ns", lambda c: _percentile(c, "read_ns", "p99"), True),
    "batch": ("batch ns/read", lambda c: _number(c.get("batch_ns_per_read")), True),
    "resolution": ("resolution ns", lambda c: _number(c.get("resolution_ns")), True),
    "update": ("update Hz", lambda c: _grouped(c.get("update_hz")), True),
    "backward": ("backward raw/ns", _backward, True),
    "rate": ("rate ppm", _ppm, True),
    "trapped": ("trapped", lambda c: "TRAPPED" if c.get("trapped") else "no", False),
}
SUMMARY_COLUMNS = ("clock", "present", "p50", "p99", "batch", "resolution", "backward", "rate",
                   "trapped")
BENCH_COLUMNS = ("clock", "p50", "p99", "batch", "resolution", "update", "backward", "rate",
                 "trapped")


def clock_table(document, columns=SUMMARY_COLUMNS):
    """One line per clock (a heading first): the chosen COLUMNS for present clocks, the
    reason for absent ones."""
    headings = [COLUMNS[name][0] for name in columns]
    rows = []
    for clock in document["clocks"]:
        if clock["present"]:
            rows.append([COLUMNS[name][1](clock) for name in columns])
        else:
            rows.append([clock["name"], f"absent: {clock['absent_reason']}"])
    widths = [max([len(headings[i])] + [len(row[i]) for row in rows if len(row) == len(columns)])
              for i in range(len(columns))]

    def line(cells):
        if len(cells) != len(columns):  # an absent clock: its name, then the reason
            return f"{cells[0]:<{widths[0]}}  {cells[1]}"
        return "  ".join(f"{cell:>{width}}" if COLUMNS[name][2] else f"{cell:<{width}}"
                         for cell, width, name in zip(cells, widths, columns)).rstrip()

    return [line(headings)] + [line(row) for row in rows]


TICK_HEADINGS = ("source", "rate Hz", "intr/s", "CPU lost %", "cyc/intr", "late p50 us",
                 "p99 us", "max us")


def _us(value):
    return "-" if value is None else _number(value / 1000)


def tick_table(document):
    """The tick measurements, one line per source and rate (a heading first), or one line
    saying why there are none; [] for a report from before them."""
    ticks = document.get("ticks")
    if ticks is None:
        return []
    if not ticks["applies"]:
        return [f"ticks: not measured: {ticks['reason']}"]
    rows, notes = [], []
    for source in ticks["sources"]:
        if not source["present"]:
            notes.append(f"{source['name']}: absent: {source['absent_reason']}")
            continue
        for rate in source["rates"]:
            cells = [source["name"], str(rate["requested_hz"])]
            if rate["state"] != "measured":
                notes.append(f"{source['name']} at {rate['requested_hz']} Hz: {rate['state']}: "
                             f"{rate['problem']}")
                continue
            late = rate["lateness_ns"] or {}
            stolen = _number(rate["cpu_stolen_pct"])
            if rate["noise_pct"] is not None:
                stolen += f" ± {_number(rate['noise_pct'], 2)}"
            cells += [_number(rate["interrupts_per_s"]), stolen,
                      _number(rate["cycles_per_interrupt"]), _us(late.get("p50")),
                      _us(late.get("p99")), _us(late.get("max"))]
            rows.append(cells)
            if rate["problem"]:
                notes.append(f"{source['name']} at {rate['requested_hz']} Hz: {rate['problem']}")
    widths = [max([len(TICK_HEADINGS[i])] + [len(row[i]) for row in rows])
              for i in range(len(TICK_HEADINGS))]

    def line(cells):
        return "  ".join(f"{cell:<{w}}" if i == 0 else f"{cell:>{w}}"
                         for i, (cell, w) in enumerate(zip(cells, widths))).rstrip()

    return ([f"ticks: {ticks['tick_ms']} ms a rate", line(TICK_HEADINGS)]
            + [line(row) for row in rows] + notes)


def _cpus(count):
    return f"{count} CPU{'s' * (count != 1)}"


def cpus_text(env):
    """The CPUs of a report's `env` in words: the firmware's count, or what ran when the
    firmware listed none or could not say (env.cpus null)."""
    if env["cpus"] is not None:
        return _cpus(env["cpus"])
    online = env.get("cpus_online")
    if not online:
        return "? CPUs"
    listed = ("the firmware listed none" if env.get("firmware_cpus") == 0
              else "the firmware's count unknown")
    return f"{_cpus(online)} online ({listed})"


def summary_lines(document, source):
    """The compact human summary `clockbench parse` prints."""
    env = document["env"]
    checks = document["checks"]
    bracket = document["empty_bracket_cycles"]
    cpus = cpus_text(env)
    return [
        f"{source}: {document['schema']} report from clockbench {document['version']}: "
        f"{document['verdict'].upper()} ({checks['passed']} passed, {checks['failed']} failed, "
        f"{checks['skipped']} skipped)",
        f"{env['hypervisor']}, {env['boot']}, {cpus}, {env['memory_mib']} MiB, "
        f"TSC {format_hz(env['tsc_hz'])}, budget {_number(document['budget_ms'])} ms, "
        f"empty bracket p50 {bracket['p50']} cycles",
        *clock_table(document, SUMMARY_COLUMNS),
        *tick_table(document),
    ]
