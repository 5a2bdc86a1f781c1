# SPDX-License-Identifier: MIT
"""Serial-console text: cleaning raw output into lines, and parsing the guest's report.

Firmware and GRUB write ANSI escape sequences and carriage returns; every line the
runner logs, shows or matches has them removed by clean_line().
"""

import collections
import re

_ESCAPE_SEQUENCE = re.compile(r"""
      \x1b\[[0-?]*[ -/]*[@-~]            # CSI: colours, cursor moves, erasing
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)  # OSC, ended by BEL or ST
    | \x1b[()*+][0-9A-Za-z]              # character-set selection
    | \x1b[0-~]                          # other two-byte escapes (ESC 7, ESC c...)
""", re.VERBOSE)

# Control characters other than tab (the newline is already gone when this is used).
_CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")

_ENV_FIELDS = {
    "boot": re.compile(r"^\s*boot protocol\s+(\S+)"),
    "cmdline": re.compile(r'^\s*command line\s+"(.*)"\s*$'),
    "cpu": re.compile(r"^\s*cpu\s+(.*\S)"),
    "hypervisor": re.compile(r"^\s*hypervisor\s+(.*\S)"),
    "memory": re.compile(r"^\s*memory\s+(.*\S)"),
    "cpus": re.compile(r"^\s*cpus \(firmware\)\s+(.*\S)"),
}
_ENV_HEADER = re.compile(r"^\s*# environment\s*$")
_KTAP_HEADER = re.compile(r"^\s*KTAP version \d+")
_KTAP_RESULT = re.compile(r"^(ok|not ok) \d+\b(.*)$")
_GUEST_NOT_OK = re.compile(r"^\s*not ok \d+\b")
_KTAP_SKIP = re.compile(r"#\s*SKIP\b", re.IGNORECASE)
_KTAP_ERROR = re.compile(r"#\s*ERROR\b")
# Images before the error count was added end with "# N passed, N failed, N skipped".
_KTAP_TOTALS = re.compile(
    r"^\s*#\s*(\d+) passed, (\d+) failed, (\d+) skipped(?:, (\d+) errors)?\s*$")
_FINAL_LINE = re.compile(r"^\s*clockbench: (PASS|FAIL|SKIP|ERROR)\s*$")
# After its verdict, a guest that does not end QEMU through isa-debug-exit says how the
# run ends (base/exit.c): QEMU then exits without the verdict in its status (power
# off, reset) or keeps running (a way that starts with "halt": the machine stays on).
_END_ANNOUNCEMENT = re.compile(r"^\s*clockbench: ending the run: (.*\S)\s*$")
HALT_LINE = re.compile(r"^\s*clockbench: ending the run: halt\b")
_LEADING_NUMBER = re.compile(r"^(\d+)\b")


def clean_line(text):
    """Remove ANSI escape sequences and control characters (keeping tabs) from one line."""
    return _CONTROL_CHARACTER.sub("", _ESCAPE_SEQUENCE.sub("", text))


# The longest line held whole in memory, in bytes: the guest's lines are a few hundred
# characters (668 the longest in the fixtures); output with no newline for longer (a
# runaway guest, random bytes) reaches the log in full but is held and shown cut.
MAX_LINE_BYTES = 16384
# Characters of lines held in memory for one stream, beyond which the middle is dropped
# (the log keeps it): the first half and the last half stay, where the environment block
# and the report are.  A real console is under 1 MiB; 256 MiB of random output once took
# the runner to 1.6 GB.
HELD_CHARS = 16 << 20
# What one line costs beside its characters, for HELD_CHARS (a str object's header).
_LINE_OVERHEAD_CHARS = 64
# The most of a line or value a sentence quotes.
QUOTE_CHARS = 200


