# SPDX-License-Identifier: MIT
"""`clockbench parse`: the guest's JSON report extracted from a console log and validated,
then summarised (one line per clock) or written as JSON."""

from ..base.outcome import EXIT_PASS
from . import report
from .record import write_json


def cmd_parse(args):
    """`clockbench parse`: extract and validate the guest's JSON report from a log."""
    document = report.load_report_file(args.log)
    if args.json:
        write_json(args.json, document)
    elif not args.quiet:
        print("\n".join(report.summary_lines(document, args.log)), flush=True)
    return EXIT_PASS
