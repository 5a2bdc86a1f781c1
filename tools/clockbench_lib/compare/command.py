# SPDX-License-Identifier: MIT
"""`clockbench compare`: the same measurements side by side across environments, as
tables, CSV, plots or one HTML report, and the --fail-above gate.  docs/compare.md."""

import functools
import sys
import tempfile

from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from ..model import osreport, report
from . import html, plot
from .cells import DEFAULT_BASELINE
from .clocks import (clock_flags, clock_table, compare, format_csv, format_table, notes,
                     regression_line, regressions, tsc_p50s)
from .inputs import load_inputs, parse_labels
from .ostable import compare_os, format_os_csv, format_os_table, os_notes, os_table
from .ticks import compare_ticks, format_tick_csv, format_tick_table, tick_table
from .xentable import compare_xen, format_xen_csv, format_xen_table, xen_table


FORMATS = ("table", "markdown", "csv")


def cmd_compare(args):
    """`clockbench compare`: print the side-by-side table, and write plots with --plot."""
    report.require_jsonschema()
    inputs = load_inputs(args.results, parse_labels(getattr(args, "label", None),
                                                     args.results))
    fail_above = getattr(args, "fail_above", None)
    if (args.baseline != DEFAULT_BASELINE or fail_above is not None) \
            and args.baseline not in inputs.runs:
        raise RunnerError(f"--baseline {args.baseline}: no report from that environment in "
                          f"the results (there are: {', '.join(inputs.runs) or 'none'}).")
    if inputs.runs and args.baseline not in inputs.runs and args.format == "csv":
        # A table says so in its notes; a CSV file has none.
        say(f"the default baseline {args.baseline} is not in the results, so there are no "
            f"ratios; the environments are: {', '.join(inputs.runs)} (--baseline ENV "
            f"picks one).")
    which = args.table or ("clocks" if args.format == "csv" and inputs.runs else
                           "os" if args.format == "csv" else "all")
    lines = []
    os_rows = compare_os(inputs) if which in ("all", "os") else []
    if which == "os" and not os_rows:
        raise RunnerError(f"{', '.join(args.results)}: no clockbench-user document "
                          f"({osreport.OS_SCHEMA}) among the results.")
    if which in ("clocks", "ticks", "xen") and not inputs.runs:
        raise RunnerError(f"{', '.join(args.results)}: only clockbench-user documents, "
                          f"which have no {which} table (--table os is theirs).")
    xen_rows = compare_xen(inputs) if which in ("all", "xen") else []
    if which == "xen" and not xen_rows:
        raise RunnerError(f"{', '.join(args.results)}: no report ran under Xen (an env.xen "
                          f"that is not null).")
    ticks = compare_ticks(inputs, args.baseline) if which != "clocks" or args.plot else []
    if which in ("all", "clocks") and inputs.runs:
        table = compare(inputs, args.baseline)
        if args.format == "csv":
            lines = format_csv(table, args.baseline, inputs)
        else:
            lines = format_table(table, inputs, args.baseline,
                                 markdown=args.format == "markdown")
    if which in ("all", "ticks"):
        if not ticks and which == "ticks":
            raise RunnerError(f"{', '.join(args.results)}: no report has tick "
                              f"measurements (a 'ticks' section that applies).")
        if ticks and args.format == "csv":
            lines = format_tick_csv(ticks, args.baseline)
        elif ticks:
            lines += [""] if lines else []
            lines += format_tick_table(ticks, args.baseline,
                                       markdown=args.format == "markdown")
    if xen_rows and args.format == "csv" and which == "xen":
        lines = format_xen_csv(xen_rows)
    elif xen_rows and args.format != "csv":
        lines += [""] if lines else []
        lines += format_xen_table(xen_rows, markdown=args.format == "markdown")
    if os_rows and args.format == "csv" and which == "os":
        lines = format_os_csv(os_rows)
    elif os_rows and args.format != "csv":
        lines += [""] if lines else []
        lines += format_os_table(os_rows, inputs, markdown=args.format == "markdown")
    print("\n".join(lines), flush=True)
    if which not in ("all", "clocks") or args.format == "csv" or not inputs.runs:
        for sentence in inputs.apart:  # the clocks table's notes say them otherwise
            say(sentence)
    messages = []
    if getattr(args, "html", None):
        messages = write_html_report(args, inputs)
    elif args.plot:
        written, messages = plot.write_plots(inputs, ticks, args.plot)
        messages = [f"wrote {path}" for item in written for path in (item.png, item.svg)] \
            + messages
    for message in messages:
        say(message)
    if fail_above is not None:
        return gate(inputs, args.baseline, fail_above)
    return EXIT_PASS


def say(message):
    """One line of compare's own on stderr, so that stdout keeps the tables (or CSV)."""
    print(f"clockbench compare: {message}", file=sys.stderr, flush=True)


def gate(inputs, baseline, limit):
    """--fail-above: say each regressed clock (regressions()), one line each; EXIT_FAIL
    when there is one, else EXIT_PASS."""
    found, not_gated = regressions(inputs, baseline, limit)
    for line in not_gated:
        say(line)
    for regression in found:
        say("FAIL: " + regression_line(regression, baseline, limit))
    if found:
        say(f"{len(found)} clock{'s' * (len(found) != 1)} above --fail-above {limit:g} "
            f"against {baseline} (the smallest p50 of a row over the largest of {baseline}).")
        return EXIT_FAIL
    say(f"no clock above --fail-above {limit:g} against {baseline}: no row's smallest p50 is "
        f"more than {limit:g}x {baseline}'s largest.")
    return EXIT_PASS


def findings(inputs, table, ticks, xen_rows, os_rows):
    """The HTML report's findings, each a line written from the data (html.Finding)."""
    flags_of = functools.partial(clock_flags, inputs)
    return (html.trapped_findings(table, flags_of, tsc_p50s(table))
            + html.warp_findings(inputs) + html.cross_cpu_findings(inputs)
            + html.tick_findings(ticks) + html.xen_findings(table, xen_rows)
            + html.os_findings(os_rows))


def write_html_report(args, inputs):
    """`--html FILE`: every table, the findings and the plots in one HTML file.  The plots
    go to --plot DIR when given (and stay), else to a scratch folder.  Returns the lines
    to tell the user."""
    table = compare(inputs, args.baseline) if inputs.runs else []
    ticks = compare_ticks(inputs, args.baseline)
    xen_rows, os_rows = compare_xen(inputs), compare_os(inputs)
    tables = [clock_table(table, inputs, args.baseline)] if table else []
    tables += [tick_table(ticks, args.baseline)] if ticks else []
    tables += [xen_table(xen_rows)] if xen_rows else []
    tables += [os_table(os_rows)] if os_rows else []
    envs = list(inputs.runs) + [env for env in inputs.os_runs if env not in inputs.runs]
    report_ = html.Report(f"clockbench compare: {', '.join(envs)}", list(args.results),
                          inputs, tables, notes(inputs, args.baseline) + os_notes(inputs, os_rows),
                          findings(inputs, table, ticks, xen_rows, os_rows))
    messages = []
    with tempfile.TemporaryDirectory(prefix="clockbench-plots-") as scratch:
        try:
            report_.plots, report_.plot_notes = html.written_plots(inputs, ticks,
                                                                   args.plot or scratch)
        except RunnerError as error:
            if args.plot:
                raise
            report_.plot_notes = [f"no plots: {error}"]
        if args.plot:
            messages += [f"wrote {path}" for item in report_.plots
                         for path in (item.png, item.svg) if path]
        html.write_html(args.html, report_)
    return messages + report_.plot_notes + [f"wrote {args.html}"]
