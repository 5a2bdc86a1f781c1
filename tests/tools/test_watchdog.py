# SPDX-License-Identifier: MIT
"""Linux's clocksource watchdog replayed (tools/clockbench_lib/verdict/watchdog.py,
linuxcs.py, choice.py), fed synthetic records: each rule on both sides of its limit.

Run: /usr/bin/python3 -m unittest tests.tools.test_watchdog
"""

import glob
import json
import os
import unittest

from tests.tools import FIXTURES
from clockbench_lib.verdict import choice, watchdog
from clockbench_lib.verdict.model import (AT_REST, EXEMPT, NOT_WATCHED, OUTCOMES, SKIP,
                                          STABLE, UNKNOWN, UNSTABLE)

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

INTEL = "GenuineIntel family 6 model 85 stepping 7 (test)"
AMD = "AuthenticAMD family 15 model 107 stepping 1 (test)"


def clock(name, p50_ns=100, rate_ppm=None, u_ppm=None, reference=None, freq_source="",
          max_ns=None):
    """A present, measured clock: reads of p50_ns (max_ns at most), a rate if given."""
    return {"name": name, "present": True, "measured": True, "freq_source": freq_source,
            "read_ns": {"min": p50_ns, "p50": p50_ns, "p90": p50_ns, "p99": p50_ns,
                        "p999": p50_ns, "max": max_ns if max_ns is not None else p50_ns},
            "rate_ppm": rate_ppm, "rate_uncertainty_ppm": u_ppm, "rate_reference": reference}


def record(clocks, cpu=INTEL, invariant=False, tsc_adjust=False, cpus=1, numa=0,
           features=True, events=None, cross=None, xen=None):
    """A clockbench/2 record of the given clocks under QEMU."""
    env = {"cpu": cpu, "cpus": cpus, "cpus_online": cpus, "hypervisor": "KVM",
           "boot": "multiboot1", "xen": xen}
    if features:
        env["tsc_features"] = {"invariant": invariant, "tsc_adjust": tsc_adjust}
    command = ["qemu-system-x86_64", "-smp", str(cpus)]
    for node in range(numa):
        command += ["-numa", f"node,nodeid={node}"]
    found = {"schema": "clockbench/2", "env": env, "clocks": clocks,
             "runner": {"qemu_command": command},
             "cross_cpu": cross or {"applies": False, "cpus": cpus, "clocks": []}}
    if events is not None:
        found["lifecycle"] = {"applies": True, "events": events}
    return found


def tsc_and_hpet(rate_ppm=0.0, u_ppm=0.0, tsc_ns=20, hpet_ns=100, hpet_max_ns=None, **kw):
    """tsc, its rate against hpet given; hpet."""
    return record([clock("tsc", tsc_ns, rate_ppm, u_ppm, "hpet"),
                   clock("hpet", hpet_ns, max_ns=hpet_max_ns)], **kw)


def stop(tsc_advance_ns, hpet_advance_ns, hpet_step_ns):
    """One answered stop: tsc and hpet advanced so, hpet stepped so against the TSC."""
    def entry(name, advance, step):
        return {"clock": name, "advance_ns": advance, "step_from_tsc_ns": step,
                "behaviour": "frozen" if advance < 1e8 else "ran on"}
    return {"seq": 1, "kind": "stop", "answered": True, "aborted": False,
            "clocks": [entry("tsc", tsc_advance_ns, 0),
                       entry("hpet", hpet_advance_ns, hpet_step_ns)]}


def one(record_, setting=AT_REST, watchdog_name="hpet", cmdline=""):
    """The prediction for tsc watched by watchdog_name in setting."""
    for prediction in watchdog.predict(record_, cmdline):
        if (prediction.clocksource, prediction.watchdog, prediction.setting) == (
                "tsc", watchdog_name, setting):
            return prediction
    raise AssertionError(f"no prediction tsc/{watchdog_name} {setting}")


