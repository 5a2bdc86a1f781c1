# SPDX-License-Identifier: MIT
"""Facts a boot test requires of the guest's JSON report: tests.cfg's `report = NAME`.

Each check takes a schema-valid clockbench/2 (or /1) document and returns a list of problems,
each one sentence (empty: the check holds).  They hold facts of the environment (QEMU's
HPET runs at 100 MHz, Xen denies a domU the PIT's ports, kvm-clock claims stability) and
that the document is whole and consistent (percentiles in order, histograms agreeing,
an offset for every CPU).  What the guest judges, with its own tolerances (a rate within
its ppm bound, no step back, ticks delivered, CPUs that do not warp), is not judged
again: the document's checks.list says the guest judged it, and how (_judged), and
check= assertions (checkmatch) ask for single checks by name.  The boots that run
clockbench-user (the linux boots) have their own checks, OS_CHECKS, of its clockbench-os/1
document.
"""

import re

from ..model import console, histogram, osreport, report
from . import checkmatch, jsonmatch
from ..base.outcome import RunnerError

HPET_QEMU_HZ = 100_000_000    # QEMU's HPET: period 10,000,000 fs
ACPI_PM_HZ = 3_579_545        # fixed by the ACPI specification
PVCLOCK_HZ = 1_000_000_000    # kvm-clock and Xen's pvclock count ns
DENIED_BY_XEN = "denied by Xen"
MAX_PROBLEMS_SHOWN = 5
TIMING_SUM_TOLERANCE = 0.05  # the phases of timing add up to run_ms within this
# What a check the guest made may have come to, for these checks to count it as judged.
JUDGED = ("pass", "skip")


def _ordered(values, field):
    """Problems unless min <= p50 <= p90 <= p99 <= p999 <= max, with none null."""
    nulls = [key for key in report.PERCENTILES if values[key] is None]
    if nulls:
        return [f"{field}.{nulls[0]} is null"]
    for low, high in zip(report.PERCENTILES, report.PERCENTILES[1:]):
        if values[low] > values[high]:
            return [f"{field} is out of order: {low} {values[low]} > {high} {values[high]}"]
    return []


def _present(document):
    """The present clocks' entries."""
    return [clock for clock in document["clocks"] if clock["present"]]


def _clock(document, name):
    """The entry of the clock called `name`, or None."""
    return next((clock for clock in document["clocks"] if clock["name"] == name), None)


def _listed_clock(document, name):
    """The entry of the clock called `name`, or, when the report does not list it, an
    absent one that says so (the schema does not make every clock appear)."""
    return _clock(document, name) or {"name": name, "present": False,
                                      "absent_reason": "not listed in the report"}


def _judged(document, name):
    """Problems unless the guest made a check that `name` names and every such check
    passed or was skipped: the guest judges, with its own tolerance (checks.list carries
    it); the host only asks that it was judged."""
    checks = checkmatch.listed_checks(document)
    if checks is None:
        return []  # a guest from before the check list: its verdict says it all
    found = checkmatch.named(checks, name)
    if not found:
        return [f"the guest made no check '{name}'"]
    return [f"the guest's check '{entry['name']}' is {entry['result']}"
            + (f" ({entry['info']})" if entry.get("info") else "")
            for entry in found if entry["result"] not in JUDGED]


def _port_path(document, expected):
    """Problems unless every present port clock says how its accesses went, and (when
    `expected` is given) went that way.  A guest older than the timing section (and
    port_path with it) is not asked."""
    problems = []
    if "timing" not in document:
        return problems
    for clock in _present(document):
        if "port_io" not in clock["flags"] or not clock["measured"]:
            continue
        path = clock.get("port_path")
        if path is None:
            problems.append(f"{clock['name']}: read through I/O ports, but port_path is "
                            f"{'null' if 'port_path' in clock else 'missing'}")
        elif expected and path["path"] != expected:
            problems.append(f"{clock['name']}: port_path.path is '{path['path']}', "
                            f"expected '{expected}' (ports: {path['ports']})")
    return problems


def _timing(document, required=False):
    """Problems unless the timing section (if there, or if `required`) holds: its phases
    add up to the run."""
    timing = document.get("timing")
    if timing is None:
        return ["the timing section is missing"] if required else []
    if not timing["timed"]:
        return []
    total = sum(timing["phases_ms"].values())
    run_ms = timing["run_ms"]
    if not run_ms > 0:
        return [f"timing.run_ms is {run_ms}, expected more than 0"]
    if abs(total - run_ms) > TIMING_SUM_TOLERANCE * run_ms:
        return [f"timing: the phases add up to {total:.1f} ms, not within "
                f"{TIMING_SUM_TOLERANCE:.0%} of run_ms {run_ms:.1f}"]
    return []


def _clock_sanity(clock, present_names, document=None):
    """What every present clock's entry must show on any machine; that it advanced, never
    stepped back and ran at its rate the guest judged (_judged)."""
    name = clock["name"]
    problems = []
    if clock["samples"] <= 0:
        problems.append(f"samples is {clock['samples']}, expected more than 0")
    if not clock["freq_hz"] > 0:
        problems.append(f"freq_hz is {clock['freq_hz']}, expected more than 0")
    if document is not None and clock.get("measured", True):
        for check in ("advances", "never went backwards*", "runs at its nominal rate*"):
            problems += _judged(document, f"{name}: {check}")
    for field in ("read_cycles", "read_ns"):
        problems += _ordered(clock[field], field)
        if clock[field]["min"] is not None and clock[field]["min"] < 0:
            problems.append(f"{field}.min is {clock[field]['min']}: a negative cost")
    for field in ("batch_ns_per_read", "conversion_ns"):
        if clock[field] is not None and clock[field] < 0:
            problems.append(f"{field} is {clock[field]}: a negative cost")
    reference = clock["rate_reference"]
    if reference is not None and (reference == name or reference not in present_names):
        problems.append(f"rate_reference '{reference}' is not another present clock")
    return [f"{name}: {problem}" for problem in problems]


