# SPDX-License-Identifier: MIT
"""The image's guest options, known to the host: checked before a boot, listed in help.

The table is the image's own: build/guest-options.json, which `make guest-options` (and
`make images`) writes with build/host/guest-options, a host program built from
lib/options.c.  This module keeps no list of its own; it checks a command line by the
rules lib/options.c parses with (key=value words, each key once; a named value, a whole
number within bounds, or a comma-separated list of them), and suggests the nearest name
(difflib) for a misspelt key or value.  Where the table is missing the check is skipped,
saying so (table_note()).
"""

import difflib
import json
import os
import re
import textwrap
from dataclasses import dataclass, replace

from ..base import paths
from ..base.outcome import RunnerError

OPTIONS_FILE = os.path.join(paths.BUILD_DIR, "guest-options.json")  # relative to ROOT
OPTIONS_SCHEMA = "clockbench-options/1"  # lib/options.h OPTIONS_SCHEMA
KINDS = ("choice", "bool", "number", "list")
# What lib/options.c splits the command line at.
_SPACE = re.compile(r"[ \t\r\n]+")
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class GuestOption:
    """One row of the image's option table."""

    name: str
    kind: str              # KINDS
    default: str           # as it would be written
    help: str
    values: tuple = ()     # a choice's or bool's value names
    minimum: int = 0       # a number's bounds (each of a list's)
    maximum: int = 0
    max_items: int = 0     # a list's most numbers

    def values_text(self):
        """What the option takes, in words: "auto, isa or halt", "100 to 600000"."""
        if self.kind == "list":
            return (f"up to {self.max_items} of {self.minimum} to {self.maximum}, "
                    "comma-separated")
        if self.kind == "number":
            return f"{self.minimum} to {self.maximum}"
        return join_or(self.values)


def join_or(names):
    """"a, b or c"."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _option(entry, shown):
    """A GuestOption from one entry of the table's "options"; RunnerError if malformed."""
    try:
        kind = entry["kind"]
        if kind not in KINDS:
            raise ValueError(f"kind '{kind}' is not one of {', '.join(KINDS)}")
        option = GuestOption(name=str(entry["name"]), kind=kind, default=str(entry["default"]),
                             help=str(entry["help"]))
        if kind in ("choice", "bool"):
            return replace(option, values=tuple(str(value) for value in entry["values"]))
        return replace(option, minimum=int(entry["min"]), maximum=int(entry["max"]),
                       max_items=int(entry.get("max_items", 0)))
    except (KeyError, TypeError, ValueError) as error:
        raise RunnerError(f"{shown} is malformed: an option entry is missing or has a bad "
                          f"field ({error}); `make guest-options` writes it anew.") from None


def load_table(path=None):
    """The image's options from `path` (default: OPTIONS_FILE under paths.ROOT) as a dict
    {name: GuestOption} in table order, or None when the file does not exist;
    RunnerError when it cannot be read or is not such a table."""
    path = path or paths.root_path(OPTIONS_FILE)
    shown = os.path.relpath(path, paths.ROOT) if path.startswith(paths.ROOT) else path
    try:
        with open(path, encoding="utf-8") as table:
            document = json.load(table)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise RunnerError(f"cannot read {shown}: {error.strerror}.") from None
    except ValueError as error:
        raise RunnerError(f"{shown} is not JSON ({error}); `make guest-options` writes it "
                          f"anew.") from None
    if not isinstance(document, dict) or document.get("schema") != OPTIONS_SCHEMA:
        raise RunnerError(f"{shown} is not a {OPTIONS_SCHEMA} table; `make guest-options` "
                          f"writes it anew.")
    options = [_option(entry, shown) for entry in document.get("options") or ()]
    return {option.name: option for option in options}


def table_note():
    """The sentence said when the table is missing and the check is skipped."""
    return (f"{OPTIONS_FILE} is missing (`make guest-options` writes it), so the guest "
            f"options are not checked before the boot; the image checks them itself.")


def suggestion(word, names):
    """" (did you mean 'x'?)" for the name in `names` nearest to `word`, or ""."""
    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _number_ok(option, text):
    """True when `text` is a whole number within the option's bounds (leading zeros
    allowed, as the image allows them; thousands of digits are no number to convert)."""
    digits = text.lstrip("0") or "0"
    return (bool(_DIGITS.fullmatch(text)) and len(digits) <= len(str(option.maximum))
            and option.minimum <= int(digits) <= option.maximum)


def value_problem(option, value):
    """What is wrong with `value` for `option`, in words, or None."""
    if option.kind in ("choice", "bool"):
        if value in option.values:
            return None
        return (f"guest option {option.name}: '{value}' is not valid (expected "
                f"{join_or(option.values)}){suggestion(value, option.values)}")
    if option.kind == "number":
        if _number_ok(option, value):
            return None
        return (f"guest option {option.name}: '{value}' is not valid (expected a whole "
                f"number from {option.minimum} to {option.maximum})")
    items = value.split(",") if value else []
    if len(items) <= option.max_items and all(_number_ok(option, item) for item in items):
        return None
    return (f"guest option {option.name}: '{value}' is not valid (expected up to "
            f"{option.max_items} whole numbers from {option.minimum} to {option.maximum}, "
            f"separated by commas, or nothing)")


def cmdline_words(cmdline):
    """The words of the guest command line `cmdline` as the image splits it: at blanks,
    with no quoting."""
    return _SPACE.split(cmdline.strip()) if cmdline.strip() else []


def cmdline_problem(cmdline, table):
    """What is wrong with the guest command line `cmdline` by the image's `table`, in one
    sentence (without a full stop), or None: the first word the image would refuse."""
    seen = set()
    for word in cmdline_words(cmdline):
        key, equals, value = word.partition("=")
        if not equals or not key:
            hint = (f" (did you mean '{word}={table[word].values[-1]}'?)"
                    if word in table and table[word].kind == "bool" else "")
            return f"guest option '{word}' is not of the form key=value{hint}"
        if key not in table:
            return (f"unknown guest option '{key}'"
                    + (suggestion(key, table) or f" (known: {', '.join(table)})"))
        if key in seen:
            return f"guest option '{key}' is given twice"
        seen.add(key)
        problem = value_problem(table[key], value)
        if problem:
            return problem
    return None


def check_cmdline(cmdline, table):
    """RunnerError (exit 2) when `table` (load_table(); None skips the check) refuses the
    guest command line `cmdline`.  For `matrix` and anything else that boots the image
    with options: call it before the first boot."""
    if table is None:
        return
    problem = cmdline_problem(cmdline, table)
    if problem:
        raise RunnerError(f"{problem}; `tools/clockbench run --help` lists the guest "
                          f"options.")


def help_lines(table, width=88):
    """The guest options for `run --help`: one line each (name, values, default), then
    its help, indented and wrapped at `width`."""
    if table is None:
        return [f"  ({OPTIONS_FILE} is missing: `make guest-options` writes it; until then "
                "`run -- help=1` boots the image to list them)"]
    lines = []
    for option in table.values():
        lines.append(f"  {option.name:<11} {option.values_text()} (default "
                     f"{option.default or 'empty'})")
        lines += textwrap.wrap(option.help, width, initial_indent=" " * 14,
                               subsequent_indent=" " * 14, break_on_hyphens=False)
    return lines
