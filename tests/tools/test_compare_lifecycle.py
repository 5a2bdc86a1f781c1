# SPDX-License-Identifier: MIT
"""`clockbench compare --table lifecycle` and the matrix's environments with events (issue
29): on the real matrix tests/tools/fixtures/matrix/life (TCG through a stop, a savevm
the VM ran on after, and a migration), what each clock did at each event, side by side.

Run: /usr/bin/python3 -m unittest tests.tools.test_compare_lifecycle -v
"""

import copy
import csv
import os
import tempfile
import unittest

from tests.tools import FIXTURES, ROOT, run_cli
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.compare import matrix
from clockbench_lib.compare.inputs import load_inputs
from clockbench_lib.compare.lifecycletable import compare_lifecycle, compare_timers

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

LIFE = os.path.join(FIXTURES, "matrix", "life")
AMD = os.path.join(FIXTURES, "matrix", "amd")
TIMERS = os.path.join(FIXTURES, "matrix", "timers")
CLOCKS = ("tsc", "tsc_rdtscp", "tsc_ordered", "hpet", "acpi_pm")


def assert_docs_example(test, marker, table, matrix):
    """The first example after `marker` in docs/compare.md, at least four lines, each a
    line `compare --table TABLE MATRIX` prints."""
    with open(os.path.join(ROOT, "docs", "compare.md"), encoding="utf-8") as source:
        section = source.read().split(marker, 1)[1]
    shown = section.split("```\n", 2)[1].splitlines()
    test.assertGreaterEqual(len(shown), 4)
    printed = run_cli("compare", "--table", table, matrix).stdout.splitlines()
    for line in shown:
        with test.subTest(line=line):
            test.assertIn(line, printed)


def rows_by_key(rows):
    return {(row.seq, row.clock): row for row in rows}


class LifecycleTable(unittest.TestCase):
    def test_every_event_and_clock_of_the_passing_run(self):
        rows = rows_by_key(compare_lifecycle(load_inputs([LIFE])))
        self.assertEqual(set(rows), {(seq, clock) for seq in (1, 2, 3) for clock in CLOCKS})
        self.assertEqual(rows[1, "tsc"].kind, "stop")
        self.assertEqual(rows[2, "hpet"].kind, "savevm")
        self.assertEqual(rows[3, "acpi_pm"].kind, "migrate")
        self.assertTrue(all(row.runs == 1 and row.answered == 1 for row in rows.values()))

    def test_a_stop_under_tcg_freezes_every_clock_together(self):
        rows = rows_by_key(compare_lifecycle(load_inputs([LIFE])))
        for clock in CLOCKS:
            self.assertEqual(rows[1, clock].behaviour, "frozen")
            self.assertLess(rows[1, clock].excess_ms.median, -900)
        self.assertLess(abs(rows[1, "hpet"].step_ms.median), 1)

    def test_after_loadvm_the_tsc_stands_ahead_by_the_time_the_vm_ran_on(self):
        rows = rows_by_key(compare_lifecycle(load_inputs([LIFE])))
        for clock in ("hpet", "acpi_pm"):
            self.assertGreater(rows[2, clock].step_ms.median, 900)
        self.assertLess(abs(rows[2, "tsc_rdtscp"].step_ms.median), 1)
        self.assertIsNone(rows[2, "tsc"].step_ms)  # the TSC against itself says nothing

    def test_include_failed_counts_both_runs_and_their_calls(self):
        rows = rows_by_key(compare_lifecycle(load_inputs([LIFE], include_failed=True)))
        self.assertEqual(rows[1, "tsc"].runs, 2)
        self.assertEqual(rows[3, "hpet"].behaviour, "frozen 1, ran on 1")

    def test_an_unanswered_event_has_no_figures(self):
        inputs = load_inputs([LIFE])
        run = inputs.runs["tcg-life"][0]
        run.document = copy.deepcopy(run.document)
        run.document["lifecycle"]["events"][0]["answered"] = False
        rows = rows_by_key(compare_lifecycle(inputs))
        self.assertEqual(rows[1, "tsc"].answered, 0)
        self.assertEqual(rows[1, "tsc"].behaviour, "-")
        self.assertIsNone(rows[1, "tsc"].excess_ms)