def _sanity(document, hypervisor):
    """What every report from a run under `hypervisor` must show."""
    problems = []
    if document["env"]["hypervisor"] != hypervisor:
        problems.append(f"env.hypervisor is '{document['env']['hypervisor']}', "
                        f"expected '{hypervisor}'")
    names = [clock["name"] for clock in document["clocks"]]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"the clock '{duplicates[0]}' is listed more than once")
    if document["checks"]["failed"] and document["verdict"] != "fail":
        problems.append(f"verdict is '{document['verdict']}' although checks.failed is "
                        f"{document['checks']['failed']}")
    bracket = document["empty_bracket_cycles"]
    problems += _ordered(bracket, "empty_bracket_cycles")
    problems += _judged(document, "the empty TSC bracket is measured and subtracted")
    tsc = _clock(document, "tsc")
    if tsc is None or not tsc["present"]:
        problems.append("tsc is absent")
    elif tsc["read_cycles"]["min"] < 0:
        problems.append(f"tsc: read_cycles.min is {tsc['read_cycles']['min']}, expected at "
                        f"least 0 (the empty bracket is over-subtracted)")
    present_names = {clock["name"] for clock in _present(document)}
    for clock in _present(document):
        problems += _clock_sanity(clock, present_names, document)
    return (problems + _shared_rates(document) + _port_path(document, None)
            + _timing(document))


RATE_MEMBERS = ("rate_ppm", "rate_uncertainty_ppm", "rate_reference")


def _shared_rates(document):
    """A clock whose rate is another's (`rate_shared_from`) must name an earlier present
    clock of the same nominal frequency that measured its own, and repeat its figures."""
    problems = []
    earlier = {}
    for clock in document["clocks"]:
        source_name = clock.get("rate_shared_from")
        if source_name is not None:
            source = earlier.get(source_name)
            if source is None or source.get("rate_shared_from") is not None:
                problems.append(f"{clock['name']}: rate_shared_from '{source_name}' is not an "
                                f"earlier present clock that measured its own rate")
            elif source["freq_hz"] != clock["freq_hz"]:
                problems.append(f"{clock['name']}: rate_shared_from '{source_name}' runs at "
                                f"{source['freq_hz']} Hz, not {clock['freq_hz']}")
            else:
                problems += [f"{clock['name']}: {member} is {clock[member]}, but "
                             f"{source_name}'s, whose rate it shares, is {source[member]}"
                             for member in RATE_MEMBERS if clock[member] != source[member]]
        if clock["present"]:
            earlier[clock["name"]] = clock
    return problems


def _nominal_frequency(document, name, freq_hz):
    """A problem when the clock `name` is present with another nominal frequency."""
    clock = _clock(document, name)
    if clock and clock["present"] and clock["freq_hz"] != freq_hz:
        return [f"{name}: freq_hz is {clock['freq_hz']}, expected {freq_hz}"]
    return []


def _json_bool(value):
    """A boolean as JSON spells it."""
    return "true" if value else "false"


def _cross_cpu_clock(clock, cpus, present_flags, document):
    """What one cross_cpu clock entry must show: an offset and a drift per CPU but 0."""
    name = clock["clock"]
    problems = []
    if name not in present_flags:
        problems.append("is not a present clock of the report")
    elif clock["claims_stable"] != ("claims_stable" in present_flags[name]):
        problems.append(f"claims_stable is {_json_bool(clock['claims_stable'])}, but the "
                        f"clock's flags {present_flags[name]} say otherwise")
    if clock["claims_stable"]:
        problems += _judged(document, f"{name}, which claims stability across CPUs, never "
                                      f"warped")
    if clock["worst_warp_ns"] < 0:
        problems.append(f"worst_warp_ns is {clock['worst_warp_ns']}, expected at least 0")
    elif clock["warps"] == 0 and clock["worst_warp_ns"] != 0:
        problems.append(f"worst_warp_ns is {clock['worst_warp_ns']} although warps is 0")
    # CPUs are known by their dense index; one held back or that never came online is
    # absent, so the indices need not run 1 to cpus - 1.
    covered = {}
    for key, values in (("offsets", ("offset_ns", "uncertainty_ns")),
                        ("drift_ppm", ("drift_ppm", "uncertainty_ppm"))):
        found = sorted(entry["cpu"] for entry in clock[key])
        repeated = sorted({cpu for cpu in found if found.count(cpu) > 1})
        if repeated:
            problems.append(f"{key} lists CPU {repeated[0]} more than once")
        elif len(found) != cpus - 1:
            problems.append(f"{key} covers {len(found)} CPUs {found}, expected one entry for "
                            f"each of the {cpus - 1} CPUs other than 0")
        else:
            covered[key] = found
        for entry in clock[key]:
            nulls = [value for value in values if entry[value] is None]
            if key == "offsets" and nulls:
                problems.append(f"offsets: CPU {entry['cpu']} has {nulls[0]} null, "
                                f"expected a number")
            elif key == "drift_ppm" and len(nulls) == 1:
                problems.append(f"drift_ppm: CPU {entry['cpu']} has {nulls[0]} null but not "
                                f"the other")
            elif key == "drift_ppm" and not nulls and entry["samples"] < 2:
                problems.append(f"drift_ppm: CPU {entry['cpu']} has a slope from "
                                f"{entry['samples']} samples, expected at least 2")
    if len(covered) == 2 and covered["offsets"] != covered["drift_ppm"]:
        problems.append(f"drift_ppm covers CPUs {covered['drift_ppm']}, but offsets CPUs "
                        f"{covered['offsets']}")
    return [f"cross_cpu: {name}: {problem}" for problem in problems]


