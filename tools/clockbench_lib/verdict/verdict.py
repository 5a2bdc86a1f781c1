# SPDX-License-Identifier: MIT
"""The verdict of one environment (docs/verdict.md): which clocksource Linux picks by
itself and which it should use, what clock_gettime costs through each, what that takes of
a CPU at a read rate, the safety evidence, the caveats, and whether Linux's own decisions
agree with the watchdog's predictions.

It reads plain data (an Environment: the image's run records and clockbench-user's
documents as dicts, and the host in words), so that whoever gathers the records (compare)
stays above it.  The rules, in order:

 1. the candidates: the clocksources Linux listed as available (clockbench-user's
    documents), else the Linux clocksources of the counters the image found;
 2. the cost of each: clock_gettime(CLOCK_MONOTONIC) through libc on it (vDSO or system
    call), else the image's raw read of the same counter, said so;
 3. the safety of each (evidence.py): no warps, offsets within bounds, drift small, no
    failed check of the guest's, no step back across an event, the watchdog not marking it
    unstable at rest or across an event;
 4. the recommendation: the cheapest candidate whose safety holds, Linux's own pick when
    it is as cheap (within AS_CHEAP_FRACTION); none when none holds;
 5. Linux's pick: choice.predict_choice, and Linux's own answer where a document has one;
    every prediction Linux's decisions can confirm or refute is an agreement, and one that
    does not hold fails the verdict.  The predictions assume the command line Linux was
    given where a document read it (linuxread.command_line: tsc=reliable in the Linux
    boots here), else one with no tsc= or clocksource=.
"""

import statistics
from dataclasses import dataclass, field

from . import agree, choice, evidence, linuxread, watchdog
from .cost import reading_cost

OS_CLOCK = "CLOCK_MONOTONIC"
# Linux's own pick is kept unless another is cheaper by more than this share of its cost:
# one environment's p50 read cost moved this much between identical runs here (seven TCG
# boots on one host: hpet 90-110 ns, acpi_pm 60-70 ns), so a smaller saving is not one the
# figures can promise (docs/verdict.md).
AS_CHEAP_FRACTION = 0.20
BASIS_OS = "os layer"
BASIS_RAW = "raw reads"
# What Linux adds to a raw read, as measured here (docs/os-layer.md), for the sentence of
# a verdict that has only raw reads.
LINUX_ADDS = ("typically 100-130 ns through the vDSO where the clocksource has a vDSO mode "
              "(tsc, kvm-clock, xen with a stable TSC), and a whole system call where it has "
              "none (hpet, acpi_pm, xen without one: 0.6-1.5 µs under TCG, 20-40 µs in a "
              "Xen PV guest)")


@dataclass
class Environment:
    """What the verdict of one environment is made from."""

    name: str                    # the row's name: tcg-pc, tcg-pc@host-b
    host: str                    # the host in words
    records: list = field(default_factory=list)       # the image's run records (dicts)
    os_documents: list = field(default_factory=list)  # clockbench-os/1 documents (dicts)
    notes: list = field(default_factory=list)         # sentences: runs left out, pairing


@dataclass
class Cost:
    """What one clock_gettime(CLOCK_MONOTONIC) costs on one clocksource."""

    clocksource: str
    cost_ns: float
    through: str                 # vdso, syscall, or "raw read" (no OS layer)
    syscall_ns: float = None     # the system call itself, where measured
    raw_ns: float = None         # the image's raw read of the same counter
    reading: object = None       # cost.ReadingCost at the verdict's rate


@dataclass
class Verdict:
    """One environment's verdict."""

    env: str
    host: str
    reads_per_s: float
    basis: str                   # BASIS_OS or BASIS_RAW
    basis_sentence: str
    linux_picks: str = None
    linux_picks_why: str = ""
    linux_chose: str = None      # what Linux itself had at boot (a document's), or None
    recommended: str = None
    recommended_why: str = ""
    saved_cpu_share: float = None  # recommended against Linux's pick, at reads_per_s
    costs: list = field(default_factory=list)        # Cost, cheapest first
    safety: dict = field(default_factory=dict)       # clocksource -> evidence.Safety
    caveats: list = field(default_factory=list)      # evidence.Finding of the guest
    predictions: list = field(default_factory=list)  # model.WatchdogPrediction
    agreements: list = field(default_factory=list)   # model.Agreement
    notes: list = field(default_factory=list)
    runs: int = 0
    os_runs: int = 0

    @property
    def agrees(self):
        """True unless some prediction disagrees with Linux."""
        return all(item.ok for item in self.agreements)


