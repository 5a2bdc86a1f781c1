# SPDX-License-Identifier: MIT
"""--contend, the runner's half (clockbench_lib/boot/contend.py): which host CPU each
vCPU thread goes to, the arrangement made against a fake QMP server (vCPU threads pinned,
a busy loop pinned beside them, then cont), the loops stopped at the end and ending by
themselves at their bound, and the boots that cannot have it refused in a sentence.

Run: /usr/bin/python3 -m unittest tests.tools.test_contend -v
"""

import os
import shutil
import tempfile
import threading
import time
import unittest

from tests.tools.test_lifecycle import FakeProcess, FakeQmp
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.boot import contend, lifecycle, qemu, xen

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False


def vcpus(*threads):
    return [{"cpu-index": index, "thread-id": thread, "qom-path": f"/machine/cpu{index}"}
            for index, thread in enumerate(threads)]


class Arrangement(unittest.TestCase):
    def test_a_host_cpu_each_round_and_round(self):
        self.assertEqual(contend.arrangement(vcpus(11, 12, 13), {4, 1}),
                         [(0, 11, 1), (1, 12, 4), (2, 13, 1)])

    def test_vcpus_of_one_thread_share_its_cpu(self):
        self.assertEqual(contend.arrangement(vcpus(11, 11, 12), {0, 1}),
                         [(0, 11, 0), (1, 11, 0), (2, 12, 1)])

    def test_vcpus_in_index_order(self):
        self.assertEqual(contend.arrangement(list(reversed(vcpus(11, 12))), {0, 1}),
                         [(0, 11, 0), (1, 12, 1)])

    def test_what_cannot_be_pinned_is_said(self):
        with self.assertRaisesRegex(RunnerError, "named no thread for a vCPU"):
            contend.arrangement([{"cpu-index": 0}], {0})
        with self.assertRaisesRegex(RunnerError, "listed no vCPUs"):
            contend.arrangement([], {0})
        with self.assertRaisesRegex(RunnerError, "may use no host CPU"):
            contend.arrangement(vcpus(11), set())


