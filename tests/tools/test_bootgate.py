# SPDX-License-Identifier: MIT
"""Boot tests that measure ticks under TCG run alone (clockbench_lib/boot/bootgate.py)."""

import concurrent.futures
import io
import os
import tempfile
import threading
import time
import unittest
from contextlib import redirect_stdout
from unittest import mock

from tests.tools import ROOT, parse_cfg
from clockbench_lib.boot import bootgate, qemu
from clockbench_lib.testing import beside, boottest, testlist
from clockbench_lib.testing.testreport import TestResult
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.testing.testlist import load_tests_cfg

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False


class WhichRunAlone(unittest.TestCase):
    def test_measures_ticks_under_tcg(self):
        alone = bootgate.measures_ticks_under_tcg
        self.assertTrue(alone(qemu.BootSpec()))
        self.assertTrue(alone(qemu.BootSpec(cmdline="verbose=1 tick_rates=1000")))
        self.assertFalse(alone(qemu.BootSpec(cmdline="tick_rates= verbose=1")))
        self.assertTrue(alone(qemu.BootSpec(cmdline="tick_rates= tick_rates=100,1000")),
                        "the last tick_rates= is the one the guest keeps")
        self.assertFalse(alone(qemu.BootSpec(cmdline="tick_rates=1000 tick_rates=100")),
                         "100 Hz alone: only the CPU lost is judged, widely")
        self.assertFalse(alone(qemu.BootSpec(smp=2, cmdline="tick_rates=10,100")))
        self.assertFalse(alone(qemu.BootSpec(accel="kvm")))
        self.assertFalse(alone(qemu.BootSpec(boot="xen", smp=2, cmdline="tick_rates=100")))
        self.assertTrue(alone(qemu.BootSpec(boot="xen", smp=4, cmdline="tick_rates=100,1000")),
                        "a Xen boot whose 1000 Hz delivery is judged")
        self.assertTrue(alone(qemu.BootSpec(boot="xen")), "the default rates hold 1000 Hz")
        self.assertFalse(alone(qemu.BootSpec(boot="xen", cmdline="tick_rates=")))
        self.assertFalse(alone(qemu.BootSpec(boot="linux")))

    def test_the_tick_tests_of_the_list_run_alone(self):
        tests = {test.name: test for test in load_tests_cfg(f"{ROOT}/tests/tests.cfg")}
        for name in ("ticks-pc", "ticks-hpet-off", "xen-ticks", "xen-smp-4"):
            self.assertTrue(bootgate.measures_ticks_under_tcg(tests[name].spec), name)
        for name in ("cpu-epyc", "exit-halt", "xen-hvm-domu-1", "xen-pc", "mb1-pc", "smp-2",
                     "fault-ud", "names-stable", "ticks-slow"):
            self.assertFalse(bootgate.measures_ticks_under_tcg(tests[name].spec),
                             f"{name}: it measures no ticks, or none at 1000 Hz")
        self.assertTrue(bootgate.runs_alone(tests["ticks-pc"]))
        self.assertFalse(bootgate.runs_alone(tests["mb1-pc"]))
        self.assertFalse(bootgate.runs_alone(tests["fault-pf-kvm"]))
        self.assertTrue(bootgate.runs_alone(tests["xen-pv-domu-2"]), "contended")
        self.assertTrue(bootgate.runs_alone(tests["contend-smp-2"]), "contended")


class Profiles(unittest.TestCase):
    """A boot test's profile= adds to its guest options what it does not give itself."""

    def test_check_adds_what_args_leaves_out(self):
        check = testlist.PROFILE_OPTIONS["check"]
        self.assertEqual(testlist.profile_cmdline("", "check"), " ".join(check))
        self.assertEqual(testlist.profile_cmdline("verbose=1", "check"),
                         " ".join(("verbose=1",) + check))
        self.assertEqual(testlist.profile_cmdline("tick_rates=100", "check"),
                         "tick_rates=100 " + " ".join(check[1:]),
                         "an option the line gives is not given twice")
        self.assertEqual(testlist.profile_cmdline("verbose=1", "measure"), "verbose=1")
        self.assertEqual(testlist.profile_cmdline("bogus=1", "none"), "bogus=1")

    def test_profiles_of_the_list(self):
        tests = {test.name: test for test in load_tests_cfg(f"{ROOT}/tests/tests.cfg")}
        self.assertEqual(tests["mb1-pc"].profile, "check")
        self.assertIn("tick_rates=", tests["mb1-pc"].spec.cmdline.split())
        self.assertEqual(tests["ticks-kvm"].profile, "measure")
        self.assertNotIn("tick_rates=", tests["ticks-kvm"].spec.cmdline.split())
        self.assertIsNone(tests["linux-pc"].profile, "clockbench-user takes no profile")

    def test_bad_profiles_are_refused(self):
        for line, fragment in (("boot x profile=fast", "profile=fast is not one of"),
                               ("boot x boot=linux profile=check", "runs clockbench-user")):
            with self.subTest(line):
                with self.assertRaises(RunnerError) as caught:
                    parse_cfg(line + "\n", "t.cfg")
                self.assertIn(fragment, str(caught.exception))


