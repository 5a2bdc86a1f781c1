# SPDX-License-Identifier: MIT
"""Whether `clockbench compare` can be trusted (issue 32), on the fixture matrices and the
altered copies tests/tools/altered.py makes of them: verdicts in every view and FAIL runs
left out, hosts of one name told apart, an input given twice counted once, before/after
per environment with its interval, and the answer first in 160 columns.

Run: /usr/bin/python3 -m unittest tests.tools.test_compare_trust -v
"""

import csv
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from tests.tools import altered, run_cli
from clockbench_lib.compare import plot
from clockbench_lib.compare.change import label_pairs
from clockbench_lib.compare.inputs import Comparable, HostIdentity, Inputs, Run, load_inputs

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False
# Whole commands: its run time is far beyond what its size says (tests/tools/run).
RUNS_LONG = True

AMD, SAMPLE = altered.AMD, altered.SAMPLE
WIDTH = 160


def run_tool(*args):
    return run_cli("compare", *args)


def run_html(*args):
    """`compare --html ...` without drawing its plots: these tests read the page's text;
    test_compare_html and test_plot test the figures (drawing them took most of this
    module's time)."""
    with mock.patch.object(plot, "write_plots", return_value=([], [])):
        return run_tool("--html", *args)


class Scratch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="clockbench-trust-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch)

    @classmethod
    def path(cls, name):
        return os.path.join(cls.scratch, name)


class Verdicts(Scratch):
    """amd/: the guest said FAIL in three of its four runs (a tick rate not delivered)."""

    def test_fail_runs_are_left_out_and_said_why(self):
        inputs = load_inputs([AMD])
        self.assertEqual(list(inputs.runs), ["xen-tsc"])
        self.assertEqual(len(inputs.runs["xen-tsc"]), 1)
        self.assertEqual(inputs.verdicts, {"tcg-pc": {"fail": 2}, "xen-tsc": {"pass": 1,
                                                                             "fail": 1}})
        self.assertEqual([run.left_out for run in inputs.left_out], [
            "ticks: pit: at 1000 Hz, delivers within 10 % of the rate asked # 369.4 "
            "interrupts a second",
            "ticks: lapic: at 1000 Hz, delivers within 10 % of the rate asked # 326.0 "
            "interrupts a second",
            "ticks: xen_oneshot: at 1000 Hz, delivers within 10 % of the rate asked # 292.1 "
            "interrupts a second"])

    def test_include_failed_takes_them_in(self):
        inputs = load_inputs([AMD], include_failed=True)
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc": 2, "xen-tsc": 2})
        self.assertEqual(inputs.left_out, [])

    def test_every_view_shows_the_verdicts(self):
        text = run_tool(AMD)
        self.assertEqual(text.returncode, 0, text.stderr)
        lines = text.stdout.splitlines()
        self.assertIn("runs: 3 FAIL, 1 PASS; FAIL/ERROR left out of the figures, reasons "
                      "below: tcg-pc 2, xen-tsc 1", lines[:5])
        self.assertIn("verdicts: tcg-pc 2 FAIL; xen-tsc 1 FAIL, 1 PASS", lines)
        self.assertIn(f"tcg-pc: FAIL run {AMD}/tcg-pc/run-1.json, left out of the figures "
                      f"(--include-failed takes it in): ticks: pit: at 1000 Hz, delivers "
                      f"within 10 % of the rate asked # 369.4 interrupts a second",
                      run_tool("--wide", AMD).stdout.splitlines())
        rows = list(csv.DictReader(run_tool("--format", "csv", "--include-failed",
                                            AMD).stdout.splitlines()))
        self.assertEqual({row["env"]: row["verdicts"] for row in rows},
                         {"tcg-pc": "2 FAIL", "xen-tsc": "1 FAIL, 1 PASS"})
        ticks = list(csv.DictReader(run_tool("--format", "csv", "--table", "ticks",
                                             AMD).stdout.splitlines()))
        self.assertEqual({row["env"]: row["verdicts"] for row in ticks},
                         {"xen-tsc": "1 FAIL, 1 PASS"})
        page = self.path("amd.html")
        result = run_html(page, AMD)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(page, encoding="utf-8") as source:
            html = source.read()
        self.assertIn("<th>verdicts</th>", html)
        self.assertIn('<span class="bad">2 FAIL</span><br>every run left out of the figures',
                      html)
        self.assertIn('<span class="bad">1 FAIL, 1 PASS</span>', html)
        self.assertIn("ticks: xen_oneshot: at 1000 Hz, delivers within 10 %", html)


