# SPDX-License-Identifier: MIT
"""The verdict in words and as JSON (docs/verdict.md, docs/verdict.schema.json): one
paragraph a person can act on per environment, the console's lines, and the
clockbench-verdict/1 document."""

import math
import textwrap

from .model import EXEMPT, UNSTABLE

VERDICT_SCHEMA = "clockbench-verdict/1"
VERDICT_SCHEMA_FILE = "docs/verdict.schema.json"


def _ns(value):
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _pct(share):
    value = share * 100
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2g}"


def _count(value):
    if math.isinf(value):
        return "unbounded"
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def _via(cost):
    return {"vdso": "through the vDSO", "syscall": "as a system call",
            "raw read": "as a raw read"}.get(cost.through, f"through {cost.through}")


def _cost(verdict, name):
    return next((c for c in verdict.costs if c.clocksource == name), None)


def _sentence(text):
    text = text.strip()
    return (text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")) if text else ""


def action(verdict):
    """The first sentence: what to do."""
    where = f"{verdict.env} (on {verdict.host})"
    if verdict.recommended is None:
        return f"{where}: no clocksource here can be recommended."
    if verdict.linux_picks == verdict.recommended:
        return f"{where}: keep {verdict.recommended}, the clocksource Linux picks by itself."
    if verdict.linux_picks:
        return (f"{where}: switch the clocksource from {verdict.linux_picks}, which Linux "
                f"picks by itself, to {verdict.recommended} "
                f"(clocksource={verdict.recommended} on the kernel's command line).")
    return f"{where}: use {verdict.recommended}."


def paragraph(verdict):
    """One paragraph a person can act on."""
    out = [action(verdict)]
    best = _cost(verdict, verdict.recommended)
    rate = f"{verdict.reads_per_s:,.0f}"
    if best:
        what = (f"A clock_gettime(CLOCK_MONOTONIC) on {best.clocksource} costs "
                f"{_ns(best.cost_ns)} ns {_via(best)}" if best.through != "raw read" else
                f"A raw read of {best.clocksource}'s counter costs {_ns(best.cost_ns)} ns "
                f"(Linux adds to it, see below)")
        out.append(f"{what}: at {rate} reads a second that is "
                   f"{_pct(best.reading.cpu_share)} % of one CPU, and one CPU can make at most "
                   f"{_count(best.reading.max_reads_per_s)} a second.")
    pick = _cost(verdict, verdict.linux_picks)
    if pick and best and pick is not best:
        out.append(f"On {pick.clocksource} a read costs {_ns(pick.cost_ns)} ns {_via(pick)}, "
                   f"{_pct(pick.reading.cpu_share)} % of a CPU at that rate: "
                   f"{_switching(verdict, 'the price of a clocksource that stays safe')}.")
    out.append(_sentence(f"Why: {verdict.recommended_why}"))
    if verdict.linux_picks:
        out.append(_sentence(f"Linux picks {verdict.linux_picks} by itself: "
                             f"{verdict.linux_picks_why.rstrip('.')}"))
    if verdict.linux_chose:
        out.append(f"Linux itself had {verdict.linux_chose} in use at boot.")
    if verdict.agreements:
        failed = [item for item in verdict.agreements if not item.ok]
        out.append(f"{len(verdict.agreements) - len(failed)} of {len(verdict.agreements)} "
                   f"watchdog predictions agree with Linux's own decisions"
                   + (": " + "; ".join(item.sentence.rstrip(".") for item in failed)
                      if failed else "") + ".")
    if best:
        facts = verdict.safety[best.clocksource].facts
        shown = [fact for fact in facts if not fact.startswith("watchdog ")]
        shown += _watchdog_words(verdict, best.clocksource)
        if shown:
            out.append(_sentence("Evidence: " + "; ".join(shown)))
    caveats = caveat_sentences(verdict)
    if caveats:
        out.append("Caveats: " + " ".join(caveats))
    if verdict.notes:
        out.append("Also: " + " ".join(_sentence(note) for note in verdict.notes))
    out.append(_sentence(f"Costs: {verdict.basis_sentence}"))
    return " ".join(out)


def _switching(verdict, why_dearer):
    """What the recommended clocksource saves of a CPU against Linux's pick, or what it
    costs more and `why_dearer`."""
    if verdict.saved_cpu_share >= 0:
        return f"switching saves {_pct(verdict.saved_cpu_share)} % of one CPU"
    return (f"switching costs {_pct(-verdict.saved_cpu_share)} % more of one CPU, "
            f"{why_dearer}")


def short(verdict):
    """The verdict in one sentence or two: what to do, what it costs, and whether Linux
    agreed (compare's console, which leaves the evidence to --table verdict)."""
    out = action(verdict)
    best = _cost(verdict, verdict.recommended)
    if best:
        out += (f" {best.clocksource}: {_ns(best.cost_ns)} ns {_via(best)}, "
                f"{_pct(best.reading.cpu_share)} % of a CPU at {verdict.reads_per_s:,.0f} "
                f"reads a second")
        if verdict.saved_cpu_share:
            out += f" ({_switching(verdict, 'for safety')})"
        out += "."
    out_of = [c.clocksource for c in verdict.costs if not verdict.safety[c.clocksource].holds]
    if out_of:
        out += f" Out on safety: {', '.join(out_of)}."
    failed = [item for item in verdict.agreements if not item.ok]
    if verdict.agreements:
        out += (f" Linux disagrees with {len(failed)} of {len(verdict.agreements)} "
                f"predictions." if failed else
                f" Linux agrees with all {len(verdict.agreements)} predictions it can check.")
    return out


def _watchdog_words(verdict, clocksource):
    """The watchdog predictions of `clocksource` in short: outcome per setting."""
    found = {}
    for prediction in verdict.predictions:
        if prediction.clocksource != clocksource:
            continue
        found.setdefault(prediction.outcome, []).append(
            f"{prediction.setting}" + (f" against {prediction.watchdog}"
                                       if prediction.watchdog else ""))
    if not found:
        return []
    return ["the watchdog: " + ", ".join(
        f"{outcome} ({', '.join(dict.fromkeys(settings))})" for outcome, settings in
        sorted(found.items(), key=lambda item: (item[0] != UNSTABLE, item[0] != EXEMPT)))]


def caveat_sentences(verdict):
    """The caveats, each one sentence: the guest's (contention), and those of the
    recommended clocksource that do not disqualify it."""
    found = list(verdict.caveats)
    if verdict.recommended:
        found += [f for f in verdict.safety[verdict.recommended].findings if not f.disqualifies]
    return list(dict.fromkeys(_sentence(f.sentence) for f in found))


def cost_lines(verdict):
    """A line per clocksource: its cost, the CPU it takes at the rate, whether it is
    safe."""
    lines = []
    for item in verdict.costs:
        safety = verdict.safety[item.clocksource]
        against = [f.sentence for f in safety.findings if f.disqualifies]
        state = "safe" if safety.holds else f"out: {against[0]}"
        lines.append(f"  {item.clocksource:<10} {_ns(item.cost_ns):>8} ns {item.through:<8} "
                     f"{_pct(item.reading.cpu_share):>6} % of a CPU  at most "
                     f"{_count(item.reading.max_reads_per_s):>11} reads/s  {state}")
    return lines


def wrapped(line, width, indent=2):
    """`line` as lines of at most `width` (None: as it is), the later ones indented."""
    if not width or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent=" " * indent,
                         break_on_hyphens=False, break_long_words=False)


