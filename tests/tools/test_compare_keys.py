# SPDX-License-Identifier: MIT
"""Unit tests for what `clockbench compare` merges and keeps apart, its --label, the
missing-baseline hint, the --fail-above gate, and the older schemas it still reads, on
real matrices of two hosts: tests/tools/fixtures/matrix/sample (clockbench/1, an Intel
Xeon host with KVM, a manifest without a host name) and tests/tools/fixtures/matrix/amd
(clockbench/2, an AMD EPYC host named "vm": TCG, and Xen under TCG); see their README.md.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import json
import os
import shutil
import tempfile
import unittest

from tests.tools import FIXTURES, run_cli
from clockbench_lib.model import report
from clockbench_lib.compare.change import baseline_pairs, change_line, changes, ratio_interval
from clockbench_lib.compare.clocks import compare, format_table
from clockbench_lib.compare.inputs import Inputs, Run, load_inputs, parse_labels
from clockbench_lib.model.record import load_measurement, load_record
from clockbench_lib.base.outcome import RunnerError

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

MATRIX_FIXTURES = os.path.join(FIXTURES, "matrix")
SAMPLE = os.path.join(MATRIX_FIXTURES, "sample")   # Intel host, clockbench/1
AMD = os.path.join(MATRIX_FIXTURES, "amd")         # AMD host "vm", clockbench/2
RUN_SUMMARY = os.path.join(MATRIX_FIXTURES, "malformed", "run-summary.json")



class Scratch(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="clockbench-keys-")

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def copy(self, source, *parts):
        """Copy a fixture file or folder to scratch/PARTS; returns the new path."""
        target = os.path.join(self.scratch, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
        return target


class KeptApart(Scratch):
    """Runs that differ in host, accelerator, CPU model or hypervisor are never merged."""

    def test_two_hosts_matrices_are_kept_apart(self):
        inputs = load_inputs([SAMPLE, AMD], include_failed=True)  # amd: 3 FAIL runs
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc@sample": 2, "tcg-q35": 2, "kvm-pc": 2, "xen-hpet": 2,
                          "xen-tsc@sample": 2, "tcg-pc@vm": 2, "xen-tsc@vm": 2})
        self.assertEqual({run.source.startswith(AMD) for run in inputs.runs["tcg-pc@vm"]},
                         {True})
        (tcg, xen) = inputs.apart
        self.assertTrue(tcg.startswith("tcg-pc from an unnamed host (CPU Intel(R) Xeon(R) "
                                       f"Processor; {SAMPLE}) and tcg-pc from vm are kept "
                                       f"apart as tcg-pc@sample, tcg-pc@vm: different hosts"),
                        tcg)
        self.assertIn("counts as a host of its own", tcg)
        self.assertTrue(xen.startswith("xen-tsc from an unnamed host"), xen)
        # The sentence is in the table's notes, and the cells are per row.
        lines = format_table(compare(inputs, "tcg-pc@vm"), inputs, "tcg-pc@vm",
                             wide=True)  # unwrapped
        self.assertIn(tcg, lines)
        cells = dict(compare(inputs, "tcg-pc@vm"))["tsc"]
        self.assertEqual(len([cell for cell in cells if cell.env.startswith("tcg-pc")]), 2)

    def test_a_tcg_and_a_kvm_report_are_never_merged(self):
        # The first is named by its file (a clockbench/1 report names no environment),
        # the second by its record's runner.environment.
        kvm = self.copy(os.path.join(SAMPLE, "kvm-pc", "run-1.json"), "a", "tcg-pc.json")
        tcg = self.copy(os.path.join(AMD, "tcg-pc", "run-1.json"), "b", "report.json")
        inputs = load_inputs([kvm, tcg], include_failed=True)
        self.assertEqual(list(inputs.runs), ["tcg-pc@kvm", "tcg-pc@tcg"])
        (sentence,) = inputs.apart
        self.assertIn("are kept apart as tcg-pc@kvm, tcg-pc@tcg: different hosts; "
                      "different accelerators (kvm, tcg); different CPU models", sentence)
        self.assertIn("different hypervisors (KVM, TCG)", sentence)
        cells = dict(compare(inputs, "tcg-pc@tcg"))["hpet"]
        self.assertEqual([(cell.env, cell.runs) for cell in cells],
                         [("tcg-pc@kvm", 1), ("tcg-pc@tcg", 1)])

    def test_the_same_host_and_setup_is_merged(self):
        """Two folders of one host's other runs (run ids of their own) add repeats."""
        first = self.copy(AMD, "monday")
        second = self.copy(AMD, "tuesday")
        for env in ("tcg-pc", "xen-tsc"):
            for number in (1, 2):
                path = os.path.join(second, env, f"run-{number}.json")
                with open(path, encoding="utf-8") as source:
                    record = json.load(source)
                record["run_id"] = f"tuesday-{env}-{number}"
                with open(path, "w", encoding="utf-8") as out:
                    json.dump(record, out)
        inputs = load_inputs([first, second], include_failed=True)
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc": 4, "xen-tsc": 4})
        self.assertEqual(inputs.apart, [])
        self.assertEqual(inputs.counted_once, [])

    def test_an_old_single_report_is_its_own_row(self):
        old = self.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"), "tcg-pc", "run-1.json")
        inputs = load_inputs([old, AMD], include_failed=True)
        self.assertEqual(sorted(inputs.runs), ["tcg-pc@run-1.json", "tcg-pc@vm", "xen-tsc"])