class Hosts(Scratch):
    """The same host name with another CPU is another host; an input given twice, as one
    path or as a copy, counts once.  Each is said in one sentence."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        altered.other_cpu_copy(AMD, cls.path("intel"))
        altered.byte_copy(AMD, cls.path("copy"))

    def test_same_name_other_cpu_is_not_merged(self):
        inputs = load_inputs([AMD, self.path("intel")], include_failed=True)
        rows = {env: len(runs) for env, runs in inputs.runs.items()}
        self.assertEqual(len(rows), 4, rows)
        self.assertEqual(set(rows.values()), {2})
        self.assertTrue(all(row.startswith(("tcg-pc@vm.", "xen-tsc@vm.")) for row in rows),
                        rows)
        (tcg, xen) = inputs.apart
        self.assertRegex(tcg, r"^tcg-pc from vm and tcg-pc from vm are kept apart as "
                              r"tcg-pc@vm\.[0-9a-f]{4}, tcg-pc@vm\.[0-9a-f]{4}: different "
                              r"hosts of one name \(CPU models AMD EPYC, Intel\(R\) Xeon\(R\) "
                              r"Platinum 8375C CPU @ 2\.90GHz\)\.$")
        self.assertEqual(len(tcg.split(". ")), 1, "one sentence")
        summary = run_tool("--include-failed", AMD, self.path("intel")).stdout.splitlines()
        self.assertRegex(summary[3], r"^hosts: vm \(AMD EPYC\), vm \(Intel.*\); hosts of one "
                                     r"name told apart by CPU, kernel, versions, machine id")

    def test_the_same_input_twice_counts_once(self):
        inputs = load_inputs([AMD, AMD], include_failed=True)
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc": 2, "xen-tsc": 2})
        self.assertEqual(inputs.counted_once,
                         [f"{AMD} is given twice: its runs are counted once."])
        self.assertEqual(inputs.apart, [])

    def test_a_copy_counts_once(self):
        inputs = load_inputs([AMD, self.path("copy")], include_failed=True)
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc": 2, "xen-tsc": 2})
        self.assertEqual(inputs.counted_once, [
            f"{self.path('copy')} repeats 4 runs of {AMD} (the same run ids, or the same "
            f"reports): each counted once."])
        result = run_tool("--include-failed", AMD, self.path("copy"))
        self.assertIn("1 input(s) repeated, counted once", result.stdout.splitlines()[3])

    def test_a_single_record_is_named_by_its_environment(self):
        one = self.path("one.json")
        other = self.path("two.json")
        shutil.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"), one)
        shutil.copy(os.path.join(AMD, "xen-tsc", "run-1.json"), other)
        inputs = load_inputs([other])
        self.assertEqual(list(inputs.runs), ["xen-tsc"])  # its runner.environment
        result = run_tool("--fail-above", "100", one, os.path.join(AMD, "xen-tsc",
                                                                   "run-1.json"))
        self.assertEqual(result.returncode, 2, result.stderr)  # one.json: clockbench/1
        self.assertIn("--baseline tcg-pc: no report from that environment", result.stderr)
        # Two records of their own names: the default baseline tcg-pc is found.
        first, second = self.path("a.json"), self.path("b.json")
        shutil.copy(os.path.join(AMD, "tcg-pc", "run-1.json"), first)
        shutil.copy(os.path.join(AMD, "xen-tsc", "run-1.json"), second)
        result = run_tool("--include-failed", "--fail-above", "100", first, second)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("compared (each row against tcg-pc).", result.stderr)
        self.assertRegex(result.stdout, r"\nhpet +xen-tsc +1 +150 +15\.00x +[\d.]+x ")


class BeforeAfter(Scratch):
    """Two matrices of the same tree, five repeats each, that differ by noise only (every
    read cost drawn from ±10 %); and the same with hpet made 2x slower."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        altered.repeats_copy(SAMPLE, cls.path("before"), seed=1)
        altered.repeats_copy(SAMPLE, cls.path("after"), seed=2)
        altered.repeats_copy(SAMPLE, cls.path("slower"), seed=3, slower="hpet")

    def test_noise_gates_nothing(self):
        result = run_tool("--before", self.path("before"), "--after", self.path("after"),
                          "--fail-above", "1.2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("FAIL:", result.stderr)
        self.assertIn("clockbench compare: no clock above --fail-above 1.2 beyond the noise: "
                      "28 compared (after against before).", result.stderr)
        self.assertIn("before/after: 0 slower beyond the noise and above --fail-above 1.2",
                      result.stdout.splitlines()[3])

    def test_one_clock_twice_as_slow_gates_that_clock_everywhere(self):
        result = run_tool("--before", self.path("before"), "--after", self.path("slower"),
                          "--fail-above", "1.2")
        self.assertEqual(result.returncode, 1, result.stderr)
        failed = [line.split("FAIL: ", 1)[1].split(":", 1)[0]
                  for line in result.stderr.splitlines() if "FAIL: " in line]
        self.assertEqual(failed, [f"hpet in {env}" for env in
                                  ("tcg-pc", "tcg-q35", "kvm-pc", "xen-hpet", "xen-tsc")])
        self.assertIn("5 of 28 clocks compared (after against before) above --fail-above 1.2 "
                      "and beyond the noise of the repeats.", result.stderr)
        self.assertIn("before/after: 5 slower beyond the noise and above --fail-above 1.2, 0 "
                      "faster, of 28: hpet", result.stdout.splitlines()[3])

    def test_xen_pvclock_is_gated(self):
        result = run_tool("--before", self.path("before"), "--after", self.path("after"),
                          "--table", "changes", "--format", "csv")
        rows = list(csv.DictReader(result.stdout.splitlines()))
        self.assertEqual({row["env"] for row in rows if row["clock"] == "xen_pvclock"},
                         {"xen-hpet", "xen-tsc"})
        for row in rows:
            self.assertLessEqual(float(row["interval_low"]), float(row["ratio"]))
            self.assertGreaterEqual(float(row["interval_high"]), float(row["ratio"]))
            self.assertEqual((row["before_runs"], row["after_runs"]), ("5", "5"))

    def test_two_labels_are_before_and_after(self):
        before, after = self.path("before"), self.path("slower")
        result = run_tool("--label", f"old={before}", "--label", f"new={after}",
                          "--fail-above", "1.5", before, after)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("FAIL: hpet in xen-tsc: p50 ", result.stderr)
        self.assertIn("ns in xen-tsc@new (5 runs) against ", result.stderr)
        self.assertIn("(new against old)", result.stderr)

    def test_the_interval_is_reproducible(self):
        args = ("--before", self.path("before"), "--after", self.path("after"),
                "--table", "changes")
        self.assertEqual(run_tool(*args).stdout, run_tool(*args).stdout)


class AnswerFirst(Scratch):
    """A 12-environment matrix: within 160 columns by default, the first five lines say
    what is expensive where and whether to trust it."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        altered.many_envs_copy(SAMPLE, cls.path("twelve"), count=12)

    def test_twelve_environments_fit(self):
        result = run_tool(self.path("twelve"))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertLessEqual(max(len(line) for line in lines), WIDTH)
        self.assertRegex(result.stdout, r"\ntsc +tcg-q35-3 +2 ")
        wide = run_tool("--wide", self.path("twelve")).stdout.splitlines()
        self.assertGreater(max(len(line) for line in wide), WIDTH)
        self.assertIn("batch ns/read", "\n".join(wide))
        self.assertNotIn("batch ns/read", result.stdout)

    def test_the_first_five_lines(self):
        lines = run_tool(self.path("twelve")).stdout.splitlines()
        self.assertRegex(lines[0], r"^costliest reads \(p50\): pit in kvm-pc(-\d)? \d+ ns = "
                                   r"\d+x tsc; .*; trapped: \d+ clock\(s\) in 12 environment")
        self.assertRegex(lines[1], r"^warps: xen_pvclock \(worst 64654 ns\) in xen-hpet 2/2, ")
        self.assertEqual(lines[2], "runs: 24 PASS; every run with a report passed its checks")
        self.assertRegex(lines[3], r"^hosts: twelve: unnamed \(Intel\(R\) Xeon\(R\) "
                                   r"Processor\); busy host: 0 of 24 runs with tick noise")
        self.assertEqual(lines[4], "")
        self.assertTrue(lines[5].startswith("verdict: tcg-pc (on an unnamed host "))
        self.assertTrue(any(line.startswith("clocks: what one read costs") for line in lines))

    def test_columns_all_dashes_are_left_out(self):
        # One host's matrix with no tcg-pc baseline: the ratio column would be all '-'.
        lines = run_tool(os.path.join(AMD)).stdout.splitlines()
        heading = next(line for line in lines if line.startswith("clock "))
        self.assertNotIn("/ tcg-pc", heading)
        self.assertIn("p50 ns", heading)

    def test_html_summary_first(self):
        page = self.path("twelve.html")
        result = run_html(page, self.path("twelve"))
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(page, encoding="utf-8") as source:
            html = source.read()
        summary = html.split('<ul class="summary">', 1)[1].split("</ul>", 1)[0]
        self.assertEqual(summary.count("<li>"), 4)
        self.assertLess(html.index('<ul class="summary">'), html.index("<h2>Inputs</h2>"))


if __name__ == "__main__":
    unittest.main()


class PooledPercentiles(Scratch):
    """--percentiles: every read of every run, from the runs' histograms added."""

    @classmethod
    def values(cls, env, run, clock):
        """Made-up read costs: run 1 fast, run 2 with a slow tail."""
        base = 40 if clock == "tsc" else 200
        if run == 1:
            return [base + (i % 7) for i in range(5000)]
        return [base + (i % 11) for i in range(4990)] + [base * 50 + i for i in range(10)]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        altered.histograms_copy(SAMPLE, cls.path("hist"), cls.values)

    def test_pooled_is_the_histogram_of_every_read(self):
        from clockbench_lib.compare.pooled import pooled_rows
        from clockbench_lib.model.histogram import Histogram
        from tests.tools.test_histogram import encode
        inputs = load_inputs([self.path("hist")])
        rows = {(clock, env): (runs, reads, values) for clock, env, runs, _, reads, values, _
                in pooled_rows(inputs, (50, 99.9, 99.99))}
        every = Histogram.from_json(encode(self.values("tcg-pc", 1, "hpet")
                                           + self.values("tcg-pc", 2, "hpet")))
        runs, reads, values = rows[("hpet", "tcg-pc")]
        self.assertEqual((runs, reads), (2, 10000))
        for p in (50, 99.9, 99.99):
            self.assertEqual(values[p], every.quantile(p / 100), p)
        self.assertGreater(values[99.99], 200 * 40)  # the tail of run 2 alone (low end)
        self.assertLess(values[50], 220)

    def test_the_option(self):
        result = run_tool("--percentiles", "50,99,99.9,99.99", "--table", "percentiles",
                          self.path("hist"))
        self.assertEqual(result.returncode, 0, result.stderr)
        heading = next(line for line in result.stdout.splitlines()
                       if line.startswith("clock "))
        self.assertRegex(heading, r"runs +reads +p50 ns +p99 ns +p99\.9 ns +p99\.99 ns")
        self.assertRegex(result.stdout, r"\nhpet +tcg-pc +2 +10000 +20\d ")
        bad = run_tool("--percentiles", "50,101", self.path("hist"))
        self.assertEqual(bad.returncode, 2)
        self.assertIn("'101' is not a percentile", bad.stderr)
        old = run_tool("--table", "percentiles", SAMPLE)
        self.assertIn("no histogram in its reports", old.stdout)


class PairedByMachine(Scratch):
    """Before and after on one machine whose QEMU was upgraded: the rows pair (the
    upgrade is the change compared), though they are other hosts' rows by identity."""

    def test_a_qemu_upgrade_pairs(self):
        after = altered.byte_copy(AMD, self.path("upgraded"))
        for env in ("tcg-pc", "xen-tsc"):
            for number in (1, 2):
                path = os.path.join(after, env, f"run-{number}.json")
                with open(path, encoding="utf-8") as source:
                    record = json.load(source)
                record["runner"]["qemu_version"] = "QEMU emulator version 9.2.0"
                with open(path, "w", encoding="utf-8") as out:
                    json.dump(record, out)
        result = run_tool("--include-failed", "--before", AMD, "--after", after,
                          "--table", "changes", "--format", "csv")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = list(csv.DictReader(result.stdout.splitlines()))
        self.assertEqual({row["env"] for row in rows}, {"tcg-pc", "xen-tsc"})
        self.assertEqual({row["ratio"] for row in rows}, {"1.0"})
        self.assertNotIn("not compared", result.stderr)

    def test_two_machines_of_one_name_pair_each_with_itself(self):
        """Two machines named vm on both sides, QEMU upgraded on both: each pairs with
        itself (by CPU and machine id), not with the other."""
        inputs = Inputs()
        for label, qemu in (("before", "QEMU 7.2"), ("after", "QEMU 9.2")):
            for cpu, machine in (("AMD EPYC", "00aa"), ("Intel Xeon", "00bb")):
                key = Comparable(label, "tcg-pc", "vm", "tcg", "max", "TCG",
                                 identity=HostIdentity(cpu, "Linux 6", qemu, None, machine))
                row = f"tcg-pc@{label}.{machine}"
                inputs.runs[row] = [Run(row, "x.json", {}, key)]
        pairs, alone = label_pairs(inputs, "before", "after")
        self.assertEqual(alone, [])
        self.assertEqual([(pair.before, pair.after) for pair in pairs],
                         [("tcg-pc@before.00aa", "tcg-pc@after.00aa"),
                          ("tcg-pc@before.00bb", "tcg-pc@after.00bb")])