def check_valid(_document):
    """valid: the report is there and valid against docs/report.schema.json.

    Loading the document already checked that; nothing more to see.
    """
    return []


def check_tcg_facts(document):
    """tcg_facts: a run under QEMU's TCG: QEMU's HPET and PM timer frequencies, and sanity."""
    return (_sanity(document, "TCG")
            + _nominal_frequency(document, "hpet", HPET_QEMU_HZ)
            + _nominal_frequency(document, "acpi_pm", ACPI_PM_HZ)
            + _port_path(document, "native"))


def check_kvm_facts(document):
    """kvm_facts: a run under KVM: kvm-clock present and claiming stability, and sanity."""
    problems = _sanity(document, "KVM")
    kvm_clock = _clock(document, "kvm_clock")
    if kvm_clock is None or not kvm_clock["present"]:
        reason = kvm_clock["absent_reason"] if kvm_clock else "not listed"
        problems.append(f"kvm_clock is absent: {reason}")
    elif "claims_stable" not in kvm_clock["flags"]:
        problems.append(f"kvm_clock: flags {kvm_clock['flags']} lack claims_stable")
    # Where IOPL 3 or the TSS I/O bitmap works, no port access may take the #GP detour.
    env = document["env"]
    if env["iopl_honoured"] or env.get("io_bitmap_honoured"):
        problems += _port_path(document, "native")
    return problems


def _xen_guest(document, guest, domain, boot):
    """Problems unless the report says it ran as this kind of Xen guest, with
    xen_pvclock counting ns, rdtsc trapped where Xen says it emulates it, and, on
    several vCPUs, no warp but xen_pvclock's when it does not claim stability: Xen
    computes each vCPU's time from its own CPU's calibration, and without Xen's
    TSC-stable flag (Xen's platform timer is not the TSC) those may disagree by
    milliseconds under TCG, which Linux hides by clamping every read."""
    problems = _sanity(document, "Xen")
    env = document["env"]
    if env["boot"] != boot:
        problems.append(f"env.boot is '{env['boot']}', expected '{boot}'")
    kind = env.get("xen") or {}
    if (kind.get("guest"), kind.get("domain")) != (guest, domain):
        problems.append(f"env.xen says {kind.get('guest')} {kind.get('domain')}, expected "
                        f"{guest} {domain}")
    pvclock = _clock(document, "xen_pvclock")
    if pvclock is None or not pvclock["present"]:
        reason = pvclock["absent_reason"] if pvclock else "not listed"
        problems.append(f"xen_pvclock is absent: {reason}")
    else:
        if pvclock["freq_hz"] != PVCLOCK_HZ:
            problems.append(f"xen_pvclock: freq_hz is {pvclock['freq_hz']}, expected "
                            f"{PVCLOCK_HZ} (it counts ns)")
        if "reads_ns" not in pvclock["flags"]:
            problems.append(f"xen_pvclock: flags {pvclock['flags']} lack reads_ns")
    tsc = _clock(document, "tsc")
    if kind.get("tsc_emulated") and tsc and tsc["present"] and not tsc["trapped"]:
        problems.append("tsc is not trapped, although Xen's CPUID leaf says it emulates "
                        "rdtsc here")
    online = env.get("cpus_online")
    cross = document.get("cross_cpu")
    if cross is not None and cross["applies"]:
        for clock in cross["clocks"]:
            if clock["clock"] == "xen_pvclock" and not clock["claims_stable"]:
                continue
            if clock["warps"] != 0:
                problems.append(f"cross_cpu: {clock['clock']}: warps is {clock['warps']} "
                                f"(worst {clock['worst_warp_ns']} ns), expected 0")
    elif online is not None and online > 1:
        why = "is missing" if cross is None else f"does not apply ({cross['reason']})"
        problems.append(f"cross_cpu {why} although env.cpus_online is {online}")
    return problems


def _denied_by_xen(document, names, whom):
    """Problems unless each clock of `names` is absent because Xen denies `whom` its
    ports."""
    problems = []
    for name in names:
        clock = _listed_clock(document, name)
        if clock["present"]:
            problems.append(f"{name} is present, expected it absent: Xen denies {whom} its "
                            f"ports")
        elif DENIED_BY_XEN not in clock["absent_reason"]:
            problems.append(f"{name}: absent_reason '{clock['absent_reason']}' does not say "
                            f"'{DENIED_BY_XEN}'")
    return problems


def check_xen_pv_facts(document):
    """xen_pv_facts: a run as a Xen PV dom0 under QEMU (boot=xen): the Xen guest facts
    (_xen_guest), QEMU's HPET (which Xen maps read-only for dom0) present, and the PM timer
    and the PIT absent because Xen denies dom0 their ports."""
    problems = _xen_guest(document, "pv", "dom0", "xen-pv")
    hpet = _listed_clock(document, "hpet")
    if not hpet["present"]:
        problems.append(f"hpet is absent: {hpet['absent_reason']}")
    problems += _nominal_frequency(document, "hpet", HPET_QEMU_HZ)
    return problems + _denied_by_xen(document, ("acpi_pm", "pit"), "dom0")