class Labels(Scratch):
    def test_labels_name_inputs(self):
        before = self.copy(os.path.join(AMD, "tcg-pc", "run-1.json"), "x", "run-1.json")
        after = self.copy(os.path.join(AMD, "tcg-pc", "run-2.json"), "y", "run-2.json")
        inputs = load_inputs([before, after, AMD], parse_labels(
            ["before=" + before, "after=" + after, f"vm={AMD}"], [before, after, AMD]),
            include_failed=True)
        self.assertEqual(list(inputs.runs), ["before", "after", "tcg-pc@vm", "xen-tsc@vm"])
        self.assertEqual(inputs.apart, [])
        # Two labels and --baseline naming one: each environment against itself.
        result = run_cli("compare", "--include-failed", "--label", f"before={before}",
                          "--label", f"after={after}", "--baseline", "before", before, after)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"\ntsc +after +1 ")
        self.assertRegex(result.stdout, r"\ntsc +tcg-pc +10\.0 +10\.0 +1\.00x +- +same")

    def test_bad_labels_are_one_sentence(self):
        cases = {("x",): "--label x: give NAME=PATH",
                 (f"a={AMD}x",): f"{AMD}x is not one of the RESULTS",
                 (f"a@b={AMD}",): "a label has no '@' or '#'",
                 (f"a={AMD}", f"b={AMD}"): f"--label: {AMD} is labelled twice",
                 (f"a={AMD}", f"a={SAMPLE}"): "--label: a names two inputs"}
        for specs, sentence in cases.items():
            with self.subTest(specs):
                with self.assertRaises(RunnerError) as caught:
                    parse_labels(list(specs), [AMD, SAMPLE])
                self.assertIn(sentence, str(caught.exception))
        result = run_cli("compare", "--label", "x", AMD)
        self.assertEqual(result.returncode, 2)
        self.assertNotIn("Traceback", result.stderr)


class Baseline(unittest.TestCase):
    def test_a_missing_default_baseline_names_the_environments(self):
        # tcg-pc@vm's two runs are FAILs, left out: it is no row to choose.
        envs = "tcg-pc@sample, tcg-q35, kvm-pc, xen-hpet, xen-tsc@sample, xen-tsc@vm"
        result = run_cli("compare", SAMPLE, AMD)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"baseline tcg-pc is not in the results, so there are no ratios "
                      f"(--baseline picks another: {envs})", result.stdout.splitlines())
        self.assertNotIn("baseline", result.stderr, "said once, in the table's notes")
        result = run_cli("compare", "--format", "csv", SAMPLE, AMD)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"clockbench compare: the default baseline tcg-pc is not in the results, "
                      f"so there are no ratios; the environments are: {envs} (--baseline "
                      f"ENV picks one).", result.stderr)

    def test_a_missing_chosen_baseline_is_an_error(self):
        result = run_cli("compare", "--baseline", "tcg-pc@elsewhere", SAMPLE, AMD)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--baseline tcg-pc@elsewhere: no report from that environment in the "
                      "results (there are: tcg-pc@sample,", result.stderr)


