# SPDX-License-Identifier: MIT
"""The safety evidence of one clocksource in one environment (docs/verdict.md), from the
image's run records as plain dicts: warps, offsets and drift across CPUs, the guest's own
checks of the clock, what each lifecycle event did to it, what the watchdog predictions
say, and what contention did to the whole guest.

Each fact is one sentence.  A Finding is a fact that tells against a clocksource: one that
`disqualifies` takes it out of the verdict's choice, the others are caveats said beside it.
The guest is the one judge of its checks (a failed check is taken as it is); the host's
rules here are the verdict's own, each a constant with its reason.
"""

from dataclasses import dataclass, field

from .model import AT_REST, SKIP, UNSTABLE

# Linux's clocksource name -> the image's raw clock that reads the same counter.
RAW_CLOCK = {"tsc": "tsc", "hpet": "hpet", "acpi_pm": "acpi_pm", "kvm-clock": "kvm_clock",
             "xen": "xen_pvclock"}
# Clocksources whose counter each CPU reads for itself (their offsets and drift matter).
PER_CPU = ("tsc", "kvm-clock", "xen")
# The paravirtual clocks: where their records do not claim PVCLOCK_TSC_STABLE_BIT, Linux
# keeps their reads from going back between CPUs with a global last value (6.1,
# arch/x86/kernel/pvclock.c), so warps, offsets and drift there are caveats, not unsafety.
PVCLOCKS = ("kvm-clock", "xen")
CLAMP_WORDS = ("; Linux keeps its reads from going back with a global last value, as its "
               "records do not claim PVCLOCK_TSC_STABLE_BIT: the clock stands still on the "
               "CPU behind instead")

# An offset from CPU 0 is out of bounds when, less its uncertainty, it still exceeds this:
# below a microsecond, handing a timestamp from one CPU to another (a lock, a queue) takes
# longer than the offset, so no reader sees time go back; the warp test catches what can be
# seen directly.
OFFSET_LIMIT_NS = 1000
# A drift between CPUs is not small when it lies beyond this many standard errors (the
# figure's uncertainty_ppm is one) and above DRIFT_LIMIT_PPM: two CPUs 1 ppm apart in
# rate are a millisecond apart after 17 minutes, and nothing in Linux pulls them together.
DRIFT_STANDARD_ERRORS = 3
DRIFT_LIMIT_PPM = 1.0
# After an event a read costing this many times what it cost before is a caveat (rdtsc
# emulated after a restore: ×18).  Each side is the mean of 64 reads, so a loaded host
# moves it: the caveat names the figures rather than judging the clock by them.
COST_JUMP_FACTOR = 3.0
# A guest that kept less than this share of its CPU time while spinning, or whose
# hypervisor accounted any steal, ran contended.
AVAILABLE_PCT_MIN = 90.0


@dataclass
class Finding:
    """A fact that tells against a clocksource ("" for every clocksource of the guest)."""

    clocksource: str
    kind: str           # warps, offset, drift, check, event, watchdog, cost, contention
    sentence: str
    disqualifies: bool
    figures: dict = field(default_factory=dict)

    def to_json(self):
        """The JSON shape (docs/verdict.schema.json, a finding)."""
        return {"clocksource": self.clocksource or None, "kind": self.kind,
                "sentence": self.sentence, "disqualifies": self.disqualifies,
                "figures": self.figures}


@dataclass
class Safety:
    """Everything said of one clocksource's safety: facts for and against."""

    clocksource: str
    facts: list = field(default_factory=list)      # sentences, whatever they show
    findings: list = field(default_factory=list)   # Finding, against it

    @property
    def holds(self):
        """True when nothing disqualifies it."""
        return not any(finding.disqualifies for finding in self.findings)


def _ns(value):
    """A time for a sentence: three significant digits, whole ns from 1000 up."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _ppm(value):
    """A rate for a sentence: two significant digits, whole ppm from 100 up."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.2g}"


def _runs(count):
    return f"{count} run{'s' * (count != 1)}"


def _cross_entry(record, raw):
    cross = record.get("cross_cpu") or {}
    if not cross.get("applies"):
        return None
    return next((entry for entry in cross.get("clocks") or [] if entry.get("clock") == raw),
                None)


