# SPDX-License-Identifier: MIT
"""Linux's clocksource watchdog replayed on clockbench's own raw reads (docs/watchdog.md).

`predict(record)` gives one WatchdogPrediction per pair Linux could form here (the TSC,
the one clocksource that asks to be verified, watched by each clocksource that could be
its watchdog, the one Linux picks first) and per setting: at rest, then across each
lifecycle event of the record.  The rules are Debian's 6.1 kernel's
(linux/kernel/time/clocksource.c clocksource_watchdog and cs_watchdog_read; linux/arch/x86/kernel/
tsc.c); this project's figures stand in for the reads Linux would make.
"""

import math
import re

from .linuxcs import (RULES, WATCHDOG_MAX_SKEW_NS, clock, clocksources, tsc_facts,
                      watchdog_candidates)
from .model import (AT_REST, EXEMPT, NOT_WATCHED, SKIP, STABLE, UNKNOWN, UNSTABLE,
                    WatchdogPrediction)

WHOSE = RULES + " linux/kernel/time/clocksource.c, linux/arch/x86/kernel/tsc.c"
WATCHDOG_INTERVAL_NS = 500_000_000        # WATCHDOG_INTERVAL: HZ >> 1 jiffies
WATCHDOG_INTERVAL_MAX_NS = 1_000_000_000  # WATCHDOG_INTERVAL_MAX_NS: twice that
SKIP_PAUSE_S = 300                        # extra_wait after WD_READ_SKIP: HZ * 300
CHECKS_PER_HOUR = 3600 * 1_000_000_000 // WATCHDOG_INTERVAL_NS
QUANTILES = (("p50", 0.5), ("p90", 0.1), ("p99", 0.01), ("p999", 0.001))


def predict(record, cmdline=""):
    """Linux's watchdog on every pair it could form here, at rest and across each event
    of `record` (a clockbench/2 record as json.load gives it); `cmdline` is the Linux
    command line assumed (tsc=, clocksource=), none by default."""
    if not isinstance(record, dict) or not isinstance(record.get("clocks"), list):
        return [WatchdogPrediction("tsc", "", AT_REST, UNKNOWN, "No prediction: the record "
                                   "has no clocks (the guest printed no report).",
                                   rules=WHOSE)]
    sources = clocksources(record, cmdline)
    facts = tsc_facts(record, cmdline)
    candidates = [cs for cs in watchdog_candidates(sources) if cs.name != "tsc"]
    events = [event for event in ((record.get("lifecycle") or {}).get("events") or [])
              if isinstance(event, dict)]
    found = []
    for index, watchdog in enumerate(candidates):
        for setting, event in [(AT_REST, None)] + [(event_name(e), e) for e in events]:
            found.append(judge_pair(record, sources, facts, watchdog, index == 0,
                                    setting, event))
    for cs in sources:
        if not cs.must_verify and cs.name != "tsc":
            found.append(WatchdogPrediction(
                cs.name, "", AT_REST, NOT_WATCHED,
                f"Linux never watches {cs.name}: it does not ask to be verified; rated "
                f"{cs.rating}, it can be the watchdog of others.", {"rating": cs.rating},
                WHOSE))
    return found


def event_name(event):
    """The setting of an event as the record names it: "stop 1"."""
    return f"{event.get('kind') or 'event'} {event.get('seq')}"


