# SPDX-License-Identifier: MIT
"""Tests of tools/check-rules, which writes docs/report-format.md's table of every check
from the C sources: the document is current; and, on small synthetic trees, what it reads
(prefixes through calls, a pop before a return, wrappers, names given by a driver's field,
constants shown as their values, figures from a helper) and what it refuses (a tolerance
not given as its constant, a constant defined twice or without its doc comment, a name
that is not made of literals).

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import tempfile
import textwrap
import unittest

from tests.tools import PYTHON, ROOT

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

CHECK_RULES = os.path.join(ROOT, "tools", "check-rules")


def _load():
    loader = importlib.machinery.SourceFileLoader("check_rules", CHECK_RULES)
    spec = importlib.util.spec_from_loader("check_rules", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


check_rules = _load()

RULES_H = """\
    /** How far a rate may stray, in ppm. */
    #define DRIFT_LIMIT_PPM 10000.0
    /** Warps allowed: none. */
    #define WARPS_MAX 0
    """

MEASURE_C = """\
    #include "report/rules.h"
    #define PRESENT_CHECK "present, " "or absent"

    static void values(struct ktap *k, double ppm)
    {
    \treport_figure(k, "rate_ppm", ppm);
    \treport_tolerance(k, "drift_limit_ppm", DRIFT_LIMIT_PPM);
    }

    static void one_clock(const struct clock *c, struct ktap *k)
    {
    \treport(k, c->ok, "runs within %.0f ppm", DRIFT_LIMIT_PPM);
    \tvalues(k, c->ppm);
    \treport(k, c->bad == 0, "%s", c->bad_check);
    \treport_figure(k, "bad_reads", c->bad);
    }

    static void foundation(struct ktap *k, bool ok, const char *name)
    {
    \tif (ok)
    \t\treport(k, true, "%s", name);
    \telse
    \t\treport_error(k, "%s", name);
    }

    void measure_checks(const struct run *run, struct ktap *k)
    {
    \tfoundation(k, run->sse, "SSE survives");
    \treport_prefix_push(k, "%s: ", run->clock->name);
    \tif (!run->clock->present) {
    \t\treport_skip(k, PRESENT_CHECK);
    \t\treport_prefix_pop(k);
    \t\treturn;
    \t}
    \tone_clock(run->clock, k); /* "report(" in a comment is no call */
    \treport_prefix_pop(k);
    \treport(k, run->warps == 0, "never warped (\\"report(k\\")");
    \treport_tolerance(k, "warps_max", WARPS_MAX);
    }
    """

DRIVER_C = """\
    const struct clock hpet = {
    \t.name = "hpet",
    \t.bad_check = "reads never "
    \t\t     "tore",
    };
    """

DOC = f"""\
    # The report

    {check_rules.BEGIN}
    {check_rules.END}

    The end.
    """


class SyntheticTree(unittest.TestCase):
    """tools/check-rules over a tree made for the test."""

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.root = self.scratch.name
        self.write("report/rules.h", RULES_H)
        self.write("report/measure.c", MEASURE_C)
        self.write("drivers/hpet.c", DRIVER_C)
        self.write("docs/report-format.md", DOC)

    def tearDown(self):
        self.scratch.cleanup()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as out:
            out.write(textwrap.dedent(text))

    def checks(self):
        checks, constants = check_rules.collect(check_rules.Tree(self.root))
        return {check.pattern: check for check in checks}, constants

    def refusal(self):
        with self.assertRaises(check_rules.RulesError) as caught:
            self.checks()
        return str(caught.exception)

    def run_tool(self, *args):
        return subprocess.run([PYTHON, CHECK_RULES, "--root", self.root, *args],
                              capture_output=True, text=True, timeout=60, check=False)

    def test_every_check_with_its_prefix(self):
        checks, _ = self.checks()
        self.assertEqual(list(checks), [
            "SSE survives", "%s: present, or absent", "%s: runs within 10000 ppm",
            "%s: reads never tore", 'never warped ("report(k")'])

    def test_results_each_site_can_give(self):
        checks, _ = self.checks()
        self.assertEqual(checks["SSE survives"].results, {"pass", "error"})
        self.assertEqual(checks["%s: present, or absent"].results, {"skip"})
        self.assertEqual(checks["%s: runs within 10000 ppm"].results, {"pass", "fail"})

    def test_figures_and_tolerances_go_to_the_check_before_them(self):
        checks, constants = self.checks()
        rate = checks["%s: runs within 10000 ppm"]
        self.assertEqual(rate.figures, ["rate_ppm"])
        self.assertEqual(rate.tolerances, ["DRIFT_LIMIT_PPM"])
        self.assertEqual(rate.fills, ["run->clock->name"])
        self.assertEqual(checks["%s: reads never tore"].figures, ["bad_reads"])
        self.assertEqual(checks["%s: reads never tore"].named_in, ["drivers/hpet.c"])
        self.assertEqual(checks['never warped ("report(k")'].tolerances, ["WARPS_MAX"])
        self.assertEqual(constants["DRIFT_LIMIT_PPM"]["value"], 10000)
        self.assertEqual(constants["DRIFT_LIMIT_PPM"]["doc"], "How far a rate may stray, in ppm.")

    def test_the_block_is_written_and_then_current(self):
        self.assertEqual(self.run_tool("--check").returncode, 1)
        self.assertEqual(self.run_tool("--write").returncode, 0)
        result = self.run_tool("--check")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.root, "docs/report-format.md"), encoding="utf-8") as doc:
            text = doc.read()
        self.assertIn("| `%s: runs within 10000 ppm` (`run->clock->name`) | pass, fail | "
                      "`rate_ppm` | `drift_limit_ppm` 10000 | report/measure.c |", text)
        self.assertIn("| `warps_max` (`WARPS_MAX`) | 0 | Warps allowed: none. | "
                      "report/rules.h |", text)
        self.assertTrue(text.endswith(f"{check_rules.END}\n\nThe end.\n"))

    def test_a_stale_block_says_so(self):
        self.assertEqual(self.run_tool("--write").returncode, 0)
        self.write("report/rules.h", RULES_H.replace("10000.0", "20000.0"))
        result = self.run_tool("--check")
        self.assertEqual(result.returncode, 1)
        self.assertIn("docs/report-format.md is stale", result.stderr)

    def test_a_tolerance_must_be_its_constant(self):
        self.write("report/measure.c", MEASURE_C.replace(
            '"drift_limit_ppm", DRIFT_LIMIT_PPM', '"drift_limit_ppm", 10000'))
        self.assertIn('tolerance "drift_limit_ppm" must be given as the constant '
                      'DRIFT_LIMIT_PPM', self.refusal())

    def test_a_tolerance_is_defined_once(self):
        self.write("tests/unit/test_measure.c", "#define WARPS_MAX 0\n")
        self.assertIn("WARPS_MAX must be defined exactly once in the C tree, not at "
                      "report/rules.h:4, tests/unit/test_measure.c:1", self.refusal())

    def test_a_tolerance_has_its_doc_comment(self):
        self.write("report/rules.h", RULES_H.replace("/** Warps allowed: none. */\n", ""))
        self.assertIn("report/rules.h:3: WARPS_MAX needs a one-line /** doc comment */",
                      self.refusal())

    def test_a_name_is_made_of_literals(self):
        self.write("report/measure.c", MEASURE_C.replace('"never warped (\\"report(k\\")"',
                                                         "name_of(run)"))
        self.assertIn("cannot read a check name from `name_of(run)`", self.refusal())


class ThisTree(unittest.TestCase):
    """The repository's own sources and document."""

    def test_the_document_is_current(self):
        result = subprocess.run([PYTHON, CHECK_RULES, "--check"], capture_output=True,
                                text=True, timeout=60, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_it_finds_the_judged_checks(self):
        checks, constants = check_rules.collect(check_rules.Tree())
        names = {check.pattern: check for check in checks}
        rate = names["%s: runs at its nominal rate within 10000 ppm"]
        self.assertEqual(rate.tolerances, ["RATE_LIMIT_PPM"])
        delivery = names["ticks: %s: at 1000 Hz, delivers within 10 % of the rate asked"]
        self.assertIn("TICK_DELIVERED_TOLERANCE_PCT", delivery.tolerances)
        self.assertEqual(constants["TICK_DELIVERED_TOLERANCE_PCT"]["where"], "lib/tickmath.h")
        self.assertIn("the checks fit the list", names)


if __name__ == "__main__":
    unittest.main()