class Gate(unittest.TestCase):
    """Two workers, as `clockbench test` has by default, on boots that take 30 ms."""

    def run_boots(self, kinds):
        gate, spans, lock = bootgate.BootGate(), [], threading.Lock()

        def boot(index, alone):
            with gate.boot(alone):
                start = time.monotonic()
                time.sleep(0.03)
                with lock:
                    spans.append((start, time.monotonic(), index, alone))

        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for future in [pool.submit(boot, i, kind == "alone")
                           for i, kind in enumerate(kinds)]:
                future.result(timeout=10)
        return spans

    @staticmethod
    def overlap(one, other):
        return one[0] < other[1] and other[0] < one[1]

    def test_an_alone_boot_overlaps_none(self):
        spans = self.run_boots(["shared", "shared", "alone", "shared", "alone", "alone",
                                "shared", "shared"])
        self.assertEqual(len(spans), 8)
        for span in spans:
            if span[3]:
                self.assertEqual([other[2] for other in spans
                                  if other is not span and self.overlap(span, other)], [],
                                 f"boot {span[2]} ran alone")

    def test_shared_boots_still_run_two_at_once(self):
        spans = sorted(self.run_boots(["shared"] * 4))
        self.assertTrue(self.overlap(spans[0], spans[1]))
        self.assertTrue(self.overlap(spans[2], spans[3]))


class WhenShared(unittest.TestCase):
    """run_boot_tests() calls when_shared once, after the last boot that runs alone."""

    def run_list(self, lines, skips=()):
        tests = parse_cfg("\n".join(lines))
        events, lock = [], threading.Lock()

        def fake_boot(test, announcer):
            del announcer
            with lock:
                events.append(("start", test.name))
            time.sleep(0.02)
            with lock:
                events.append(("end", test.name))
            return TestResult(state="ok")

        def shared():
            with lock:
                events.append(("shared", None))

        with mock.patch.object(boottest, "run_boot_test", fake_boot), \
                redirect_stdout(io.StringIO()):
            boottest.run_boot_tests(tests, {name: "skipped" for name in skips}, 2,
                                    when_shared=shared)
        return events

    def test_after_the_last_alone_boot(self):
        events = self.run_list(["boot a groups=quick args=tick_rates=",
                                "boot t1 args=tick_rates=1000",
                                "boot b groups=quick args=tick_rates=",
                                "boot t2 args=tick_rates=1000"])
        self.assertEqual(events.count(("shared", None)), 1)
        at = events.index(("shared", None))
        self.assertLess(events.index(("end", "t1")), at)
        self.assertLess(events.index(("end", "t2")), at)

    def test_at_once_when_none_runs_alone(self):
        events = self.run_list(["boot a groups=quick args=tick_rates=",
                                "boot t1 args=tick_rates=1000"], skips=["t1"])
        self.assertEqual(events[0], ("shared", None))
        self.assertEqual(events.count(("shared", None)), 1)


class BesideCommand(unittest.TestCase):
    """The command beside the boots: its output kept, its failure said, its wait bounded."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "tests", "beside.log")

    def tearDown(self):
        self.tmp.cleanup()

    def test_output_and_success(self):
        neighbour = beside.Beside("echo one; echo two >&2", self.log)
        neighbour.start()
        neighbour.start()
        output, problem = neighbour.finish()
        self.assertEqual(sorted(output.split()), ["one", "two"])
        self.assertIsNone(problem)

    def test_a_failure_is_one_sentence(self):
        output, problem = beside.Beside("echo bad; exit 3", self.log).finish()
        self.assertEqual(output, "bad\n")
        self.assertEqual(problem, "the command beside the boots, `echo bad; exit 3`, exited "
                                  "with 3.")

    def test_the_wait_is_bounded(self):
        neighbour = beside.Beside("sleep 30", self.log)
        with mock.patch.object(beside, "FINISH_BOUND_S", 0.2):
            start = time.monotonic()
            _, problem = neighbour.finish()
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("had not ended 0.2 s after the last boot: it was stopped.", problem)


if __name__ == "__main__":
    unittest.main()
