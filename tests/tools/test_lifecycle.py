# SPDX-License-Identifier: MIT
"""Events in the VM's life, the runner's half (clockbench_lib/boot/lifecycle.py and
qmp.py): --event specs, the boots that can have them, and each event carried out against
a fake QMP server, whose failures end in one sentence and an "abort" to the guest."""

import json
import os
import shutil
import socket
import tempfile
import threading
import time
import unittest
from unittest import mock

from tests.tools import ROOT
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.boot import lifecycle, qemu
from clockbench_lib.testing.testlist import load_tests_cfg

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False


class EventSpecs(unittest.TestCase):
    def test_good_specs(self):
        self.assertEqual(lifecycle.parse_event("stop:3s"), lifecycle.EventSpec("stop", 3.0))
        self.assertEqual(lifecycle.parse_event("stop:500ms").seconds, 0.5)
        self.assertEqual(lifecycle.parse_event("stop").seconds, lifecycle.DEFAULT_STOP_S)
        self.assertEqual(lifecycle.parse_event("savevm").seconds, 0.0)
        self.assertEqual(lifecycle.parse_event("savevm:2s").describe(), "savevm 2 s")
        self.assertEqual(lifecycle.parse_events(["savevm", "migrate"]),
                         (lifecycle.EventSpec("savevm"), lifecycle.EventSpec("migrate")))
        self.assertEqual(lifecycle.parse_event("pause").text(), "pause:1s")
        self.assertEqual(lifecycle.parse_event("pause:500ms").text(), "pause:0.5s")
        self.assertEqual(lifecycle.parse_event("migrate").text(), "migrate")

    def test_bogus_specs_say_what_is_wrong(self):
        for text, says in (("suspend", "none of stop, savevm, migrate"),
                           ("stop:3 s", "not a duration"), ("stop:0s", "more than 0"),
                           ("stop:-1s", "not a duration"), ("savevm:x", "not a duration"),
                           ("migrate:x", "takes no argument")):
            with self.assertRaises(RunnerError) as caught:
                lifecycle.parse_event(text)
            self.assertIn(says, str(caught.exception), text)
        with self.assertRaisesRegex(RunnerError, "at most 8 event points"):
            lifecycle.parse_events(["stop"] * 9)

    def test_boots_that_cannot_have_events_are_named(self):
        events = (lifecycle.EventSpec("stop", 1.0),)
        with self.assertRaisesRegex(RunnerError, "the xen boot cannot have events: Xen's "
                                                 "events are driven by the Linux dom0"):
            lifecycle.check_boot(qemu.BootSpec(boot="xen", memory_mib=512), events)
        with self.assertRaisesRegex(RunnerError, "stop is QEMU's"):
            lifecycle.check_boot(qemu.BootSpec(boot="xen-hvm-domu"), events)
        lifecycle.check_boot(qemu.BootSpec(boot="xen-hvm-domu"),
                             (lifecycle.EventSpec("pause", 1.0),))
        with self.assertRaisesRegex(RunnerError, "stop is QEMU's"):
            lifecycle.check_boot(qemu.BootSpec(boot="xen-pv-domu"), events)
        with self.assertRaisesRegex(RunnerError, "pause is an event of a Xen domU"):
            lifecycle.check_boot(qemu.BootSpec(console="uart"),
                                 (lifecycle.EventSpec("pause", 1.0),))
        lifecycle.check_boot(qemu.BootSpec(boot="xen-pvh-domu"),
                             (lifecycle.EventSpec("pause", 1.0),))
        # An HVM domU is saved and migrated with its device model, by Xen alone.
        lifecycle.check_boot(qemu.BootSpec(boot="xen-hvm-domu"),
                             (lifecycle.EventSpec("save"), lifecycle.EventSpec("migrate")))
        lifecycle.check_boot(qemu.BootSpec(boot="xen-pvh-domu"), (lifecycle.EventSpec("save"),))
        # Two vCPUs come back too (each AP sets up its own part again).
        lifecycle.check_boot(qemu.BootSpec(boot="xen-pv-domu", smp=2),
                             (lifecycle.EventSpec("save"),))
        lifecycle.check_boot(qemu.BootSpec(boot="xen-pv-domu"), (lifecycle.EventSpec("save"),))
        with self.assertRaisesRegex(RunnerError, "iso-bios boot cannot have events"):
            lifecycle.check_boot(qemu.BootSpec(boot="iso-bios"), events)
        with self.assertRaisesRegex(RunnerError, "cannot reach the virtio console"):
            lifecycle.check_boot(qemu.BootSpec(console="virtio"), events)
        lifecycle.check_boot(qemu.BootSpec(console="uart"), events)
        lifecycle.check_boot(qemu.BootSpec(boot="xen"), ())  # no events: nothing to say

    def test_linux_alone_has_them_and_its_xen_boots_do_not(self):
        events = lifecycle.parse_events(["stop:3s", "savevm"])
        spec = lifecycle.with_events(qemu.BootSpec(boot="linux", machine="pc",
                                                   memory_mib=512), events)
        lifecycle.check_boot(spec, events)
        self.assertEqual(spec.console, "uart")
        # clockbench-user's options, not the image's, ask for the points.
        self.assertRegex(spec.cmdline, r"^--events 2 --event-wait-ms \d+$")
        self.assertNotIn("events=", spec.cmdline)
        for boot in ("xen-linux-dom0", "xen-linux-pv-domu"):
            with self.assertRaisesRegex(RunnerError, f"the {boot} boot cannot have events "
                                                     f"yet: its clockbench-user runs under "
                                                     f"Xen"):
                lifecycle.check_boot(qemu.BootSpec(boot=boot, memory_mib=512), events)

    def test_guest_options_and_time(self):
        events = lifecycle.parse_events(["stop:2s", "migrate"])
        self.assertRegex(lifecycle.guest_options(events), r"^events=2 event_wait_ms=\d+$")
        self.assertEqual(lifecycle.guest_options(()), "")
        self.assertEqual(lifecycle.extra_timeout_s(events), 2 + 2 * lifecycle.BOOT_EXTRA_S)

    def test_a_xen_domu_hands_its_events_to_dom0(self):
        events = lifecycle.parse_events(["pause:3s", "pause"])
        spec = lifecycle.with_events(qemu.BootSpec(boot="xen-pv-domu", cmdline="verbose=1"),
                                     events)
        self.assertEqual(spec.events, ("pause:3s", "pause:1s"))
        self.assertEqual(spec.cmdline, "verbose=1")  # clockbench-domu adds events=
        command = qemu.build_qemu_command(spec, "qemu-system-x86_64", "image")
        self.assertIn("clockbench.events=pause%3A3s%20pause%3A1s",
                      command[command.index("-initrd") + 1].split(",")[0].split())
        self.assertIn("clockbench.memory=128",
                      command[command.index("-initrd") + 1].split(",")[0].split())
        spec = lifecycle.with_events(qemu.BootSpec(boot="xen-pv-domu"),
                                     lifecycle.parse_events(["save"]))
        self.assertEqual(spec.events, ("save",))
        command = qemu.build_qemu_command(spec, "qemu-system-x86_64", "image")
        self.assertIn("clockbench.memory=16",  # its image must fit dom0's tmpfs
                      command[command.index("-initrd") + 1].split(",")[0].split())
        spec = lifecycle.with_events(qemu.BootSpec(cmdline="verbose=1"),
                                     lifecycle.parse_events(["stop"]))
        self.assertRegex(spec.cmdline, r"^verbose=1 events=1 event_wait_ms=\d+$")
        self.assertEqual((spec.console_choice, spec.events), ("uart", ()))

    def test_the_list_gives_its_tests_their_events(self):
        tests = {t.name: t for t in load_tests_cfg(f"{ROOT}/tests/tests.cfg")}
        test = tests["life-stop-tcg"]
        self.assertEqual(test.events, (lifecycle.EventSpec("stop", 1.0),))
        self.assertIn("events=1", test.spec.cmdline)
        self.assertEqual(test.spec.console_choice, "uart")
        self.assertGreater(test.timeout_s, qemu.default_timeout_s("tcg"))