class Arranging(unittest.TestCase):
    """Against a fake QMP: the vCPU "thread" is a thread of this test, so that pinning it
    is real and harmless."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="cb-contend-", dir="/tmp")
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.stop.wait, daemon=True)
        self.thread.start()
        self.addCleanup(self.stop.set)
        self.cpu = min(os.sched_getaffinity(0))

    def contender(self, threads, bound_s=30.0):
        contender = contend.Contender(self.work, "t", bound_s, allowed={self.cpu})
        self.addCleanup(contender.finish)
        fake = FakeQmp(contender.socket, {"query-cpus-fast": vcpus(*threads)})
        return contender, fake

    def test_pinned_beside_and_stopped_at_the_end(self):
        contender, fake = self.contender([self.thread.native_id])
        contender.start(FakeProcess())
        self.assertEqual(fake.commands, ["qmp_capabilities", "query-cpus-fast", "cont"])
        self.assertEqual(os.sched_getaffinity(self.thread.native_id), {self.cpu})
        [loop] = [entry[0] for entry in contender.loops]
        self.assertEqual(os.sched_getaffinity(loop.pid), {self.cpu})
        time.sleep(0.1)
        self.assertIsNone(loop.poll())  # it spins
        contender.finish()
        self.assertIsNotNone(loop.poll())
        state = contender.to_json()
        self.assertEqual(state["vcpus"], [{"vcpu": 0, "thread_id": self.thread.native_id,
                                           "host_cpu": self.cpu}])
        self.assertEqual(state["host_cpus"], [self.cpu])
        self.assertGreater(state["loops"][0]["seconds"], 0)
        self.assertRegex(state["said"], rf"^--contend: a busy loop .* bounded to 30 s\): "
                                        rf"host CPU {self.cpu} beside vCPU 0 \(")
        self.assertFalse(os.path.exists(contender.socket))

    def test_a_loop_ends_by_itself_at_its_bound(self):
        contender, _ = self.contender([self.thread.native_id], bound_s=0.2)
        contender.start(FakeProcess())
        [loop] = [entry[0] for entry in contender.loops]
        loop.wait(timeout=20)  # long before the bound's 0.2 s would matter to a run
        self.assertEqual(loop.returncode, 0)

    def test_a_thread_that_is_not_there(self):
        contender, fake = self.contender([2 ** 22 + 12345])  # above pid_max's default
        with self.assertRaisesRegex(RunnerError, r"cannot pin vCPU 0's thread \d+ to host "
                                                 r"CPU \d+: No such process"):
            contender.start(FakeProcess())
        self.assertNotIn("cont", fake.commands)  # the guest never ran
        self.assertEqual(contender.loops, [])

    def test_nothing_arranged_is_said(self):
        contender = contend.Contender(self.work, "t", 1.0, allowed={self.cpu})
        self.assertRegex(contender.to_json()["said"], "nothing was arranged")


class UnderXen(unittest.TestCase):
    """What dom0's runner (dom0/clockbench-domu's contend_start) says, as the record keeps
    it."""

    LINES = ["(dom0) clockbench-domu: --contend: 2 busy loops in dom0 (its shell spinning), "
             "one on each dom0 vCPU, beside the domU's 2 vCPU(s) (pCPU 0: dom0 vCPU 0, domU "
             "vCPU 0; pCPU 1: dom0 vCPU 1, domU vCPU 1), so a fair scheduler leaves each "
             "domU vCPU 50 % of its pCPU; from before the domU runs to its end, bounded to "
             "180 s.",
             "clockbench: PASS",
             "(dom0) clockbench-domu: --contend: the busy loops ran 19 s."]

    def test_the_arrangement_read(self):
        state = xen.domu_contend(self.LINES, 2)
        self.assertEqual(state["host_cpus"], [0, 1])
        self.assertEqual(state["bound_s"], 180.0)
        self.assertEqual(state["vcpus"], [{"vcpu": 0, "thread_id": None, "host_cpu": 0},
                                          {"vcpu": 1, "thread_id": None, "host_cpu": 1}])
        self.assertEqual(state["loops"], [{"host_cpu": 0, "seconds": 19.0, "cpu_seconds": None},
                                          {"host_cpu": 1, "seconds": 19.0, "cpu_seconds": None}])
        self.assertIn("50 % of its pCPU", state["said"])
        self.assertTrue(state["said"].endswith("bounded to 180 s; it ran 19 s"))

    def test_one_loop_beside_three_vcpus(self):
        lines = ["(dom0) clockbench-domu: --contend: 1 busy loop in dom0 (its shell spinning), "
                 "one on each dom0 vCPU, beside the domU's 3 vCPU(s) (pCPU 0: dom0 vCPU 0, "
                 "domU vCPU 0, domU vCPU 2; pCPU 1: domU vCPU 1), so a fair scheduler leaves "
                 "each domU vCPU between 33 and 100 % of its pCPU; from before the domU runs "
                 "to its end, bounded to 180 s.",
                 "(dom0) clockbench-domu: --contend: the busy loop ran 3 s."]
        state = xen.domu_contend(lines, 3)
        self.assertEqual([v["host_cpu"] for v in state["vcpus"]], [0, 1, 0])
        self.assertEqual(state["loops"], [{"host_cpu": 0, "seconds": 3.0, "cpu_seconds": None}])

    def test_nothing_said(self):
        self.assertIsNone(xen.domu_contend(self.LINES[1:], 2))


class Refusals(unittest.TestCase):
    def test_boots_that_cannot_have_it(self):
        for boot in ("xen", "xen-linux-dom0", "linux"):
            spec = qemu.BootSpec(boot=boot, machine=qemu.default_machine(boot), contend=True)
            with self.assertRaisesRegex(RunnerError, r"^--contend pins a busy neighbour .* "
                                                     rf"the {boot} boot's guest runs under "):
                qemu.validate_spec(spec)
        qemu.validate_spec(qemu.BootSpec(contend=True, smp=2))
        qemu.validate_spec(qemu.BootSpec(boot="xen-pv-domu", contend=True, smp=2))

    def test_a_domus_dom0_is_asked(self):
        self.assertIn(" clockbench.contend=1", xen.dom0_command_line("xen-pv-domu", 2, "",
                                                                     120, contend=True))
        self.assertNotIn("contend", xen.dom0_command_line("xen-pv-domu", 2, "", 120))

    def test_not_with_events(self):
        with self.assertRaisesRegex(RunnerError, "^--event and --contend do not go together"):
            lifecycle.check_boot(qemu.BootSpec(contend=True, console="uart"),
                                 lifecycle.parse_events(["stop:1s"]))

    def test_the_argument_start_stopped_with_qmp(self):
        with tempfile.TemporaryDirectory() as work:
            contender = contend.Contender(work, "t", 1.0)
            self.assertEqual(contender.arguments()[:2], ["-S", "-qmp"])
            contender.finish()


if __name__ == "__main__":
    unittest.main()