class LifecycleCommand(unittest.TestCase):
    def test_the_table(self):
        result = run_cli("compare", "--table", "lifecycle", LIFE)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertTrue(any(line.startswith("Lifecycle: what each clock did") for line in lines))
        savevm_hpet = next(line for line in lines if "2 savevm" in line and " hpet " in line)
        self.assertEqual(savevm_hpet.split()[:6], ["tcg-life", "2", "savevm", "hpet", "1",
                                                   "frozen"])
        self.assertIn("left out of the figures", result.stderr)

    def test_csv_has_a_row_per_event_and_clock(self):
        result = run_cli("compare", "--table", "lifecycle", "--format", "csv",
                         "--include-failed", LIFE)
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = list(csv.DictReader(result.stdout.splitlines()))
        self.assertEqual(len(rows), 15)
        self.assertEqual({row["runs"] for row in rows}, {"2"})
        stop_tsc = next(row for row in rows if row["event"] == "1" and row["clock"] == "tsc")
        self.assertEqual(stop_tsc["behaviour"], "frozen")
        self.assertLess(float(stop_tsc["excess_ms_median"]), -900)

    def test_the_whole_comparison_shows_it_too(self):
        result = run_cli("compare", LIFE)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("tcg-life  1 stop", result.stdout)

    def test_the_docs_example_is_what_compare_prints(self):
        assert_docs_example(self, "### The VM's life\n", "lifecycle", LIFE)

    def test_reports_without_events_say_so(self):
        result = run_cli("compare", "--table", "lifecycle", AMD)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no report measured an event in the VM's life", result.stderr)


def timers_by_key(rows):
    return {(row.env, row.seq): row for row in rows}