def cross_cpu(records, clocksource):
    """(facts, findings) of the warp test, the offsets and the drift of `clocksource`'s
    raw clock over `records`."""
    raw = RAW_CLOCK.get(clocksource)
    entries = [entry for entry in (_cross_entry(record, raw) for record in records) if entry]
    if not entries:
        return [f"{clocksource}: not compared across CPUs (no run had two CPUs that read "
                f"{raw or 'its counter'})"], []
    facts, found = [], []
    warped = [entry for entry in entries if entry.get("warps")]
    clamped = clocksource in PVCLOCKS and not any(entry.get("claims_stable")
                                                  for entry in entries)
    hand_offs = sum(entry.get("iterations") or 0 for entry in entries)
    if warped:
        worst = max(entry.get("worst_warp_ns") or 0 for entry in warped)
        count = sum(entry["warps"] for entry in warped)
        sentence = (f"{clocksource} went backwards between CPUs in {len(warped)} of "
                    f"{_runs(len(entries))} ({count} warps, the worst {_ns(worst)} ns)")
        if clamped:
            sentence += (f"; the raw records do not claim PVCLOCK_TSC_STABLE_BIT, so Linux's "
                         f"pvclock read returns no less than the last value any CPU read "
                         f"(pvclock_clocksource_read): {clocksource} never goes back, but "
                         f"it stands still until the lagging CPU catches up, and every read "
                         f"writes one shared cache line")
        found.append(Finding(clocksource, "warps", sentence, not clamped,
                             {"warps": count, "worst_warp_ns": worst, "runs": len(warped),
                              "clamped_by_linux": clamped}))
    else:
        facts.append(f"{clocksource}: no warps in {_runs(len(entries))} "
                     f"({hand_offs:,} hand-offs between CPUs)")
    if clocksource not in PER_CPU:
        facts.append(f"{clocksource}: one counter shared by every CPU, so no offset or "
                     f"drift of its own")
        return facts, found
    worst_offset = None
    for entry in entries:
        for item in entry.get("offsets") or []:
            off, unc = item.get("offset_ns"), item.get("uncertainty_ns")
            if off is None or unc is None:
                continue
            if worst_offset is None or abs(off) - unc > abs(worst_offset[0]) - worst_offset[1]:
                worst_offset = (off, unc, item.get("cpu"))
    if worst_offset:
        off, unc, cpu = worst_offset
        words = f"CPU {cpu} {'+' if off >= 0 else '-'}{_ns(abs(off))} ns ± {_ns(unc)} from CPU 0"
        if abs(off) - unc > OFFSET_LIMIT_NS:
            found.append(Finding(clocksource, "offset", (
                f"{clocksource} reads apart across CPUs: {words}, beyond "
                f"{OFFSET_LIMIT_NS} ns even at the edge of its bound"
                + (CLAMP_WORDS if clamped else "")), not clamped,
                {"offset_ns": off, "uncertainty_ns": unc, "limit_ns": OFFSET_LIMIT_NS}))
        else:
            facts.append(f"{clocksource}: offsets within bounds (the largest {words})")
    worst_drift = None
    for entry in entries:
        for item in entry.get("drift_ppm") or []:
            drift, unc = item.get("drift_ppm"), item.get("uncertainty_ppm")
            if drift is not None and unc is not None and (
                    worst_drift is None or abs(drift) > abs(worst_drift[0])):
                worst_drift = (drift, unc, item.get("cpu"))
    if worst_drift:
        drift, unc, cpu = worst_drift
        words = f"CPU {cpu} {drift:+.3g} ppm ± {_ppm(unc)} against CPU 0"
        if abs(drift) > DRIFT_STANDARD_ERRORS * unc and abs(drift) > DRIFT_LIMIT_PPM:
            found.append(Finding(clocksource, "drift", (
                f"{clocksource}'s CPUs drift apart: {words}, beyond "
                f"{DRIFT_STANDARD_ERRORS} standard errors and {DRIFT_LIMIT_PPM:g} ppm"
                + (CLAMP_WORDS if clamped else "")), not clamped,
                {"drift_ppm": drift, "uncertainty_ppm": unc, "limit_ppm": DRIFT_LIMIT_PPM}))
        else:
            facts.append(f"{clocksource}: drift small (the largest {words})")
    return facts, found


def _names_clock(check_name, raw):
    """Whether a guest check is about the clock `raw` ("tsc: advances", "kvm_clock, which
    claims ...", "event 2: tsc never steps back ...")."""
    name = check_name.split(": ", 1)[1] if check_name.startswith("event ") else check_name
    return name.startswith((f"{raw}: ", f"{raw}, ", f"{raw} never"))


def guest_checks(records, clocksource):
    """(facts, findings) of the guest's own checks of `clocksource`'s raw clock: each
    failed one disqualifies it, as the guest judged it."""
    raw = RAW_CLOCK.get(clocksource)
    failed, passed = {}, 0
    for record in records:
        for check in (record.get("checks") or {}).get("list") or []:
            if not _names_clock(check.get("name", ""), raw):
                continue
            if check.get("result") == "fail":
                failed.setdefault(check["name"], check.get("info") or "")
            elif check.get("result") == "pass":
                passed += 1
    found = [Finding(clocksource, "check", f"the guest's check '{name}' failed"
                     + (f" ({info})" if info else ""), True) for name, info in failed.items()]
    facts = [f"{clocksource}: the guest's {passed} checks of {raw} passed"] \
        if passed and not failed else []
    return facts, found


