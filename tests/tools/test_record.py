# SPDX-License-Identifier: MIT
"""The record model (tools/clockbench_lib/model/record.py, manifest.py): what the one
loader makes of a clockbench/2 record, an older clockbench/1 report, a clockbench-run/0
summary, clockbench-user's document and a matrix manifest.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import json
import os
import tempfile
import unittest

from tests.tools import ROOT
from clockbench_lib.base import hostinfo
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.model import osreport, report
from clockbench_lib.model.manifest import MANIFEST, MANIFEST_SCHEMA, load_manifest
from clockbench_lib.model.record import (Distribution, Host, load_measurement, load_record,
                                         read_input, record_of)

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

MATRIX = os.path.join(ROOT, "tests", "tools", "fixtures", "matrix")
AMD = os.path.join(MATRIX, "amd")         # AMD host "vm", clockbench/2 records
SAMPLE = os.path.join(MATRIX, "sample")   # clockbench/1 reports
RUN_SUMMARY = os.path.join(MATRIX, "malformed", "run-summary.json")
LINUX_LOG = os.path.join(ROOT, "tests", "tools", "fixtures", "linux", "linux-pc.log")


class MachineIdentity(unittest.TestCase):
    """hostinfo.machine_id(): a keyed hash of /etc/machine-id, 16 hex digits."""

    def machine_id(self, text):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "machine-id")
            with open(path, "w", encoding="ascii") as out:
                out.write(text)
            return hostinfo.machine_id((os.path.join(scratch, "missing"), path))

    def test_the_hash(self):
        first = self.machine_id("0123456789abcdef0123456789abcdef\n")
        self.assertRegex(first, r"^[0-9a-f]{16}$")
        self.assertNotIn("0123456789abcdef", first)  # the id itself is not given away
        self.assertEqual(first, self.machine_id("0123456789ABCDEF0123456789ABCDEF"))
        self.assertNotEqual(first, self.machine_id("f" * 32))

    def test_no_id(self):
        self.assertIsNone(self.machine_id(""))
        self.assertIsNone(self.machine_id("not a machine id"))
        self.assertIsNone(hostinfo.machine_id(("/nonexistent/machine-id",)))

    def test_the_record_reads_it(self):
        host = Host.from_json({"name": "vm", "cpu": {"model": "X", "vendor": None},
                               "kernel": "Linux", "machine_id": "0011223344556677"})
        self.assertEqual(host.machine_id, "0011223344556677")
        self.assertIsNone(Host.from_json({"name": "vm"}).machine_id)


class Records(unittest.TestCase):
    def test_a_clockbench_2_record(self):
        record = load_record(os.path.join(AMD, "tcg-pc", "run-1.json"))
        self.assertEqual((record.schema, record.verdict), (report.SCHEMA, "fail"))
        self.assertIsNone(record.no_report_reason)
        self.assertEqual(record.runner.host, Host("vm", "AMD EPYC", "AuthenticAMD",
                                                  record.runner.host.kernel))
        self.assertEqual((record.runner.accel, record.runner.machine, record.runner.cpu,
                          record.runner.smp), ("tcg", "pc", "max", 2))
        self.assertEqual(record.runner.qemu_command[0], "qemu-system-x86_64")
        self.assertEqual((record.report.env.hypervisor, record.report.env.cpus), ("TCG", 2))
        self.assertIsNone(record.report.env.xen)

    def test_its_clocks(self):
        guest = load_record(os.path.join(AMD, "tcg-pc", "run-1.json")).report
        self.assertEqual([clock.name for clock in guest.clocks][:4],
                         ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet"])
        tsc = guest.clock("tsc")
        self.assertTrue(tsc.timed)
        self.assertEqual(tsc.read_ns, Distribution(p50=10, p90=20, p99=20, p999=20, min=10,
                                                   max=16762))
        self.assertEqual(tsc.read_p50_ns, 10)
        kvm_clock = guest.clock("kvm_clock")
        self.assertEqual((kvm_clock.timed, kvm_clock.read_ns, kvm_clock.read_p50_ns),
                         (False, None, None))
        self.assertIn("no KVM signature", kvm_clock.absent_reason)
        self.assertIsNone(guest.clock("sundial"))

    def test_a_clockbench_1_report_has_no_runner(self):
        record = load_measurement(os.path.join(SAMPLE, "tcg-pc", "run-1.json"))
        self.assertEqual(record.schema, report.REPORT_SCHEMA_1)
        self.assertIsNone(record.runner)
        self.assertTrue(all(clock.measured for clock in record.report.clocks
                            if clock.present))  # clockbench/1 had no `measured`

    def test_a_summary_holds_no_report(self):
        record = load_record(RUN_SUMMARY)
        self.assertIsNone(record.report)
        self.assertRegex(record.no_report_reason, r"^verdict hang: hang: no verdict")
        with self.assertRaisesRegex(RunnerError, "this records a run that gave no report"):
            load_measurement(RUN_SUMMARY)

    def test_clockbench_users_document(self):
        record = read_input(LINUX_LOG)
        self.assertEqual(record.schema, osreport.OS_SCHEMA)
        self.assertTrue(record.is_os_document)
        self.assertIsNone(record.report)

    def test_a_console_log(self):
        record = read_input(os.path.join(SAMPLE, "tcg-pc", "run-1.log"))
        self.assertEqual(record.source, os.path.join(SAMPLE, "tcg-pc", "run-1.log"))
        self.assertEqual(record.report.env.hypervisor, "TCG")

    def test_an_empty_runner_member_is_none(self):
        self.assertIsNone(record_of({"schema": report.SCHEMA, "verdict": "hang",
                                     "runner": {}}).runner)


class Manifests(unittest.TestCase):
    def test_a_manifest(self):
        manifest = load_manifest(AMD)
        self.assertEqual(manifest.schema, MANIFEST_SCHEMA)
        self.assertEqual(manifest.host.name, "vm")
        names = [env.name for env in manifest.environments]
        self.assertIn("tcg-pc", names)
        tcg = manifest.environments[names.index("tcg-pc")]
        self.assertFalse(tcg.skipped)
        self.assertEqual(tcg.runs[0].json, "tcg-pc/run-1.json")

    def test_what_is_not_a_manifest(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaisesRegex(RunnerError, f"no {MANIFEST} here"):
                load_manifest(folder)
            path = os.path.join(folder, MANIFEST)
            for document, sentence in (
                    ({}, "the 'schema' key is missing"),
                    ({"schema": "x/9"}, 'manifest schema is "x/9"'),
                    ({"schema": MANIFEST_SCHEMA}, "'environments' is missing"),
                    ({"schema": MANIFEST_SCHEMA, "environments": [{"name": "a", "runs": [3]}]},
                     r"environments\[0\].runs\[0\] is not an object")):
                with self.subTest(document=document):
                    with open(path, "w", encoding="utf-8") as out:
                        json.dump(document, out)
                    with self.assertRaisesRegex(RunnerError, sentence):
                        load_manifest(folder)


if __name__ == "__main__":
    unittest.main()
