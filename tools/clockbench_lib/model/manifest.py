# SPDX-License-Identifier: MIT
"""A matrix folder's manifest (DIR/manifest.json, written by `clockbench matrix`), as
dataclasses: the host, and per environment whether it ran, how, and each run's files.

load_manifest() reads and checks the parts compare relies on, saying in one sentence
what is wrong; the runs' own records are read by record.py.
"""

import json
import os
from dataclasses import dataclass

from ..base.outcome import RunnerError
from .console import quote
from .record import Host, load_json_file

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "clockbench-matrix/1"
# Before clockbench-matrix/1: no host name, one invocation, run-K.json only for runs with a
# report.  Still read by compare; `--add` takes such a folder too.
MANIFEST_SCHEMA_0 = "clockbench-matrix/0"
MANIFEST_SCHEMAS = (MANIFEST_SCHEMA, MANIFEST_SCHEMA_0)


@dataclass(frozen=True)
class ManifestRun:
    """One run of an environment: its record and log (file names in the folder, None
    when there is none) and, for a run that gave no report, its verdict and reason."""

    json: str = None
    log: str = None
    verdict: str = None
    reason: str = None


@dataclass(frozen=True)
class ManifestEnvironment:
    """One environment of the matrix: skipped (with the reason), or its runs."""

    name: str
    skipped: bool
    reason: str = None
    accel: str = None
    runs: tuple = ()


@dataclass(frozen=True)
class Manifest:
    """A matrix manifest; `document` is the JSON as read from `path`."""

    schema: str
    host: Host
    environments: tuple
    document: dict
    path: str


def _manifest_error(path, what):
    return RunnerError(f"{path}: {what}; it is not a clockbench matrix manifest "
                       f"({MANIFEST_SCHEMA}).")


def _environment(entry, index, path):
    """The ManifestEnvironment of environments[index]; a skipped one's runs are not read."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
            or not isinstance(entry.get("runs"), list):
        raise _manifest_error(path, f"environments[{index}] lacks a 'name' or 'runs'")
    if entry.get("skipped"):
        return ManifestEnvironment(entry["name"], True, entry.get("reason"), entry.get("accel"))
    runs = []
    for number, run in enumerate(entry["runs"]):
        where = f"environments[{index}].runs[{number}]"
        if not isinstance(run, dict):
            raise _manifest_error(path, f"{where} is not an object")
        for key in ("json", "log"):
            if run.get(key) is not None and not isinstance(run[key], str):
                raise _manifest_error(path, f"{where}.{key} is not a file name")
        runs.append(ManifestRun(run.get("json"), run.get("log"), run.get("verdict"),
                                run.get("reason")))
    return ManifestEnvironment(entry["name"], False, entry.get("reason"), entry.get("accel"),
                               tuple(runs))


def load_manifest(folder):
    """The Manifest of the matrix folder `folder`; RunnerError when it has none, or one
    that is not a manifest of a schema this tool reads."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        raise RunnerError(f"{folder}: no {MANIFEST} here, so it is not a matrix folder "
                          f"(made by `clockbench matrix`).")
    document = load_json_file(path)
    if not isinstance(document, dict) or "schema" not in document:
        raise _manifest_error(path, "the 'schema' key is missing")
    if document["schema"] not in MANIFEST_SCHEMAS:
        raise RunnerError(f"{path}: manifest schema is {quote(json.dumps(document['schema']))}; "
                          f"this tool reads {MANIFEST_SCHEMA} and {MANIFEST_SCHEMA_0}.")
    environments = document.get("environments")
    if not isinstance(environments, list):
        raise _manifest_error(path, "'environments' is missing or not a list")
    return Manifest(document["schema"], Host.from_json(document.get("host")),
                    tuple(_environment(entry, index, path)
                          for index, entry in enumerate(environments)),
                    document, path)
