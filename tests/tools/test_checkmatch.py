# SPDX-License-Identifier: MIT
"""check= assertions (checkmatch.py): a guest check by name and its result, read from the
report's checks.list or, for a run that ended before its report, from its KTAP lines."""

import unittest

from tests.tools import GOOD_LOG
from clockbench_lib.model import console, report
from clockbench_lib.testing import checkmatch, reportchecks

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

KTAP = ["clockbench 1.0", "KTAP version 1", "1..4",
        "ok 1 hpet: advances",
        "ok 2 hpet: runs at its nominal rate within 10000 ppm # +3 ppm (± 2 ppm) against tsc",
        "not ok 3 no unexpected exception # #PF page fault at RIP 0x1234",
        "ok 4 ticks # SKIP tick_rates is empty",
        "not ok 5 the checks fit the list # ERROR 2 more checks than its 128 places",
        "# 2 passed, 1 failed, 1 skipped, 1 errors"]


def document(checks):
    """A report holding only `checks` as its list."""
    return {"checks": {"list": checks}}


class Parse(unittest.TestCase):
    def test_forms(self):
        one = checkmatch.parse("hpet: advances = pass")
        self.assertEqual((one.name, one.results, one.info), ("hpet: advances", ("pass",), None))
        two = checkmatch.parse(' ticks: * = pass|skip ~ "^tick_rates \\\\(none\\\\)" ')
        self.assertEqual((two.name, two.results, two.info),
                         ("ticks: *", ("pass", "skip"), "^tick_rates \\(none\\)"))
        self.assertEqual(two.text, 'ticks: * = pass|skip ~ "^tick_rates \\\\(none\\\\)"')

    def test_malformed(self):
        for text, fragment in (("hpet: advances", "expected NAME = RESULT"),
                               ("= pass", "expected NAME = RESULT"),
                               ("a = passed", "'passed' is not a check result"),
                               ("a = pass|", "expected NAME = RESULT"),
                               ('a = pass ~ "["', "not a valid regular expression"),
                               ('a = pass ~ "\\q"', "is not a JSON string")):
            with self.subTest(text), self.assertRaises(ValueError) as caught:
                checkmatch.parse(text)
            self.assertIn(fragment, str(caught.exception))


class Check(unittest.TestCase):
    CHECKS = console.parse_check_list(KTAP)

    def problem(self, text, checks=None):
        return checkmatch.check(document(self.CHECKS if checks is None else checks),
                                checkmatch.parse(text))

    def test_ktap_lines_as_a_list(self):
        self.assertEqual(self.CHECKS[1], {"name": "hpet: runs at its nominal rate within "
                                                  "10000 ppm", "result": "pass",
                                          "info": "+3 ppm (± 2 ppm) against tsc"})
        self.assertEqual([c["result"] for c in self.CHECKS],
                         ["pass", "pass", "fail", "skip", "error"])
        self.assertEqual(self.CHECKS[3]["info"], "tick_rates is empty")
        self.assertEqual(console.parse_check_names(KTAP)[2], "no unexpected exception")

    def test_holds(self):
        for text in ("hpet: advances = pass", "hpet: runs at its nominal rate within * = pass",
                     "hpet: * = pass", "ticks = skip ~ \"^tick_rates is empty$\"",
                     "no unexpected exception = fail ~ \"^#PF page fault at RIP 0x\"",
                     "the checks fit the list = error", "* = pass|fail|skip|error"):
            with self.subTest(text):
                self.assertIsNone(self.problem(text))

    def test_fails_naming_what_it_found(self):
        self.assertEqual(self.problem("no unexpected exception = pass"),
                         "check=no unexpected exception = pass: 'no unexpected exception' is "
                         "fail, expected pass # #PF page fault at RIP 0x1234")
        self.assertEqual(self.problem("* = pass|skip"),
                         "check=* = pass|skip: 'no unexpected exception' is fail, expected "
                         "pass|skip # #PF page fault at RIP 0x1234")
        self.assertEqual(self.problem("hpet: advancing = pass"),
                         "check=hpet: advancing = pass: the guest made no check named so "
                         "(the nearest is 'hpet: advances')")
        self.assertIn("which /#GP/ does not find",
                      self.problem("no unexpected exception = fail ~ \"#GP\""))
        self.assertIn("the report lists no checks", checkmatch.check(
            {"checks": {"passed": 1}}, checkmatch.parse("a = pass")))

    def test_a_star_is_no_pattern_of_the_rest(self):
        """Only `*` is special: brackets and dots in a name are matched as they are."""
        checks = [{"name": "CPU 1 (APIC ID 1) comes online", "result": "pass", "info": ""}]
        self.assertIsNone(self.problem("CPU 1 (APIC ID 1) comes online = pass", checks))
        self.assertIsNotNone(self.problem("CPU 1 (APIC ID 1) comes = pass", checks))
        self.assertIsNotNone(self.problem("CPU . (APIC ID 1) comes online = pass", checks))


class FromTheConsole(unittest.TestCase):
    """run_check_assertions(): the report's list when the run printed one, else KTAP."""

    def test_a_run_cut_short_by_a_fault_is_read_from_its_ktap(self):
        problems = reportchecks.run_check_assertions(
            [checkmatch.parse("no unexpected exception = fail ~ \"#PF\""),
             checkmatch.parse("hpet: advances = fail")], KTAP, "f.log")
        self.assertEqual(problems, ["check=hpet: advances = fail: 'hpet: advances' is pass, "
                                    "expected fail"])

    def test_nothing_to_read(self):
        problems = reportchecks.run_check_assertions([checkmatch.parse("a = pass")],
                                                     ["clockbench 1.0", "hang"], "h.log")
        self.assertEqual(problems, ["check=a = pass: h.log: the guest printed neither a report "
                                    "nor a KTAP check"])

    def test_beside_report_checks_the_one_loaded_report_is_read(self):
        """With report= or json= asked too, check= reads the report they load."""
        lines = report.read_log_lines(GOOD_LOG)  # a guest from before checks.list
        self.assertEqual(reportchecks.run_report_checks(["valid"], lines, "g.log",
                                                        checks=[checkmatch.parse("a = pass")]),
                         ["check=a = pass: the report lists no checks (checks.list is "
                          "missing: a guest from before the one judge?)"])
        broken = lines[:-3]
        (problem,) = reportchecks.run_report_checks(["valid"], broken, "b.log",
                                                    checks=[checkmatch.parse("a = pass")])
        self.assertTrue(problem.startswith("report=valid, check=a = pass: b.log"), problem)

    def test_a_broken_report_is_not_passed_over(self):
        lines = KTAP + ["clockbench-json begin", "json| {", "clockbench-json end"]
        (problem,) = reportchecks.run_check_assertions([checkmatch.parse("a = pass")], lines,
                                                       "b.log")
        self.assertTrue(problem.startswith("check=a = pass: b.log"), problem)


if __name__ == "__main__":
    unittest.main()