def _median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def os_costs(documents):
    """{clocksource: Cost} from clockbench-user's documents: clock_gettime(CLOCK_MONOTONIC)
    through libc (p50, median over the documents) and through the system call."""
    found = {}
    for document in documents:
        for run in document.get("runs") or []:
            if run.get("problem"):
                continue
            for read in run.get("reads") or []:
                if read.get("clock") != OS_CLOCK or not read.get("measured"):
                    continue
                p50 = (read.get("read_ns") or {}).get("p50")
                entry = found.setdefault(run["clocksource"], {"libc": [], "syscall": [],
                                                             "through": []})
                entry[read.get("path")] = entry.get(read.get("path"), []) + [p50]
                if read.get("path") == "libc" and read.get("through"):
                    entry["through"].append(read["through"])
    costs = {}
    for source, entry in found.items():
        libc = _median(entry["libc"])
        if libc is None:
            continue
        through = "/".join(sorted(set(entry["through"]))) or "?"
        costs[source] = Cost(source, libc, through, _median(entry["syscall"]))
    return costs


def raw_costs(records):
    """{clocksource: p50 ns} of the image's raw read of each counter Linux has a
    clocksource for (median over the records)."""
    costs = {}
    for source, raw in evidence.RAW_CLOCK.items():
        values = [(clock.get("read_ns") or {}).get("p50") for record in records
                  for clock in record.get("clocks") or []
                  if clock.get("name") == raw and clock.get("measured")]
        value = _median(values)
        if value is not None:
            costs[source] = value
    return costs


def _available(documents):
    """The clocksources Linux listed, in its order, over every document."""
    names = []
    for document in documents:
        listed = list((document.get("clocksources") or {}).get("available") or [])
        listed += [run["clocksource"] for run in document.get("runs") or []]
        for name in listed:
            if name not in names:
                names.append(name)
    return names


def _boot_choice(documents, decisions):
    """What Linux itself had in use at boot: the decision read at boot, else the
    clocksource clockbench-user found in use before it switched any."""
    boot = next((d for d in decisions if d.when == "boot" and d.current), None)
    if boot:
        return boot.current
    return next(((doc.get("clocksources") or {}).get("original") for doc in documents
                 if (doc.get("clocksources") or {}).get("original")), None)


def _merge_agreements(groups):
    """One Agreement per check over every record's: it holds when it holds in each."""
    merged = {}
    for group in groups:
        for item in group:
            kept = merged.get(item.check)
            if kept is None or (kept.ok and not item.ok):
                merged[item.check] = item
    return list(merged.values())


def _document_agreements(env, notes):
    """Each clockbench-user document's decisions beside the predictions made for that
    Linux: under its own command line (tsc=, clocksource=) and from the image's records
    of as many CPUs as it had (Linux 6.1 drops a TSC that is not invariant at boot only
    with more than one CPU), every record's when none has that many, said."""
    groups = []
    for document in env.os_documents:
        decisions = linuxread.decisions(document)
        if not decisions:
            continue
        cmdline = linuxread.command_line(document) or ""
        cpus = (document.get("system") or {}).get("cpus")
        records = [record for record in env.records
                   if (record.get("env") or {}).get("cpus_online") == cpus]
        if not records:
            records = env.records
            notes.append(f"no image record of {cpus} CPUs, as Linux had: its decisions are "
                         f"checked against predictions from records of other CPU counts")
        for record in records:
            predictions = watchdog.predict(record, cmdline=cmdline)
            chosen, _ = choice.predict_choice(record, predictions, cmdline=cmdline)
            groups.append(agree.agreements(predictions, chosen, decisions))
    return _merge_agreements(groups)


def _costs(env, reads_per_s):
    """(basis, sentence, [Cost] cheapest first) of `env`'s candidates."""
    raw = raw_costs(env.records)
    if env.os_documents:
        by_os = os_costs(env.os_documents)
        names = [name for name in _available(env.os_documents) if name in by_os]
        costs = [by_os[name] for name in names]
        missing = [name for name in _available(env.os_documents) if name not in by_os]
        sentence = (f"clock_gettime({OS_CLOCK}) through libc on each clocksource, from "
                    f"{len(env.os_documents)} clockbench-user document"
                    f"{'s' * (len(env.os_documents) != 1)}")
        if missing:
            sentence += (f"; {', '.join(missing)} listed but not measured (run "
                         f"clockbench-user with --switch, as root, to measure each)")
        basis = BASIS_OS
    else:
        costs = [Cost(name, value, "raw read") for name, value in raw.items()]
        sentence = (f"no OS-layer run here: the figures are the image's raw reads, which "
                    f"leave out what Linux adds: {LINUX_ADDS} (boot clockbench-user, "
                    f"--boot linux, and name its document {env.name}.os.json to measure it)")
        basis = BASIS_RAW
    for item in costs:
        item.raw_ns = raw.get(item.clocksource)
        item.reading = reading_cost(max(item.cost_ns, 0), reads_per_s)
    costs.sort(key=lambda item: item.cost_ns)
    return basis, sentence, costs