def quote(text, limit=QUOTE_CHARS):
    """`text` as a sentence may quote it: at most `limit` characters, then "..." and how
    long it was."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def cut_note(left_out):
    """What a line cut to MAX_LINE_BYTES ends with."""
    return f" [line cut: {left_out} more bytes]"


_CUT_NOTE = re.compile(r" \[line cut: \d+ more bytes\]$")


def is_cut(line):
    """True for a line that LineSplitter cut to MAX_LINE_BYTES."""
    return bool(_CUT_NOTE.search(line))


class LineSplitter:
    """Turns a byte stream fed in arbitrary chunks into cleaned text lines.

    Linear in its input: a newline is only looked for in new bytes, and a line that grows
    past `max_line_bytes` is handed on in pieces of that size (pieces()), or held cut
    (feed()), so no more than that is ever pending.
    """

    def __init__(self, max_line_bytes=MAX_LINE_BYTES):
        self._pending = bytearray()
        self._max = max_line_bytes
        self._head = None      # feed(): the first piece of an over-long line
        self._left_out = 0     # feed(): bytes of that line not kept

    def pieces(self, chunk):
        """Add bytes; return the cleaned pieces now complete as (text, ends_line) pairs: a
        line within the bound is one piece, a longer one several."""
        out, start = [], 0
        while True:
            newline = chunk.find(b"\n", start)
            self._pending += chunk[start:newline if newline >= 0 else len(chunk)]
            while len(self._pending) > self._max:
                cut = self._max
                while cut > self._max - 3 and self._pending[cut] & 0xC0 == 0x80:
                    cut -= 1  # not inside a UTF-8 character
                out.append((self._decode(self._pending[:cut]), False))
                del self._pending[:cut]
            if newline < 0:
                return out
            out.append((self._decode(self._pending), True))
            self._pending.clear()
            start = newline + 1

    def finish_piece(self):
        """The unterminated last piece, cleaned, or None when nothing is pending."""
        if not self._pending:
            return None
        raw = bytes(self._pending)
        self._pending.clear()
        return self._decode(raw)

    def feed(self, chunk):
        """Add bytes; return the cleaned lines that are now complete, each cut to the
        bound (cut_note() says by how much)."""
        lines = []
        for text, ends in self.pieces(chunk):
            line = self._join(text, ends)
            if line is not None:
                lines.append(line)
        return lines

    def finish(self):
        """Return the unterminated last line, cleaned, or None if there is none."""
        piece = self.finish_piece()
        line = self._join(piece or "", True) if piece is not None or self._head else None
        return line if line is not None and line.strip() else None

    def _join(self, text, ends):
        """feed()'s half of pieces(): keep an over-long line's first piece, count the rest."""
        if self._head is None and ends:
            return text
        if self._head is None:
            self._head, self._left_out = text, 0
            return None
        self._left_out += len(text.encode("utf-8", errors="replace"))
        if not ends:
            return None
        line = self._head + cut_note(self._left_out)
        self._head = None
        return line

    @staticmethod
    def _decode(raw):
        return clean_line(bytes(raw).decode("utf-8", errors="replace"))


class HeldLines:
    """The lines of one stream kept in memory: all of them up to HELD_CHARS; beyond, the
    first and the last half of that, with one line saying how many were dropped between."""

    def __init__(self, limit_chars=HELD_CHARS):
        self._half = limit_chars // 2
        self._head, self._head_chars = [], 0
        self._tail, self._tail_chars = collections.deque(), 0
        self._dropped = 0

    def append(self, line):
        """Keep `line` (dropping the oldest of the tail when over the bound)."""
        cost = len(line) + _LINE_OVERHEAD_CHARS
        if not self._tail and self._head_chars + cost <= self._half:
            self._head.append(line)
            self._head_chars += cost
            return
        self._tail.append(line)
        self._tail_chars += cost
        while self._tail_chars > self._half and len(self._tail) > 1:
            self._tail_chars -= len(self._tail.popleft()) + _LINE_OVERHEAD_CHARS
            self._dropped += 1

    def to_list(self):
        """The kept lines in order, with the dropped lines' count where they were
        (a line is_dropped_note() knows)."""
        dropped = ([f"[{self._dropped} lines not held in memory: the output passed "
                    f"{2 * self._half} characters]"] if self._dropped else [])
        return self._head + dropped + list(self._tail)


_DROPPED_NOTE = re.compile(r"^\[\d+ lines not held in memory: the output passed \d+ "
                           r"characters\]$")


def is_dropped_note(line):
    """True for the line HeldLines puts where it dropped lines."""
    return bool(_DROPPED_NOTE.match(line))


def last_nonblank(lines):
    """Return the last line that has more than whitespace, or "" if none has."""
    for line in reversed(lines):
        if line.strip():
            return line.strip()
    return ""


def parse_environment(lines):
    """Parse the `# environment` block into a dict; fields not printed are None.

    Only lines between `# environment` and `KTAP version` are read, so firmware chatter
    cannot be mistaken for a field.  `cmdline` loses its double quotes, `cpus` becomes an
    int when it starts with a number; the other fields keep the guest's text.
    """
    env = dict.fromkeys(_ENV_FIELDS)
    inside = False
    for line in lines:
        if _ENV_HEADER.match(line):
            inside = True
        elif _KTAP_HEADER.match(line):
            if inside:
                break
        elif inside:
            _parse_environment_line(line, env)
    return env


def _parse_environment_line(line, env):
    """Store the field `line` holds into `env`, keeping the first value of each field."""
    for field, pattern in _ENV_FIELDS.items():
        match = pattern.match(line)
        if match and env[field] is None:
            value = match.group(1)
            if field == "cpus":
                number = _LEADING_NUMBER.match(value)
                value = int(number.group(1)) if number else value
            env[field] = value
            return


def parse_checks(lines):
    """Count the guest's KTAP results: {"passed", "failed", "skipped", "errors"}, or None
    if no KTAP.

    The guest's own `# N passed, N failed, N skipped, N errors` line wins; without it (a
    crash or a hang part-way) the top-level `ok` / `not ok` lines seen so far are counted.
    """
    seen_ktap = False
    counted = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    totals = None
    for line in lines:
        if _KTAP_HEADER.match(line):
            seen_ktap = True
        elif seen_ktap and (result := _KTAP_RESULT.match(line)):
            if result.group(1) == "not ok" and _KTAP_ERROR.search(result.group(2)):
                counted["errors"] += 1
            elif result.group(1) == "not ok":
                counted["failed"] += 1
            elif _KTAP_SKIP.search(result.group(2)):
                counted["skipped"] += 1
            else:
                counted["passed"] += 1
        elif seen_ktap and (summary := _KTAP_TOTALS.match(line)):
            passed, failed, skipped, errors = (int(n or 0) for n in summary.groups())
            totals = {"passed": passed, "failed": failed, "skipped": skipped,
                      "errors": errors}
    if totals:
        return totals
    return counted if seen_ktap else None


def parse_check_list(lines):
    """The guest's top-level KTAP checks, in order, as its JSON lists them (checks.list):
    {"name", "result", "info"} each, read from the result lines: a name up to the " # "
    that starts its figures or directive, "skip" for `ok ... # SKIP`, "error" for
    `not ok ... # ERROR`, else "pass" or "fail".  For a run that ended before its JSON
    report (an unexpected exception prints only the KTAP)."""
    checks, seen_ktap = [], False
    for line in lines:
        if _KTAP_HEADER.match(line):
            seen_ktap = True
            continue
        result = _KTAP_RESULT.match(line) if seen_ktap else None
        if not result:
            continue
        name, _, info = result.group(2).strip().partition(" # ")
        passed = result.group(1) == "ok"
        directive = "SKIP" if passed else "ERROR"
        if info == directive or info.startswith(directive + " "):
            state, info = directive.lower(), info[len(directive):].strip()
        else:
            state = "pass" if passed else "fail"
        checks.append({"name": name.strip(), "result": state, "info": info.strip()})
    return checks


def parse_check_names(lines):
    """The names of the guest's top-level KTAP checks, in order: each result line's text
    after its number, up to the " # " that starts its figures or directive."""
    return [check["name"] for check in parse_check_list(lines)]


def guest_failures(lines):
    """The guest's `not ok` KTAP lines among the console `lines`."""
    return tuple(line.strip() for line in lines if _GUEST_NOT_OK.match(line))


