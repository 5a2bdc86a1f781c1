# SPDX-License-Identifier: MIT
"""`clockbench compare`: the same measurements side by side across environments, as
tables, CSV, plots or one HTML report, and the --fail-above gate.  docs/compare.md."""

import functools
import sys
import tempfile

from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from ..model import osreport, report
from . import html, plot, verdicts
from .cells import DEFAULT_BASELINE
from .change import (baseline_pairs, change_csv, change_line, change_table, changes,
                     label_pairs, not_gated_lines)
from .clocks import (clock_flags, clock_table, compare, format_csv, format_table,
                     left_out_notes, notes, tsc_p50s)
from .pooled import DEFAULT_PERCENTILES, parse_percentiles, pooled_csv, pooled_table
from .summary import summary_lines
from .table import TEXT_WIDTH
from .inputs import load_inputs, parse_labels
from .ostable import compare_os, format_os_csv, format_os_table, os_notes, os_table
from .ticks import compare_ticks, format_tick_csv, format_tick_table, tick_table
from .xentable import compare_xen, format_xen_csv, format_xen_table, xen_table
from .lifecycletable import (compare_lifecycle, compare_timers, format_lifecycle_csv,
                             format_lifecycle_table, format_timer_csv, format_timer_table,
                             lifecycle_table, timer_notes, timer_table)


FORMATS = ("table", "markdown", "csv")


def _before_after(args):
    """(RESULTS, --label specs) with --before and --after added: each is an input labelled
    `before` or `after` (not read twice when RESULTS names it too)."""
    results, specs = list(args.results or ()), list(getattr(args, "label", None) or ())
    for side in ("before", "after"):
        path = getattr(args, side, None)
        if path is None:
            continue
        specs.append(f"{side}={path}")
        if path not in results:
            results.insert(0 if side == "before" else 1, path)
    if bool(getattr(args, "before", None)) != bool(getattr(args, "after", None)):
        raise RunnerError("--before and --after go together: give both, or neither.")
    if not results:
        raise RunnerError("nothing to compare: give RESULTS, or --before and --after.")
    return results, specs


def sides(args, labels):
    """(before, after) label names when two labelled inputs are compared each environment
    with itself: --before/--after, or exactly two --labels (the one --baseline names is
    before, else the first given); None to compare every row with the baseline row."""
    names = list(dict.fromkeys(labels.values()))
    if len(names) != 2:
        if args.baseline in names:
            raise RunnerError(f"--baseline {args.baseline} names a label: before/after "
                              f"needs exactly two labelled inputs, not {len(names)}.")
        return None
    if args.baseline in names:
        return args.baseline, next(name for name in names if name != args.baseline)
    if args.baseline != DEFAULT_BASELINE:
        return None  # a row named as the baseline: every row against it
    return names[0], names[1]


