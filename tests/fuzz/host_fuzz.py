#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A mutation fuzzer for the host's readers of untrusted text: the console parser and the
report reader (`clockbench parse`), and the inputs of `clockbench compare` (report JSON
files, console logs, matrix manifests).

    /usr/bin/python3 tests/fuzz/host_fuzz.py --seconds N [--seed S]

Seeds are the real fixtures (tests/tools/fixtures: the logs, the matrix folder, Xen's and
Linux's logs) and the JSON documents they hold.  Each execution mutates one seed with
byte, line and JSON-structure mutations (truncate, duplicate, splice, deep nesting, huge
numbers, NaN and Infinity, invalid UTF-8, wrong types in known fields, missing fields,
huge lines) and feeds it in-process to the console parser, `parse` and `compare` (their
command functions, output thrown away) and, for a log, to `test`'s judgement with the
report= and json= checks of a tests.cfg line; now and then also to `tools/clockbench
parse` and `compare` as subprocesses.  A finding is, in-process, any exception other than the
project's RunnerError (or an execution slower than SLOW_S); in a subprocess, a traceback
or an exit status other than 0 and 2.  Each is saved under build/fuzz/host/findings/
with its traceback.  The regression seeds (tests/fuzz/host-regressions/, minimised
findings, named by kind: *.log, *.json, *.manifest.json) are replayed first, every time.

It prints `host_fuzz: N executions in S s, 0 findings` (or the findings), and exits 0
when clean, 1 on a finding.
"""

import argparse
import contextlib
import copy
import glob
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.dont_write_bytecode = True

# pylint: disable=wrong-import-position
from clockbench_lib.model import console, osreport, parse, report  # noqa: E402
from clockbench_lib.boot import xen  # noqa: E402
from clockbench_lib.testing import boottest, reportchecks, testlist  # noqa: E402
from clockbench_lib.compare.cells import DEFAULT_BASELINE  # noqa: E402
from clockbench_lib.compare.command import FORMATS, cmd_compare  # noqa: E402
from clockbench_lib.base.outcome import RunnerError  # noqa: E402

PYTHON = "/usr/bin/python3"
CLOCKBENCH = os.path.join(ROOT, "tools", "clockbench")
FIXTURES = os.path.join(ROOT, "tests", "tools", "fixtures")
MATRIX_SAMPLE = os.path.join(FIXTURES, "matrix", "sample")
REGRESSIONS = os.path.join(HERE, "host-regressions")
FINDINGS = os.path.join(ROOT, "build", "fuzz", "host", "findings")
# An execution slower than this is a finding (a quadratic loop, a regex backtracking).
SLOW_S = 20
SUBPROCESS_TIMEOUT_S = 120
# The share of the time spent on subprocesses (each takes a few hundred ms).
SUBPROCESS_SHARE = 0.25
KINDS = ("log", "json", "manifest")
# Environment names the mutated documents are given, so that compare's ratios meet them.
ENVIRONMENTS = ("tcg-pc", "kvm-pc", "xen-pv-dom0", "tcg-q35")
MARKER_LINES = (report.BEGIN, report.END, osreport.OS_FRAMING.begin, osreport.OS_FRAMING.end,
                report.PREFIX, "json|", "KTAP version 1", "1..3", "ok 1 x", "not ok 2 y # ERROR",
                "# 1 passed, 0 failed, 0 skipped, 0 errors", "# environment",
                "  cpus (firmware)  x", "clockbench: PASS", "clockbench: ERROR",
                "clockbench-user: PASS", "clockbench: ending the run: halt",
                "(XEN) Platform timer is 1.193MHz PIT", "(XEN) Hardware Dom0 halted: halting",
                "\x1b[2J\x1b[01;01H", "\r")
INTERESTING_VALUES = (None, True, False, 0, -1, 1, 2 ** 63, -2 ** 63, 2 ** 64, 1e308, -1e308,
                      5e-324, 0.5, "", "x", "\u00e9", "null", [], {}, [None], {"": None})


class Slow(Exception):
    """Raised by SIGALRM when one execution takes longer than SLOW_S."""


def _alarm(_signal_number, _frame):
    raise Slow(f"one execution took more than {SLOW_S} s")


# ---------------------------------------------------------------------------- seeds

def read_bytes(path):
    with open(path, "rb") as source:
        return source.read()


def report_documents(lines):
    """The JSON texts of every report and clockbench-user document in console `lines`."""
    documents = []
    for framing in (report.IMAGE_FRAMING, osreport.OS_FRAMING):
        inside, text = False, []
        for line in lines:
            if line.strip() == framing.begin:
                inside, text = True, []
            elif inside and line.strip() == framing.end:
                documents.append("".join(text).encode())
                inside = False
            elif inside and line.startswith(framing.prefix):
                text.append(line[len(framing.prefix):])
    return documents


def load_seeds():
    """{kind: [bytes]} from the fixtures."""
    seeds = {kind: [] for kind in KINDS}
    logs = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.log"), recursive=True))
    for path in logs:
        data = read_bytes(path)
        # A log with a report is the more interesting: it reaches further.
        with_report = b"-json begin" in data
        seeds["log"] += [data] * (3 if with_report else 1)
        splitter = console.LineSplitter()
        lines = splitter.feed(data)
        seeds["json"] += report_documents(lines)
    for path in sorted(glob.glob(os.path.join(FIXTURES, "**", "*.json"), recursive=True)):
        if os.path.basename(path) != "manifest.json":
            seeds["json"].append(read_bytes(path))
            continue
        seeds["manifest"].append(read_bytes(path))
        # Each run a manifest names is validated (tens of ms each): mostly fuzz one with
        # a run or two per environment.
        manifest = json.loads(read_bytes(path))
        for env in manifest["environments"]:
            env["runs"] = env["runs"][:1]
        for count in (1, 2, 3):
            trimmed = dict(manifest, environments=manifest["environments"][:count])
            seeds["manifest"] += [json.dumps(trimmed, indent=2).encode()] * 2
    return seeds


def regression_seeds():
    """[(kind, name, bytes)] of tests/fuzz/host-regressions/, in name order."""
    found = []
    for path in sorted(glob.glob(os.path.join(REGRESSIONS, "*"))):
        name = os.path.basename(path)
        kind = ("manifest" if name.endswith(".manifest.json") else
                "json" if name.endswith(".json") else "log" if name.endswith(".log") else None)
        if kind:
            found.append((kind, name, read_bytes(path)))
    return found


# ---------------------------------------------------------------------------- mutations

def mutate_bytes(rng, data, seeds):
    """One byte-level mutation."""
    if not data:
        return rng.choice(seeds)
    choice = rng.randrange(9)
    at = rng.randrange(len(data) + 1)
    end = min(len(data), at + rng.choice((1, 8, 64, 4096, 1 << 16)))
    if choice == 0:
        return data[:at]                                     # truncate
    if choice == 1:
        return data[:end] + data[at:]                        # duplicate a range
    if choice == 2:
        other = rng.choice(seeds)                            # splice
        return data[:at] + other[rng.randrange(len(other) + 1):]
    if choice == 3:
        return data[:at] + data[end:]                        # delete a range
    if choice == 4:
        out = bytearray(data)                                # flip bytes
        for _ in range(rng.randrange(1, 16)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    if choice == 5:                                          # invalid UTF-8
        bad = rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00",
                          b"\xe2\x82", b"\x1b[", b"\x1b]0;", b"\r"))
        return data[:at] + bad + data[at:]
    if choice == 6:                                          # a huge line
        size = rng.choice((20_000, 100_000, 1 << 20))
        return data[:at] + rng.choice((b"x", b"json| [", b"\xff")) * (size // 4) + data[at:]
    if choice == 7:                                          # no newline at the end
        return data.rstrip(b"\n")
    return data[:at] + rng.choice(MARKER_LINES).encode() + b"\n" + data[at:]


def mutate_lines(rng, data):
    """One line-level mutation."""
    lines = data.split(b"\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    choice = rng.randrange(5)
    if choice == 0:
        lines.insert(i, lines[j])
    elif choice == 1:
        del lines[i]
    elif choice == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif choice == 3:
        lines.insert(i, rng.choice(MARKER_LINES).encode())
    else:
        lines[i:i] = lines[min(i, j):max(i, j) + 1][:200]
    return b"\n".join(lines)


def _nodes(value, path=()):
    """Every (path, value) in a JSON tree."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, path + (index,))


def _set(document, path, value):
    if not path:
        return value
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return document


def _delete(document, path):
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    del parent[path[-1]]


def _nested(rng, depth):
    """JSON text nesting `depth` arrays and objects."""
    opening = "".join(rng.choice(("[", '{"a": ')) for _ in range(depth))
    return opening + "null" + "".join("]" if c == "[" else "}" for c in reversed(
        opening.replace('{"a": ', "{")))


# Text put for a value by json.dumps's placeholders (they need to be raw text).
_RAW = {"__nan__": "NaN", "__inf__": "Infinity", "__minf__": "-Infinity",
        "__e999__": "1e999", "__bigint__": "9" * 5000, "__neg0__": "-0.0"}


def mutate_json(rng, data):
    """One JSON-structure mutation of `data` (bytes of a JSON text), as bytes; None when
    `data` is not JSON."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return None
    nodes = list(_nodes(document))
    numbers = [(path, value) for path, value in nodes
               if isinstance(value, (int, float)) and not isinstance(value, bool)]
    if numbers and rng.random() < 0.4:
        # A number the schema still takes, mostly: what the tables compute with.
        path, value = rng.choice(numbers)
        other = rng.choice((0, 1, value * 2, value // 3 if isinstance(value, int) else value / 3,
                            value * 10 ** rng.randrange(1, 30), 2 ** 53 + 1))
        return json.dumps(_set(document, path, type(value)(other))).encode()
    path, value = rng.choice(nodes)
    choice = rng.randrange(8)
    if choice == 0 and path:
        _delete(document, path)                                    # a missing field
    elif choice == 1:                                              # deep nesting
        document = _set(document, path, f"__deep{rng.choice((10, 63, 65, 200, 3000))}__")
    elif choice == 2:
        document = _set(document, path, rng.choice(list(_RAW)))   # NaN, huge numbers
    elif choice == 3:
        document = _set(document, path, rng.choice(INTERESTING_VALUES))  # wrong types
    elif choice == 4:
        document = _set(document, path, copy.deepcopy(rng.choice(nodes)[1]))  # another's value
    elif choice == 5 and isinstance(value, (int, float)) and not isinstance(value, bool):
        document = _set(document, path, rng.choice((0, -value, value * 1e300, value + 0.5,
                                                    int(value) * 10 ** 20)))
    elif choice == 6 and isinstance(value, str):
        document = _set(document, path, rng.choice((value * 1000, value[:1], "\ud800",
                                                    value + "\x00", value.upper())))
    elif choice == 7 and isinstance(value, list) and value:
        document = _set(document, path, value * rng.choice((0, 2, 50)))
    else:
        document = _set(document, path, rng.choice(INTERESTING_VALUES))
    try:
        text = json.dumps(document, indent=rng.choice((None, 1)))
    except (ValueError, RecursionError):
        return None
    for placeholder, raw in _RAW.items():
        text = text.replace(f'"{placeholder}"', raw)
    text = re.sub(r'"__deep(\d+)__"', lambda m: _nested(rng, int(m.group(1))), text)
    if rng.random() < 0.05:                                        # a duplicate key
        text = text.replace('{"', '{"schema": 1, "', 1)
    return text.encode("utf-8", errors="surrogatepass")


def as_log(rng, document_bytes, framing=report.IMAGE_FRAMING):
    """A console log holding `document_bytes` as its report, in lines of random width."""
    text = document_bytes.decode("utf-8", errors="replace")
    width = rng.choice((60, 200, 1000, 20_000))
    lines = [framing.begin] + [framing.prefix + text[start:start + width]
                               for start in range(0, len(text), width)] + [framing.end]
    if rng.random() < 0.5:
        lines.append("clockbench: PASS")
    return ("\r\n" if rng.random() < 0.5 else "\n").join(lines).encode(
        "utf-8", errors="surrogatepass")


def mutate(rng, kind, seeds):
    """A new input of `kind` ("log", "json" or "manifest"): bytes."""
    try:
        return _mutate(rng, kind, seeds)
    except (RecursionError, ArithmeticError, ValueError):
        # A document nested too deeply for Python, or arithmetic on an infinity or NaN that
        # an earlier mutation made: start again from a seed.
        return rng.choice(seeds[kind])


def _mutate(rng, kind, seeds):
    data = rng.choice(seeds[kind])
    for _ in range(rng.choice((1, 1, 1, 2, 3, 5))):
        if kind == "log" and rng.random() < 0.5:
            documents = [d for d in report_documents(console.LineSplitter().feed(data))]
            mutated = mutate_json(rng, rng.choice(documents)) if documents else None
            if mutated is not None:
                is_os = b"clockbench-os/1" in mutated[:200]
                data = as_log(rng, mutated, osreport.OS_FRAMING if is_os
                              else report.IMAGE_FRAMING)
                continue
        if kind != "log" and rng.random() < 0.7:
            mutated = mutate_json(rng, data)
            if mutated is not None:
                data = mutated
                continue
        data = mutate_lines(rng, data) if rng.random() < 0.3 else mutate_bytes(
            rng, data, seeds[kind])
    return data


# ---------------------------------------------------------------------------- targets

class Workspace:
    """A scratch folder: the file each execution writes, and a copy of the matrix
    sample whose manifest is the one mutated."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="host_fuzz.")
        self.matrix = os.path.join(self.folder, "matrix")
        shutil.copytree(MATRIX_SAMPLE, self.matrix)
        self.baseline = os.path.join(MATRIX_SAMPLE, "tcg-pc", "run-1.json")

    def write(self, kind, data, rng):
        """Write the input where its entry point reads it; returns the path."""
        if kind == "manifest":
            path = os.path.join(self.matrix, "manifest.json")
        elif kind == "json":
            path = os.path.join(self.folder, rng.choice(ENVIRONMENTS) + ".json")
        else:
            path = os.path.join(self.folder, rng.choice(ENVIRONMENTS) + ".log")
        with open(path, "wb") as out:
            out.write(data)
        return self.matrix if kind == "manifest" else path

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


_CHECKED_TESTS = []


def checked_tests():
    """The boot tests of tests/tests.cfg that check the report (report= or json=)."""
    if not _CHECKED_TESTS:
        tests = testlist.load_tests_cfg(os.path.join(ROOT, testlist.TESTS_CFG))
        _CHECKED_TESTS.extend(test for test in tests if isinstance(test, testlist.BootTest)
                              and (test.report or test.json))
    return _CHECKED_TESTS


def compare_args(rng, results):
    return argparse.Namespace(baseline=DEFAULT_BASELINE if rng.random() < 0.8
                              else "kvm-pc",
                              format=rng.choice(FORMATS),
                              table=None if rng.random() < 0.6 else rng.choice(
                                  ("all", "clocks", "ticks", "xen", "os")),
                              plot=None, results=results)


def in_process(kind, data, path, workspace, rng):
    """Feed one input to the console parser, `parse` and `compare` in this process;
    RunnerError is their one documented error."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        if kind == "log":
            splitter = console.LineSplitter()
            lines, start = [], 0
            while start < len(data):  # the first bytes in small chunks, then large
                step = rng.choice((1, 7, 300) if start < 2048 else (4096, 65536))
                lines += splitter.feed(data[start:start + step])
                start += step
            tail = splitter.finish()
            lines += [tail] if tail is not None else []
            console.parse_report(lines)
            console.parse_check_names(lines)
            osreport.verdict_of(lines)
            xen.parse_xen_log(lines, None).summary_lines()
            # `test`'s judgement, with the report= and json= checks of a tests.cfg line,
            # and every report= check on the log's report and clockbench-user's document.
            test = rng.choice(checked_tests())
            boottest.evaluate_boot_test(test, test.expect, None, lines, path)
            for user in (False, True):
                reportchecks.run_report_checks(list(reportchecks.checks_for(user)), lines,
                                               path, user=user)
            _expected(parse.cmd_parse, argparse.Namespace(log=path, json=None, quiet=False))
            _expected(parse.cmd_parse, argparse.Namespace(log=path, json="-", quiet=False))
        results = [path] if rng.random() < 0.5 or kind == "manifest" else [path,
                                                                           workspace.baseline]
        _expected(cmd_compare, compare_args(rng, results))


# How often each entry point accepted its input, and how often it refused it in one
# sentence: (accepted, refused) by name, printed at the end.
OUTCOMES = {}


def _expected(function, args):
    accepted, refused = OUTCOMES.get(function.__name__, (0, 0))
    try:
        function(args)
        accepted += 1
    except RunnerError:
        refused += 1
    OUTCOMES[function.__name__] = (accepted, refused)


def as_subprocess(kind, path, rng):
    """Run `parse` (for a log) or `compare` on the input; returns a problem or None."""
    commands = [["compare", path]]
    if kind == "log":
        commands.insert(0, ["parse", path])
    for command in commands:
        try:
            result = subprocess.run([PYTHON, CLOCKBENCH, *command], capture_output=True,
                                    text=True, errors="replace", timeout=SUBPROCESS_TIMEOUT_S,
                                    stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            return f"`clockbench {command[0]}` took more than {SUBPROCESS_TIMEOUT_S} s"
        name = f"`clockbench {command[0]}` (subprocess)"
        accepted, refused = OUTCOMES.get(name, (0, 0))
        OUTCOMES[name] = ((accepted + 1, refused) if result.returncode == 0
                          else (accepted, refused + 1))
        if "Traceback" in result.stderr or result.returncode not in (0, 2):
            return (f"`clockbench {command[0]}` exited with status {result.returncode}:\n"
                    f"{result.stderr[-4000:]}")
    return None


# ---------------------------------------------------------------------------- the loop

class Findings:
    """Findings, one per distinct place (the exception's type and innermost frame)."""

    def __init__(self):
        self.places = {}

    def add(self, kind, data, what, place):
        if place in self.places:
            return
        os.makedirs(FINDINGS, exist_ok=True)
        digest = hashlib.sha1(data).hexdigest()[:12]
        suffix = {"log": ".log", "json": ".json", "manifest": ".manifest.json"}[kind]
        saved = os.path.join(FINDINGS, f"{kind}-{digest}{suffix}")
        with open(saved, "wb") as out:
            out.write(data)
        with open(saved + ".txt", "w", encoding="utf-8") as out:
            out.write(what)
        self.places[place] = (saved, what)

    def __len__(self):
        return len(self.places)


def execute(kind, data, workspace, rng, findings, subprocess_too):
    """One execution: in process, and as subprocesses when `subprocess_too`."""
    path = workspace.write(kind, data, rng)
    signal.alarm(SLOW_S)
    try:
        in_process(kind, data, path, workspace, rng)
    except Exception as error:  # pylint: disable=broad-except
        frame = traceback.extract_tb(error.__traceback__)[-1]
        findings.add(kind, data, traceback.format_exc(),
                     (type(error).__name__, frame.filename, frame.lineno))
    finally:
        signal.alarm(0)
    if subprocess_too:
        path = workspace.write(kind, data, rng)
        problem = as_subprocess(kind, path, rng)
        if problem:
            findings.add(kind, data, problem, ("subprocess", problem.splitlines()[-1][:200]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, required=True, metavar="N",
                        help="how long to fuzz (the regression seeds are replayed first)")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="random seed (default: from the clock; printed)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time() * 1000) % (1 << 32)
    rng = random.Random(seed)
    signal.signal(signal.SIGALRM, _alarm)
    report.require_jsonschema()
    seeds = load_seeds()
    workspace = Workspace()
    findings = Findings()
    executions = 0
    start = time.monotonic()
    subprocess_s = 0.0
    try:
        regressions = regression_seeds()
        for kind, _name, data in regressions:
            execute(kind, data, workspace, rng, findings, subprocess_too=True)
            executions += 1
        print(f"host_fuzz: seed {seed}; replayed {len(regressions)} regression seeds",
              flush=True)
        deadline = start + args.seconds
        while time.monotonic() < deadline:
            kind = rng.choice(("log", "log", "json", "json", "manifest"))
            data = mutate(rng, kind, seeds)
            elapsed = time.monotonic() - start
            subprocess_too = subprocess_s <= SUBPROCESS_SHARE * elapsed
            before = time.monotonic()
            execute(kind, data, workspace, rng, findings, subprocess_too)
            if subprocess_too:
                subprocess_s += time.monotonic() - before
            executions += 1
    finally:
        workspace.remove()
    seconds = time.monotonic() - start
    for name, (accepted, refused) in sorted(OUTCOMES.items()):
        print(f"host_fuzz: {name}: {accepted} inputs accepted, {refused} refused in one "
              f"sentence", flush=True)
    for saved, what in findings.places.values():
        print(f"host_fuzz: finding, input saved as {os.path.relpath(saved, ROOT)}:\n{what}",
              flush=True)
    print(f"host_fuzz: {executions} executions in {seconds:.0f} s, {len(findings)} findings",
          flush=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