def check_xen_pvh_dom0_facts(document):
    """xen_pvh_dom0_facts: a run as Xen's PVH dom0 under QEMU (boot=xen-pvh-dom0): the Xen
    guest facts (_xen_guest), a memory map (which a PVH dom0 gets from Xen), and the PM
    timer and the PIT absent because Xen keeps their ports from its hardware domain."""
    problems = _xen_guest(document, "pvh", "dom0", "pvh")
    if not document["env"]["memory_mib"]:
        problems.append("env.memory_mib is 0: the memory map did not come from Xen")
    return problems + _denied_by_xen(document, ("acpi_pm", "pit"), "its PVH dom0")


def _absent(document, names, why):
    """Problems unless each clock of `names` is absent (with a reason, as always)."""
    return [f"{name} is present, expected it absent: {why}" for name in names
            if _listed_clock(document, name)["present"]]


def check_xen_pv_domu_facts(document):
    """xen_pv_domu_facts: a run as a PV domU of the project's Linux dom0 (boot=xen-pv-domu):
    the Xen guest facts (_xen_guest), no ACPI tables and so no HPET or PM timer, and the
    PIT denied by Xen."""
    problems = _xen_guest(document, "pv", "domU", "xen-pv")
    problems += _absent(document, ("hpet", "acpi_pm"), "a PV domU has no ACPI tables")
    return problems + _denied_by_xen(document, ("pit",), "a domU")


def check_xen_pvh_domu_facts(document):
    """xen_pvh_domu_facts: a run as a PVH domU (boot=xen-pvh-domu): the Xen guest facts
    (_xen_guest), and no HPET, PM timer or PIT: a PVH domain has no device model, and
    Xen emulates none of them for it."""
    problems = _xen_guest(document, "pvh", "domU", "pvh")
    return problems + _absent(document, ("hpet", "acpi_pm", "pit"),
                              "Xen emulates no such device for a PVH domU")


def check_xen_hvm_domu_facts(document):
    """xen_hvm_domu_facts: a run as an HVM domU booted from the GRUB ISO
    (boot=xen-hvm-domu): the Xen guest facts (_xen_guest), and the HPET, PM timer and PIT
    present, each read trapped: Xen emulates them."""
    problems = _xen_guest(document, "hvm", "domU", "multiboot2")
    for name in ("hpet", "acpi_pm", "pit"):
        clock = _listed_clock(document, name)
        if not clock["present"]:
            problems.append(f"{name} is absent ({clock['absent_reason']}), expected Xen's "
                            f"emulated one")
        elif clock.get("trapped") is False:
            problems.append(f"{name} is not trapped, although Xen emulates it")
    return problems


def check_smp_facts(document):
    """smp_facts: several CPUs ran and cross_cpu shows, for each shared clock, an offset and a
    drift for every CPU but 0, and the guest judged the warps of a clock that claims
    stability."""
    cross = document.get("cross_cpu")
    if cross is None:
        return ["cross_cpu is missing (a guest from before cross-CPU measurements?)"]
    if not cross["applies"]:
        return [f"cross_cpu does not apply: {cross['reason']}"]
    problems = []
    online = document["env"].get("cpus_online")
    if online is None:
        problems.append("env.cpus_online is missing")
    elif cross["cpus"] != online:
        problems.append(f"cross_cpu.cpus is {cross['cpus']}, but env.cpus_online is {online}")
    if not cross["clocks"]:
        problems.append("cross_cpu.clocks is empty: no clock was compared across CPUs")
    names = [clock["clock"] for clock in cross["clocks"]]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"cross_cpu: the clock '{duplicates[0]}' is listed more than once")
    present_flags = {clock["name"]: clock["flags"] for clock in _present(document)}
    for clock in cross["clocks"]:
        problems += _cross_cpu_clock(clock, cross["cpus"], present_flags, document)
    return problems


def check_timing_facts(document):
    """timing_facts: the report says where the run's time went, its phases add up to the
    run within 5 %, and every port clock says which path its reads took."""
    problems = _timing(document, required=True)
    if "timing" in document and document["timing"]["timed"]:
        phases = document["timing"]["phases_ms"]
        if not phases["print"] > 0:
            problems.append(f"timing: print is {phases['print']} ms, expected more than 0 "
                            f"(the report itself was printed)")
        if not document["timing"]["console"]["bytes"] > 0:
            problems.append("timing: the console wrote no bytes")
    return problems + _port_path(document, None)


def check_port_trap_facts(document):
    """port_trap_facts: a run with port_io=trap: where IOPL 3 is ignored, every measured
    port clock's accesses took the #GP path through ring 0, each port counted; where it
    is honoured, they ran natively all the same."""
    honoured = document["env"]["iopl_honoured"]
    problems = _port_path(document, "native" if honoured else "ring0")
    for clock in _present(document):
        path = clock.get("port_path")
        if honoured or not path or path["path"] != "ring0":
            continue
        uncounted = [p["port"] for p in path["ports"] if not p["detours"]]
        if uncounted:
            problems.append(f"{clock['name']}: ports {uncounted} took the #GP path, but "
                            f"ring 0 counted no detour for them")
    if document["env"].get("io_bitmap_honoured") is None and not honoured:
        problems.append("env.io_bitmap_honoured is null although IOPL 3 was ignored")
    return problems


