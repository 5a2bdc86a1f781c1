# SPDX-License-Identifier: MIT
"""The documents the runner reads and writes, as one typed model, and the one place that
writes them."""

from ..base.outcome import RunnerError
from . import histogram


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
