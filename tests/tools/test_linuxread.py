# SPDX-License-Identifier: MIT
"""Linux's own decisions read back from clockbench-user's document
(tools/clockbench_lib/verdict/linuxread.py) and set beside the watchdog's predictions
(agree.py): agreeing, disagreeing, and documents without or with a broken member.

Run: /usr/bin/python3 -m unittest tests.tools.test_linuxread
"""

import copy
import unittest

from clockbench_lib.verdict import agree, linuxread
from clockbench_lib.verdict.model import (AT_REST, NOT_WATCHED, STABLE, UNKNOWN,
                                          UNSTABLE, WatchdogPrediction)

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

MARK = ("clocksource: timekeeping watchdog on CPU0: Marking clocksource 'tsc' as unstable "
        "because the skew is too large:")
DOCUMENT = {
    "schema": "clockbench-os/1",
    "kernel_clocksource": {
        "read": True, "reason": None, "release": "6.1.0-57-amd64",
        "cmdline": "console=ttyS0", "cpu_flags": {"tsc": True, "constant_tsc": False},
        "snapshots": [
            {"when": "boot", "uptime_s": 3.2, "current": "tsc",
             "available": ["tsc", "hpet", "acpi_pm"]},
            {"when": "after stop 1", "event": {"seq": 1, "kind": "stop"}, "uptime_s": 9.8,
             "current": "hpet", "available": ["hpet", "acpi_pm"]},
            {"when": "end", "uptime_s": 20.4, "current": "hpet",
             "available": ["hpet", "acpi_pm"]}],
        "log": [{"uptime_s": 0.26, "line": "clocksource: Switched to clocksource tsc"},
                {"uptime_s": 7.5, "line": MARK}],
        "log_complete": True,
        "unstable": [{"clocksource": "tsc", "uptime_s": 7.5, "line": MARK}]}}


def prediction(setting, outcome, clocksource="tsc", selected=True):
    return WatchdogPrediction(clocksource, "hpet" if clocksource == "tsc" else "", setting,
                              outcome, f"{outcome} {setting}",
                              {"watchdog_selected": selected})


class Decisions(unittest.TestCase):
    """linuxread.decisions: one per snapshot; [] for no member or a broken one."""

    def setUp(self):
        self.found = linuxread.decisions(DOCUMENT)

    def test_one_per_snapshot(self):
        self.assertEqual([d.when for d in self.found], ["boot", "after stop 1", "end"])

    def test_current_at_boot(self):
        self.assertEqual(self.found[0].current, "tsc")

    def test_no_mark_before_it_happened(self):
        self.assertEqual(self.found[0].unstable, {})

    def test_the_mark_after_the_event(self):
        self.assertEqual(self.found[1].unstable, {"tsc": MARK})

    def test_the_log_up_to_the_snapshot(self):
        self.assertEqual(len(self.found[0].log), 1)

    def test_release_and_flags(self):
        self.assertEqual((self.found[0].release, self.found[0].flags["constant_tsc"]),
                         ("6.1.0-57-amd64", False))

    def test_a_mark_only_in_the_log(self):
        document = copy.deepcopy(DOCUMENT)
        del document["kernel_clocksource"]["unstable"]
        self.assertEqual(linuxread.decisions(document)[2].unstable, {"tsc": MARK})

    def test_mark_tsc_unstable_line(self):
        document = copy.deepcopy(DOCUMENT)
        document["kernel_clocksource"]["unstable"] = []
        document["kernel_clocksource"]["log"] = [
            {"uptime_s": 0.1, "line": "tsc: Marking TSC unstable due to TSCs unsynchronized"}]
        self.assertIn("tsc", linuxread.decisions(document)[0].unstable)

    def test_an_older_document(self):
        self.assertEqual(linuxread.decisions({"schema": "clockbench-os/1"}), [])

    def test_not_read(self):
        document = {"kernel_clocksource": {"read": False, "reason": "no /sys"}}
        self.assertEqual(linuxread.decisions(document), [])

    def test_a_member_of_the_wrong_type(self):
        self.assertEqual(linuxread.decisions({"kernel_clocksource": "tsc"}), [])

    def test_snapshots_of_the_wrong_type(self):
        document = copy.deepcopy(DOCUMENT)
        document["kernel_clocksource"]["snapshots"] = {"boot": "tsc"}
        self.assertEqual(linuxread.decisions(document), [])

    def test_a_broken_snapshot_is_left_out(self):
        document = copy.deepcopy(DOCUMENT)
        document["kernel_clocksource"]["snapshots"][1] = {"when": "after stop 1"}
        self.assertEqual(len(linuxread.decisions(document)), 2)

    def test_not_a_document(self):
        self.assertEqual(linuxread.decisions(["kernel_clocksource"]), [])

    def test_the_command_line(self):
        self.assertEqual(linuxread.command_line(DOCUMENT), "console=ttyS0")

    def test_no_command_line_in_an_older_document(self):
        self.assertEqual(linuxread.command_line({"schema": "clockbench-os/1"}), "")


class Agreements(unittest.TestCase):
    """agree.agreements: a prediction Linux confirms is ok, one it refutes is not."""

    def setUp(self):
        self.decisions = linuxread.decisions(DOCUMENT)

    def check(self, predictions, chosen="tsc"):
        return {a.check: a.ok for a in agree.agreements(predictions, chosen, self.decisions)}

    def test_the_choice_agrees(self):
        found = self.check([])
        self.assertTrue(found["Linux's own choice at boot agrees with the prediction"])

    def test_the_choice_disagrees(self):
        found = self.check([], chosen="kvm-clock")
        self.assertFalse(found["Linux's own choice at boot agrees with the prediction"])

    def test_tsc_early_counts_as_tsc(self):
        decisions = copy.deepcopy(self.decisions)
        decisions[0].current = "tsc-early"
        found = agree.agreements([], "tsc", decisions)
        self.assertTrue(found[0].ok)

    def test_stable_at_rest_agrees(self):
        found = self.check([prediction(AT_REST, STABLE)])
        self.assertTrue(found["watchdog tsc/hpet at rest agrees with Linux (boot)"])

    def test_unstable_across_the_stop_agrees(self):
        found = self.check([prediction("stop 1", UNSTABLE)])
        self.assertTrue(found["watchdog tsc/hpet stop 1 agrees with Linux (after stop 1)"])

    def test_stable_across_the_stop_disagrees(self):
        found = self.check([prediction("stop 1", STABLE)])
        self.assertFalse(found["watchdog tsc/hpet stop 1 agrees with Linux (after stop 1)"])

    def test_the_end_takes_any_settings_mark(self):
        found = self.check([prediction(AT_REST, STABLE), prediction("stop 1", UNSTABLE)])
        self.assertTrue(found["watchdog tsc/hpet stop 1 agrees with Linux (end)"])

    def test_unknown_confirms_nothing(self):
        self.assertEqual(self.check([prediction(AT_REST, UNKNOWN)]),
                         {"Linux's own choice at boot agrees with the prediction": True})

    def test_a_watchdog_linux_did_not_pick_confirms_nothing(self):
        found = self.check([prediction(AT_REST, UNSTABLE, selected=False)])
        self.assertEqual(len(found), 1)

    def test_a_clocksource_never_watched_is_never_marked(self):
        found = self.check([prediction(AT_REST, NOT_WATCHED, "hpet", selected=False)])
        self.assertTrue(found["watchdog hpet/- at rest agrees with Linux (end)"])


if __name__ == "__main__":
    unittest.main()
