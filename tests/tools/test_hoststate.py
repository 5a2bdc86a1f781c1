# SPDX-License-Identifier: MIT
"""The host's state over a run (tools/clockbench_lib/base/hoststate.py): /proc/stat's
arithmetic on the fixtures of tests/tools/fixtures/hoststate/ (a /proc at a run's start
and end: 1000 ticks of CPU time between them, 600 busy, 40 stolen, another QEMU taking
120), the sentence, the record's member against the schema, and compare's busy-host count
from it (the tick-noise sign kept for records without it).

Run: /usr/bin/python3 -m unittest tests.tools.test_hoststate -v
"""

import copy
import json
import os
import shutil
import tempfile
import unittest

from tests.tools import FIXTURES, altered
from clockbench_lib.base import hoststate
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.compare.inputs import load_inputs
from clockbench_lib.compare.summary import busy_line
from clockbench_lib.model import report
from clockbench_lib.model.record import record_of

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

PROC = os.path.join(FIXTURES, "hoststate")
START, END = os.path.join(PROC, "start"), os.path.join(PROC, "end")


def state_of(run_ticks, start=START, end=END, exclude=()):
    return hoststate.host_state(hoststate.snapshot(start, exclude),
                                hoststate.snapshot(end, exclude), run_ticks, 2, "tsc")


class ProcStat(unittest.TestCase):
    def test_the_cpu_line(self):
        with open(os.path.join(START, "stat"), encoding="ascii") as source:
            times = hoststate.parse_cpu_times(source.read())
        self.assertEqual(times.user, 10000)
        self.assertEqual(times.softirq, 200)
        self.assertEqual(times.total, 95300)  # guest and guest_nice are in user already
        self.assertEqual(times.busy, 15200)

    def test_an_older_kernel_and_bad_text(self):
        self.assertEqual(hoststate.parse_cpu_times("cpu 1 2 3 4\n").total, 10)
        self.assertIsNone(hoststate.parse_cpu_times("cpu0 1 2 3 4\n"))
        self.assertIsNone(hoststate.parse_cpu_times("cpu 1 2 x 4\n"))
        self.assertIsNone(hoststate.parse_cpu_times("cpu 1 2\n"))
        self.assertIsNone(hoststate.parse_cpu_times(""))

    def test_a_process_stat(self):
        with open(os.path.join(START, "5151", "stat"), encoding="ascii") as source:
            self.assertEqual(hoststate.parse_pid_stat(source.read()), ("my (odd) prog", 80))
        self.assertIsNone(hoststate.parse_pid_stat("12 (short) S 1 2"))
        self.assertIsNone(hoststate.parse_pid_stat("no parentheses"))

    def test_load_average(self):
        self.assertEqual(hoststate.parse_load_average("2.10 0.95 0.52 3/182 4400\n"),
                         [2.1, 0.95, 0.52])
        self.assertIsNone(hoststate.parse_load_average("2.10 x 0.52"))
        self.assertIsNone(hoststate.parse_load_average("2.10"))

    def test_only_qemu_processes(self):
        self.assertEqual(hoststate.qemu_processes(START), {4242: 1000})
        self.assertEqual(hoststate.qemu_processes(START, exclude={4242}), {})