def parse_final_verdict(lines):
    """Return "pass"/"fail"/"skip"/"error" from the last `clockbench: X` line, or None."""
    for line in reversed(lines):
        match = _FINAL_LINE.match(line)
        if match:
            return match.group(1).lower()
    return None


def parse_announced_end(lines):
    """How the guest said the run ends ("ACPI power-off (exit=acpi)", ...) when that line
    comes after its last verdict line; else None."""
    for line in reversed(lines):
        if _FINAL_LINE.match(line):
            return None
        match = _END_ANNOUNCEMENT.match(line)
        if match:
            return match.group(1) if parse_final_verdict(lines) else None
    return None


# The guest's last word on its console (base/console.c, lib/consloss.h): every byte it
# wrote was taken, or how many it had to give up on and why.
CONSOLE_LOSS_MARK = "clockbench: console: "
_CONSOLE_TAKEN = re.compile(r"^\s*clockbench: console: all (\d+) bytes written were taken, "
                            r"none lost\s*$")
_CONSOLE_LOST = re.compile(r"^\s*clockbench: console: (\d+) of (\d+) bytes written may be "
                           r"lost \((.*)\)\s*$")


def parse_console_loss(lines):
    """The guest's account of its console at the end of the run: {"written_bytes",
    "lost_bytes", "said"} from its last `clockbench: console:` line, or None when it
    printed none (an older guest, or a run that ended before it)."""
    for line in reversed(lines):
        taken, lost = _CONSOLE_TAKEN.match(line), _CONSOLE_LOST.match(line)
        if taken:
            return {"written_bytes": int(taken.group(1)), "lost_bytes": 0,
                    "said": line.strip()}
        if lost:
            return {"written_bytes": int(lost.group(2)), "lost_bytes": int(lost.group(1)),
                    "said": line.strip()}
    return None


