# SPDX-License-Identifier: MIT
"""The lifecycle table of `clockbench compare --table lifecycle`: per environment, event
and clock, what the clock did over the event (frozen, ran on, jumped: the guest's call,
docs/lifecycle.md), by how much against the host's own window, and how far it stepped
against the TSC — over the runs, so that one event's figures can be read across
hypervisors side by side; and the timer table (`--table timers`): per environment and
event, what became of the timer the guest armed across it (docs/lifecycle.md)."""

from collections import Counter
from dataclasses import dataclass

from .cells import Spread, csv_number, spread, spread_text
from .table import Column, Row, Table

NS_PER_MS = 1e6


@dataclass
class LifeRow:
    """One clock over one event point in one environment's runs."""

    env: str
    seq: int                 # the event point, from 1
    kind: str                # stop, savevm, migrate, ... (runs that disagree: joined by /)
    clock: str
    runs: int                # runs whose report has this event and clock
    answered: int            # of them, those where the host answered
    behaviours: Counter      # the guest's call ("frozen", "ran on", "jumped") -> runs
    host_ms: Spread = None   # the host's window (ready to sent), ms
    excess_ms: Spread = None  # the clock's advance less the host's window, ms
    bound_ms: Spread = None  # what the call allowed either way, ms
    step_ms: Spread = None   # (TSC - clock) after less before, ms
    back_steps: int = 0      # steps back on any vCPU, added over the runs

    @property
    def behaviour(self):
        """The guest's calls over the runs: `frozen`, or `frozen 2, ran on 1`."""
        return _calls_text(self.behaviours)


def _calls_text(behaviours):
    """A Counter of the guest's calls over the runs in words: `-` for none, the call
    when all agree, else each with its count, the commonest first."""
    if not behaviours:
        return "-"
    if len(behaviours) == 1:
        return next(iter(behaviours))
    return ", ".join(f"{name} {count}" for name, count in behaviours.most_common())


def _runs_text(runs, counted, missing_words):
    """`3`, or `3 (1 unanswered)`: the runs, and those of them without figures."""
    missing = runs - counted
    return str(runs) if not missing else f"{runs} ({missing} {missing_words})"


def _event_table(title, headings, rows, cells):
    """A table of one row per environment and event point (a group per environment):
    env, `seq kind`, then `cells(row)`; the first three columns and the fifth (the
    guest's call) are text."""
    left = (0, 1, 2, 4)
    columns = [Column(heading, index in left) for index, heading in enumerate(headings)]
    return Table(title, columns, [Row([row.env, f"{row.seq} {row.kind}", *cells(row)],
                                      group=row.env) for row in rows])


def _spread_cells(value):
    """A Spread's median, low and high for CSV ("" each without one)."""
    return ["", "", ""] if value is None else [
        csv_number(value.median), csv_number(value.low), csv_number(value.high)]


def _events(run):
    """The lifecycle events of `run`'s report ([] without a lifecycle member)."""
    lifecycle = run.document.get("lifecycle")
    return (lifecycle or {}).get("events") or []


def _ms(value):
    return None if value is None else value / NS_PER_MS


def _host_window_ms(event):
    host = event.get("host") or {}
    ready, sent = host.get("ready_ns"), host.get("sent_ns")
    return None if ready is None or sent is None else (sent - ready) / NS_PER_MS


def compare_lifecycle(inputs):
    """One LifeRow per environment, event point and clock, for every environment whose
    reports carry lifecycle events; in input order, clocks as the guest listed them."""
    rows = []
    for env, runs in inputs.runs.items():
        found = {}  # (seq, clock) -> [(event, clock member)]
        for run in runs:
            for event in _events(run):
                for clock in event.get("clocks") or []:
                    found.setdefault((event.get("seq"), clock.get("clock")), []).append(
                        (event, clock))
        for (seq, name), seen in found.items():
            kinds = list(dict.fromkeys(event.get("kind") or "?" for event, _ in seen))
            answered = [(event, clock) for event, clock in seen if event.get("answered")]
            rows.append(LifeRow(
                env, seq, "/".join(kinds), name, len(seen), len(answered),
                Counter(clock["behaviour"] for _, clock in answered
                        if clock.get("behaviour")),
                spread([_host_window_ms(event) for event, _ in answered]),
                spread([_ms(clock.get("excess_ns")) for _, clock in answered]),
                spread([_ms(clock.get("bound_ns")) for _, clock in answered]),
                spread([_ms(clock.get("step_from_tsc_ns")) for _, clock in answered
                        if name != "tsc"]),
                sum(clock.get("back_steps") or 0 for _, clock in seen)))
    return rows


LIFECYCLE_HEADINGS = ("env", "event", "clock", "runs", "what it did", "host ms",
                      "excess ms", "± ms", "tsc - clock ms", "back")
LIFECYCLE_TITLE = ("Lifecycle: what each clock did over each event (the guest's call; its "
                   "advance less the host's window, within ± the round trip and the "
                   "rounds of reads; the step "
                   "against the TSC, read back to back), median over the runs")


def lifecycle_table(rows):
    """The lifecycle events' table (a Table), a group per environment; runs whose host
    never answered have no figures."""
    return _event_table(LIFECYCLE_TITLE, LIFECYCLE_HEADINGS, rows, lambda row: [
        row.clock, _runs_text(row.runs, row.answered, "unanswered"), row.behaviour,
        spread_text(row.host_ms), spread_text(row.excess_ms), spread_text(row.bound_ms),
        spread_text(row.step_ms), str(row.back_steps)])


def format_lifecycle_table(rows, markdown=False):
    """The lifecycle table as aligned text columns or a Markdown table."""
    return lifecycle_table(rows).lines("markdown" if markdown else "table")


