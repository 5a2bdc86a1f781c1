# SPDX-License-Identifier: MIT
"""Boot tests that ask the JSON report (json=) and boot more than once (repeat=): the
expectation syntax, what it finds, and the check that KTAP names stay the same.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import unittest
from unittest import mock

import json
import os

from tests.tools import ROOT, parse_cfg
from clockbench_lib.model import console, report
from clockbench_lib.boot import qemu
from clockbench_lib.testing import boottest, jsonmatch
from clockbench_lib.boot.once import BootOutcome
from clockbench_lib.base.outcome import RunnerError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

DOCUMENT = {
    "env": {"hypervisor": "TCG", "tsc_hz": 2.1e9},
    "clocks": [{"name": "tsc", "present": True, "freq_hz": 2100000000},
               {"name": "kvm_clock", "present": False,
                "absent_reason": "no KVM signature in the hypervisor leaves"}],
    "cross_cpu": {"clocks": [{"clock": "tsc", "warps": 0}]},
    "ticks": {"sources": [{"name": "pit", "rates": [
        {"requested_hz": 100, "state": "measured"},
        {"requested_hz": 1000, "state": "unreachable"}]}]},
}


def problem(text):
    return jsonmatch.check(DOCUMENT, jsonmatch.parse(text))


class Expectations(unittest.TestCase):
    """json=PATH OP VALUE, parsed and checked."""

    def test_holds(self):
        for text in ('clocks[tsc].freq_hz == 2100000000', 'clocks[tsc].freq_hz == 2.1e9',
                     'clocks[0].present == true', 'clocks[kvm_clock].present != true',
                     'clocks[kvm_clock].absent_reason ~ "^no KVM signature"',
                     'ticks.sources[pit].rates[1000].state == "unreachable"',
                     'ticks.sources[pit].rates[0].requested_hz <= 100',
                     'cross_cpu.clocks[tsc].warps == 0', 'env.tsc_hz > 1e9'):
            with self.subTest(text=text):
                self.assertIsNone(problem(text))

    def test_fails_with_what_was_found(self):
        self.assertEqual(problem('clocks[tsc].present == false'),
                         "json=clocks[tsc].present == false: the report has true")
        self.assertEqual(problem('clocks[tsc].freq_hz < 1000'),
                         "json=clocks[tsc].freq_hz < 1000: the report has 2100000000")
        self.assertEqual(problem('clocks[kvm_clock].present == 0'),
                         "json=clocks[kvm_clock].present == 0: the report has false")
        self.assertEqual(problem('clocks[hpet].present == true'),
                         "json=clocks[hpet].present == true: clocks has no entry [hpet]")
        self.assertEqual(problem('env.cpus == 2'),
                         "json=env.cpus == 2: env has no member 'cpus'")
        self.assertEqual(problem('clocks[kvm_clock].absent_reason ~ "Xen"'),
                         'json=clocks[kvm_clock].absent_reason ~ "Xen": the report has '
                         '"no KVM signature in the hypervisor leaves"')

    def test_malformed(self):
        for text, sentence in (
                ('clocks[tsc].present', "is not PATH OP VALUE"),
                ('clocks[tsc].present == yes', "is not a JSON value"),
                ('env.boot < "pvh"', "< compares numbers"),
                ('env.boot ~ 3', "~ takes a regular expression"),
                ('env.boot ~ "("', "is not a valid regular expression"),
                ('[0].name == "tsc"', "must start with a member name")):
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as caught:
                    jsonmatch.parse(text)
                self.assertIn(sentence, str(caught.exception))

    def test_paths_into_another_schema_file(self):
        """clockbench-user's schema takes checks.list and runner from the image's
        (report.schema.json#/...): paths through them are checked there."""
        (test,) = parse_cfg("boot t boot=linux json='checks.list[0].result == \"pass\"' "
                            "json='runner.accel == \"tcg\"'\n")
        self.assertEqual(len(test.json), 2)
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot t boot=linux json='runner.accels == 1'\n")
        self.assertIn("runner has no member 'accels' in docs/os-report.schema.json",
                      str(caught.exception))

    def test_tests_cfg_says_which_line(self):
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot a json='clocks[tsc].present = true'\n")
        self.assertIn("tests/tests.cfg:2: json=clocks[tsc].present = true: ", str(caught.exception))
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot a json='env.cpuss == 2'\n")
        self.assertEqual(str(caught.exception),
                         "tests/tests.cfg:2: json=env.cpuss == 2: env has no member 'cpuss' in "
                         "docs/report.schema.json.")
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot a repeat=9\n")
        self.assertIn("repeat=9 is more than 5 boots", str(caught.exception))


class Schema(unittest.TestCase):
    """Paths are checked against the report's schema when tests.cfg is read."""

    def setUp(self):
        with open(os.path.join(ROOT, report.SCHEMA_FILE), encoding="utf-8") as schema:
            self.schema = json.load(schema)

    def problem(self, text):
        return jsonmatch.schema_problem(self.schema, jsonmatch.parse(text))

    def test_known_paths(self):
        for text in ('clocks[tsc].freq_source ~ "x"', 'clocks[0].read_ns.p50 > 0',
                     'ticks.sources[pit].rates[10].problem ~ "x"', 'env.cpus_online == 2',
                     'cross_cpu.clocks[tsc].offsets[1].offset_ns < 5', 'verdict == "pass"',
                     'clocks[pit].port_path.path == "native"', 'timing.phases_ms.print > 0'):
            with self.subTest(text=text):
                self.assertIsNone(self.problem(text))

    def test_unknown_paths(self):
        self.assertEqual(self.problem('clocks[tsc].freq == 1'),
                         "clocks[tsc] has no member 'freq' in docs/report.schema.json")
        self.assertEqual(self.problem('clocks[pit].port_path.route == 1'),
                         "clocks[pit].port_path has no member 'route' in "
                         "docs/report.schema.json")
        self.assertEqual(self.problem('tick.applies == true'),
                         "the report has no member 'tick' in docs/report.schema.json")


def outcome(names, verdict="pass"):
    """A boot whose KTAP checks are `names`, each with a figure that changes."""
    lines = ["KTAP version 1", f"1..{len(names)}"]
    lines += [f"ok {n} {name} # {n * 7} ns" for n, name in enumerate(names, 1)]
    lines += [f"# {len(names)} passed, 0 failed, 0 skipped, 0 errors", "clockbench: PASS"]
    return BootOutcome(spec=qemu.BootSpec(), verdict=verdict, reason=None, qemu_status=3,
                       seconds=1.0, lines=lines, report=None, command=[])


class Repeat(unittest.TestCase):
    """repeat=N: N boots, with the same check names in each."""

    def test_check_names(self):
        lines = outcome(["tsc: advances", "ticks"]).lines
        lines.insert(3, "    ok 1 a subtest # 3")
        self.assertEqual(console.parse_check_names(lines), ["tsc: advances", "ticks"])
        self.assertEqual(console.parse_check_names(["ok 1 before KTAP"]), [])

    def run_test(self, *boots):
        test = parse_cfg(f"boot twice repeat={len(boots)}\n")[0]
        with mock.patch.object(boottest, "boot_once", side_effect=list(boots)) as boot_once:
            result = boottest.run_boot_test(test)
        return result, boot_once

    def test_same_names_pass(self):
        result, boot_once = self.run_test(outcome(["a", "b"]), outcome(["a", "b"]))
        self.assertEqual(result.state, "ok")
        self.assertEqual(result.seconds, 2.0)
        self.assertEqual(boot_once.call_count, 2)
        self.assertTrue(boot_once.call_args_list[1].args[4].endswith("twice-2.log"))

    def test_names_that_differ_fail(self):
        result, _ = self.run_test(outcome(["a", "b: 3 ppm"]), outcome(["a", "b: 4 ppm"]))
        self.assertEqual((result.state, result.reason),
                         ("not ok", "boot 2 of 2: check 2 is named 'b: 4 ppm' in boot 2 but "
                                    "'b: 3 ppm' in boot 1: a name must not carry a figure"))
        result, _ = self.run_test(outcome(["a"]), outcome(["a", "b"]))
        self.assertEqual(result.reason, "boot 2 of 2: boot 2 made 2 checks, boot 1 1")

    def test_a_failing_boot_stops_the_test(self):
        result, boot_once = self.run_test(outcome(["a"], verdict="fail"), outcome(["a"]))
        self.assertEqual(result.state, "not ok")
        self.assertTrue(result.reason.startswith("boot 1 of 2: expected PASS"))
        self.assertEqual(boot_once.call_count, 1)


if __name__ == "__main__":
    unittest.main()