class Gate(unittest.TestCase):
    """--fail-above: per clock and pair, the ratio of the medians above the limit and its
    bootstrap interval over the runs wholly above 1."""

    def test_within_the_noise(self):
        # amd's xen-tsc against its tcg-pc (FAIL runs taken in): every ratio's interval
        # holds 1 or the ratio is below 1.2.
        result = run_cli("compare", "--include-failed", "--baseline", "tcg-pc",
                          "--fail-above", "1.2", AMD)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("clockbench compare: no clock above --fail-above 1.2 beyond the noise: "
                      "4 compared (each row against tcg-pc).", result.stderr)
        self.assertNotIn("FAIL:", result.stderr)
        self.assertIn("not gated: xen_pvclock in xen-tsc: not timed in tcg-pc, so there is "
                      "nothing to compare it with.", result.stderr)

    def test_failing_names_each_clock(self):
        result = run_cli("compare", "--baseline", "tcg-pc", "--fail-above", "2", SAMPLE)
        self.assertEqual(result.returncode, 1, result.stderr)
        failed = [line for line in result.stderr.splitlines() if "FAIL: " in line]
        self.assertEqual([line.split("FAIL: ")[1].split(":")[0] for line in failed],
                         ["hpet in kvm-pc", "acpi_pm in kvm-pc", "pit in kvm-pc"])
        self.assertIn("FAIL: hpet in kvm-pc: p50 82095 ns in kvm-pc (2 runs) against 217 ns "
                      "in tcg-pc (2 runs): 378.32x, 95% interval 346 … 417, above "
                      "--fail-above 2", result.stderr)
        self.assertIn("3 of 19 clocks compared (each row against tcg-pc) above --fail-above 2 "
                      "and beyond the noise of the repeats.", result.stderr)
        self.assertIn("tsc ", result.stdout)  # the table is printed all the same

    def test_the_rule(self):
        """Above the limit and outside the noise, or nothing: `same` doubles but its runs
        overlap the base's; `worse` doubles with runs that do not; `one` has one run a side
        and is judged on its ratio, as its line says."""
        inputs = Inputs()
        for env, p50s in (("base", (10, 20)), ("same", (20, 40)), ("worse", (41, 50))):
            for number, p50 in enumerate(p50s):
                inputs.add(_tsc_run(env, number, p50))
        found, _ = changes(inputs, baseline_pairs(inputs, "base"))
        judged = {change.pair.env: change for change in found}
        self.assertEqual(judged["same"].ratio, 2.0)
        self.assertFalse(judged["same"].regressed(1.5))
        self.assertTrue(judged["same"].noise_explains)
        self.assertTrue(judged["worse"].regressed(1.5))
        self.assertEqual(judged["worse"].ratio, 45.5 / 15)
        self.assertGreater(judged["worse"].low, 1)
        self.assertFalse(judged["worse"].regressed(3.1))  # the limit still holds
        single = Inputs()
        single.add(_tsc_run("base", 0, 10))
        single.add(_tsc_run("one", 0, 30))
        (change,) = changes(single, baseline_pairs(single, "base"))[0]
        self.assertIsNone(change.low)
        self.assertTrue(change.regressed(2))
        self.assertIn("no interval (one run a side)", change_line(change, 2))

    def test_the_interval_is_the_same_every_time(self):
        before, after = [10, 12, 11, 13, 9], [20, 25, 21, 19, 24]
        self.assertEqual(ratio_interval(before, after), ratio_interval(before, after))
        ratio, low, high = ratio_interval(before, after)
        self.assertEqual(ratio, 21 / 11)
        self.assertLess(low, ratio)
        self.assertGreater(high, ratio)

    def test_the_baseline_is_required(self):
        result = run_cli("compare", "--fail-above", "2", AMD, SAMPLE)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--baseline tcg-pc: no report from that environment", result.stderr)
        for bad in ("0", "-1", "x"):
            result = run_cli("compare", "--fail-above", bad, AMD)
            self.assertEqual(result.returncode, 2)
            self.assertIn("is not a number greater than 0", result.stderr)