class TimerTable(unittest.TestCase):
    """The timer armed across each event, on the real matrix timers (TCG's local APIC
    through a stop, a savevm and a migration; Xen's one-shot timer in a PV domU through a
    pause and a save)."""

    def test_a_row_per_environment_and_event(self):
        rows = timers_by_key(compare_timers(load_inputs([TIMERS])))
        self.assertEqual(set(rows), {("tcg-life", 1), ("tcg-life", 2), ("tcg-life", 3),
                                     ("xen-pv-life", 1), ("xen-pv-life", 2)})
        self.assertEqual(rows["tcg-life", 2].kind, "savevm")
        self.assertEqual(rows["tcg-life", 1].source, "lapic")
        self.assertEqual(rows["xen-pv-life", 2].source, "xen_oneshot")
        self.assertTrue(all(row.runs == row.armed == 1 for row in rows.values()))

    def test_what_became_of_each(self):
        rows = timers_by_key(compare_timers(load_inputs([TIMERS])))
        self.assertEqual(rows["tcg-life", 1].behaviour, "late")
        self.assertEqual(rows["tcg-life", 2].behaviour, "lost")
        self.assertGreater(rows["tcg-life", 2].lost.median, 90)
        for seq in (1, 2):
            row = rows["xen-pv-life", seq]
            self.assertEqual(row.behaviour, "skipped")
            self.assertGreater(row.skipped.median, 100)
            self.assertGreater(row.late_ms.median, 900)
        self.assertEqual(sum(row.early for row in rows.values()), 0)

    def test_a_timer_not_armed_has_no_figures_and_says_why(self):
        inputs = load_inputs([TIMERS])
        run = inputs.runs["xen-pv-life"][0]
        run.document = copy.deepcopy(run.document)
        run.document["lifecycle"]["events"][0]["timer"] = {
            "source": "xen_oneshot", "armed": False,
            "problem": "Xen refused the one-shot timer (VCPUOP_set_singleshot_timer: -22)"}
        row = timers_by_key(compare_timers(inputs))["xen-pv-life", 1]
        self.assertEqual((row.runs, row.armed, row.behaviour), (1, 0, "-"))
        self.assertIsNone(row.late_ms)
        self.assertEqual(row.problems, ("Xen refused the one-shot timer "
                                        "(VCPUOP_set_singleshot_timer: -22)",))

    def test_reports_from_before_the_timer_have_no_rows(self):
        self.assertEqual(compare_timers(load_inputs([LIFE])), [])

    def test_the_command_and_its_csv(self):
        result = run_cli("compare", "--table", "timers", TIMERS)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(any(line.startswith("Lifecycle timer: what became")
                            for line in result.stdout.splitlines()))
        result = run_cli("compare", "--table", "timers", "--format", "csv", TIMERS)
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = list(csv.DictReader(result.stdout.splitlines()))
        self.assertEqual(len(rows), 5)
        save = next(row for row in rows if row["env"] == "xen-pv-life" and row["event"] == "2")
        self.assertEqual((save["kind"], save["timer"], save["behaviour"]),
                         ("save", "xen_oneshot", "skipped"))
        self.assertGreater(float(save["skipped_median"]), 100)

    def test_the_whole_comparison_and_the_page_show_it(self):
        self.assertIn("xen-pv-life  2 save     xen_oneshot",
                      run_cli("compare", TIMERS).stdout)
        with tempfile.TemporaryDirectory() as scratch:
            page = os.path.join(scratch, "page.html")
            result = run_cli("compare", "--html", page, TIMERS)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(page, encoding="utf-8") as source:
                self.assertIn("Lifecycle timer: what became of the timer", source.read())

    def test_the_docs_example_is_what_compare_prints(self):
        assert_docs_example(self, "The timer table follows it", "timers", TIMERS)

    def test_reports_without_a_timer_say_so(self):
        result = run_cli("compare", "--table", "timers", LIFE)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no report armed a timer across an event", result.stderr)


class MatrixEvents(unittest.TestCase):
    def env_file(self, text):
        handle, path = tempfile.mkstemp(suffix=".env")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        self.addCleanup(os.remove, path)
        return path

    def test_built_in_lifecycle_environments(self):
        env = next(env for env in matrix.ENVIRONMENTS if env.name == "tcg-life")
        spec = env.spec()
        self.assertEqual(env.events, ("stop:1s", "savevm:1s", "migrate"))
        self.assertIn("events=3", spec.cmdline)
        self.assertEqual(spec.console, "uart")
        plain = next(env for env in matrix.ENVIRONMENTS if env.name == "tcg-pc").spec()
        self.assertGreater(spec.timeout_s, plain.timeout_s or 0)

    def test_env_file_events_in_order(self):
        path = self.env_file("env tcg-stop3 event=stop:3s event=migrate args=tick_rates=\n")
        env, = matrix.load_env_file(path)
        self.assertEqual(env.events, ("stop:3s", "migrate"))
        self.assertEqual([event.kind for event in env.event_specs], ["stop", "migrate"])
        self.assertIn("event=stop:3s event=migrate", env.description)
        self.assertTrue(env.spec().cmdline.startswith("tick_rates= events=2 "))

    def test_a_bad_event_names_the_line(self):
        path = self.env_file("\nenv odd event=teleport:3s\n")
        with self.assertRaises(RunnerError) as caught:
            matrix.load_env_file(path)
        self.assertIn(f"{path}:2: ", str(caught.exception))

    def test_an_event_the_boot_cannot_have_names_the_line(self):
        path = self.env_file("env iso-stop boot=iso-bios event=stop:1s\n")
        with self.assertRaises(RunnerError) as caught:
            matrix.load_env_file(path)
        self.assertIn(f"{path}:1: --event: the iso-bios boot cannot have events",
                      str(caught.exception))


if __name__ == "__main__":
    unittest.main()
