# SPDX-License-Identifier: MIT
"""Each watchdog prediction beside what Linux decided (docs/watchdog.md): the clocksource
it chose at boot against the predicted choice, and each clocksource it marked unstable,
or did not, against the prediction for the setting of that snapshot.  A disagreement is
a failed check."""

from .model import AT_REST, NOT_WATCHED, UNKNOWN, UNSTABLE, Agreement

# Before its refined calibration Linux runs the TSC as tsc-early: the same counter.
SAME = {"tsc-early": "tsc"}


def agreements(predictions, chosen, decisions):
    """One Agreement per prediction a decision can confirm or refute, and one for the
    choice at boot; UNKNOWN predictions confirm nothing and are left out."""
    found = []
    events = [p.setting for p in predictions if p.setting != AT_REST]
    for decision in decisions:
        if decision.when == "boot" and chosen:
            current = SAME.get(decision.current, decision.current)
            ok = current == chosen
            found.append(Agreement(
                "Linux's own choice at boot agrees with the prediction", ok,
                f"Linux chose {decision.current} at boot; predicted {chosen}."
                + ("" if ok else " They differ."), None, decision))
        for prediction in judged(predictions, decision, events):
            line = decision.unstable.get(prediction.clocksource)
            if line is None and prediction.clocksource == "tsc":
                line = decision.unstable.get("tsc-early")
            marked = line is not None
            expected = prediction.outcome == UNSTABLE
            ok = marked == expected
            said = (f"Linux marked {prediction.clocksource} unstable by {decision.when}: "
                    f"\"{line}\"" if marked else
                    f"Linux had not marked {prediction.clocksource} unstable by "
                    f"{decision.when}")
            found.append(Agreement(
                f"watchdog {prediction.clocksource}/{prediction.watchdog or '-'} "
                f"{prediction.setting} agrees with Linux ({decision.when})", ok,
                f"{said}; predicted {prediction.outcome}: {prediction.sentence}",
                prediction, decision))
    return found


def judged(predictions, decision, events):
    """The predictions `decision` can confirm or refute: the pair Linux formed (its
    watchdog the one Linux picks) and the clocksources it never watches, in the
    snapshot's setting: "boot" at rest, "after stop 1" that event; at "end" every setting
    has passed, so each pair's first UNSTABLE prediction, else its last setting's."""
    usable = [p for p in predictions if p.outcome != UNKNOWN and (
        p.outcome == NOT_WATCHED or p.figures.get("watchdog_selected"))]
    if decision.when == "boot":
        return [p for p in usable if p.setting == AT_REST]
    if decision.when != "end":
        return [p for p in usable if decision.when == f"after {p.setting}"]
    last = events[-1] if events else AT_REST
    chosen = {}
    for prediction in usable:
        pair = (prediction.clocksource, prediction.watchdog)
        held = chosen.get(pair)
        if held is None or (held.outcome != UNSTABLE and (
                prediction.outcome == UNSTABLE or prediction.setting == last)):
            chosen[pair] = prediction
    return list(chosen.values())