class Skew(unittest.TestCase):
    """At rest: r ppm between tsc and its watchdog is r x 0.5 us per check, against
    md = 200 + 200 us."""

    def test_just_over_the_limit(self):
        self.assertEqual(one(tsc_and_hpet(801.0)).outcome, UNSTABLE)

    def test_just_under_the_limit(self):
        self.assertEqual(one(tsc_and_hpet(799.0)).outcome, STABLE)

    def test_the_sentence_gives_figures_and_the_limit(self):
        self.assertIn("over the 400 µs limit", one(tsc_and_hpet(-900.0)).sentence)

    def test_uncertainty_across_the_limit_is_not_called(self):
        self.assertEqual(one(tsc_and_hpet(790.0, 20.0)).outcome, UNKNOWN)

    def test_uncertainty_wholly_under_the_limit(self):
        self.assertEqual(one(tsc_and_hpet(700.0, 20.0)).outcome, STABLE)

    def test_uncertainty_wholly_over_the_limit(self):
        self.assertEqual(one(tsc_and_hpet(900.0, 20.0)).outcome, UNSTABLE)

    def test_rate_through_a_common_reference(self):
        found = record([clock("tsc", 20, 500.0, 1.0, "acpi_pm"),
                        clock("hpet", 100, -400.0, 1.0, "acpi_pm"),
                        clock("acpi_pm", 1000)])
        self.assertEqual(one(found).figures["rate_ppm"], 900.0)

    def test_rate_from_the_calibration(self):
        found = record([clock("tsc", 20, freq_source="calibrated against hpet over 50 ms, "
                              "+/- 3 ppm"), clock("hpet", 100)])
        self.assertEqual(one(found).outcome, STABLE)

    def test_no_rate_is_unknown(self):
        found = record([clock("tsc", 20), clock("hpet", 100)])
        self.assertEqual(one(found).outcome, UNKNOWN)


class Exemption(unittest.TestCase):
    """tsc.c: constant and nonstop TSC with TSC_ADJUST on at most 2 nodes, tsc=."""

    def test_invariant_with_tsc_adjust_is_exempt(self):
        self.assertEqual(one(tsc_and_hpet(invariant=True, tsc_adjust=True)).outcome, EXEMPT)

    def test_exempt_says_why(self):
        self.assertIn("TSC_ADJUST on 1 NUMA node",
                      one(tsc_and_hpet(invariant=True, tsc_adjust=True)).sentence)

    def test_invariant_without_tsc_adjust_is_watched(self):
        self.assertEqual(one(tsc_and_hpet(invariant=True)).outcome, STABLE)

    def test_tsc_adjust_without_invariant_is_watched(self):
        self.assertEqual(one(tsc_and_hpet(tsc_adjust=True)).outcome, STABLE)

    def test_three_nodes_are_watched(self):
        found = tsc_and_hpet(invariant=True, tsc_adjust=True, numa=3)
        self.assertEqual(one(found).outcome, STABLE)

    def test_two_nodes_are_exempt(self):
        found = tsc_and_hpet(invariant=True, tsc_adjust=True, numa=2)
        self.assertEqual(one(found).outcome, EXEMPT)

    def test_tsc_reliable_is_exempt(self):
        self.assertEqual(one(tsc_and_hpet(), cmdline="tsc=reliable").outcome, EXEMPT)

    def test_no_cpuid_facts_is_unknown(self):
        self.assertEqual(one(tsc_and_hpet(features=False)).outcome, UNKNOWN)

    def test_no_cpuid_facts_says_so(self):
        self.assertIn("does not say whether the TSC is invariant",
                      one(tsc_and_hpet(features=False)).sentence)

    def test_unsynchronized_amd_tsc_is_unstable_at_boot(self):
        found = tsc_and_hpet(cpu=AMD, cpus=2)
        self.assertEqual(one(found).outcome, UNSTABLE)

    def test_a_single_amd_cpu_keeps_its_tsc(self):
        self.assertEqual(one(tsc_and_hpet(cpu=AMD)).outcome, STABLE)


class ReadBack(unittest.TestCase):
    """cs_watchdog_read: wd-cs-wd over 100 us fails; wd-wd over 50 us skips."""

    def test_a_slow_watchdog_skips(self):
        self.assertEqual(one(tsc_and_hpet(hpet_ns=120_000)).outcome, SKIP)

    def test_the_skip_says_five_minutes(self):
        self.assertIn("skip its check for 5 minutes",
                      one(tsc_and_hpet(hpet_ns=120_000)).sentence)

    def test_over_the_limit_with_quick_watchdog_reads_is_unstable(self):
        found = tsc_and_hpet(tsc_ns=70_000, hpet_ns=40_000)
        self.assertEqual(one(found).outcome, UNSTABLE)

    def test_just_under_the_limit_is_stable(self):
        found = tsc_and_hpet(tsc_ns=50_000, hpet_ns=40_000)
        self.assertEqual(one(found).outcome, STABLE)

    def test_a_rare_tail_is_stable(self):
        found = tsc_and_hpet(hpet_ns=100, hpet_max_ns=150_000)
        self.assertEqual(one(found).outcome, STABLE)

    def test_retries_grow_with_cpus(self):
        self.assertEqual(watchdog.retries({"env": {"cpus_online": 16}}), 3)


