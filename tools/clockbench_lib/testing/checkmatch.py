# SPDX-License-Identifier: MIT
"""check= assertions of tests/tests.cfg: a guest check, by its name, and its result.

The guest is the one judge of its checks: its JSON report lists every one (checks.list:
name, result, info, the figures it was judged on and the tolerance), and a boot test
asks for a check by name instead of matching the KTAP line written for people:

    check = hpet: runs at its nominal rate within 10000 ppm = pass
    check = ticks: * at 1000 Hz, delivers within 10 % of the rate asked = pass
    check = ticks = skip ~ "tick_rates is empty"
    check = no unexpected exception = fail ~ "^#PF page fault"

NAME = RESULT[|RESULT...] [~ "REGEX"].  NAME is a check's name as the guest prints it
after `ok N`; a `*` in it stands for any run of characters, and then every check it
names counts.  At least one check must carry the name, each with one of the results
(pass, fail, skip, error), and, with `~`, an info (what the guest wrote after the `#`)
that the regular expression, a JSON string, finds something in.
"""

import difflib
import json
import re
from dataclasses import dataclass

RESULTS = ("pass", "fail", "skip", "error")

_ASSERTION = re.compile(r"^\s*(?P<name>\S.*?)\s+=\s+(?P<results>[a-z]+(?:\|[a-z]+)*)"
                        r"(?:\s+~\s+(?P<info>\".*\"))?\s*$")


@dataclass(frozen=True)
class CheckExpectation:
    """One parsed check= assertion; `text` is how tests.cfg spelt it."""

    text: str
    name: str
    results: tuple
    info: str = None  # a regular expression, or None


def _name_pattern(name):
    """`name` as a regular expression of the whole name, a `*` any run of characters."""
    return re.compile("^" + ".*".join(re.escape(part) for part in name.split("*")) + "$")


def parse(text):
    """A CheckExpectation from `NAME = RESULT[|RESULT] [~ "REGEX"]`; ValueError with a
    sentence when malformed."""
    match = _ASSERTION.match(text)
    if not match:
        raise ValueError("expected NAME = RESULT, optionally followed by ~ \"REGEX\" for its "
                         "info (e.g. 'hpet: advances = pass')")
    results = tuple(match.group("results").split("|"))
    unknown = [result for result in results if result not in RESULTS]
    if unknown:
        raise ValueError(f"'{unknown[0]}' is not a check result (results: "
                         f"{', '.join(RESULTS)})")
    info = None
    if match.group("info"):
        try:
            info = json.loads(match.group("info"))
            re.compile(info)
        except json.JSONDecodeError as error:
            raise ValueError(f"the info pattern {match.group('info')} is not a JSON string: "
                             f"{error.msg}") from None
        except re.error as error:
            raise ValueError(f"the info pattern {info!r} is not a valid regular expression: "
                             f"{error}") from None
    return CheckExpectation(text=text.strip(), name=match.group("name"), results=results,
                            info=info)


def named(checks, name):
    """The entries of `checks` (checks.list) whose name `name` names (`*` any run)."""
    pattern = _name_pattern(name)
    return [entry for entry in checks if pattern.match(entry["name"])]


def listed_checks(document):
    """The checks the report lists (checks.list), or None for a report from a guest that
    lists none (one older than the list)."""
    return (document.get("checks") or {}).get("list")


def check(document, expectation):
    """None when `document`'s checks hold `expectation`, else a problem sentence."""
    checks = listed_checks(document)
    if checks is None:
        return (f"check={expectation.text}: the report lists no checks (checks.list is "
                f"missing: a guest from before the one judge?)")
    found = named(checks, expectation.name)
    if not found:
        close = difflib.get_close_matches(expectation.name, [c["name"] for c in checks], n=1,
                                          cutoff=0.5)
        hint = f" (the nearest is '{close[0]}')" if close else ""
        return f"check={expectation.text}: the guest made no check named so{hint}"
    wanted = "|".join(expectation.results)
    for entry in found:
        if entry["result"] not in expectation.results:
            info = f" # {entry['info']}" if entry.get("info") else ""
            return (f"check={expectation.text}: '{entry['name']}' is {entry['result']}, "
                    f"expected {wanted}{info}")
        if expectation.info is not None and \
                not re.search(expectation.info, entry.get("info") or ""):
            return (f"check={expectation.text}: '{entry['name']}' says "
                    f"{json.dumps(entry.get('info') or '')}, which /{expectation.info}/ does "
                    f"not find")
    return None