def parse_report(lines):
    """Parse everything the runner reads from the guest's console.

    The one place that knows the console format: returns {"env": ..., "checks": ...,
    "final": ..., "end": ..., "console_loss": ...} as described by parse_environment,
    parse_checks, parse_final_verdict, parse_announced_end and parse_console_loss.
    """
    return {
        "env": parse_environment(lines),
        "checks": parse_checks(lines),
        "final": parse_final_verdict(lines),
        "end": parse_announced_end(lines),
        "console_loss": parse_console_loss(lines),
    }


# What `run -q` leaves out of the console it shows (the log still gets every line): blank
# lines, the JSON documents, the KTAP checks and their totals, Xen's own lines, Linux's
# kernel messages, and progress lines ("# measuring ...", "# timing: ...").
_QUIET_HIDDEN = re.compile(r"""
      \s*$
    | \s*json\|\  | \s*clockbench(?:-os)?-json\ (?:begin|end)\b
    | \s*KTAP\ version\b | \s*(?:not\ )?ok\ \d+\b | \s*1\.\.\d+\s*$ | \s*\#\s*\d+\ passed,
    | \(XEN\)
    | \[\s*\d+\.\d+\]
    | \s*\#\ (?:\S+:\ )?(?:measuring|probing|printing|switching|timing)\b
""", re.VERBOSE)


def quiet_shows(line):
    """True when `run -q` shows this console line: the human tables, the guest's own
    sentences and its verdict."""
    return not _QUIET_HIDDEN.match(line)
