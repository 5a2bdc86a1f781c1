# SPDX-License-Identifier: MIT
"""The clocksources Linux would register in the environment a record describes, with the
rating and flags Debian's 6.1 kernel gives each here, and what it decides of the TSC at
boot (docs/watchdog.md cites every rule by file and function).

Pure: it reads a `clockbench/2` record as a plain dict and Linux's command line.
"""

import re
from dataclasses import dataclass

RULES = "Linux 6.1.192 (Debian 6.1.0-57)"

# The record's clock name -> Linux's clocksource name.  The PIT is not here: a 64-bit
# Linux never registers the i8253 clocksource (linux/arch/x86/kernel/i8253.c).
LINUX_NAMES = {"tsc": "tsc", "hpet": "hpet", "acpi_pm": "acpi_pm",
               "kvm_clock": "kvm-clock", "xen_pvclock": "xen"}
RECORD_NAMES = {linux: record for record, linux in LINUX_NAMES.items()}

# Debian's 6.1 is built with CONFIG_CLOCKSOURCE_WATCHDOG_MAX_SKEW_US=100 (the default).
WATCHDOG_MAX_SKEW_NS = 100_000
# __clocksource_register_scale: a margin derived from the frequency is raised to this
# floor; every clocksource here but tsc-early and jiffies gets the floor.
MARGIN_FLOOR_NS = 2 * WATCHDOG_MAX_SKEW_NS
TSC_EARLY_MARGIN_NS = 32_000_000          # clocksource_tsc_early.uncertainty_margin
JIFFIES_MARGIN_NS = 32_000_000            # clocksource_jiffies.uncertainty_margin


@dataclass
class Clocksource:
    """One clocksource as Linux would register it here."""

    name: str              # Linux's name: "kvm-clock"
    record_name: str       # the record's clock: "kvm_clock" ("" for jiffies)
    rating: int
    must_verify: bool      # CLOCK_SOURCE_MUST_VERIFY: watched by the watchdog
    verify_percpu: bool    # CLOCK_SOURCE_VERIFY_PERCPU
    margin_ns: int         # uncertainty_margin
    why: str = ""          # why its rating or flags differ from the default, or ""


@dataclass
class TscFacts:
    """What Linux would decide of the TSC at boot, and on what."""

    exempt: object         # True, False, or None when the record cannot tell
    exempt_why: str        # "exempt: invariant TSC with TSC_ADJUST on 1 NUMA node"
    unstable_at_boot: bool  # tsc_init marks it unstable (check_tsc_unstable() true)
    unstable_why: str


def option(cmdline, name):
    """The value of `name=` on Linux's command line (the last one wins), or None."""
    value = None
    for word in (cmdline or "").split():
        if word.startswith(name + "="):
            value = word[len(name) + 1:]
    return value


def clock(record, name):
    """The record's clock `name` when present, else None."""
    for entry in record.get("clocks") or []:
        if isinstance(entry, dict) and entry.get("name") == name and entry.get("present"):
            return entry
    return None


def is_xen_pv(record):
    env = record.get("env") or {}
    xen = env.get("xen") or {}
    return env.get("boot") == "xen-pv" or xen.get("guest") == "pv"


def is_xen_dom0(record):
    xen = (record.get("env") or {}).get("xen") or {}
    return xen.get("domain") == "dom0"


def numa_nodes(record):
    """NUMA nodes of the guest: QEMU's `-numa node` options (1 without any); None when no
    QEMU command says (bare metal, a record before the runner kept it)."""
    command = (record.get("runner") or {}).get("qemu_command")
    if not isinstance(command, list):
        return None
    nodes = sum(1 for i, word in enumerate(command[:-1])
                if word == "-numa" and str(command[i + 1]).startswith("node"))
    return max(nodes, 1)


def cpu_vendor_family_model(record):
    """('GenuineIntel', 6, 85) from env.cpu's words, or (vendor or '', None, None)."""
    text = (record.get("env") or {}).get("cpu") or ""
    vendor = text.split()[0] if text.split() else ""
    found = re.search(r"family (\d+) model (\d+)", text)
    if not found:
        return vendor, None, None
    return vendor, int(found.group(1)), int(found.group(2))


def constant_tsc(record):
    """X86_FEATURE_CONSTANT_TSC as Linux would set it (init_intel, early_init_amd): from
    the invariant-TSC bit, or Intel's family 6 model >= 0x0e and family 0xf model >= 3;
    None when the record lacks the CPUID facts."""
    features = (record.get("env") or {}).get("tsc_features")
    if not isinstance(features, dict) or "invariant" not in features:
        return None
    if features["invariant"]:
        return True
    vendor, family, model = cpu_vendor_family_model(record)
    if vendor == "GenuineIntel" and family is not None:
        return (family == 0xF and model >= 0x03) or (family == 0x6 and model >= 0x0E)
    return False