def _event_setting(event):
    return f"{event.get('kind') or 'event'} {event.get('seq')}"


def events(records, clocksource):
    """(facts, findings) of what each lifecycle event did to `clocksource`'s raw clock: a
    step back disqualifies it; a read dearer by COST_JUMP_FACTOR after is a caveat."""
    raw = RAW_CLOCK.get(clocksource)
    facts, found = [], []
    for record in records:
        for event in (record.get("lifecycle") or {}).get("events") or []:
            entry = next((c for c in event.get("clocks") or [] if c.get("clock") == raw), None)
            if not isinstance(entry, dict):
                continue
            setting = _event_setting(event)
            step = entry.get("step_from_tsc_ns")
            told = f"across {setting} {clocksource} {entry.get('behaviour') or 'was followed'}"
            if step is not None and raw != "tsc":
                told += f", stepping {'+' if step >= 0 else '-'}{_ns(abs(step))} ns against the TSC"
            facts.append(told)
            if entry.get("back_steps"):
                found.append(Finding(clocksource, "event", (
                    f"across {setting} {clocksource} stepped back {entry['back_steps']} "
                    f"times on some vCPU (the worst {_ns(entry.get('worst_back_ns') or 0)} "
                    f"ns)"), True, {"back_steps": entry["back_steps"]}))
            before, after = entry.get("cost_before_ns"), entry.get("cost_after_ns")
            if before and after and after >= COST_JUMP_FACTOR * before:
                found.append(Finding(clocksource, "cost", (
                    f"after {setting} a {raw} read cost ×{after / before:.2g} "
                    f"({_ns(before)} ns before, {_ns(after)} ns after, each the mean of 64 "
                    f"reads)"), False, {"cost_before_ns": before, "cost_after_ns": after}))
    return facts, found


def watchdog(predictions, clocksource):
    """(facts, findings) of the watchdog predictions for `clocksource`: unstable at rest or
    across an event disqualifies it; a skipped check is a caveat."""
    facts, found = [], []
    for prediction in predictions:
        if prediction.clocksource != clocksource:
            continue
        pair = (f"{clocksource}/{prediction.watchdog}" if prediction.watchdog
                else clocksource)
        facts.append(f"watchdog {pair} {prediction.setting}: {prediction.outcome}")
        if prediction.outcome == UNSTABLE:
            where = "at rest" if prediction.setting == AT_REST else f"across {prediction.setting}"
            found.append(Finding(clocksource, "watchdog", (
                f"{prediction.sentence.rstrip('.')} ({where})"), True, prediction.figures))
        elif prediction.outcome == SKIP:
            found.append(Finding(clocksource, "watchdog", prediction.sentence.rstrip("."),
                                 False, prediction.figures))
    return facts, found


def contention(records):
    """(facts, findings) of what contention did to the guest (every clocksource's caveat):
    the noise phase's availability and steal, and a busy neighbour the runner arranged."""
    facts, found = [], []
    for record in records:
        noise = record.get("noise") or {}
        cpus = [cpu for cpu in noise.get("cpus") or [] if cpu.get("ran")]
        if not noise.get("measured") or not cpus:
            continue
        least = min(cpu.get("availability_pct") or 0 for cpu in cpus)
        steal_ns = sum((cpu.get("steal") or {}).get("total_ns") or 0 for cpu in cpus)
        span_ns = sum(cpu.get("span_ns") or 0 for cpu in cpus)
        steal_pct = steal_ns / span_ns * 100 if span_ns else 0
        words = (f"the vCPUs kept at least {least:.3g} % of their time while spinning"
                 + (f", steal {steal_pct:.2g} % ({noise.get('steal_interface')})"
                    if noise.get("steal_interface") else f" ({noise.get('steal_words')})"))
        if least < AVAILABLE_PCT_MIN or steal_ns:
            found.append(Finding("", "contention", (
                f"the guest ran contended: {words}; a vCPU taken away between the "
                f"watchdog's reads makes a watched clocksource look skewed"), False,
                {"availability_pct_min": least, "steal_pct": steal_pct}))
        else:
            facts.append(words)
    contended = [record for record in records if (record.get("runner") or {}).get("contend")]
    if contended:
        said = contended[0]["runner"]["contend"].get("said") or "a busy neighbour ran beside it"
        found.append(Finding("", "contention", (
            f"{len(contended)} of {_runs(len(records))} had a busy neighbour on every vCPU's "
            f"host CPU ({said.rstrip('.')})"), False))
    return facts, found


def safety(records, predictions, clocksource):
    """The Safety of `clocksource` from every source of evidence."""
    result = Safety(clocksource)
    parts = [cross_cpu(records, clocksource), guest_checks(records, clocksource),
             events(records, clocksource), watchdog(predictions, clocksource)]
    for facts, found in parts:
        result.facts += facts
        result.findings += found
    return result