def judge_pair(record, sources, facts, watchdog, selected, setting, event):
    """One prediction: tsc watched by `watchdog` in one setting."""
    role = ("the watchdog Linux picks" if selected
            else f"{watchdog.name} is the watchdog only if those rated higher are gone")
    figures = {"watchdog_selected": selected, "watchdog_rating": watchdog.rating}
    tsc = next((cs for cs in sources if cs.name == "tsc"), None)
    if facts.unstable_at_boot:
        return WatchdogPrediction("tsc", watchdog.name, setting, UNSTABLE,
                                  facts.unstable_why + "; it never registers tsc.",
                                  figures, WHOSE)
    if tsc is None:
        return WatchdogPrediction("tsc", watchdog.name, setting, UNKNOWN,
                                  "The record has no TSC.", figures, WHOSE)
    if facts.exempt is True:
        return WatchdogPrediction("tsc", watchdog.name, setting, EXEMPT,
                                  f"Linux never watches tsc here, {facts.exempt_why}.",
                                  figures, WHOSE)
    if not watchdog.record_name:
        return WatchdogPrediction("tsc", watchdog.name, setting, UNKNOWN,
                                  "Linux's only watchdog here is its jiffies clock, which "
                                  "clockbench does not measure.", figures, WHOSE)
    md_ns = tsc.margin_ns + watchdog.margin_ns
    figures["limit_ns"] = md_ns
    if event is None:
        outcome, sentence = at_rest(record, tsc, watchdog, md_ns, figures)
    else:
        outcome, sentence = across(record, event, tsc, watchdog, md_ns, setting, figures)
    if outcome == UNSTABLE:
        sentence += percpu_verify(record, figures)
    if facts.exempt is None and outcome != UNKNOWN:
        sentence = f"Whether Linux watches tsc is {facts.exempt_why}. If it does: {sentence}"
        outcome = UNKNOWN
    return WatchdogPrediction("tsc", watchdog.name, setting, outcome,
                              f"{sentence} ({role})", figures, WHOSE)


def at_rest(record, cs, wd, md_ns, figures):
    """The read-back (cs_watchdog_read), then the skew over one interval from the rates
    and, as the watchdog's timer moves from CPU to CPU, the offsets between CPUs."""
    outcome, sentence = readback(record, cs, wd, figures)
    if outcome in (UNSTABLE, SKIP, UNKNOWN):
        return outcome, sentence
    rate = relative_rate(record, cs.record_name, wd.record_name)
    if rate is None:
        return UNKNOWN, (f"Linux's check of tsc against {wd.name} cannot be replayed: "
                         f"the record has no rate between {cs.record_name} and "
                         f"{wd.record_name}. {sentence}")
    rate_ppm, rate_u_ppm = rate
    per_ppm_ns = WATCHDOG_INTERVAL_NS / 1e6
    offset_ns, offset_u_ns, offset_note = offset_step(record, cs, wd)
    skew_ns = abs(rate_ppm) * per_ppm_ns + offset_ns
    skew_u_ns = rate_u_ppm * per_ppm_ns + offset_u_ns
    figures.update(rate_ppm=rate_ppm, rate_uncertainty_ppm=rate_u_ppm, skew_ns=skew_ns,
                   skew_uncertainty_ns=skew_u_ns, offset_step_ns=offset_ns)
    told = (f"tsc and {wd.name} differ by {rate_ppm:+.1f} ± {rate_u_ppm:.1f} ppm, "
            f"{us(skew_ns)} ± {us(skew_u_ns)} per 0.5 s check{offset_note}")
    if skew_ns - skew_u_ns > md_ns:
        return UNSTABLE, (f"Linux would mark tsc unstable here: {told}, over the "
                          f"{us(md_ns)} limit. {sentence}")
    if skew_ns + skew_u_ns <= md_ns:
        return STABLE, (f"Linux keeps tsc: {told}, within the {us(md_ns)} limit. "
                        f"{sentence}")
    return UNKNOWN, (f"Too close to call: {told}, and the {us(md_ns)} limit lies within "
                     f"that uncertainty. {sentence}")