def check_single_cpu_facts(document):
    """single_cpu_facts: one CPU ran, and cross_cpu says it does not apply, and why."""
    cross = document.get("cross_cpu")
    if cross is None:
        return ["cross_cpu is missing (a guest from before cross-CPU measurements?)"]
    if cross["applies"]:
        return [f"cross_cpu applies with {cross['cpus']} CPUs, expected it not to on one CPU"]
    online = document["env"].get("cpus_online")
    if online is not None and cross["cpus"] != online:
        return [f"cross_cpu.cpus is {cross['cpus']}, but env.cpus_online is {online}"]
    return []


def _tick_rate(source, rate):
    """What one rate entry of a present tick source must show."""
    problems = []
    requested = rate["requested_hz"]
    where = f"{source['name']} at {requested} Hz"
    if rate["state"] != "measured":
        return [] if rate["problem"] else [f"{where}: {rate['state']} without a reason"]
    if rate["cpu_stolen_pct"] is None:
        problems.append(f"{where}: cpu_stolen_pct is null")
    if (rate["cycles_per_interrupt"] is None) != (rate["interrupts"] == 0):
        problems.append(f"{where}: cycles_per_interrupt is {rate['cycles_per_interrupt']} with "
                        f"{rate['interrupts']} interrupts")
    if rate["records"] == 0:
        if rate["handler_cycles"] is not None or rate["lateness_ns"] is not None:
            problems.append(f"{where}: distributions without records")
        return problems
    problems += [f"{where}: {p}" for p in _ordered(rate["handler_cycles"], "handler_cycles")]
    if rate["lateness_ns"] is None:
        # The timer names no expiry the guest can see (Xen's periodic timer).
        return problems
    problems += [f"{where}: {p}" for p in _ordered(rate["lateness_ns"], "lateness_ns")]
    if rate.get("steal") is not None:
        problems += [f"{where}: {p}" for p in _tick_steal_split(rate)]
    return problems


def _tick_steal_split(rate):
    """Problems unless a measured rate's lateness split by steal is whole: both parts
    there, each in order, and with the records neither holds adding up to its records."""
    steal = rate["steal"]
    parts = ("preempted_lateness_ns", "not_preempted_lateness_ns")
    if rate["lateness_ns"] is None or rate["records"] == 0:
        return [f"steal.{key} is not null without lateness" for key in parts
                if steal[key] is not None]
    missing = [key for key in parts if steal[key] is None]
    if missing or steal["unclassified"] is None:
        return [f"steal.{(missing or ['unclassified'])[0]} is null beside lateness_ns"]
    problems = []
    for key in parts:
        part = steal[key]
        if part["count"] and not part["p50"] <= part["p99"] <= part["max"]:
            problems.append(f"steal.{key} is out of order: p50 {part['p50']}, "
                            f"p99 {part['p99']}, max {part['max']}")
    counted = sum(steal[key]["count"] for key in parts) + steal["unclassified"]
    if counted != rate["records"]:
        problems.append(f"steal: {steal['preempted_lateness_ns']['count']} preempted, "
                        f"{steal['not_preempted_lateness_ns']['count']} not and "
                        f"{steal['unclassified']} unclassified make {counted}, not its "
                        f"{rate['records']} records")
    return problems


def check_tick_steal_facts(document):
    """tick_steal_facts: the tick phase read a steal record (ticks.steal_interface), and
    every measured rate of a present source carries its steal, with its lateness (where
    it has one) split into preempted and not, the two and the unclassified adding up to
    its records."""
    ticks = document.get("ticks")
    if ticks is None or not ticks["applies"]:
        return ["ticks did not run"]
    if ticks.get("steal_interface") is None:
        return [f"ticks read no steal record: {ticks.get('steal_words')}"]
    if ticks.get("steal_reason") is not None:
        return [f"ticks could not read its steal record: {ticks['steal_reason']}"]
    problems = []
    for source in ticks["sources"]:
        for rate in source["rates"] if source["present"] else []:
            where = f"ticks: {source['name']} at {rate['requested_hz']} Hz"
            if rate["state"] != "measured":
                continue
            if rate.get("steal") is None:
                problems.append(f"{where}: no steal")
            else:
                problems += [f"{where}: {p}" for p in _tick_steal_split(rate)]
    return problems


def check_ticks_facts(document):
    """ticks_facts: the tick measurements ran; every source is present or says why not; each
    measured rate is whole (a reason where it was not measured, distributions in order);
    and the guest judged each present source: what CPU its ticks took, its delivery at the
    rate it checks, each with the tolerance its checks.list entry carries (not judged
    again here)."""
    ticks = document.get("ticks")
    if ticks is None:
        return ["ticks is missing (a guest from before the tick measurements?)"]
    if not ticks["applies"]:
        return [f"ticks did not apply: {ticks['reason']}"]
    problems = []
    names = [source["name"] for source in ticks["sources"]]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"ticks: the source '{duplicates[0]}' is listed more than once")
    present = [source for source in ticks["sources"] if source["present"]]
    if not present:
        problems.append("ticks: no tick source is present")
    for source in present:
        for rate in source["rates"]:
            problems += [f"ticks: {p}" for p in _tick_rate(source, rate)]
        where = f"ticks: {source['name']}"
        problems += [f"ticks: {p}" for p in
                     _judged(document, f"{where}: present, or absent with a reason")]
        if any(rate["state"] == "measured" for rate in source["rates"]):
            problems += [f"ticks: {p}" for p in
                         _judged(document, f"{where}: CPU lost lies between 0 and 100 %*")]
        # The guest judges delivery at the rate it checks, when that rate was asked.
        problems += [f"ticks: {p}" for p in
                     _judged(document, f"{where}: at * Hz, delivers within *")
                     if not p.startswith("the guest made no check")]
    return problems