class FakeQmp:
    """A QMP server on a unix socket answering from `answers` (command -> return value,
    or a callable taking the arguments, or an exception's description), sending the
    events of `events` (command -> event names) after the answer."""

    def __init__(self, path, answers, events=None):
        self.path, self.answers, self.events = path, answers, events or {}
        self.commands = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _send(self, conn, message):
        conn.sendall(json.dumps(message).encode() + b"\n")

    def _serve(self):
        conn, _ = self.server.accept()
        with conn, self.server:
            self._answer(conn)

    def _answer(self, conn):
        self._send(conn, {"QMP": {"version": {}, "capabilities": []}})
        buffer = b""
        while True:
            data = conn.recv(4096)
            if not data:
                return
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                name = request["execute"]
                self.commands.append(name)
                answer = self.answers.get(name, {})
                if callable(answer):
                    answer = answer(request.get("arguments", {}))
                if isinstance(answer, Exception):
                    self._send(conn, {"error": {"class": "GenericError", "desc": str(answer)}})
                else:
                    self._send(conn, {"return": answer})
                for event in self.events.get(name, ()):
                    self._send(conn, {"event": event, "data": {},
                                      "timestamp": {"seconds": int(time.time()),
                                                    "microseconds": 5}})


class FakeProcess:
    """What the driver needs of a QEMU Popen: stdin, poll()."""

    def __init__(self):
        self.written = []
        self.returncode = None
        process = self

        class Stdin:
            def write(self, data):
                process.written.append(data.decode())

            def flush(self):
                pass

        self.stdin = Stdin()

    def poll(self):
        return self.returncode


