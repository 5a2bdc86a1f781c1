# SPDX-License-Identifier: MIT
"""Boot tests that measure ticks under TCG run alone (clockbench_lib/bootgate.py)."""

import concurrent.futures
import threading
import time
import unittest

from tests.tools import ROOT  # noqa: F401  (puts tools/ on sys.path)
from clockbench_lib import bootgate, qemu
from clockbench_lib.testlist import load_tests_cfg


class WhichRunAlone(unittest.TestCase):
    def test_measures_ticks_under_tcg(self):
        alone = bootgate.measures_ticks_under_tcg
        self.assertTrue(alone(qemu.BootSpec()))
        self.assertTrue(alone(qemu.BootSpec(cmdline="verbose=1 tick_rates=1000")))
        self.assertFalse(alone(qemu.BootSpec(cmdline="tick_rates= verbose=1")))
        self.assertTrue(alone(qemu.BootSpec(cmdline="tick_rates= tick_rates=100")),
                        "the last tick_rates= is the one the guest keeps")
        self.assertFalse(alone(qemu.BootSpec(accel="kvm")))
        self.assertFalse(alone(qemu.BootSpec(boot="xen", smp=2)))
        self.assertFalse(alone(qemu.BootSpec(boot="linux")))

    def test_the_tick_tests_of_the_list_run_alone(self):
        tests = {test.name: test for test in load_tests_cfg(f"{ROOT}/tests/tests.cfg")}
        for name in ("ticks-pc", "ticks-hpet-off", "mb1-pc", "smp-2"):
            self.assertTrue(bootgate.measures_ticks_under_tcg(tests[name].spec), name)
        for name in ("cpu-epyc", "exit-halt", "xen-hvm-domu-1"):
            self.assertFalse(bootgate.measures_ticks_under_tcg(tests[name].spec), name)
        self.assertTrue(bootgate.runs_alone(tests["ticks-pc"]))
        self.assertTrue(bootgate.measures_ticks_under_tcg(tests["fault-ud"].spec))
        self.assertFalse(bootgate.runs_alone(tests["fault-ud"]),
                         "a boot meant to fail ends before its ticks")


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


if __name__ == "__main__":
    unittest.main()