class Events(unittest.TestCase):
    """The first check after an event sees the step between tsc and its watchdog."""

    def test_a_small_step_is_kept(self):
        found = tsc_and_hpet(events=[stop(3_000_000, 3_000_000, 300_000)])
        self.assertEqual(one(found, "stop 1").outcome, STABLE)

    def test_a_step_over_the_limit_is_marked(self):
        found = tsc_and_hpet(events=[stop(3_000_000, 2_500_000, 500_000)])
        self.assertEqual(one(found, "stop 1").outcome, UNSTABLE)

    def test_a_long_interval_is_skipped(self):
        found = tsc_and_hpet(events=[stop(3_000_000_000, 2_000_000, 2_998_000_000)])
        self.assertEqual(one(found, "stop 1").outcome, SKIP)

    def test_a_step_whose_check_may_span_over_a_second_is_not_called(self):
        found = tsc_and_hpet(events=[stop(700_000_000, 699_000_000, 1_000_000)])
        self.assertEqual(one(found, "stop 1").outcome, UNKNOWN)

    def test_a_watchdog_that_went_back_is_skipped(self):
        found = tsc_and_hpet(events=[stop(3_000_000, -2_000_000, 5_000_000)])
        self.assertEqual(one(found, "stop 1").outcome, SKIP)

    def test_linux_resets_its_watchdog_on_a_xen_save(self):
        event = dict(stop(3_000_000, 2_000_000, 1_000_000), kind="save")
        found = tsc_and_hpet(events=[event], xen={"guest": "pvh", "domain": "domU"})
        self.assertEqual(one(found, "save 1").outcome, SKIP)

    def test_a_stop_under_xen_is_judged(self):
        event = stop(3_000_000, 2_000_000, 1_000_000)
        found = tsc_and_hpet(events=[event], xen={"guest": "pvh", "domain": "domU"})
        self.assertEqual(one(found, "stop 1").outcome, UNSTABLE)

    def test_an_aborted_event_is_unknown(self):
        event = dict(stop(0, 0, 0), answered=False)
        self.assertEqual(one(tsc_and_hpet(events=[event]), "stop 1").outcome, UNKNOWN)

    def test_at_rest_comes_first(self):
        found = watchdog.predict(tsc_and_hpet(events=[stop(0, 0, 0)]))
        self.assertEqual([p.setting for p in found[:2]], [AT_REST, "stop 1"])


class AcrossCpus(unittest.TestCase):
    """The watchdog's timer moves from CPU to CPU; the per-CPU verify lists CPUs apart."""

    def cross(self, offset_ns, warps=0):
        return {"applies": True, "cpus": 2, "clocks": [
            {"clock": "tsc", "warps": warps, "worst_warp_ns": offset_ns if warps else 0,
             "offsets": [{"cpu": 1, "offset_ns": offset_ns, "uncertainty_ns": 1000}]}]}

    def test_an_offset_over_the_limit_marks_tsc(self):
        found = tsc_and_hpet(cpus=2, cross=self.cross(1_000_000, warps=3))
        self.assertEqual(one(found).outcome, UNSTABLE)

    def test_the_verify_names_the_cpu(self):
        found = tsc_and_hpet(cpus=2, cross=self.cross(1_000_000, warps=3))
        self.assertIn("CPU 1 +1.0 ms (3 warps", one(found).sentence)

    def test_a_small_offset_is_kept(self):
        found = tsc_and_hpet(cpus=2, cross=self.cross(50_000))
        self.assertEqual(one(found).outcome, STABLE)


