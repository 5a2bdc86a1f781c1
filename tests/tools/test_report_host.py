# SPDX-License-Identifier: MIT
"""The report built on the host: build/host/test_report (tests/unit/test_report.c) writes
the JSON document of a synthetic run through report/, and this validates it against
docs/report.schema.json and the report= checks a two-CPU TCG run must pass.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .  (`make tool-tests` builds
the program first.)
"""

import json
import os
import subprocess
import tempfile
import unittest

from tests.tools import ROOT
from clockbench_lib.base import paths
from clockbench_lib.model import histogram, report
from clockbench_lib.testing import reportchecks

PROGRAM = os.path.join(ROOT, paths.BUILD_DIR, "host", "test_report")


class HostReport(unittest.TestCase):
    """The C report's JSON, from a run no hardware measured."""

    @classmethod
    def setUpClass(cls):
        if not os.access(PROGRAM, os.X_OK):
            raise AssertionError(f"{PROGRAM} is missing: `make tool-tests` builds it first")
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "report.json")
            result = subprocess.run([PROGRAM], env=dict(os.environ, CLOCKBENCH_REPORT_JSON=path),
                                    capture_output=True, text=True, timeout=60, check=False)
            if result.returncode != 0:
                raise AssertionError(f"{PROGRAM} failed:\n{result.stdout}{result.stderr}")
            with open(path, encoding="utf-8") as document:
                cls.document = json.load(document)

    def test_valid_against_the_schema(self):
        report.validate_document(self.document, "the host report")

    def test_report_checks(self):
        for check in ("valid", "tcg_facts", "smp_facts", "ticks_facts"):
            with self.subTest(check=check):
                self.assertEqual(reportchecks.CHECKS[check](self.document), [])

    def test_the_pit_carries_its_histograms(self):
        # test_report.c keeps the PIT's 20,000 reads in histograms, the others as
        # bare figures (as older reports have them).
        pit = next(c for c in self.document["clocks"] if c["name"] == "pit")
        tsc = next(c for c in self.document["clocks"] if c["name"] == "tsc")
        self.assertIsNone(histogram.of(tsc["read_ns"]))
        for key in ("read_cycles", "read_ns"):
            hist = histogram.of(pit[key])
            self.assertEqual(hist.total, pit["samples"])
            self.assertEqual(sum(count for _, _, count in hist.buckets), 20000)
            for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
                self.assertEqual(hist.quantile(q), pit[key][name], (key, name))
            self.assertEqual(reportchecks.check_histogram_facts(
                {"clocks": [pit]}), [])

    def test_every_check_is_listed(self):
        checks = self.document["checks"]
        results = [check["result"] for check in checks["list"]]
        for count, result in (("passed", "pass"), ("failed", "fail"),
                              ("skipped", "skip"), ("errors", "error")):
            with self.subTest(count=count):
                self.assertEqual(results.count(result), checks[count])

    def test_a_judged_check_carries_its_figures_and_tolerance(self):
        rate = next(check for check in self.document["checks"]["list"]
                    if check["name"] == "tsc: runs at its nominal rate within 10000 ppm")
        tsc = next(c for c in self.document["clocks"] if c["name"] == "tsc")
        self.assertEqual(rate["result"], "pass")
        self.assertEqual(rate["figures"]["rate_ppm"], tsc["rate_ppm"])
        self.assertEqual(rate["tolerance"], {"rate_limit_ppm": 10000})

    def test_what_it_says(self):
        self.assertEqual(self.document["schema"], "clockbench/2")
        self.assertEqual(self.document["verdict"], "pass")
        self.assertEqual(self.document["checks"]["errors"], 0)
        names = [clock["name"] for clock in self.document["clocks"]]
        self.assertEqual(names, ["tsc", "hpet", "acpi_pm", "pit", "kvm_clock"])
        kvm_clock = self.document["clocks"][-1]
        self.assertFalse(kvm_clock["present"])
        self.assertIsNone(kvm_clock["read_ns"])
        unreachable = self.document["ticks"]["sources"][0]["rates"][2]
        self.assertEqual(unreachable["state"], "unreachable")
        self.assertEqual(unreachable["problem"], "its divisor cannot go that low")


if __name__ == "__main__":
    unittest.main()