# A report's clocks as the gate reads them: one tsc entry with its read_ns.
_TSC_ONLY = {"clocks": [{"name": "tsc", "present": True, "measured": True,
                         "read_ns": {"p50": 0}}]}


def _tsc_run(env, number, p50):
    document = json.loads(json.dumps(_TSC_ONLY))
    document["clocks"][0]["read_ns"]["p50"] = p50
    return Run(env, f"{env}-{number}", document)


class OlderSchemas(Scratch):
    """clockbench/1 reports and clockbench-run/0 summaries are still read."""

    def test_clockbench_1_reports(self):
        record = load_measurement(os.path.join(SAMPLE, "tcg-pc", "run-1.json"))
        self.assertEqual(record.schema, report.REPORT_SCHEMA_1)
        self.assertEqual(record.report.env.hypervisor, "TCG")
        self.assertIsNone(record.runner)
        # A clockbench/1 runner member had fewer facts (no host); it is read as it is.
        with open(os.path.join(SAMPLE, "kvm-pc", "run-1.json"), encoding="utf-8") as source:
            document = dict(json.load(source), runner={"accel": "kvm", "machine": "pc",
                                                       "seconds": 8.5})
        path = os.path.join(self.scratch, "kvm-pc.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(document, out)
        (run,) = load_inputs([path]).runs["kvm-pc"]
        self.assertEqual((run.key.accel, run.key.hypervisor, run.key.host),
                         ("kvm", "KVM", f"input:{path}"))

    def test_parse_reads_both_guests(self):
        old = report.load_report_file(os.path.join(SAMPLE, "tcg-pc", "run-1.log"))
        new = report.load_report_file(os.path.join(AMD, "tcg-pc", "run-1.log"))
        self.assertEqual((old["schema"], new["schema"]), ("clockbench/1", "clockbench/2"))
        self.assertNotIn("runner", new)  # the guest's own report: the host adds it
        for path in (os.path.join(SAMPLE, "tcg-pc", "run-1.log"),
                     os.path.join(AMD, "tcg-pc", "run-1.json")):
            result = run_cli("parse", path) if path.endswith(".log") else \
                run_cli("compare", "--include-failed", "--table", "clocks", path)
            self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_run_summary_is_a_run_without_a_report(self):
        record = load_record(RUN_SUMMARY)
        self.assertEqual(record.schema, report.RUN_SUMMARY_SCHEMA_0)
        self.assertIsNone(record.report)
        self.assertRegex(record.no_report_reason, r"^verdict hang: hang: no verdict after 60 s")
        # In a matrix folder it is noted as a run that gave no report.
        folder = self.copy(AMD, "mx")
        shutil.copy(RUN_SUMMARY, os.path.join(folder, "tcg-pc", "run-2.json"))
        inputs = load_inputs([folder], include_failed=True)
        self.assertEqual(len(inputs.runs["tcg-pc"]), 1)
        ((env, source, reason),) = inputs.failed
        self.assertEqual((env, os.path.basename(source)), ("tcg-pc", "run-2.log"))
        self.assertIn("hang: no verdict after 60 s", reason)

    def test_a_clockbench_2_record_without_a_report(self):
        record = {"schema": report.SCHEMA, "verdict": "hang", "reason": "hang: no verdict",
                  "runner": {}}
        path = os.path.join(self.scratch, "r.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(record, out)
        with self.assertRaisesRegex(RunnerError, r"runner: 'accel' is a required property"):
            load_record(path)
        with open(os.path.join(AMD, "tcg-pc", "run-1.json"), encoding="utf-8") as source:
            record["runner"] = json.load(source)["runner"]
        with open(path, "w", encoding="utf-8") as out:
            json.dump(record, out)
        with self.assertRaisesRegex(RunnerError, "this records a run that gave no report "
                                                 r"\(clockbench/2, verdict hang: hang: no "
                                                 r"verdict\), so it has nothing to compare"):
            load_inputs([path])


if __name__ == "__main__":
    unittest.main()
