# SPDX-License-Identifier: MIT
"""`clockbench verdict`, and the verdict on compare's console and HTML page
(docs/verdict.md): compare's Inputs turned into the plain data the verdict package reads,
one Environment per row (a row never merges two hosts, so neither does a verdict), with
clockbench-user's documents paired by the environment's name.

The verdict's judging module (and with it the watchdog's replay) is imported when a verdict
is asked for, so that building the command line costs nothing of it."""

import json
import sys

from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from ..base.paths import root_path
from ..model import report
from ..verdict import text
from ..verdict.cost import DEFAULT_READS_PER_S
from .clocks import left_out_notes
from .inputs import load_inputs
from .table import TEXT_WIDTH


def _host_words(runs):
    key = runs[0].key if runs else None
    if key is None:
        return "not named (clockbench-user's document alone)"
    cpu = key.identity.cpu or key.host_cpu
    return key.host_words + (f", CPU {cpu}" if cpu and not key.host.startswith("input:")
                             else "")


def environments(inputs):
    """(one Environment per row and per clockbench-user document that pairs with none,
    sentences about the inputs as a whole)."""
    from ..verdict.verdict import Environment  # pylint: disable=import-outside-toplevel
    found = {label: Environment(label, _host_words(runs),
                                [run.document for run in runs])
             for label, runs in inputs.runs.items()}
    for run in inputs.left_out:
        note = (f"a {str(run.verdict).upper()} run ({run.source}) left out, as compare "
                f"leaves it out: {run.left_out}")
        if run.env in found:
            found[run.env].notes.append(note)
    for env, os_runs in inputs.os_runs.items():
        documents = [run.document for run in os_runs]
        rows = [label for label in found if label == env] or \
            [label for label, runs in inputs.runs.items() if runs[0].key.env == env]
        if len(rows) == 1:
            found[rows[0]].os_documents += documents
            continue
        alone = Environment(env, "not named (clockbench-user's document alone)", [],
                            documents)
        if rows:
            alone.notes.append(f"clockbench-user's document of {env} pairs with none of "
                               f"{', '.join(rows)}: {len(rows)} hosts ran {env}, and the "
                               f"document names no host, so it stands alone")
            for label in rows:
                found[label].notes.append(f"clockbench-user's document of {env} is not "
                                          f"paired with this row: {len(rows)} hosts ran "
                                          f"{env} (see the verdict of {env} alone)")
        found[env] = alone
    general = [line for line in left_out_notes(inputs)
               if line.split(":", 1)[0] not in found]
    general += [f"{env}: skipped, no verdict: {reason}" for env, reason in inputs.skipped.items()]
    general += [f"{env}: a run gave no report ({source}), left out: {reason}"
                for env, source, reason in inputs.failed]
    general += list(inputs.apart) + list(inputs.counted_once)
    return list(found.values()), general


def verdicts_of(inputs, reads_per_s=DEFAULT_READS_PER_S):
    """([Verdict], general notes) of every environment of `inputs`."""
    from ..verdict.verdict import judge  # pylint: disable=import-outside-toplevel
    envs, general = environments(inputs)
    return [judge(env, reads_per_s) for env in envs], general


def verdict_lines(found, markdown=False, width=TEXT_WIDTH, whole=False):
    """The verdicts on compare's console, after its summary, within `width` columns
    (None: unwrapped): per environment its short form (text.short), or with `whole` its
    paragraph and a line per clocksource (Markdown: a paragraph, then the lines as a
    list)."""
    if not whole:
        lines = []
        for verdict in found:
            line = f"verdict: {text.short(verdict)}"
            lines += [f"- {line}"] if markdown else text.wrapped(line, width)
        return lines
    lines = []
    for verdict in found:
        if markdown:
            lines += [f"**verdict** {text.paragraph(verdict)}", ""]
            lines += [f"- {line.strip()}" for line in text.cost_lines(verdict)] + [""]
        else:
            lines += text.console_lines([verdict], width)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def verdict_html(found):
    """What compare --html shows at its top: (environment, paragraph, [cost line]) per
    verdict."""
    return [(verdict.env, text.paragraph(verdict),
             [line.strip() for line in text.cost_lines(verdict)]) for verdict in found]


def failed_agreements(verdicts):
    """A line per agreement that does not hold: the failed checks."""
    return [f"FAIL: {verdict.env}: {item.check}: {item.sentence}" for verdict in verdicts
            for item in verdict.agreements if not item.ok]


def validate(document):
    """RunnerError unless `document` is a valid clockbench-verdict/1 one."""
    report.validate_document(document, "the verdict", root_path(text.VERDICT_SCHEMA_FILE),
                             framing=report.Framing("", "", "", text.VERDICT_SCHEMA,
                                                    text.VERDICT_SCHEMA_FILE))


def write_json(path, document):
    """Write `document` to `path` ("-": stdout)."""
    data = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(data)
        return
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(data)
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None
    except ValueError:
        raise RunnerError(f"cannot write {path!r}: a file name has no NUL character.") \
            from None


def say(message):
    """One line of the command's own on stderr."""
    print(f"clockbench verdict: {message}", file=sys.stderr, flush=True)


def cmd_verdict(args):
    """`clockbench verdict PATH...`: a verdict per environment, as paragraphs and JSON;
    EXIT_FAIL when a watchdog prediction disagrees with Linux's own decision."""
    report.require_jsonschema()
    inputs = load_inputs(args.results, include_failed=False)
    found, general = verdicts_of(inputs, args.reads_per_second)
    document = text.document(found, args.reads_per_second, general)
    validate(document)
    if args.json != "-":
        print("\n".join(text.console_lines(found, TEXT_WIDTH)), flush=True)
    if args.json:
        write_json(args.json, document)
    for line in general:
        say(line)
    failed = failed_agreements(found)
    for line in failed:
        say(line)
    if failed:
        say(f"{len(failed)} watchdog prediction{'s' * (len(failed) != 1)} disagreed with "
            f"Linux's own decision: a failed check.")
        return EXIT_FAIL
    return EXIT_PASS