class Pairs(unittest.TestCase):
    """Every watchdog Linux could use, the one it picks first; the others never watched."""

    def setUp(self):
        self.found = watchdog.predict(record([
            clock("tsc", 20, 0.0, 1.0, "hpet"), clock("kvm_clock", 30, 0.0, 1.0, "hpet"),
            clock("hpet", 100), clock("acpi_pm", 1000, 0.0, 1.0, "hpet")]))

    def test_kvm_clock_is_the_watchdog_linux_picks(self):
        picked = [p.watchdog for p in self.found if p.figures.get("watchdog_selected")]
        self.assertEqual(picked, ["kvm-clock"])

    def test_every_watchdog_is_paired(self):
        self.assertEqual([p.watchdog for p in self.found if p.clocksource == "tsc"],
                         ["kvm-clock", "hpet", "acpi_pm"])

    def test_the_watchdogs_are_not_watched(self):
        self.assertEqual({p.clocksource for p in self.found if p.outcome == NOT_WATCHED},
                         {"kvm-clock", "hpet", "acpi_pm"})

    def test_a_record_without_clocks_is_one_unknown(self):
        self.assertEqual([p.outcome for p in watchdog.predict({"console": {}})], [UNKNOWN])


class Choice(unittest.TestCase):
    """choice.predict_choice: the best rating, clocksource=, less what the watchdog marks."""

    def choose(self, found, cmdline=""):
        return choice.predict_choice(found, watchdog.predict(found, cmdline), cmdline)[0]

    def kvm(self, **kw):
        return record([clock("tsc", 20, 0.0, 1.0, "hpet"),
                       clock("kvm_clock", 30, 0.0, 1.0, "hpet"), clock("hpet", 100)], **kw)

    def test_kvm_clock_outrates_tsc(self):
        self.assertEqual(self.choose(self.kvm()), "kvm-clock")

    def test_an_invariant_tsc_outrates_kvm_clock(self):
        self.assertEqual(self.choose(self.kvm(invariant=True)), "tsc")

    def test_tsc_outrates_hpet(self):
        self.assertEqual(self.choose(tsc_and_hpet()), "tsc")

    def test_a_marked_tsc_gives_way_to_hpet(self):
        self.assertEqual(self.choose(tsc_and_hpet(900.0)), "hpet")

    def test_the_sentence_says_why(self):
        found = tsc_and_hpet(900.0)
        sentence = choice.predict_choice(found, watchdog.predict(found))[1]
        self.assertIn("mark tsc unstable at rest", sentence)

    def test_an_unsynchronized_tsc_is_never_chosen(self):
        self.assertEqual(self.choose(tsc_and_hpet(cpu=AMD, cpus=2)), "hpet")

    def test_an_unsynchronized_tsc_is_not_the_watchdogs_doing(self):
        found = tsc_and_hpet(cpu=AMD, cpus=2)
        sentence = choice.predict_choice(found, watchdog.predict(found))[1]
        self.assertNotIn("mark tsc unstable at rest", sentence)

    def test_clocksource_option_chooses(self):
        self.assertEqual(self.choose(self.kvm(), "clocksource=tsc"), "tsc")

    def xen(self, domain):
        return record([clock("tsc", 20, 0.0, 1.0, "hpet"),
                       clock("xen_pvclock", 80, 0.0, 1.0, "hpet"), clock("hpet", 100)],
                      xen={"guest": "pv", "domain": domain})

    def test_xen_dom0_uses_tsc(self):
        self.assertEqual(self.choose(self.xen("dom0")), "tsc")

    def test_xen_domu_uses_xen(self):
        self.assertEqual(self.choose(self.xen("domU")), "xen")

    def test_xen_pv_has_no_hpet_clocksource(self):
        self.assertNotIn("hpet", {p.watchdog for p in watchdog.predict(self.xen("dom0"))})


class Fixtures(unittest.TestCase):
    """Every clockbench/2 fixture record gives predictions, each a known outcome."""

    def test_every_fixture(self):
        paths = sorted(glob.glob(os.path.join(FIXTURES, "matrix", "*", "*", "*.json")))
        self.assertTrue(paths)
        for path in paths:
            with open(path, encoding="utf-8") as source:
                found = json.load(source)
            if not isinstance(found, dict) or found.get("schema") != "clockbench/2":
                continue
            for prediction in watchdog.predict(found):
                self.assertIn(prediction.outcome, OUTCOMES, path)


if __name__ == "__main__":
    unittest.main()