def console_lines(verdicts, width=None):
    """The verdicts for the console: per environment its paragraph, then a line per
    clocksource; each line within `width` columns (None: unwrapped)."""
    lines = []
    for verdict in verdicts:
        lines += wrapped(f"verdict: {paragraph(verdict)}", width)
        lines += wrapped(f"  clocksource  cost of a read, share of one CPU at "
                         f"{verdict.reads_per_s:,.0f} reads/s, the most one CPU can read, "
                         f"safety", width)
        for line in cost_lines(verdict):
            lines += wrapped(line, width, indent=4)
    return lines


def _prediction_json(item):
    return {"clocksource": item.clocksource, "watchdog": item.watchdog or None,
            "setting": item.setting, "outcome": item.outcome, "sentence": item.sentence,
            "figures": item.figures or {}, "rules": item.rules}


def _number(value):
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) \
        else value


def verdict_json(verdict):
    """One verdict as the schema's object."""
    return {
        "environment": verdict.env, "host": verdict.host,
        "runs": verdict.runs, "os_runs": verdict.os_runs,
        "basis": verdict.basis, "basis_sentence": verdict.basis_sentence,
        "linux_picks": {"clocksource": verdict.linux_picks, "why": verdict.linux_picks_why},
        "linux_chose": verdict.linux_chose,
        "recommended": {"clocksource": verdict.recommended, "why": verdict.recommended_why,
                        "cpu_share_saved": _number(verdict.saved_cpu_share)},
        "costs": [{"clocksource": c.clocksource, "cost_ns": c.cost_ns, "through": c.through,
                   "syscall_ns": c.syscall_ns, "raw_ns": c.raw_ns,
                   "cpu_share": c.reading.cpu_share,
                   "max_reads_per_s": _number(c.reading.max_reads_per_s),
                   "safe": verdict.safety[c.clocksource].holds,
                   "evidence": verdict.safety[c.clocksource].facts,
                   "findings": [f.to_json() for f in verdict.safety[c.clocksource].findings]}
                  for c in verdict.costs],
        "predictions": [_prediction_json(item) for item in verdict.predictions],
        "agreements": [{"check": item.check, "ok": item.ok, "sentence": item.sentence}
                       for item in verdict.agreements],
        "caveats": caveat_sentences(verdict),
        "notes": list(verdict.notes),
        "paragraph": paragraph(verdict),
    }


def document(verdicts, reads_per_s, notes=()):
    """The clockbench-verdict/1 document of every verdict."""
    return {"schema": VERDICT_SCHEMA, "reads_per_s": reads_per_s,
            "agree": all(verdict.agrees for verdict in verdicts),
            "verdicts": [verdict_json(verdict) for verdict in verdicts],
            "notes": list(notes)}