def _recommend(verdict):
    """The cheapest candidate whose safety holds (Linux's pick when it is as cheap), and
    why."""
    held = [c for c in verdict.costs if verdict.safety[c.clocksource].holds]
    if not held:
        verdict.recommended_why = ("no clocksource here has safety evidence that holds: "
                                   + "; ".join(f"{c.clocksource}: {_first_problem(verdict, c)}"
                                               for c in verdict.costs))
        return
    best = held[0]
    pick = next((c for c in held if c.clocksource == verdict.linux_picks), None)
    close = None
    if pick is not None and pick.cost_ns <= best.cost_ns * (1 + AS_CHEAP_FRACTION):
        close = best if best is not pick else None
        best = pick
    verdict.recommended = best.clocksource
    why = [f"the cheapest clocksource whose safety evidence holds "
           f"({_cost_words(best)})"]
    if close is not None:
        why = [f"Linux's own pick, as cheap as any whose safety evidence holds "
               f"({_cost_words(best)}); {close.clocksource} ({_cost_words(close)}) is "
               f"{(1 - close.cost_ns / best.cost_ns) * 100:.2g} % cheaper, within the "
               f"{AS_CHEAP_FRACTION * 100:.0f} % a read's cost moves between runs: too "
               f"little to switch for"]
    for cheaper in verdict.costs:
        if cheaper.cost_ns < best.cost_ns and cheaper not in held:
            why.append(f"{cheaper.clocksource} ({_cost_words(cheaper)}) is cheaper but out: "
                       f"{_first_problem(verdict, cheaper)}")
    verdict.recommended_why = "; ".join(why)
    current = next((c for c in verdict.costs if c.clocksource == verdict.linux_picks), None)
    if current is not None and current is not best:
        verdict.saved_cpu_share = current.reading.cpu_share - best.reading.cpu_share


def _first_problem(verdict, cost):
    found = [f for f in verdict.safety[cost.clocksource].findings if f.disqualifies]
    return found[0].sentence if found else "nothing against it"


def _cost_words(cost):
    via = {"vdso": "through the vDSO", "syscall": "a system call",
           "raw read": "a raw read"}.get(cost.through, f"through {cost.through}")
    return f"{_ns(cost.cost_ns)} ns a read, {via}"


def _ns(value):
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def judge(env, reads_per_s):
    """The Verdict of one Environment at `reads_per_s` reads a second."""
    basis, sentence, costs = _costs(env, reads_per_s)
    verdict = Verdict(env.name, env.host, reads_per_s, basis, sentence, costs=costs,
                      notes=list(env.notes), runs=len(env.records),
                      os_runs=len(env.os_documents))
    # What Linux was given (tsc=, clocksource=), where a document read it: the
    # predictions assume it; without one, a command line with neither.
    cmdline = next((line for line in map(linuxread.command_line, env.os_documents) if line),
                   "")
    per_record = [(record, watchdog.predict(record, cmdline=cmdline))
                  for record in env.records]
    for _, predictions in per_record:
        verdict.predictions += predictions
    if per_record:
        verdict.linux_picks, verdict.linux_picks_why = choice.predict_choice(
            *per_record[0], cmdline=cmdline)
    decisions = [decision for document in env.os_documents
                 for decision in linuxread.decisions(document)]
    verdict.linux_chose = _boot_choice(env.os_documents, decisions)
    if verdict.linux_picks is None and verdict.linux_chose:
        verdict.linux_picks = verdict.linux_chose
        verdict.linux_picks_why = ("no image record here to predict from: the clocksource "
                                   "Linux itself had in use")
    if verdict.linux_chose and verdict.linux_picks and \
            verdict.linux_chose != verdict.linux_picks and not decisions:
        verdict.notes.append(
            f"Linux itself had {verdict.linux_chose} in use at boot where the prediction "
            f"says {verdict.linux_picks}; the document does not say what command line Linux "
            f"was given (no kernel_clocksource: a clockbench-user from before it), so the "
            f"predictions assumed one with no tsc= or clocksource=, and nothing is checked")
    if decisions and per_record:
        verdict.agreements = _document_agreements(env, verdict.notes)
    elif per_record:
        verdict.notes.append("no Linux decision to check the predictions against (no "
                             "clockbench-user document of this environment read back "
                             "kernel_clocksource)")
    if not env.records:
        verdict.notes.append("no image record of this environment: no warps, offsets, "
                             "drift, events or watchdog predictions to judge by; the "
                             "verdict rests on clockbench-user's figures alone")
    for item in costs:
        verdict.safety[item.clocksource] = evidence.safety(env.records, verdict.predictions,
                                                           item.clocksource)
        kept = verdict.safety[item.clocksource]
        kept.facts = list(dict.fromkeys(kept.facts))
        kept.findings = list({f.sentence: f for f in kept.findings}.values())
    facts, verdict.caveats = evidence.contention(env.records)
    verdict.notes += facts
    _recommend(verdict)
    return verdict