class Shares(unittest.TestCase):
    def test_a_busy_host(self):
        state = state_of(run_ticks=300)
        self.assertEqual(state["cpu_pct"], {"busy": 60.0, "steal": 4.0, "this_run": 30.0,
                                            "others": 30.0})
        self.assertTrue(state["busy"])  # others 30 % > 25 %
        self.assertEqual(state["other_qemus"], {"count": 1, "cpu_pct": 12.0})
        self.assertEqual(state["load_average"], {"start": [0.52, 0.61, 0.4],
                                                 "end": [2.1, 0.95, 0.52]})
        self.assertEqual(state["said"],
                         "the host was busy: processes other than this run's QEMU took 30 % "
                         "of its CPU time over the run (busy means above 25 %, or steal "
                         "above 10 %), its hypervisor stole 4 %; 1 other QEMU process ran, "
                         "taking 12 % of its CPU time")

    def test_a_quiet_host(self):
        state = state_of(run_ticks=500)
        self.assertEqual(state["cpu_pct"]["others"], 10.0)
        self.assertFalse(state["busy"])
        self.assertTrue(state["said"].startswith("the host was quiet: processes other than "
                                                 "this run's QEMU took 10 % "))

    def test_steal_alone_makes_it_busy(self):
        with tempfile.TemporaryDirectory() as scratch:
            end = os.path.join(scratch, "end")
            shutil.copytree(END, end)
            with open(os.path.join(end, "stat"), "w", encoding="ascii") as out:
                out.write("cpu  10450 0 5120 80250 110 0 230 140 0 0\n")
            state = state_of(run_ticks=600, end=end)
        self.assertEqual(state["cpu_pct"]["steal"], 14.0)
        self.assertEqual(state["cpu_pct"]["others"], 0.0)
        self.assertTrue(state["busy"])

    def test_the_run_never_takes_more_than_the_busy_time(self):
        state = state_of(run_ticks=5000)  # a last sample ahead of the end snapshot
        self.assertEqual(state["cpu_pct"]["this_run"], 60.0)
        self.assertEqual(state["cpu_pct"]["others"], 0.0)

    def test_too_short_to_tell(self):
        state = state_of(run_ticks=0, end=START)
        self.assertIsNone(state["cpu_pct"])
        self.assertIsNone(state["busy"])
        self.assertIsNone(state["other_qemus"]["cpu_pct"])
        self.assertTrue(state["said"].startswith("how busy the host was is not known"))

    def test_a_qemu_seen_at_one_end_only(self):
        with tempfile.TemporaryDirectory() as scratch:
            end = os.path.join(scratch, "end")
            shutil.copytree(END, end)
            shutil.rmtree(os.path.join(end, "4242"))
            state = state_of(run_ticks=300, end=end)
        self.assertEqual(state["other_qemus"], {"count": 1, "cpu_pct": None})
        self.assertTrue(state["said"].endswith("; 1 other QEMU process ran"))

    def test_no_proc(self):
        state = state_of(run_ticks=0, start="/nonexistent", end="/nonexistent")
        self.assertIsNone(state["cpu_pct"])
        self.assertEqual(state["load_average"], {"start": None, "end": None})
        self.assertEqual(state["other_qemus"], {"count": 0, "cpu_pct": None})


class Watch(unittest.TestCase):
    """HostWatch on a /proc of the fixture's: the run's QEMU followed, its last sample
    standing for it once it is gone, and left out of the other QEMUs."""

    def test_the_last_sample_stands(self):
        with tempfile.TemporaryDirectory() as scratch:
            proc = os.path.join(scratch, "proc")
            shutil.copytree(START, proc)
            watch = hoststate.HostWatch(proc)
            os.mkdir(os.path.join(proc, "777"))
            stat = os.path.join(proc, "777", "stat")
            with open(os.path.join(START, "4242", "stat"), encoding="ascii") as source:
                text = source.read().replace("4242 ", "777 ", 1)
            with open(stat, "w", encoding="ascii") as out:
                out.write(text.replace(" 900 100 ", " 0 0 "))
            watch.follow(777)
            with open(stat, "w", encoding="ascii") as out:
                out.write(text.replace(" 900 100 ", " 250 50 "))
            watch.sample()
            shutil.rmtree(os.path.join(proc, "777"))  # the run's QEMU has exited
            shutil.copy(os.path.join(END, "stat"), os.path.join(proc, "stat"))
            shutil.copy(os.path.join(END, "4242", "stat"), os.path.join(proc, "4242"))
            state = watch.finish()
        self.assertEqual(state["cpu_pct"]["this_run"], 30.0)
        self.assertEqual(state["other_qemus"]["count"], 1)  # 4242, not the run's 777


class Record(unittest.TestCase):
    def test_the_schema_takes_it(self):
        with open(os.path.join(altered.AMD, "tcg-pc", "run-1.json"), encoding="utf-8") as source:
            record = json.load(source)
        record["runner"]["host_state"] = state_of(run_ticks=300)
        report.validate_document(record, "record")
        self.assertTrue(record_of(record).runner.host_state.busy)
        record["runner"]["host_state"]["cpu_pct"]["busy"] = 140
        with self.assertRaises(RunnerError):
            report.validate_document(record, "record")


class CompareBusyHost(unittest.TestCase):
    """compare's busy-host count: the recorded host state where a record has it."""

    def inputs(self, states):
        scratch = tempfile.mkdtemp(prefix="clockbench-hoststate-")
        self.addCleanup(shutil.rmtree, scratch)
        altered.host_state_copy(altered.AMD, os.path.join(scratch, "amd"), states)
        return load_inputs([os.path.join(scratch, "amd")])

    def test_without_host_state_the_tick_noise_counts(self):
        line = busy_line(load_inputs([altered.AMD]))
        self.assertRegex(line, r"^busy host: 0 of \d+ runs with tick noise above 10 %$")

    def test_the_recorded_state_counts(self):
        busy, quiet = state_of(run_ticks=300), state_of(run_ticks=500)
        line = busy_line(self.inputs([busy, quiet, copy.deepcopy(quiet)]))
        self.assertRegex(line, r"^busy host: 1 of 3 runs by the host load the runner "
                               r"recorded \([a-z0-9-]+\); 0 of 1 runs without it with "
                               r"tick noise above 10 %$")