def across(record, event, cs, wd, md_ns, setting, figures):
    """The first check after an event: the step between cs and wd over it, unless the
    interval it spans is too long to be judged (the long-interval skip), or Linux's own
    suspend reset the watchdog."""
    if not event.get("answered") or event.get("aborted"):
        return UNKNOWN, (f"The record has no measurement of {setting}: the host did not "
                         f"carry it out.")
    entries = {entry.get("clock"): entry for entry in event.get("clocks") or []
               if isinstance(entry, dict)}
    cs_entry, wd_entry = entries.get(cs.record_name), entries.get(wd.record_name)
    if cs_entry is None or wd_entry is None:
        missing = wd.record_name if cs_entry else cs.record_name
        return UNKNOWN, f"The record did not follow {missing} across {setting}."
    steps = [number(entry.get("step_from_tsc_ns")) for entry in (cs_entry, wd_entry)]
    advances = [number(entry.get("advance_ns")) for entry in (cs_entry, wd_entry)]
    if cs.record_name == "tsc":
        steps[0] = 0.0
    if None in steps or None in advances:
        return UNKNOWN, f"The record lacks the step or advance of {setting}."
    step_ns = steps[1] - steps[0]    # how much further cs went than wd
    longest_ns = max(advances)
    figures.update(step_ns=step_ns, interval_ns=longest_ns)
    told = (f"tsc stepped {signed(step_ns)} against {wd.name} across {setting} "
            f"({cs_entry.get('behaviour')} and {wd_entry.get('behaviour')}, the faster "
            f"advanced {us(longest_ns)})")
    if (record.get("env") or {}).get("xen") and event.get("kind") in ("save", "migrate"):
        return SKIP, (f"Linux would not judge that step: its own suspend for Xen's "
                      f"{event.get('kind')} resets the watchdog (xen_suspend, "
                      f"timekeeping_resume, clocksource_resume), so the first check "
                      f"after only records; {told}.")
    if min(advances) < 0:
        return SKIP, (f"Linux would skip that check: a clock that went back reads as a "
                      f"wrap, an interval far over {seconds(WATCHDOG_INTERVAL_MAX_NS)}; "
                      f"{told}.")
    if longest_ns > WATCHDOG_INTERVAL_MAX_NS:
        return SKIP, (f"Linux would skip that check (a long readout interval, over "
                      f"{seconds(WATCHDOG_INTERVAL_MAX_NS)}) and start again from there: "
                      f"{told}.")
    if abs(step_ns) <= md_ns:
        return STABLE, f"Linux keeps tsc: {told}, within the {us(md_ns)} limit."
    if longest_ns + WATCHDOG_INTERVAL_NS <= WATCHDOG_INTERVAL_MAX_NS:
        return UNSTABLE, (f"Linux would mark tsc unstable here: {told}, over a "
                          f"{us(md_ns)} limit.")
    return UNKNOWN, (f"Either: {told}, over the {us(md_ns)} limit, but the check spans "
                     f"the event plus up to 0.5 s and is skipped when that is over "
                     f"{seconds(WATCHDOG_INTERVAL_MAX_NS)}.")


def readback(record, cs, wd, figures):
    """cs_watchdog_read: wd, cs, wd, wd read in a row.  Over WATCHDOG_MAX_SKEW from the
    first wd read to the second is a failed attempt; then two wd reads in a row over half
    of it skip the check for 5 minutes, else Linux retries, and marks cs unstable after
    the last attempt fails."""
    # Linux reads the TSC ordered (rdtsc_ordered): lfence; rdtsc, or rdtscp.
    cs_read = dist(clock(record, "tsc_ordered")) if cs.record_name == "tsc" else None
    cs_read = cs_read or dist(clock(record, cs.record_name))
    wd_read = dist(clock(record, wd.record_name))
    if cs_read is None or wd_read is None:
        missing = cs.record_name if cs_read is None else wd.record_name
        return UNKNOWN, (f"The record has no read cost of {missing}, so Linux's "
                         f"read-back cannot be replayed.")
    typical_ns = cs_read["p50"] + wd_read["p50"]
    fail = min(1.0, share_over(wd_read, WATCHDOG_MAX_SKEW_NS - cs_read["p50"])
               + share_over(cs_read, WATCHDOG_MAX_SKEW_NS - wd_read["p50"]))
    if typical_ns > WATCHDOG_MAX_SKEW_NS:
        fail = 1.0
    seq = share_over(wd_read, WATCHDOG_MAX_SKEW_NS / 2)
    attempts = retries(record) + 1
    skip_per_check = sum(fail ** k * (1 - seq) ** (k - 1) * seq
                         for k in range(1, attempts + 1))
    unstable_per_check = fail ** attempts * (1 - seq) ** attempts
    figures.update(readback_ns=typical_ns, readback_fail_share=fail, attempts=attempts,
                   skip_per_check=skip_per_check, unstable_per_check=unstable_per_check)
    told = (f"the read-back takes {us(typical_ns)} ({wd.name} {us(wd_read['p50'])}, "
            f"tsc {us(cs_read['p50'])})")
    if unstable_per_check * CHECKS_PER_HOUR >= 1:
        return UNSTABLE, (f"Linux would mark tsc unstable here: {told}; all {attempts} "
                          f"attempts over the {us(WATCHDOG_MAX_SKEW_NS)} it allows "
                          f"{often(unstable_per_check)}.")
    if skip_per_check * CHECKS_PER_HOUR >= 1:
        return SKIP, (f"Linux would skip its check for {SKIP_PAUSE_S // 60} minutes "
                      f"{often(skip_per_check)}: {told}, and two {wd.name} reads in a "
                      f"row over {us(WATCHDOG_MAX_SKEW_NS / 2)} in "
                      f"{percent(seq)} of them.")
    return STABLE, (f"The read-back ({us(typical_ns)} typically) stays within "
                    f"{us(WATCHDOG_MAX_SKEW_NS)}" + (" always." if fail == 0 else
                                                      f" {percent(1 - fail)} of the time."))