def _histogram_agrees(distribution, field, total):
    """Problems unless `distribution` carries a histogram of `total` samples (None: any
    number) whose nearest-rank quantiles are the distribution's percentiles."""
    if not isinstance(distribution, dict) or "hist" not in distribution:
        return [f"{field} carries no histogram"]
    try:
        hist = histogram.of(distribution)
    except RunnerError as error:
        return [f"{field}.hist: {error}"]
    if total is not None and hist.total != total:
        return [f"{field}.hist counts {hist.total} samples, not {total}"]
    problems = []
    for key, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
        if hist.quantile(q) != distribution[key]:
            problems.append(f"{field}.{key} is {distribution[key]}, but its histogram "
                            f"says {hist.quantile(q)}")
    if hist.buckets and not hist.under and \
            not hist.buckets[0][0] <= distribution["min"] < hist.buckets[0][1]:
        problems.append(f"{field}.min {distribution['min']} is not in its histogram's "
                        f"lowest bucket")
    if hist.buckets and not hist.over and \
            not hist.buckets[-1][0] <= distribution["max"] < hist.buckets[-1][1]:
        problems.append(f"{field}.max {distribution['max']} is not in its histogram's "
                        f"highest bucket")
    return problems


def check_histogram_facts(document):
    """histogram_facts: every measured clock's read_cycles and read_ns, every tick rate's
    handler_cycles and lateness_ns, every cross-CPU offset's bracket_offsets_ns carry a
    histogram of every sample (samples, records) whose quantiles are the percentiles
    printed."""
    problems = []
    for clock in _present(document):
        if clock.get("samples") is None:
            continue
        for key in ("read_cycles", "read_ns"):
            problems += _histogram_agrees(clock[key], f"clocks[{clock['name']}].{key}",
                                          clock["samples"])
    ticks = document.get("ticks") or {}
    for source in ticks.get("sources", []):
        for rate in source["rates"]:
            if rate["state"] != "measured" or not rate["records"]:
                continue
            where = f"ticks.sources[{source['name']}].rates[{rate['requested_hz']}]"
            problems += _histogram_agrees(rate["handler_cycles"], f"{where}.handler_cycles",
                                          rate["records"])
            if rate["lateness_ns"] is not None:
                problems += _histogram_agrees(rate["lateness_ns"], f"{where}.lateness_ns",
                                              rate["records"])
    cross = document.get("cross_cpu") or {}
    for clock in cross.get("clocks", []):
        for offset in clock["offsets"]:
            if offset["offset_ns"] is not None:
                problems += _histogram_agrees(
                    offset.get("bracket_offsets_ns"),
                    f"cross_cpu.clocks[{clock['clock']}].offsets[{offset['cpu']}]"
                    ".bracket_offsets_ns", None)
    return problems[:MAX_PROBLEMS_SHOWN]


CHECKS = {
    "valid": check_valid,
    "tcg_facts": check_tcg_facts,
    "kvm_facts": check_kvm_facts,
    "xen_pv_facts": check_xen_pv_facts,
    "xen_pvh_dom0_facts": check_xen_pvh_dom0_facts,
    "xen_pv_domu_facts": check_xen_pv_domu_facts,
    "xen_pvh_domu_facts": check_xen_pvh_domu_facts,
    "xen_hvm_domu_facts": check_xen_hvm_domu_facts,
    "smp_facts": check_smp_facts,
    "single_cpu_facts": check_single_cpu_facts,
    "timing_facts": check_timing_facts,
    "port_trap_facts": check_port_trap_facts,
    "ticks_facts": check_ticks_facts,
    "tick_steal_facts": check_tick_steal_facts,
    "histogram_facts": check_histogram_facts,
}


# ---------------------------------------------------------------------------- clockbench-user

# The reads through libc that never enter the kernel, whatever the clocksource: the
# coarse clocks and time() read the time of the last tick from the vDSO's data page.
_TICK_CLOCKS = ("CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE")


def _os_run(document, clocksource):
    """The run of `clocksource` in clockbench-user's document, or None."""
    return next((run for run in document["runs"] if run["clocksource"] == clocksource),
                None)


def _os_answered(document, clocksource, expected):
    """Problems unless `clocksource` was measured and every libc read on it that reads
    the clocksource was answered by `expected` ("vdso" or "syscall"), and the coarse
    clocks and time() by the vDSO."""
    run = _os_run(document, clocksource)
    if run is None:
        return [f"clocksource {clocksource} has no run (available: "
                f"{' '.join(document['clocksources']['available']) or 'none'})"]
    if run["problem"]:
        return [f"clocksource {clocksource} was not measured: {run['problem']}"]
    if run["path_problem"]:
        return [f"clocksource {clocksource}: where reads were answered is unknown: "
                f"{run['path_problem']}"]
    problems = []
    for read in run["reads"]:
        if read["path"] != "libc" or not read["present"]:
            continue
        wanted = "vdso" if read["call"] == "time" or read["clock"] in _TICK_CLOCKS \
            else expected
        if read["through"] != wanted:
            problems.append(f"{clocksource}: {read['name']} through libc was answered by "
                            f"{read['through'] or 'an unknown way'}, expected {wanted}")
        if not read["measured"]:
            problems.append(f"{clocksource}: {read['name']} through libc was not measured")
    return problems