class Driving(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="cb-life-", dir="/tmp")
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.started = []

    def drive(self, events, answers, qmp_events=None, lines=("clockbench-event 1 sync",
                                                              "clockbench-event 1 ready"),
              spawned=None):
        driver = lifecycle.EventDriver(events, ["qemu"], self.work, "t")
        fake = FakeQmp(driver.socket_path("qmp"), answers, qmp_events)
        process = FakeProcess()
        driver.start(process, spawned or (lambda command: self.fail("no QEMU to start")))
        for line in lines:
            driver.on_line(line)
        deadline = time.monotonic() + 10
        while (len(process.written) + sum(len(p.written) for p in self.started) < len(lines)
               and time.monotonic() < deadline):
            time.sleep(0.01)
        driver.finish()
        return driver, process, fake

    def test_a_stop_is_answered_with_the_hosts_times(self):
        driver, process, fake = self.drive(
            (lifecycle.EventSpec("stop", 0.05),), {},
            {"stop": ("STOP",), "cont": ("RESUME",)})
        self.assertIsNone(driver.problem)
        self.assertRegex(process.written[0], r"^clockbench-host 1 sync ready_ns=\d+ .*"
                                             r"sent_ns=\d+\n$")
        self.assertLessEqual(abs(len(process.written[0]) - lifecycle.SYNC_LINE_CHARS), 40)
        done = process.written[1]
        for key in ("event=stop", "ready_ns=", "start_ns=", "end_ns=", "sent_ns=",
                    "start_real_ns=", "end_real_ns=", "stop_us=", "resume_us="):
            self.assertIn(key, done)
        self.assertEqual(fake.commands[:3], ["qmp_capabilities", "stop", "cont"])

    def test_savevm_without_a_writable_disk_aborts_in_a_sentence(self):
        driver, process, _ = self.drive(
            (lifecycle.EventSpec("savevm"),),
            {"human-monitor-command": "Error: No block device can accept snapshots\r\n"})
        self.assertEqual(driver.problem, "event 1 (savevm) failed: QEMU's savevm said: "
                                         "Error: No block device can accept snapshots")
        self.assertEqual(process.written[1], "clockbench-host 1 abort event=savevm\n")

    def _migration(self, status_sequence):
        statuses = iter(status_sequence)
        dest = FakeProcess()
        work = self.work

        def spawn(command):
            self.assertIn("-incoming", command)
            FakeQmp(os.path.join(work, "t-qmp1.sock"), {})
            self.started.append(dest)
            return dest
        return spawn, (lambda args: next(statuses)), dest

    def test_a_destination_that_refuses_the_stream(self):
        spawn, status, _ = self._migration([{"status": "failed",
                                             "error-desc": "Unable to write to socket"}])
        driver, process, _ = self.drive((lifecycle.EventSpec("migrate"),),
                                        {"query-migrate": status}, spawned=spawn)
        self.assertEqual(driver.problem, "event 1 (migrate) failed: the destination refused "
                                         "the stream: migration failed (Unable to write to "
                                         "socket)")
        self.assertEqual(process.written[1], "clockbench-host 1 abort event=migrate\n")

    def test_a_migration_that_never_converges_is_cancelled(self):
        spawn, _, _ = self._migration([])
        with mock.patch.object(lifecycle, "MIGRATE_TIMEOUT_S", 0.2):
            driver, _, fake = self.drive((lifecycle.EventSpec("migrate"),),
                                         {"query-migrate": {"status": "active"}},
                                         spawned=spawn)
        self.assertRegex(driver.problem, r"did not converge within 0.2 s \(active\); "
                                         r"cancelled, the run stays on the source$")
        self.assertIn("migrate_cancel", fake.commands)

    def test_a_completed_migration_moves_the_run(self):
        spawn, status, dest = self._migration([{"status": "active"},
                                               {"status": "completed", "downtime": 7,
                                                "total-time": 40}])
        driver, process, fake = self.drive((lifecycle.EventSpec("migrate"),),
                                           {"query-migrate": status}, spawned=spawn)
        self.assertIsNone(driver.problem)
        self.assertIs(driver.process, dest)
        self.assertIn("quit", fake.commands)
        self.assertEqual(len(process.written), 1, "the sync went to the source")
        self.assertRegex(dest.written[0], r"^clockbench-host 1 done event=migrate .*"
                                          r"downtime_ms=7 total_ms=40 sent_ns=\d+\n$")

    def test_an_event_point_never_reached(self):
        driver, _, _ = self.drive((lifecycle.EventSpec("stop", 0.01),
                                   lifecycle.EventSpec("migrate")), {},
                                  {"stop": ("STOP",), "cont": ("RESUME",)})
        self.assertEqual(driver.problem, "the guest never reached event point 2 (migrate): "
                                         "the run ended first")