def retries(record):
    """clocksource_get_max_watchdog_retry: ilog2(online CPUs) / 2 + 1."""
    cpus = (record.get("env") or {}).get("cpus_online") or 1
    return int(math.log2(max(int(cpus), 1))) // 2 + 1


def relative_rate(record, cs_name, wd_name):
    """(rate of cs against wd in ppm, its uncertainty), from the rates the record
    measured or a clock's calibration against another (its nominal rate is then that
    clock's, within the calibration's uncertainty): directly when one was the other's
    reference, else through a common reference; None when the record cannot give it."""
    cs_rates, wd_rates = rates(clock(record, cs_name)), rates(clock(record, wd_name))
    if wd_name in cs_rates:
        return cs_rates[wd_name]
    if cs_name in wd_rates:
        return -wd_rates[cs_name][0], wd_rates[cs_name][1]
    for reference in cs_rates:
        if reference in wd_rates:
            (cs_ppm, cs_u), (wd_ppm, wd_u) = cs_rates[reference], wd_rates[reference]
            return cs_ppm - wd_ppm, cs_u + wd_u
    return None


def rates(entry):
    """{reference clock: (ppm, uncertainty ppm)} of one clock: its measured rate, and its
    calibration ("calibrated against hpet over 50 ms, +/- 3 ppm") as a rate of 0."""
    found = {}
    if not entry:
        return found
    calibrated = re.match(r"calibrated against (\w+)\b.*?\+/- ([0-9.]+) ppm",
                          str(entry.get("freq_source") or ""))
    if calibrated:
        found[calibrated.group(1)] = (0.0, float(calibrated.group(2)))
    ppm, u_ppm = number(entry.get("rate_ppm")), number(entry.get("rate_uncertainty_ppm"))
    if ppm is not None and u_ppm is not None and entry.get("rate_reference"):
        found[entry["rate_reference"]] = (ppm, u_ppm)
    return found


def offset_step(record, cs, wd):
    """(worst change of (cs - wd) from one CPU to the next, its uncertainty, a phrase):
    the watchdog's timer runs each check on the next online CPU, so a per-CPU clock's
    offsets between CPUs enter the skew.  Drift is left out: over 0.5 s it is nothing."""
    cross = record.get("cross_cpu") or {}
    if not cross.get("applies"):
        return 0.0, 0.0, ""
    by_clock = {entry.get("clock"): entry for entry in cross.get("clocks") or []
                if isinstance(entry, dict)}
    series = []
    for name in (cs.record_name, wd.record_name):
        entry = by_clock.get(name)
        offsets = {0: (0.0, 0.0)}
        if entry is not None:
            for item in entry.get("offsets") or []:
                value, bound = number(item.get("offset_ns")), number(item.get("uncertainty_ns"))
                if value is not None and bound is not None:
                    offsets[item.get("cpu")] = (value, bound)
        series.append(offsets)
    cpus = sorted(set(series[0]) | set(series[1]), key=lambda cpu: (cpu is None, cpu))
    if len(cpus) < 2:
        return 0.0, 0.0, ""
    worst, worst_u = 0.0, 0.0
    for here, there in zip(cpus, cpus[1:] + cpus[:1]):
        moved = []
        for offsets in series:
            a, b = offsets.get(here, (0.0, 0.0)), offsets.get(there, (0.0, 0.0))
            moved.append((b[0] - a[0], a[1] + b[1]))
        step = abs(moved[0][0] - moved[1][0])
        if step > worst:
            worst, worst_u = step, moved[0][1] + moved[1][1]
    if worst == 0.0:
        return 0.0, 0.0, ""
    return worst, worst_u, f", plus {us(worst)} from one CPU's offset to the next's"