def _os_switched(document, names):
    """Problems unless every clocksource of `names` is available, every available one
    was switched to, and the original was put back."""
    sources = document["clocksources"]
    problems = [f"clocksource {name} is not available (available: "
                f"{' '.join(sources['available']) or 'none'})"
                for name in names if name not in sources["available"]]
    if not sources["switch_done"]:
        problems.append(f"the clocksources were not switched: {sources['switch_reason']}")
    if sources["restored"] is not True:
        problems.append(f"the original clocksource {sources['original']} was not put back: "
                        f"{sources['restore_problem'] or 'restored is null'}")
    return problems


def check_os_valid(_document):
    """valid: clockbench-user's document is there and valid against
    docs/os-report.schema.json (run_report_checks() loads and validates it; a failure is
    reported there)."""
    return []


def check_linux_tcg_facts(document):
    """linux_tcg_facts: Linux alone under QEMU's TCG (boot=linux): the clocksources tsc,
    hpet and acpi_pm each switched to and measured, the original put back; the vDSO
    answers the clock reads on tsc, and on hpet and acpi_pm, which have no vDSO mode in
    Linux 6.1, those reads fall back to the system call."""
    problems = []
    if "TCG" not in (document["system"]["hypervisor"] or ""):
        problems.append(f"system.hypervisor is {document['system']['hypervisor']!r}, "
                        f"expected QEMU TCG's")
    problems += _os_switched(document, ("tsc", "hpet", "acpi_pm"))
    problems += _os_answered(document, "tsc", "vdso")
    for name in ("hpet", "acpi_pm"):
        problems += _os_answered(document, name, "syscall")
    return problems


def check_linux_xen_dom0_facts(document):
    """linux_xen_dom0_facts: the Linux PV dom0 of Xen under QEMU's TCG
    (boot=xen-linux-dom0): Linux names Xen and a PV guest, the clocksource xen is switched
    to and measured, the original put back; on xen the clock reads fall back to the system
    call, because the vDSO reads Xen's pvclock only while it claims a stable TSC, which
    Xen does only with the TSC as its platform timer, never under TCG; where tsc is
    available too, the vDSO answers on it."""
    hypervisor = document["system"]["hypervisor"] or ""
    problems = []
    if not hypervisor.startswith("xen") or "PV" not in hypervisor:
        problems.append(f"system.hypervisor is {hypervisor!r}, expected Xen's PV guest "
                        f"('xen (PV guest)')")
    problems += _os_switched(document, ("xen",))
    problems += _os_answered(document, "xen", "syscall")
    if "tsc" in document["clocksources"]["available"]:
        problems += _os_answered(document, "tsc", "vdso")
    return problems


def check_linux_xen_pv_domu_facts(document):
    """linux_xen_pv_domu_facts: Linux as a PV domU of Xen under QEMU's TCG, started by the
    Linux dom0 (boot=xen-linux-pv-domu, --smp 2 so tsc=reliable): Linux names Xen and a PV
    guest, offers the clocksources xen and tsc, each switched to and measured, the
    original (xen, a PV domU's choice) put back; on xen the clock reads fall back to the
    system call (Xen's pvclock claims no stable TSC under TCG), on tsc the vDSO answers
    them."""
    hypervisor = document["system"]["hypervisor"] or ""
    problems = []
    if not hypervisor.startswith("xen") or "PV" not in hypervisor:
        problems.append(f"system.hypervisor is {hypervisor!r}, expected Xen's PV guest "
                        f"('xen (PV guest)')")
    problems += _os_switched(document, ("xen", "tsc"))
    original = document["clocksources"]["original"]
    if original != "xen":
        problems.append(f"the original clocksource is {original}, expected xen (a PV "
                        f"domU's Linux chooses it; its PV dom0 chooses tsc)")
    problems += _os_answered(document, "xen", "syscall")
    problems += _os_answered(document, "tsc", "vdso")
    return problems


# clockbench-user's check of an event point (user/report.c).
_EVENT_ANSWERED = re.compile(r"^event (\d+): the host answered$")


def _snapshot_problems(read, original):
    """Problems with the order and the clocksources of kernel_clocksource's snapshots."""
    snapshots = read["snapshots"]
    whens = [snapshot["when"] for snapshot in snapshots]
    if not whens or whens[0] != "boot" or whens[-1] != "end":
        return [f"the snapshots are {whens}, expected 'boot' first and 'end' last"]
    problems = []
    uptimes = [snapshot["uptime_s"] for snapshot in snapshots]
    if uptimes != sorted(uptimes):
        problems.append(f"the snapshots' uptimes {uptimes} are not in time order")
    # Across an event Linux may leave its boot choice: then clockbench-user finds (and
    # puts back) the one it took.
    for snapshot in (snapshots[-1],) if len(snapshots) > 2 else (snapshots[0], snapshots[-1]):
        if snapshot["current"] != original:
            problems.append(f"at '{snapshot['when']}' Linux's clocksource was "
                            f"{snapshot['current']}, expected {original}, the one "
                            f"clockbench-user found before measuring and put back")
    return problems


