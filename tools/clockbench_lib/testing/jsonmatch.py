# SPDX-License-Identifier: MIT
"""json= expectations of tests/tests.cfg: one value of the guest's JSON report, compared.

An expectation is `PATH OP VALUE`, e.g.

    clocks[hpet].freq_hz == 100000000
    ticks.sources[pit].rates[1000].state == "measured"
    clocks[kvm_clock].absent_reason ~ "no KVM signature"

PATH is member names joined by dots; `[x]` after an array picks the entry whose name
(clocks, tick sources), clock (cross_cpu clocks), requested_hz (tick rates), cpu or
clocksource (clockbench-user's runs) is x,
or else, when x is a number, the entry at that index.  OP is ==, !=, <, <=, >, >= with a JSON VALUE
(true, null, 3.5, "text"), or ~ with a JSON string that is a regular expression the value
must contain.  A boot test asks the report this way instead of matching the sentences
written for people.
"""

import json
import os
import re
from dataclasses import dataclass

from ..base import paths

OPERATORS = ("==", "!=", "<=", ">=", "<", ">", "~")
# The member an array entry is known by, tried in order.
ENTRY_KEYS = ("name", "clock", "requested_hz", "cpu", "clocksource")

_EXPECTATION = re.compile(r"^\s*(?P<path>[^\s=!<>~]+)\s*(?P<op>==|!=|<=|>=|<|>|~)\s*"
                          r"(?P<value>.+?)\s*$")
_STEP = re.compile(r"([^.\[\]]+)|\[([^\[\]]+)\]")


@dataclass(frozen=True)
class Expectation:
    """One parsed json= expectation; `text` is how tests.cfg spelt it."""

    text: str
    steps: tuple
    op: str
    value: object


def _split_path(path):
    """The steps of `path`: ("key", name) and ("entry", selector) pairs; ValueError."""
    steps, at = [], 0
    while at < len(path):
        if path[at] == "." and steps and at + 1 < len(path):
            at += 1
        match = _STEP.match(path, at)
        if not match:
            raise ValueError(f"'{path}' is not a path of member names and [entries]")
        steps.append(("key", match.group(1)) if match.group(1) else ("entry", match.group(2)))
        at = match.end()
    if not steps or steps[0][0] != "key":
        raise ValueError(f"'{path}' must start with a member name")
    return tuple(steps)


def parse(text):
    """An Expectation from `PATH OP VALUE`; ValueError with a sentence when malformed."""
    match = _EXPECTATION.match(text)
    if not match:
        raise ValueError(f"'{text}' is not PATH OP VALUE with OP one of {' '.join(OPERATORS)}")
    try:
        value = json.loads(match.group("value"))
    except json.JSONDecodeError:
        raise ValueError(f"'{match.group('value')}' is not a JSON value (a string needs "
                         f"double quotes)") from None
    op = match.group("op")
    if op == "~":
        if not isinstance(value, str):
            raise ValueError("~ takes a regular expression as a JSON string")
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"{json.dumps(value)} is not a valid regular expression: "
                             f"{error}") from None
    elif op not in ("==", "!=") and (isinstance(value, bool) or
                                     not isinstance(value, (int, float))):
        raise ValueError(f"{op} compares numbers, not {json.dumps(value)}")
    return Expectation(text=text.strip(), steps=_split_path(match.group("path")), op=op,
                       value=value)


def _entry(array, selector):
    """The entry of `array` that `selector` names, or None."""
    for key in ENTRY_KEYS:
        for item in array:
            if isinstance(item, dict) and key in item and str(item[key]) == selector:
                return item
    if selector.isdigit() and int(selector) < len(array):
        return array[int(selector)]
    return None


def _lookup(document, steps):
    """(value, None), or (None, the sentence saying where the path leads nowhere)."""
    value, walked = document, ""
    for kind, name in steps:
        if kind == "key":
            if not isinstance(value, dict) or name not in value:
                return None, f"{walked or 'the report'} has no member '{name}'"
            value, walked = value[name], f"{walked}.{name}" if walked else name
        else:
            found = _entry(value, name) if isinstance(value, list) else None
            if found is None:
                return None, f"{walked} has no entry [{name}]"
            value, walked = found, f"{walked}[{name}]"
    return value, None


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(value, expected):
    """JSON equality: 1 == 1.0, but true is not 1 and "1" is not 1."""
    if _is_number(value) and _is_number(expected):
        return value == expected
    return type(value) is type(expected) and value == expected


def _holds(value, op, expected):
    if op == "~":
        return isinstance(value, str) and re.search(expected, value) is not None
    if op in ("==", "!="):
        return _equal(value, expected) == (op == "==")
    if not _is_number(value):
        return False
    return {"<": value < expected, "<=": value <= expected,
            ">": value > expected, ">=": value >= expected}[op]


def _other_schema(name):
    """The schema file `name` (a $ref's file part), beside the report schemas in docs/."""
    with open(paths.root_path("docs", os.path.basename(name)), encoding="utf-8") as other:
        return json.load(other)


def _resolve(schema, node):
    """(the schema `node` is in, `node`) with its $ref followed: into `schema`, or, for
    a ref that names a file (`report.schema.json#/$defs/check_list`), into that one."""
    while isinstance(node, dict) and "$ref" in node:
        name, _, pointer = node["$ref"].partition("#")
        if name:
            schema = _other_schema(name)
        node = schema
        for part in (part for part in pointer.split("/") if part):
            node = node[part]
    return schema, node


def schema_problem(schema, expectation, schema_file="docs/report.schema.json"):
    """A sentence when `expectation`'s path names a member the report's `schema` (read
    from `schema_file`) does not define (a typo that would only show at boot time), else
    None."""
    node, walked = schema, ""
    for kind, name in expectation.steps:
        schema, node = _resolve(schema, node)
        if kind == "entry":
            node, walked = node.get("items", {}), f"{walked}[{name}]"
            continue
        members = dict(node.get("properties", {}))
        # A member that may be null or an object (oneOf): the object's members.
        for branch in node.get("oneOf", []) + node.get("anyOf", []):
            for key, member in _resolve(schema, branch)[1].get("properties", {}).items():
                members.setdefault(key, (schema, member))
        for branch in node.get("allOf", []):
            for key, member in _resolve(schema, branch)[1].get("then", {}).get(
                    "properties", {}).items():
                members.setdefault(key, (schema, member))
        if name not in members:
            return f"{walked or 'the report'} has no member '{name}' in {schema_file}"
        node, walked = members[name], f"{walked}.{name}" if walked else name
        if isinstance(node, tuple):
            schema, node = node
    return None


def check(document, expectation):
    """None when `expectation` holds in `document`, else a sentence saying what was found."""
    value, missing = _lookup(document, expectation.steps)
    if missing:
        return f"json={expectation.text}: {missing}"
    if _holds(value, expectation.op, expectation.value):
        return None
    return f"json={expectation.text}: the report has {json.dumps(value)}"