def format_lifecycle_csv(rows):
    """The lifecycle table as CSV, numbers at the tables' precision."""
    heading = ["env", "event", "kind", "clock", "runs", "answered", "behaviour"]
    for name in ("host_ms", "excess_ms", "bound_ms", "tsc_minus_clock_ms"):
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    lines = []
    for row in rows:
        line = [row.env, row.seq, row.kind, row.clock, row.runs, row.answered,
                row.behaviour]
        for value in (row.host_ms, row.excess_ms, row.bound_ms, row.step_ms):
            line += _spread_cells(value)
        lines.append(line + [row.back_steps])
    return Table("", heading + ["back_steps"], lines).csv()


@dataclass
class TimerRow:
    """The timer pending across one event point in one environment's runs."""

    env: str
    seq: int
    kind: str                # the event's (runs that disagree: joined by /)
    source: str              # the timer's (lapic, hpet, xen_oneshot, ...; joined by /)
    runs: int                # runs whose report has this event
    armed: int               # of them, those that armed a timer across it
    behaviours: Counter      # the guest's call (late, made up, skipped, ...) -> runs
    late_ms: Spread = None   # the first interrupt after the event, past its deadline
    due_in_gap: Spread = None  # expiries that fell in the guest's longest gap
    host_due: Spread = None  # expiries the host's account of the event had room for
    early: int = 0           # interrupts before their deadline, added over the runs
    burst: Spread = None     # interrupts that came back to back after the gap
    lost: Spread = None      # expiries due in the gap that never came
    skipped: Spread = None   # expiries a one-shot re-arm passed over
    problems: tuple = ()     # why a timer was not armed, once each

    @property
    def behaviour(self):
        """The guest's calls over the runs: `late`, or `late 2, lost 1`."""
        return _calls_text(self.behaviours)


def compare_timers(inputs):
    """One TimerRow per environment and event point whose reports say what became of a
    timer across it (armed, or why not); in input order."""
    rows = []
    for env, runs in inputs.runs.items():
        found = {}  # seq -> [(event, timer member)]
        for run in runs:
            for event in _events(run):
                if isinstance(event.get("timer"), dict):
                    found.setdefault(event.get("seq"), []).append((event, event["timer"]))
        for seq, seen in found.items():
            armed = [(event, timer) for event, timer in seen
                     if timer.get("armed") and event.get("answered")]
            rows.append(TimerRow(
                env, seq, "/".join(dict.fromkeys(event.get("kind") or "?"
                                                 for event, _ in seen)),
                "/".join(dict.fromkeys(timer.get("source") or "?" for _, timer in seen)),
                len(seen), len(armed),
                Counter(timer["behaviour"] for _, timer in armed if timer.get("behaviour")),
                spread([_ms(timer.get("first_after_late_ns")) for _, timer in armed]),
                spread([timer.get("due_in_gap") for _, timer in armed]),
                spread([timer.get("host_due") for _, timer in armed]),
                sum(timer.get("early") or 0 for _, timer in armed),
                spread([timer.get("burst") for _, timer in armed]),
                spread([timer.get("lost") for _, timer in armed]),
                spread([timer.get("skipped") for _, timer in armed]),
                tuple(dict.fromkeys(timer["problem"] for _, timer in seen
                                    if timer.get("problem")))))
    return rows


TIMER_HEADINGS = ("env", "event", "timer", "runs", "what it did", "late ms", "due in gap",
                  "host due", "early", "burst", "lost", "skipped")
TIMER_TITLE = ("Lifecycle timer: what became of the timer armed across each event (the "
               "guest's call; how late its first interrupt after came; expiries due in the "
               "guest's longest gap and in the host's event; interrupts before their "
               "deadline, which must be none), median over the runs")


def timer_table(rows):
    """The lifecycle timers' table (a Table), a group per environment; runs without a
    timer across the event have no figures, and timer_notes() says why."""
    return _event_table(TIMER_TITLE, TIMER_HEADINGS, rows, lambda row: [
        row.source, _runs_text(row.runs, row.armed, "not armed"), row.behaviour,
        spread_text(row.late_ms), spread_text(row.due_in_gap), spread_text(row.host_due),
        str(row.early), spread_text(row.burst), spread_text(row.lost),
        spread_text(row.skipped)])


def timer_notes(rows):
    """A sentence per environment and event whose timer was not armed in some run."""
    return [f"{row.env}, event {row.seq}: no timer across it: {problem}"
            for row in rows for problem in row.problems]


def format_timer_table(rows, markdown=False):
    """The timer table as aligned text columns or a Markdown table, then its notes."""
    return timer_table(rows).lines("markdown" if markdown else "table") + timer_notes(rows)


def format_timer_csv(rows):
    """The timer table as CSV, numbers at the tables' precision."""
    heading = ["env", "event", "kind", "timer", "runs", "armed", "behaviour"]
    figures = ("late_ms", "due_in_gap", "host_due", "burst", "lost", "skipped")
    for name in figures[:3]:
        heading += [f"{name}_median", f"{name}_min", f"{name}_max"]
    heading += ["early"] + [f"{name}_median" for name in figures[3:]] + ["problem"]
    lines = []
    for row in rows:
        line = [row.env, row.seq, row.kind, row.source, row.runs, row.armed, row.behaviour]
        for value in (row.late_ms, row.due_in_gap, row.host_due):
            line += _spread_cells(value)
        line += [row.early] + [csv_number(value.median) if value else ""
                               for value in (row.burst, row.lost, row.skipped)]
        lines.append(line + ["; ".join(row.problems)])
    return Table("", heading, lines).csv()