def check_kernel_readback(document):
    """kernel_readback: clockbench-user read back what Linux decided (kernel_clocksource):
    the read-back was made, the kernel's log had not wrapped, the snapshots run from 'boot'
    to 'end' in time order, at both (without events: at the end) the clocksource
    clockbench-user found before measuring and put back (clocksources.original), each
    current clocksource among those Linux offered then;
    after each event the host answered, one snapshot.  What Linux decided is not judged
    here: the tests' json= lines say what a setting must show."""
    read = document.get("kernel_clocksource")
    if read is None:
        return ["the document has no kernel_clocksource: clockbench-user did not read back "
                "what Linux decided"]
    if not read["read"]:
        return [f"Linux's clocksource decisions were not read back: {read['reason']}"]
    sources = document["clocksources"]
    problems = [] if read["log_complete"] else [
        "the kernel's log had wrapped (or had more lines than are kept) before it was "
        "read: its first lines about clocksources are missing"]
    problems += _snapshot_problems(read, sources["original"])
    problems += [f"at '{snapshot['when']}' Linux's clocksource {snapshot['current']} is "
                 f"not among those it offered, {snapshot['available']}"
                 for snapshot in read["snapshots"]
                 if snapshot["current"] not in snapshot["available"]]
    answered = [int(match.group(1)) for check in document["checks"]["list"]
                if (match := _EVENT_ANSWERED.match(check["name"]))
                and check["result"] == "pass"]
    after = [snapshot["event"]["seq"] for snapshot in read["snapshots"]
             if "event" in snapshot]
    if answered != after:
        problems.append(f"the host answered events {answered}, but the snapshots follow "
                        f"events {after}")
    return problems


# The checks of clockbench-user's document, by name (tests.cfg's report= for the boots
# that run it).
OS_CHECKS = {
    "valid": check_os_valid,
    "linux_tcg_facts": check_linux_tcg_facts,
    "linux_xen_dom0_facts": check_linux_xen_dom0_facts,
    "linux_xen_pv_domu_facts": check_linux_xen_pv_domu_facts,
    "kernel_readback": check_kernel_readback,
}


def checks_for(user):
    """The report checks of a boot: OS_CHECKS when it runs clockbench-user (`user`),
    else the image's CHECKS."""
    return OS_CHECKS if user else CHECKS


def _load_document(lines, source, user):
    """The image's report in console `lines`, or with `user` clockbench-user's document,
    loaded and validated; RunnerError naming `source`."""
    return (osreport.load_os_report(lines, source) if user
            else report.load_report(lines, source))


def run_report_checks(names, lines, source, expectations=(), user=False, record=None,
                      checks=()):
    """Load the report from console `lines` and run the checks `names`, the json=
    `expectations` (jsonmatch) and the check= `checks` (checkmatch) on it: the image's
    report, or with `user` clockbench-user's document and OS_CHECKS.  With `record`
    (boot.BootOutcome.record of the run), the image's report is checked as the run's
    record `run --json` writes, runner member and all, validated as such
    (json='runner.accel == "tcg"').  check= alone is run_check_assertions(), which reads a
    run that ended before its report from its KTAP lines.

    Returns problem sentences, each naming its check; a report that cannot be loaded is
    one problem, whichever checks were asked for.
    """
    if not names and not expectations:
        return run_check_assertions(checks, lines, source, user)
    try:
        document = _load_document(lines, source, user)
        if record and not user:
            document = record(dict(document, schema=report.SCHEMA))
            report.validate_document(document, f"{source} (the run's record)")
    except RunnerError as error:
        asked = ([f"report={'/'.join(names)}"] if names else []) + \
            [f"json={expectation.text}" for expectation in expectations] + \
            [f"check={expectation.text}" for expectation in checks]
        return [f"{', '.join(asked)}: {error}"]
    problems = [problem for problem in (jsonmatch.check(document, expectation)
                                        for expectation in expectations) if problem]
    problems += [problem for problem in (checkmatch.check(document, expectation)
                                         for expectation in checks) if problem]
    for name in names:
        found = checks_for(user)[name](document)
        shown = found[:MAX_PROBLEMS_SHOWN]
        if len(found) > len(shown):
            shown.append(f"and {len(found) - len(shown)} more")
        problems += [f"report={name}: {problem}" for problem in shown]
    return problems


def _listed_checks(lines, source, user):
    """The guest's checks as its JSON report lists them; for a run of the image that
    printed no report (an unexpected exception ends it after the KTAP alone), those its
    KTAP lines give.  RunnerError when the report is there but cannot be read, or when
    the run gave neither."""
    framing = osreport.OS_FRAMING if user else report.IMAGE_FRAMING
    if user or any(framing.begin in line for line in lines):
        document = _load_document(lines, source, user)
        listed = checkmatch.listed_checks(document)
        if listed is None:
            raise RunnerError(f"{source}: the report lists no checks (checks.list is "
                              f"missing)")
        return listed
    listed = console.parse_check_list(lines)
    if not listed:
        raise RunnerError(f"{source}: the guest printed neither a report nor a KTAP check")
    return listed


def run_check_assertions(expectations, lines, source, user=False):
    """The check= `expectations` (checkmatch) on the checks the guest made: its verdicts,
    not judged again.  Returns problem sentences, each naming its assertion."""
    if not expectations:
        return []
    try:
        document = {"checks": {"list": _listed_checks(lines, source, user)}}
    except RunnerError as error:
        return [f"check={expectation.text}: {error}" for expectation in expectations]
    return [problem for problem in (checkmatch.check(document, expectation)
                                    for expectation in expectations) if problem]