def percpu_verify(record, figures):
    """clocksource_verify_percpu, run once tsc (VERIFY_PERCPU) is marked unstable while
    current: CPU by CPU, a remote read outside two local reads is listed ahead or behind.
    It marks nothing; the record's offsets say which CPUs it would list."""
    cross = record.get("cross_cpu") or {}
    entry = next((e for e in cross.get("clocks") or []
                  if isinstance(e, dict) and e.get("clock") == "tsc"), None)
    if not cross.get("applies") or entry is None:
        return " Its per-CPU verify would have no other CPU to compare."
    apart = [(item.get("cpu"), number(item.get("offset_ns")))
             for item in entry.get("offsets") or []
             if number(item.get("offset_ns")) is not None
             and abs(item["offset_ns"]) > (number(item.get("uncertainty_ns")) or 0)]
    figures["percpu_cpus_apart"] = [cpu for cpu, _ in apart]
    figures["warps"] = entry.get("warps")
    if not apart and not entry.get("warps"):
        return " Its per-CPU verify would find the CPUs' TSCs together."
    listed = ", ".join(f"CPU {cpu} {signed(value)}" for cpu, value in apart)
    return (f" Its per-CPU verify would see {listed or 'no offset beyond its bound'} "
            f"({entry.get('warps')} warps, worst {us(entry.get('worst_warp_ns') or 0)}).")


def dist(entry):
    """A clock's read_ns distribution, or None."""
    if not entry or not entry.get("measured"):
        return None
    read = entry.get("read_ns")
    if not isinstance(read, dict) or number(read.get("p50")) is None:
        return None
    return read


def share_over(read, threshold_ns):
    """The share of reads that took longer than `threshold_ns`: from the histogram when
    there is one, else bounded by the percentiles."""
    if threshold_ns <= 0:
        return 1.0
    hist = read.get("hist")
    if isinstance(hist, dict) and hist.get("buckets") and hist.get("total"):
        over = sum(count for low, count in hist["buckets"] if low > threshold_ns)
        return over / hist["total"]
    if number(read.get("max")) is not None and read["max"] <= threshold_ns:
        return 0.0
    if number(read.get("min")) is not None and read["min"] > threshold_ns:
        return 1.0
    for key, share in QUANTILES:
        if number(read.get(key)) is not None and read[key] > threshold_ns:
            return share
    return QUANTILES[-1][1]


def number(value):
    """A finite number, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def us(ns):
    """ns in words: "250 µs", "3.0 s"."""
    ns = abs(ns)
    if ns >= 1e9:
        return f"{ns / 1e9:.1f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:.0f} µs"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def signed(ns):
    return ("-" if ns < 0 else "+") + us(ns)


def seconds(ns):
    return f"{ns / 1e9:.1f} s"


def percent(share):
    return f"{share * 100:.3g} %"


def often(per_check):
    """How often an event of this chance per check happens: "every check", "about
    every 40 minutes"."""
    if per_check >= 0.5:
        return "at every check"
    minutes = WATCHDOG_INTERVAL_NS / 1e9 / per_check / 60
    if minutes < 1:
        return f"about every {minutes * 60:.0f} s"
    return f"about every {minutes:.0f} minutes"