def cmd_compare(args):
    """`clockbench compare`: print the side-by-side table, and write plots with --plot."""
    report.require_jsonschema()
    results, specs = _before_after(args)
    args.results = results
    labels = parse_labels(specs, results)
    inputs = load_inputs(results, labels,
                         include_failed=getattr(args, "include_failed", False))
    paired = sides(args, labels)
    inputs.paired = paired
    fail_above = getattr(args, "fail_above", None)
    wide = getattr(args, "wide", False)
    if paired is None and (args.baseline != DEFAULT_BASELINE or fail_above is not None) \
            and args.baseline not in inputs.runs:
        raise RunnerError(f"--baseline {args.baseline}: no report from that environment in "
                          f"the results (there are: {', '.join(inputs.runs) or 'none'}).")
    if paired is None and inputs.runs and args.baseline not in inputs.runs \
            and args.format == "csv":
        # A table says so in its notes; a CSV file has none.
        say(f"the default baseline {args.baseline} is not in the results, so there are no "
            f"ratios; the environments are: {', '.join(inputs.runs)} (--baseline ENV "
            f"picks one).")
    which = args.table or ("clocks" if args.format == "csv" and inputs.runs else
                           "os" if args.format == "csv" else "all")
    if which == "verdict" and args.format == "csv":
        raise RunnerError("--table verdict is sentences, not a table of numbers: give "
                          "--format table or markdown (clockbench verdict --json writes "
                          "them as JSON).")
    reads_per_s = getattr(args, "reads_per_second", None) or verdicts.DEFAULT_READS_PER_S
    judged, _ = verdicts.verdicts_of(inputs, reads_per_s) \
        if which in ("all", "verdict") and args.format != "csv" else ([], [])
    percentiles = getattr(args, "percentiles", None)
    percentiles = parse_percentiles(percentiles) if percentiles else (
        DEFAULT_PERCENTILES if which == "percentiles" else None)
    found, one_side, alone = [], [], []
    if inputs.runs and (paired or fail_above is not None or which == "changes"):
        pairs, alone = (label_pairs(inputs, *paired) if paired
                        else (baseline_pairs(inputs, args.baseline), []))
        found, one_side = changes(inputs, pairs)
    if which == "changes" and not found:
        raise RunnerError(f"{', '.join(args.results)}: no clock measured on both sides of "
                          f"a pair, so there is no before/after table.")
    lines = []
    os_rows = compare_os(inputs) if which in ("all", "os") else []
    if which == "os" and not os_rows:
        raise RunnerError(f"{', '.join(args.results)}: no clockbench-user document "
                          f"({osreport.OS_SCHEMA}) among the results.")
    if which in ("clocks", "ticks", "xen", "lifecycle", "timers", "changes", "percentiles") \
            and not inputs.runs:
        raise RunnerError(f"{', '.join(args.results)}: only clockbench-user documents, "
                          f"which have no {which} table (--table os is theirs).")
    xen_rows = compare_xen(inputs) if which in ("all", "xen") else []
    if which == "xen" and not xen_rows:
        raise RunnerError(f"{', '.join(args.results)}: no report ran under Xen (an env.xen "
                          f"that is not null).")
    life_rows = compare_lifecycle(inputs) if which in ("all", "lifecycle") else []
    if which == "lifecycle" and not life_rows:
        raise RunnerError(f"{', '.join(args.results)}: no report measured an event in the "
                          f"VM's life (a 'lifecycle' member with events: run --event, "
                          f"docs/lifecycle.md).")
    timer_rows = compare_timers(inputs) if which in ("all", "lifecycle", "timers") else []
    if which == "timers" and not timer_rows:
        raise RunnerError(f"{', '.join(args.results)}: no report armed a timer across an "
                          f"event in the VM's life (an event's 'timer' member: run --event, "
                          f"docs/lifecycle.md).")
    ticks = compare_ticks(inputs, args.baseline) if which != "clocks" or args.plot else []
    table = compare(inputs, args.baseline) if inputs.runs else []
    markdown = args.format == "markdown"
    side_names = paired or (args.baseline, "row")
    if args.format != "csv" and table:
        lines += [f"- {line}" if markdown else line for line in
                  summary_lines(inputs, table, found, fail_above)] + [""]
        if judged:
            lines += verdicts.verdict_lines(judged, markdown, None if wide else TEXT_WIDTH,
                                           which == "verdict") + [""]
        if found and which in ("all", "changes"):
            lines += change_table(found, fail_above, *side_names).lines(
                args.format, None if wide else TEXT_WIDTH) + [""]
    elif judged:
        lines += verdicts.verdict_lines(judged, markdown, None if wide else TEXT_WIDTH,
                                           which == "verdict") + [""]
    if which == "changes" and args.format == "csv":
        lines = change_csv(found, *side_names)
    if which in ("all", "clocks") and inputs.runs:
        if args.format == "csv":
            lines = format_csv(table, args.baseline, inputs)
        else:
            lines += format_table(table, inputs, args.baseline, markdown=markdown, wide=wide)
    if percentiles and which in ("all", "percentiles") and inputs.runs:
        if args.format == "csv" and which == "percentiles":
            lines = pooled_csv(inputs, percentiles)
        elif args.format != "csv":
            lines += [""] if lines and lines[-1] else []
            lines += pooled_table(inputs, percentiles).without_empty_columns(keep=4).lines(
                args.format, None if wide else TEXT_WIDTH)
    if which in ("all", "ticks"):
        if not ticks and which == "ticks":
            raise RunnerError(f"{', '.join(args.results)}: no report has tick "
                              f"measurements (a 'ticks' section that applies).")
        if ticks and args.format == "csv":
            lines = format_tick_csv(ticks, args.baseline, inputs)
        elif ticks:
            lines += [""] if lines and lines[-1] else []
            lines += format_tick_table(ticks, args.baseline, markdown=markdown, wide=wide)
    if xen_rows and args.format == "csv" and which == "xen":
        lines = format_xen_csv(xen_rows)
    elif xen_rows and args.format != "csv":
        lines += [""] if lines and lines[-1] else []
        lines += format_xen_table(xen_rows, markdown=markdown)
    if life_rows and args.format == "csv" and which == "lifecycle":
        lines = format_lifecycle_csv(life_rows)
    elif life_rows and args.format != "csv":
        lines += [""] if lines and lines[-1] else []
        lines += format_lifecycle_table(life_rows, markdown=markdown)
    if timer_rows and args.format == "csv" and which == "timers":
        lines = format_timer_csv(timer_rows)
    elif timer_rows and args.format != "csv":
        lines += [""] if lines and lines[-1] else []
        lines += format_timer_table(timer_rows, markdown=markdown)
    if os_rows and args.format == "csv" and which == "os":
        lines = format_os_csv(os_rows)
    elif os_rows and args.format != "csv":
        lines += [""] if lines and lines[-1] else []
        lines += format_os_table(os_rows, inputs, markdown=markdown)
    while lines and not lines[-1]:
        lines.pop()
    print("\n".join(lines), flush=True)
    if which not in ("all", "clocks") or args.format == "csv" or not inputs.runs:
        # The clocks table's notes say them otherwise.
        for sentence in (left_out_notes(inputs) + inputs.counted_once + inputs.apart):
            say(sentence)
    disagreed = verdicts.failed_agreements(judged)
    for line in disagreed:
        say(line)
    messages = []
    if getattr(args, "html", None):
        messages = write_html_report(args, inputs, found, fail_above, side_names,
                                     percentiles, judged or verdicts.verdicts_of(
                                         inputs, reads_per_s)[0])
    elif args.plot:
        written, messages = plot.write_plots(inputs, ticks, args.plot)
        messages = [f"wrote {path}" for item in written for path in (item.png, item.svg)] \
            + messages
    for message in messages:
        say(message)
    status = EXIT_PASS
    if fail_above is not None:
        status = gate(found, alone + not_gated_lines(
            one_side, side_names[0], side_names[1] if paired else "those rows"), fail_above,
                      side_names)
    if disagreed:
        say(f"{len(disagreed)} watchdog prediction{'s' * (len(disagreed) != 1)} disagreed "
            f"with Linux's own decision: a failed check (clockbench verdict says the same).")
        status = EXIT_FAIL
    return status


