# SPDX-License-Identifier: MIT
"""The clocksource Linux would pick by itself here (docs/watchdog.md): the best rating
among those it registers (linux/kernel/time/clocksource.c clocksource_find_best), or the one
`clocksource=` names, less what its watchdog would mark unstable at rest (rating 0 and
a new choice, clocksource_watchdog_kthread)."""

from .linuxcs import clocksources, option, tsc_facts
from .model import AT_REST, UNKNOWN, UNSTABLE


def predict_choice(record, predictions, cmdline=""):
    """(Linux's clocksource here, a sentence why), from the record's clocks, the
    `predictions` of watchdog.predict and Linux's command line (none by default)."""
    sources = clocksources(record, cmdline)
    if not sources:
        return "", "Linux would find none of the clocksources it rates in this record."
    facts = tsc_facts(record, cmdline)
    picked = [p for p in predictions if p.figures.get("watchdog_selected")]
    registered = {cs.name for cs in sources}
    removed = {p.clocksource for p in picked if p.setting == AT_REST
               and p.outcome == UNSTABLE and p.clocksource in registered}
    later = [p for p in picked if p.setting != AT_REST and p.outcome == UNSTABLE]
    unsure = {p.clocksource for p in picked if p.setting == AT_REST and p.outcome == UNKNOWN}
    ranked = ", ".join(f"{cs.name} {cs.rating}" for cs in sources)
    why = [f"Ratings here: {ranked}."]
    why += [cs.why[0].upper() + cs.why[1:] + "." for cs in sources
            if cs.why and cs.name != "tsc"]
    if facts.unstable_at_boot:
        why.append(facts.unstable_why + ".")
    tsc = next((cs for cs in sources if cs.name == "tsc"), None)
    if tsc is not None:
        why.append("For its watchdog the TSC is " + facts.exempt_why.replace(
            "unknown: ", "of unknown exemption: ") + ".")
    kept = [cs for cs in sources if cs.name not in removed]
    for name in sorted(removed):
        why.append(f"Its watchdog would mark {name} unstable at rest (rating 0, "
                   f"a new choice).")
    override = option(cmdline, "clocksource")
    chosen = kept[0].name if kept else sources[0].name
    if override:
        if any(cs.name == override for cs in kept):
            chosen = override
            why.append(f"clocksource={override} on Linux's command line chooses it.")
        else:
            why.append(f"clocksource={override} names none Linux keeps here; it picks "
                       f"by rating.")
    for name in sorted(unsure & {chosen}):
        why.append(f"Whether its watchdog keeps {name} is unknown here.")
    for prediction in later:
        if prediction.clocksource == chosen:
            others = [cs.name for cs in kept if cs.name != chosen]
            then = others[0] if others else "nothing better"
            why.append(f"After {prediction.setting} its watchdog would mark {chosen} "
                       f"unstable and Linux would move to {then}.")
    return chosen, f"Linux would use {chosen}. " + " ".join(why)