def tsc_facts(record, cmdline=""):
    """The exemption (tsc.c check_system_tsc_reliable, tsc_setup) and the instability at
    boot (unsynchronized_tsc, tsc_setup) Linux would decide here."""
    env = record.get("env") or {}
    features = env.get("tsc_features")
    tsc_option = option(cmdline, "tsc")
    unstable, unstable_why = False, ""
    constant = constant_tsc(record)
    cpus = env.get("cpus") or env.get("cpus_online") or 1
    vendor = cpu_vendor_family_model(record)[0]
    if tsc_option == "unstable" or option(cmdline, "notsc") is not None or "notsc" in (
            cmdline or "").split():
        unstable, unstable_why = True, "Linux's command line marks the TSC unstable"
    elif constant is False and tsc_option != "reliable" and vendor != "GenuineIntel" \
            and cpus > 1:
        unstable = True
        unstable_why = (f"Linux marks the TSC unstable at boot (TSCs unsynchronized): no "
                        f"constant TSC on this {vendor or 'unnamed'} CPU with {cpus} CPUs")
    if tsc_option == "reliable":
        return TscFacts(True, "exempt: tsc=reliable on Linux's command line", unstable,
                        unstable_why)
    if tsc_option == "nowatchdog":
        return TscFacts(True, "exempt: tsc=nowatchdog on Linux's command line", unstable,
                        unstable_why)
    if env.get("hypervisor") in ("VMware", "Hyper-V"):
        return TscFacts(None, f"unknown: under {env['hypervisor']} Linux may set "
                        "TSC_RELIABLE, which these rules do not replay", unstable,
                        unstable_why)
    if not isinstance(features, dict) or "tsc_adjust" not in features:
        return TscFacts(None, "unknown: the record does not say whether the TSC is "
                        "invariant or has TSC_ADJUST (an image older than its "
                        "env.tsc_features)", unstable, unstable_why)
    nodes = numa_nodes(record)
    missing = []
    if not features["invariant"]:
        missing.append("no invariant TSC (CPUID 0x80000007 EDX bit 8)")
    if not features["tsc_adjust"]:
        missing.append("no TSC_ADJUST (CPUID 7.0 EBX bit 1)")
    if missing:
        return TscFacts(False, "not exempt: " + " and ".join(missing), unstable,
                        unstable_why)
    if nodes is None:
        return TscFacts(None, "unknown: invariant TSC with TSC_ADJUST, but the record does "
                        "not say how many NUMA nodes Linux would see (at most 2 exempt)",
                        unstable, unstable_why)
    if nodes > 2:
        return TscFacts(False, f"not exempt: invariant TSC with TSC_ADJUST, but on {nodes} "
                        "NUMA nodes (at most 2 exempt)", unstable, unstable_why)
    return TscFacts(True, f"exempt: invariant TSC with TSC_ADJUST on {nodes} NUMA "
                    f"node{'s' if nodes > 1 else ''}", unstable, unstable_why)


def clocksources(record, cmdline=""):
    """The clocksources Linux would register here, best rating first (ties in the
    record's order), tsc with MUST_VERIFY unless exempt; tsc left out when Linux marks it
    unstable at boot (it never registers `tsc` then)."""
    facts = tsc_facts(record, cmdline)
    found = []
    if clock(record, "tsc") and not facts.unstable_at_boot:
        found.append(Clocksource("tsc", "tsc", 300, facts.exempt is not True, True,
                                 MARGIN_FLOOR_NS, facts.exempt_why))
    if clock(record, "kvm_clock"):
        features = (record.get("env") or {}).get("tsc_features") or {}
        if features.get("invariant") and not facts.unstable_at_boot:
            found.append(Clocksource("kvm-clock", "kvm_clock", 299, False, False,
                                     MARGIN_FLOOR_NS, "rated 299, below tsc: the TSC is "
                                     "invariant (kvmclock_init)"))
        else:
            found.append(Clocksource("kvm-clock", "kvm_clock", 400, False, False,
                                     MARGIN_FLOOR_NS))
    if clock(record, "xen_pvclock"):
        if is_xen_dom0(record):
            found.append(Clocksource("xen", "xen_pvclock", 275, False, False,
                                     MARGIN_FLOOR_NS, "rated 275, below tsc: Xen's dom0 "
                                     "is never moved (xen_time_init)"))
        else:
            found.append(Clocksource("xen", "xen_pvclock", 400, False, False,
                                     MARGIN_FLOOR_NS))
    if not is_xen_pv(record):
        # A Xen PV kernel registers neither: its timers are Xen's.
        if clock(record, "hpet"):
            found.append(Clocksource("hpet", "hpet", 250, False, False, MARGIN_FLOOR_NS))
        if clock(record, "acpi_pm"):
            found.append(Clocksource("acpi_pm", "acpi_pm", 200, False, False,
                                     MARGIN_FLOOR_NS))
    found.sort(key=lambda cs: -cs.rating)
    return found


def watchdog_candidates(sources):
    """clocksource_select_watchdog: every clocksource without MUST_VERIFY, best first;
    the first is the watchdog Linux picks.  Linux's jiffies (rating 1) is always there
    too, and is the watchdog only when nothing else is."""
    found = [cs for cs in sources if not cs.must_verify]
    if not found:
        found = [Clocksource("refined-jiffies", "", 2, False, False, JIFFIES_MARGIN_NS)]
    return found