def say(message):
    """One line of compare's own on stderr, so that stdout keeps the tables (or CSV)."""
    print(f"clockbench compare: {message}", file=sys.stderr, flush=True)


def gate(found, not_gated, limit, side_names):
    """--fail-above: say each clock that failed (change.Change.regressed), one line each,
    and the sentences `not_gated` on what could not be gated; EXIT_FAIL when one failed,
    else EXIT_PASS."""
    before, after = side_names
    for line in not_gated:
        say(f"not gated: {line}")
    failed = [change for change in found if change.regressed(limit)]
    for change in failed:
        say("FAIL: " + change_line(change, limit))
    against = f"{after} against {before}" if after != "row" else f"each row against {before}"
    if failed:
        say(f"{len(failed)} of {len(found)} clock{'s' * (len(found) != 1)} compared "
            f"({against}) above --fail-above {limit:g} and beyond the noise of the repeats.")
        return EXIT_FAIL
    say(f"no clock above --fail-above {limit:g} beyond the noise: {len(found)} "
        f"compared ({against}).")
    return EXIT_PASS


def findings(inputs, table, ticks, xen_rows, os_rows):
    """The HTML report's findings, each a line written from the data (html.Finding)."""
    flags_of = functools.partial(clock_flags, inputs)
    return (html.trapped_findings(table, flags_of, tsc_p50s(table))
            + html.warp_findings(inputs) + html.cross_cpu_findings(inputs)
            + html.tick_findings(ticks) + html.xen_findings(table, xen_rows)
            + html.os_findings(os_rows))


def write_html_report(args, inputs, found=(), limit=None, side_names=("before", "after"),
                      percentiles=None, judged=()):
    """`--html FILE`: the verdicts (`judged`), the summary, every table, the findings and
    the plots in one HTML file.  The plots go to --plot DIR when given (and stay, PNG and
    SVG), else to a scratch folder as PNG only: the page embeds the PNG, and saving the SVG
    too drew every figure again for nothing.  Returns the lines to tell the user."""
    table = compare(inputs, args.baseline) if inputs.runs else []
    ticks = compare_ticks(inputs, args.baseline)
    xen_rows, os_rows = compare_xen(inputs), compare_os(inputs)
    tables = [change_table(found, limit, *side_names)] if found else []
    tables += [clock_table(table, inputs, args.baseline).without_empty_columns(keep=4)] \
        if table else []
    tables += [pooled_table(inputs, percentiles).without_empty_columns(keep=4)] \
        if percentiles and inputs.runs else []
    tables += [tick_table(ticks, args.baseline).without_empty_columns(keep=5)] if ticks else []
    tables += [xen_table(xen_rows)] if xen_rows else []
    life_rows, timer_rows = compare_lifecycle(inputs), compare_timers(inputs)
    tables += [lifecycle_table(life_rows)] if life_rows else []
    tables += [timer_table(timer_rows)] if timer_rows else []
    tables += [os_table(os_rows)] if os_rows else []
    envs = list(inputs.runs) + [env for env in inputs.os_runs if env not in inputs.runs]
    report_ = html.Report(f"clockbench compare: {', '.join(envs)}", list(args.results),
                          inputs, tables, notes(inputs, args.baseline) + os_notes(inputs, os_rows)
                          + timer_notes(timer_rows),
                          findings(inputs, table, ticks, xen_rows, os_rows),
                          summary=summary_lines(inputs, table, found, limit) if table else [],
                          verdicts=verdicts.verdict_html(judged))
    messages = []
    with tempfile.TemporaryDirectory(prefix="clockbench-plots-") as scratch:
        try:
            report_.plots, report_.plot_notes = html.written_plots(
                inputs, ticks, args.plot or scratch, plot.FORMATS if args.plot else ("png",))
        except RunnerError as error:
            if args.plot:
                raise
            report_.plot_notes = [f"no plots: {error}"]
        if args.plot:
            messages += [f"wrote {path}" for item in report_.plots
                         for path in (item.png, item.svg) if path]
        html.write_html(args.html, report_)
    return messages + report_.plot_notes + [f"wrote {args.html}"]
