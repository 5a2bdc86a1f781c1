# SPDX-License-Identifier: MIT
"""Unit tests for the guest's JSON report on the host: extraction from console logs,
validation against docs/report.schema.json, `clockbench parse`, `run --json`, the
tests.cfg report= checks, and tools/bench (with a fake QEMU).

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import contextlib
import copy
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
import uuid

from tests.tools import CLOCKBENCH, FAKE_QEMU, FIXTURES, PYTHON, ROOT, fake_qemu, parse_cfg, scratch, sections
from clockbench_lib.model import report
from clockbench_lib.base import hostinfo
from clockbench_lib.boot import runinfo
from clockbench_lib.testing import boottest, reportchecks, testlist
from clockbench_lib.base.outcome import RunnerError

# Each malformed fixture and the sentence `parse` must say about it (after "LOG: ").
MALFORMED = {
    "truncated.log": "the report ends before 'clockbench-json end' (truncated log?)",
    "bad-json.log": "the report is not valid JSON: Expecting ',' delimiter "
                    "(log line 36, column 8)",
    "wrong-schema.log": "report schema is 'clockbench/3'; this tool reads clockbench/2 (and "
                        "clockbench/1 reports)",
    "missing-field.log": "clocks[3]: 'read_ns' is a required property",
    "no-report.log": "there is no JSON report (no 'clockbench-json begin' line): the guest "
                     "stopped before printing it, or predates clockbench/1",
}


def fixture(name):
    """The path of a fixture log."""
    return os.path.join(FIXTURES, name)


def fixture_lines(name):
    """The cleaned lines of a fixture log."""
    return report.read_log_lines(fixture(name))


def good_document():
    """A fresh copy of the good fixture's document (TCG, kvm_clock absent)."""
    return copy.deepcopy(_GOOD)


_GOOD = report.load_report(fixture_lines("good.log"), "good.log")


_SMP = report.load_report(fixture_lines("smp.log"), "smp.log")


def smp_document():
    """A fresh copy of the SMP fixture's document: 3 CPUs under TCG, with cross_cpu."""
    return copy.deepcopy(_SMP)


_TICKS = report.load_report(fixture_lines("ticks.log"), "ticks.log")


def ticks_document():
    """A fresh copy of the ticks fixture's document: TCG pc, every default rate."""
    return copy.deepcopy(_TICKS)


def tick_rate(document, source, hz):
    """The entry of tick source `source` at `hz` in `document`."""
    entry = next(s for s in document["ticks"]["sources"] if s["name"] == source)
    return next(r for r in entry["rates"] if r["requested_hz"] == hz)


def single_cpu_document():
    """The good document as a guest with cross-CPU measurements prints it on one CPU."""
    document = good_document()
    document["env"]["cpus_online"] = 1
    document["cross_cpu"] = {"applies": False, "cpus": 1, "clocks": [],
                             "reason": "Only one CPU is online: nothing to compare."}
    return document


def kvm_document():
    """The good document as a KVM run would give it: kvm_clock present and stable."""
    document = good_document()
    document["env"]["hypervisor"] = "KVM"
    document["env"]["hypervisor_signature"] = "KVMKVMKVM"
    tsc = document["clocks"][0]
    kvm_clock = dict(copy.deepcopy(tsc), name="kvm_clock", freq_hz=1000000000,
                     freq_source="pvclock (ns)",
                     flags=["per_cpu", "per_cpu_setup", "claims_stable", "reads_ns"],
                     rate_ppm=0.7, rate_uncertainty_ppm=800.0, rate_reference="hpet")
    document["clocks"][6] = kvm_clock
    return document


def xen_document():
    """The SMP document as Xen PV dom0 would give it: the PM timer and PIT denied by Xen,
    QEMU's HPET kept (read-only), xen_pvclock present, three CPUs compared."""
    document = smp_document()
    document["env"].update(boot="xen-pv", hypervisor="Xen",
                           hypervisor_signature="XenVMMXenVMM",
                           xen={"guest": "pv", "domain": "dom0", "version": "4.17",
                                "tsc_mode": 0, "tsc_emulated": False})
    absent = document["clocks"][6]
    document["clocks"][4] = dict(copy.deepcopy(absent), name="acpi_pm", absent_reason=(
        "port 0x608 is denied by Xen: dom0 reads 0xffffffff from the PM timer"))
    document["clocks"][5] = dict(copy.deepcopy(absent), name="pit", absent_reason=(
        "ports 0x40-0x43 are denied by Xen: dom0 reads 0xff from the PIT"))
    document["clocks"][3]["rate_reference"] = "xen_pvclock"
    tsc = document["clocks"][0]
    document["clocks"].append(dict(copy.deepcopy(tsc), name="xen_pvclock",
                                   freq_hz=1000000000, freq_source="pvclock (ns)",
                                   flags=["per_cpu", "reads_ns"], rate_ppm=1.2,
                                   rate_uncertainty_ppm=300.0, rate_reference="hpet"))
    cross = document["cross_cpu"]
    cross["clocks"] = [clock for clock in cross["clocks"]
                       if clock["clock"] not in ("acpi_pm", "pit")]
    # As seen under QEMU TCG, -smp 2: vCPU 1's pvclock ms behind vCPU 0's, and warping.
    cross["clocks"].append(dict(copy.deepcopy(cross["clocks"][0]), clock="xen_pvclock",
                                warps=5019, worst_warp_ns=3101925))
    return document


def json_lines(document, width=37):
    """A document as the guest may print it: `json| ` lines cut every `width` characters,
    even inside strings and numbers."""
    text = json.dumps(document)
    return [report.PREFIX + text[i:i + width] for i in range(0, len(text), width)]


def run_tool(args, cwd=ROOT, env=None, program=CLOCKBENCH, stdin=None):
    """Run a tool with /usr/bin/python3; returns the CompletedProcess."""
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    environ.update(env or {})
    return subprocess.run([PYTHON, program, *args], cwd=cwd, env=environ, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


class Extraction(unittest.TestCase):
    """Finding and parsing the report in console lines."""

    def test_good_fixture(self):
        document = report.load_report(fixture_lines("good.log"), "good.log")
        self.assertEqual(document["schema"], "clockbench/1")
        self.assertEqual([clock["name"] for clock in document["clocks"]],
                         ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet", "acpi_pm", "pit",
                          "kvm_clock"])
        self.assertEqual(document["clocks"][3]["read_ns"]["p50"], 300.0)
        self.assertEqual(document["verdict"], "pass")

    def test_smp_fixture(self):
        """smp.log: 3 CPUs, with cross_cpu, and another CPU's line inside it."""
        self.assertIn("cpu2: offsets against CPU 0 done", fixture_lines("smp.log"))
        self.assertEqual(_SMP["env"]["cpus_online"], 3)
        cross = _SMP["cross_cpu"]
        self.assertEqual((cross["applies"], cross["cpus"]), (True, 3))
        self.assertEqual([clock["clock"] for clock in cross["clocks"]],
                         ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet", "acpi_pm", "pit"])
        self.assertEqual(cross["clocks"][0]["offsets"][0],
                         {"cpu": 1, "apic_id": 1, "offset_ns": 12.5, "uncertainty_ns": 40.0})
        lines = [report.BEGIN, *json_lines(_SMP, 23), report.END]
        self.assertEqual(report.load_report(lines, "x"), _SMP)

    def test_interleaved_lines_are_ignored(self):
        """good.log has a `cpu1: ...` line inside its report; other lines may come anywhere."""
        lines = fixture_lines("good.log")
        self.assertIn("cpu1: a line from another CPU, which the report ignores", lines)
        noisy = []
        for line in lines:
            noisy.append(line)
            if line.startswith(report.PREFIX):
                noisy += ["cpu2: json is not here", "  json|  indented, not a report line", ""]
        self.assertEqual(report.load_report(noisy, "x"), _GOOD)

    def test_concatenation_across_any_break(self):
        for width in (1, 7, 37, 500):
            lines = ["# 1 passed", report.BEGIN, *json_lines(_GOOD, width), report.END]
            self.assertEqual(report.load_report(lines, "x"), _GOOD, width)

    def test_raw_console_log(self):
        """CR LF line ends, ANSI escapes and no final newline, as a serial capture gives."""
        with open(fixture("good.log"), encoding="utf-8") as log:
            text = log.read()
        raw = ("\x1b[2J\x1b[01;01H" + text.replace("\n", "\r\n")).rstrip("\r\n")
        raw = raw.replace("clockbench-json begin", "\x1b[0mclockbench-json begin")
        with tempfile.NamedTemporaryFile("wb", suffix=".log") as out:
            out.write(raw.encode())
            out.flush()
            self.assertEqual(report.load_report_file(out.name), _GOOD)

    def test_last_report_wins(self):
        older = good_document()
        older["version"] = "older"
        lines = [report.BEGIN, *json_lines(older), report.END,
                 report.BEGIN, *json_lines(_GOOD), report.END]
        self.assertEqual(report.load_report(lines, "x")["version"], _GOOD["version"])

    def assert_sentence(self, lines, sentence):
        """Loading `lines` must fail with exactly "x: " + sentence."""
        with self.assertRaises(RunnerError) as caught:
            report.load_report(lines, "x")
        self.assertEqual(str(caught.exception), "x: " + sentence)
        self.assertEqual(caught.exception.status, 2)

    def test_malformed_fixtures(self):
        for name, sentence in MALFORMED.items():
            with self.subTest(name):
                self.assert_sentence(fixture_lines(name), sentence)

    def test_other_malformed_reports(self):
        self.assert_sentence([report.BEGIN, "not prefixed", report.END],
                             "the report has no 'json|' lines between 'clockbench-json "
                             "begin' and 'clockbench-json end'")
        self.assert_sentence([report.BEGIN, "json| [1, 2]", report.END],
                             "the report is a JSON list, not an object")
        self.assert_sentence([report.BEGIN, 'json| {"a": NaN}', report.END],
                             "the report is not valid JSON: NaN is not JSON (a non-finite "
                             "value must be printed as null)")
        self.assert_sentence([report.BEGIN, 'json| {"a": 1,', 'json|  "a": 2}', report.END],
                             "the report is not valid JSON: the key 'a' appears twice in "
                             "one object")
        self.assert_sentence([report.BEGIN, 'json| {"a": 1', report.END],
                             "the report is not valid JSON: Expecting ',' delimiter "
                             "(log line 2, column 14)")

    def test_has_report(self):
        self.assertTrue(report.has_report(fixture_lines("truncated.log")))
        self.assertFalse(report.has_report(fixture_lines("no-report.log")))


class Validation(unittest.TestCase):
    """docs/report.schema.json through report.validate_document()."""

    def assert_invalid(self, change, sentence):
        """Validating the good document after `change(document)` must say `sentence`."""
        document = good_document()
        change(document)
        with self.assertRaises(RunnerError) as caught:
            report.validate_document(document, "x")
        self.assertEqual(str(caught.exception), "x: " + sentence)

    def test_schema_is_valid_draft_2020_12(self):
        from jsonschema import Draft202012Validator  # pylint: disable=import-outside-toplevel
        with open(os.path.join(ROOT, report.SCHEMA_FILE), encoding="utf-8") as schema:
            Draft202012Validator.check_schema(json.load(schema))

    def test_good_document_and_extra_keys(self):
        report.validate_document(good_document(), "x")
        document = good_document()
        document["later"] = {"anything": 1}
        document["env"]["numa_nodes"] = 2
        document["clocks"][0]["p9999"] = 3
        document["clocks"][0]["read_cycles"]["p9999"] = 3
        document["clocks"].append(dict(document["clocks"][6], name="xen_pvclock"))
        report.validate_document(document, "x")

    def test_cross_cpu_is_optional_but_checked(self):
        """Older logs (good.log) lack cross_cpu and env.cpus_online; when there, they are
        validated fully."""
        self.assertNotIn("cross_cpu", _GOOD)
        self.assertNotIn("cpus_online", _GOOD["env"])
        report.validate_document(smp_document(), "x")
        report.validate_document(single_cpu_document(), "x")
        for key in ("applies", "reason", "cpus", "clocks"):
            self.assert_invalid_smp(lambda d, key=key: d["cross_cpu"].pop(key),
                                    f"cross_cpu: '{key}' is a required property")
        for key in _SMP["cross_cpu"]["clocks"][0]:
            self.assert_invalid_smp(lambda d, key=key: d["cross_cpu"]["clocks"][0].pop(key),
                                    f"cross_cpu.clocks[0]: '{key}' is a required property")
        for key in ("offsets", "drift_ppm"):
            for field in _SMP["cross_cpu"]["clocks"][0][key][1]:
                self.assert_invalid_smp(
                    lambda d, key=key, field=field: d["cross_cpu"]["clocks"][0][key][1].pop(
                        field),
                    f"cross_cpu.clocks[0].{key}[1]: '{field}' is a required property")

    def test_ticks_are_optional_but_checked(self):
        """Older logs (good.log) lack ticks; when there, they are validated fully."""
        self.assertNotIn("ticks", _GOOD)
        report.validate_document(ticks_document(), "x")
        cases = [
            (lambda d: d["ticks"].pop("sources"), "ticks: 'sources' is a required property"),
            (lambda d: d["ticks"]["sources"][1].update(absent_reason=""),
             "ticks.sources[1].absent_reason: '' is too short"),
            (lambda d: tick_rate(d, "pit", 1000).pop("lateness_ns"),
             "ticks.sources[3].rates[1]: 'lateness_ns' is a required property"),
            (lambda d: tick_rate(d, "pit", 1000).update(state="unreachable", problem=None),
             "ticks.sources[3].rates[1].problem: null is not of type string"),
            (lambda d: tick_rate(d, "pit", 1000)["lateness_ns"].update(p50=1.5),
             "ticks.sources[3].rates[1].lateness_ns.p50: 1.5 is not of type integer"),
            (lambda d: d["ticks"].update(applies=False),
             "ticks.reason: null is not of type string"),
        ]
        for change, sentence in cases:
            with self.subTest(sentence):
                document = ticks_document()
                change(document)
                with self.assertRaises(RunnerError) as caught:
                    report.validate_document(document, "x")
                self.assertTrue(str(caught.exception).startswith("x: " + sentence),
                                str(caught.exception))
        # A rate nothing could measure keeps only its reason; no records, no distributions.
        document = ticks_document()
        rate = tick_rate(document, "pit", 100)
        for key in list(rate):
            if key not in ("requested_hz", "state", "problem"):
                del rate[key]
        rate.update(state="unreachable", problem="its 16-bit divisor allows no fewer")
        report.validate_document(document, "x")
        rate = tick_rate(document, "pit", 1000)
        rate.update(records=0, handler_cycles=None, lateness_ns=None)
        report.validate_document(document, "x")

    def test_firmware_that_lists_no_cpu(self):
        """A MADT with no enabled CPU (issue 19): env.cpus is null, env.firmware_cpus 0,
        and the document is valid; cpus keeps its range of the first release."""
        document = single_cpu_document()
        document["env"].update(cpus=None, firmware_cpus=0)
        report.validate_document(document, "x")
        self.assertEqual(report.cpus_text(document["env"]),
                         "1 CPU online (the firmware listed none)")
        self.assertRegex(report.summary_lines(document, "x")[1],
                         r"^\w+, \w+, 1 CPU online \(the firmware listed none\), ")
        self.assertEqual(report.cpus_text(dict(document["env"], firmware_cpus=None)),
                         "1 CPU online (the firmware's count unknown)")
        for change, sentence in (
                ({"cpus": 0}, "env.cpus: 0 is less than the minimum of 1"),
                ({"firmware_cpus": -1}, "env.firmware_cpus: -1 is less than the minimum of 0"),
                ({"firmware_cpus": "none"},
                 "env.firmware_cpus: \"none\" is not of type integer or null")):
            with self.subTest(change=change):
                document = single_cpu_document()
                document["env"].update(change)
                with self.assertRaises(RunnerError) as caught:
                    report.validate_document(document, "x")
                self.assertEqual(str(caught.exception), "x: " + sentence)

    def assert_invalid_smp(self, change, sentence):
        """Validating the SMP document after `change(document)` must say `sentence`."""
        document = smp_document()
        change(document)
        with self.assertRaises(RunnerError) as caught:
            report.validate_document(document, "x")
        self.assertEqual(str(caught.exception), "x: " + sentence)

    def test_cross_cpu_types_and_nulls(self):
        def clock(document, index=0):
            return document["cross_cpu"]["clocks"][index]
        cases = [
            (lambda d: d["env"].update(cpus_online=0),
             "env.cpus_online: 0 is less than the minimum of 1"),
            (lambda d: d["cross_cpu"].update(reason="two CPUs"),
             "cross_cpu.reason: \"two CPUs\" is not of type null"),
            (lambda d: d["cross_cpu"].update(cpus=1),
             "cross_cpu.cpus: 1 is less than the minimum of 2"),
            (lambda d: d["cross_cpu"].update(applies=False),
             "cross_cpu.clocks: [] was expected (and 1 more problem)"),
            (lambda d: d["cross_cpu"].update(applies=False, reason="one CPU"),
             "cross_cpu.clocks: [] was expected"),
            (lambda d: d["cross_cpu"].update(applies="yes"),
             "cross_cpu.applies: \"yes\" is not of type boolean"),
            (lambda d: clock(d).update(warps=-1),
             "cross_cpu.clocks[0].warps: -1 is less than the minimum of 0"),
            (lambda d: clock(d).update(worst_warp_ns=None),
             "cross_cpu.clocks[0].worst_warp_ns: null is not of type number"),
            (lambda d: clock(d).update(worst_warp_ns=-2.5),
             "cross_cpu.clocks[0].worst_warp_ns: -2.5 is less than the minimum of 0"),
            (lambda d: clock(d).update(iterations=1.5),
             "cross_cpu.clocks[0].iterations: 1.5 is not of type integer"),
            (lambda d: clock(d).update(claims_stable=None),
             "cross_cpu.clocks[0].claims_stable: null is not of type boolean"),
            (lambda d: clock(d)["offsets"][0].update(cpu=0),
             "cross_cpu.clocks[0].offsets[0].cpu: 0 is less than the minimum of 1"),
            (lambda d: clock(d)["offsets"][0].update(uncertainty_ns=-1.0),
             "cross_cpu.clocks[0].offsets[0].uncertainty_ns: -1.0 is less than the minimum "
             "of 0"),
            (lambda d: clock(d)["offsets"][0].update(offset_ns="12"),
             "cross_cpu.clocks[0].offsets[0].offset_ns: \"12\" is not of type number or "
             "null"),
            (lambda d: clock(d)["drift_ppm"][1].update(samples=None),
             "cross_cpu.clocks[0].drift_ppm[1].samples: null is not of type integer"),
        ]
        for change, sentence in cases:
            with self.subTest(sentence):
                self.assert_invalid_smp(change, sentence)
        # Null where a value could not be had: an offset without a valid bracket, a drift
        # that could not be fitted.  Valid (smp_facts refuses the first).
        document = smp_document()
        clock(document)["offsets"][0].update(offset_ns=None, uncertainty_ns=None)
        clock(document)["drift_ppm"][0].update(drift_ppm=None, uncertainty_ppm=None)
        report.validate_document(document, "x")
        document = single_cpu_document()
        document["cross_cpu"]["reason"] = ""
        with self.assertRaises(RunnerError) as caught:
            report.validate_document(document, "x")
        self.assertEqual(str(caught.exception), "x: cross_cpu.reason: '' is too short")

    def test_every_listed_field_is_required(self):
        for key in ("schema", "version", "env", "budget_ms", "empty_bracket_cycles", "clocks",
                    "checks", "verdict"):
            self.assert_invalid(lambda d, key=key: d.pop(key), f"'{key}' is a required property")
        for key in _GOOD["env"]:
            self.assert_invalid(lambda d, key=key: d["env"].pop(key),
                                f"env: '{key}' is a required property")
        for key in _GOOD["clocks"][4]:
            self.assert_invalid(lambda d, key=key: d["clocks"][4].pop(key),
                                f"clocks[4]: '{key}' is a required property")

    def test_types_and_nulls(self):
        self.assert_invalid(lambda d: d["clocks"][0].update(samples=None),
                            "clocks[0].samples: null is not of type integer (a present "
                            "clock's facts are not null)")
        self.assert_invalid(lambda d: d["clocks"][6].update(samples=5),
                            "clocks[6].samples: 5 is not of type null (an absent clock gives "
                            "its reason, and its measurements are null)")
        self.assert_invalid(lambda d: d["clocks"][6].update(absent_reason=None),
                            "clocks[6].absent_reason: null is not of type string (an absent "
                            "clock gives its reason, and its measurements are null)")
        self.assert_invalid(lambda d: d["clocks"][0]["read_cycles"].update(p50=12.5),
                            "clocks[0].read_cycles.p50: 12.5 is not of type integer")
        self.assert_invalid(lambda d: d["clocks"][1]["read_ns"].pop("p999"),
                            "clocks[1].read_ns: 'p999' is a required property")
        self.assert_invalid(lambda d: d.update(verdict="PASS"),
                            "verdict: 'PASS' is not one of ['pass', 'fail', 'skip', 'error', 'hang']")
        self.assert_invalid(lambda d: d["env"].update(boot="floppy"),
                            "env.boot: 'floppy' is not one of ['multiboot1', 'multiboot2', "
                            "'pvh', 'xen-pv']")

    def test_clock_order_and_count(self):
        # The order is the image's clock table's, which the schema does not repeat.
        document = good_document()
        document["clocks"].insert(3, document["clocks"].pop(4))
        report.validate_document(document, "x")
        self.assert_invalid(lambda d: d.update(clocks=[]),
                            "clocks: has 0 entries, expected at least 1")

    def test_schema_version(self):
        self.assert_invalid(lambda d: d.update(schema="clockbench/3"),
                            "report schema is 'clockbench/3'; this tool reads clockbench/2 "
                            "(and clockbench/1 reports)")
        self.assert_invalid(lambda d: d.update(schema=1),
                            "report schema is 1; this tool reads clockbench/2 (and clockbench/1 "
                            "reports)")

    def test_missing_jsonschema_names_the_package(self):
        code = textwrap.dedent(f"""\
            import sys
            sys.modules["jsonschema"] = None  # as if python3-jsonschema were not installed
            sys.path.insert(0, {os.path.join(ROOT, "tools")!r})
            from clockbench_lib.cli import main
            sys.exit(main(["parse", {fixture("good.log")!r}]))
            """)
        result = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                                check=False, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(),
                         "clockbench parse: validating the report needs the Python module "
                         "jsonschema: install the Debian package python3-jsonschema (`make "
                         "deps` installs all of clockbench's dependencies).")


class ParseCommand(unittest.TestCase):
    """`tools/clockbench parse` as a user runs it."""

    def test_summary(self):
        result = run_tool(["parse", fixture("good.log")])
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].endswith(": clockbench/1 report from clockbench 0.1.0 "
                                          "(abc1234): PASS (3 passed, 0 failed, 0 skipped)"))
        self.assertEqual(lines[1], "TCG, multiboot1, 1 CPU, 63 MiB, TSC 2.30 GHz, budget "
                                   "2000 ms, empty bracket p50 46 cycles")
        self.assertEqual(lines[2].split(), ["clock", "present", "p50", "ns", "p99", "ns",
                                            "batch", "ns/read", "resolution", "ns", "backward",
                                            "raw/ns", "rate", "ppm", "trapped"])
        self.assertEqual(lines[6].split(), ["hpet", "yes", "300", "609", "280", "10.0", "0/0",
                                            "+1.5", "±", "3.0", "no"])
        self.assertEqual(lines[-1], "kvm_clock    absent: no KVM signature (the hypervisor "
                                    "is TCG)")
        self.assertEqual(len(lines), 3 + 7)

    def test_summary_with_ticks(self):
        result = run_tool(["parse", fixture("ticks.log")])
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        start = lines.index("ticks: 100 ms a rate")
        self.assertEqual(lines[start + 1].split()[:4], ["source", "rate", "Hz", "intr/s"])
        rows = [line.split() for line in lines[start + 2:start + 14]]
        self.assertEqual([(row[0], row[1]) for row in rows],
                         [(name, hz) for name in ("lapic", "hpet", "pit")
                          for hz in ("100", "1000", "10000", "100000")])
        self.assertIn("tsc_deadline: absent: not offered: CPUID.1:ECX[24] (TSC-deadline "
                      "timer) is clear", lines)
        without = run_tool(["parse", fixture("good.log")]).stdout.splitlines()
        self.assertFalse([line for line in without if line.startswith("ticks")])

    def test_json_and_quiet(self):
        with tempfile.TemporaryDirectory() as directory:
            out = os.path.join(directory, "r.json")
            result = run_tool(["parse", "--json", out, fixture("good.log")])
            self.assertEqual((result.returncode, result.stdout), (0, ""), result.stderr)
            with open(out, encoding="utf-8") as written:
                self.assertEqual(json.load(written), _GOOD)
        result = run_tool(["parse", "--json", "-", fixture("good.log")])
        self.assertEqual(json.loads(result.stdout), _GOOD)
        result = run_tool(["parse", "--quiet", fixture("good.log")])
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))

    def test_standard_input(self):
        with open(fixture("good.log"), encoding="utf-8") as log:
            result = run_tool(["parse", "--quiet", "-"], stdin=log.read())
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_malformed_logs_are_one_sentence_and_exit_2(self):
        for name, sentence in MALFORMED.items():
            with self.subTest(name):
                shown = os.path.join("tests", "tools", "fixtures", name)
                result = run_tool(["parse", shown])
                self.assertEqual(result.returncode, 2)
                self.assertEqual(result.stdout, "")
                self.assertEqual(result.stderr, f"clockbench parse: {shown}: {sentence}\n")
        result = run_tool(["parse", "no/such.log"])
        self.assertEqual((result.returncode, result.stderr),
                         (2, "clockbench parse: cannot read no/such.log: No such file or "
                             "directory.\n"))


class Checks(unittest.TestCase):
    """The report= checks of reportchecks.py on good and bad documents."""

    def problems(self, name, change=None, document=None):
        """The problems check `name` finds in `document` (by default the good one) after
        `change`."""
        document = document or good_document()
        if change:
            change(document)
        report.validate_document(document, "x")  # the checks only ever see valid documents
        return reportchecks.CHECKS[name](document)

    def test_good_documents(self):
        self.assertEqual(self.problems("valid"), [])
        self.assertEqual(self.problems("tcg_facts"), [])
        self.assertEqual(self.problems("kvm_facts", document=kvm_document()), [])

    def test_kvm_facts_on_tcg_and_without_stability(self):
        self.assertEqual(self.problems("kvm_facts"), [
            "env.hypervisor is 'TCG', expected 'KVM'",
            "kvm_clock is absent: no KVM signature (the hypervisor is TCG)"])
        document = kvm_document()
        document["clocks"][6]["flags"].remove("claims_stable")
        self.assertEqual(self.problems("kvm_facts", document=document), [
            "kvm_clock: flags ['per_cpu', 'per_cpu_setup', 'reads_ns'] lack claims_stable"])

    def test_tcg_facts_on_kvm(self):
        self.assertEqual(self.problems("tcg_facts", document=kvm_document()),
                         ["env.hypervisor is 'KVM', expected 'TCG'"])

    def test_nominal_frequencies(self):
        self.assertEqual(self.problems("tcg_facts", lambda d: d["clocks"][3].update(
            freq_hz=99999999)), ["hpet: freq_hz is 99999999, expected 100000000"])
        self.assertEqual(self.problems("tcg_facts", lambda d: d["clocks"][4].update(
            freq_hz=3579544)), ["acpi_pm: freq_hz is 3579544, expected 3579545"])
        # Absent, they are not required: no HPET on a machine with hpet=off.
        def without_hpet(document):
            document["clocks"][3] = dict(_GOOD["clocks"][6], name="hpet",
                                         absent_reason="no valid ACPI HPET table")
            for clock in document["clocks"]:
                if clock["rate_reference"] == "hpet":
                    clock["rate_reference"] = "pit" if clock["name"] == "acpi_pm" else "acpi_pm"
        self.assertEqual(self.problems("tcg_facts", without_hpet), [])

    def test_sanity(self):
        cases = [
            (lambda d: d["clocks"][3]["read_ns"].update(p90=700.0),
             ["hpet: read_ns is out of order: p90 700.0 > p99 608.7"]),
            (lambda d: d["clocks"][1]["read_cycles"].update(min=-3),
             ["tsc_rdtscp: read_cycles.min is -3: a negative cost"]),
            (lambda d: d["clocks"][1].update(batch_ns_per_read=-0.5),
             ["tsc_rdtscp: batch_ns_per_read is -0.5: a negative cost"]),
            (lambda d: d["clocks"][2]["read_ns"].update(p50=None),
             ["tsc_ordered: read_ns.p50 is null"]),
            (lambda d: d["clocks"][3].update(rate_reference="hpet"),
             ["hpet: rate_reference 'hpet' is not another present clock"]),
            (lambda d: d["clocks"][3].update(rate_reference="kvm_clock"),
             ["hpet: rate_reference 'kvm_clock' is not another present clock"]),
            (lambda d: d["clocks"][5].update(samples=0),
             ["pit: samples is 0, expected more than 0"]),
            (lambda d: d["empty_bracket_cycles"].update(min=50, p50=46),
             ["empty_bracket_cycles is out of order: min 50 > p50 46"]),
            (lambda d: d["clocks"][0]["read_cycles"].update(min=-1),
             ["tsc: read_cycles.min is -1, expected at least 0 (the empty bracket is "
              "over-subtracted)", "tsc: read_cycles.min is -1: a negative cost"]),
            (lambda d: d["checks"].update(failed=1),
             ["verdict is 'pass' although checks.failed is 1"]),
            (lambda d: d["clocks"].append(dict(d["clocks"][6])),
             ["the clock 'kvm_clock' is listed more than once"]),
        ]
        for change, expected in cases:
            with self.subTest(expected[0]):
                self.assertEqual(self.problems("tcg_facts", change), expected)
                self.assertEqual(self.problems("valid", change), [])

    def test_the_guests_verdicts_are_read_not_judged_again(self):
        """A report that lists its checks (checks.list) is asked whether the guest judged
        each clock, not judged again: a clock stepping back with its check passed (the
        guest's tolerance allows it, or it does not judge a trapped port clock) is no
        problem; a failed or missing check is, named as the guest named it."""
        def listed(**results):
            def change(document):
                checks = [{"name": "the empty TSC bracket is measured and subtracted",
                           "result": "pass", "info": ""}]
                for clock in document["clocks"]:
                    if clock["present"] and clock["measured"]:
                        checks += [{"name": f"{clock['name']}: {check}", "result": "pass",
                                    "info": ""}
                                   for check in ("advances",
                                                 "never went backwards in back-to-back reads",
                                                 "runs at its nominal rate within 10000 ppm")]
                for check in checks:
                    check["result"] = results.get(check["name"], check["result"])
                document["checks"]["list"] = [c for c in checks if c["result"] != "gone"]
                document["clocks"][5].update(backward_steps=2, worst_backward_ns=838.1)
            return change
        self.assertEqual(self.problems("tcg_facts", listed()), [])
        self.assertEqual(self.problems("tcg_facts", listed(**{
            "pit: never went backwards in back-to-back reads": "skip"})), [])
        self.assertEqual(self.problems("tcg_facts", listed(**{
            "pit: never went backwards in back-to-back reads": "fail",
            "hpet: runs at its nominal rate within 10000 ppm": "gone"})), [
                "hpet: the guest made no check 'hpet: runs at its nominal rate*'",
                "pit: the guest's check 'pit: never went backwards in back-to-back reads' "
                "is fail"])

    def test_shared_rates(self):
        def share(name, source, **changes):
            """The clock `name` takes `source`'s rate, then `changes`."""
            def change(document):
                clocks = {clock["name"]: clock for clock in document["clocks"]}
                clocks[name].update({member: clocks[source][member]
                                     for member in ("rate_ppm", "rate_uncertainty_ppm",
                                                    "rate_reference")},
                                    rate_shared_from=source, **changes)
            return change
        self.assertEqual(self.problems("tcg_facts", share("tsc_rdtscp", "tsc")), [])
        self.assertEqual(self.problems("valid", share("tsc_rdtscp", "tsc")), [])
        cases = [
            (share("tsc_rdtscp", "tsc", rate_ppm=5.5),
             ["tsc_rdtscp: rate_ppm is 5.5, but tsc's, whose rate it shares, is "
              f"{_GOOD['clocks'][0]['rate_ppm']}"]),
            (share("pit", "hpet"),
             ["pit: rate_shared_from 'hpet' runs at 100000000 Hz, not 1193182"]),
            (share("tsc", "tsc_ordered"),
             ["tsc: rate_shared_from 'tsc_ordered' is not an earlier present clock that "
              "measured its own rate"]),
            (lambda d: (share("tsc_rdtscp", "tsc")(d), share("tsc_ordered", "tsc_rdtscp")(d)),
             ["tsc_ordered: rate_shared_from 'tsc_rdtscp' is not an earlier present clock "
              "that measured its own rate"]),
        ]
        for change, expected in cases:
            with self.subTest(expected[0]):
                self.assertEqual(self.problems("tcg_facts", change), expected)

    def test_cross_cpu_checks_on_good_documents(self):
        self.assertEqual(self.problems("smp_facts", document=smp_document()), [])
        self.assertEqual(self.problems("tcg_facts", document=smp_document()), [])
        self.assertEqual(self.problems("single_cpu_facts", document=single_cpu_document()), [])
        self.assertEqual(self.problems("tcg_facts", document=single_cpu_document()), [])

    def test_cross_cpu_checks_on_the_wrong_machine(self):
        missing = "cross_cpu is missing (a guest from before cross-CPU measurements?)"
        self.assertEqual(self.problems("smp_facts"), [missing])
        self.assertEqual(self.problems("single_cpu_facts"), [missing])
        self.assertEqual(self.problems("smp_facts", document=single_cpu_document()),
                         ["cross_cpu does not apply: Only one CPU is online: nothing to "
                          "compare."])
        self.assertEqual(self.problems("single_cpu_facts", document=smp_document()),
                         ["cross_cpu applies with 3 CPUs, expected it not to on one CPU"])
        document = single_cpu_document()
        document["env"]["cpus_online"] = 2
        self.assertEqual(self.problems("single_cpu_facts", document=document),
                         ["cross_cpu.cpus is 1, but env.cpus_online is 2"])

    def test_smp_facts(self):
        def clock(document, index=0):
            return document["cross_cpu"]["clocks"][index]

        def stable_tsc(document):
            document["clocks"][0]["flags"].append("claims_stable")
            clock(document)["claims_stable"] = True

        def warping_stable_tsc(document):
            """Warps the guest judged and passed are not judged again here."""
            stable_tsc(document)
            clock(document).update(warps=3, worst_warp_ns=41.5)

        cases = [
            (lambda d: d["env"].pop("cpus_online"), ["env.cpus_online is missing"]),
            (lambda d: d["env"].update(cpus_online=4),
             ["cross_cpu.cpus is 3, but env.cpus_online is 4"]),
            (lambda d: d["cross_cpu"].update(clocks=[]),
             ["cross_cpu.clocks is empty: no clock was compared across CPUs"]),
            (warping_stable_tsc, []),
            (lambda d: clock(d, 3).update(worst_warp_ns=5.0),
             ["cross_cpu: hpet: worst_warp_ns is 5.0 although warps is 0"]),
            (lambda d: clock(d)["offsets"].pop(),
             ["cross_cpu: tsc: offsets covers 1 CPUs [1], expected one entry for each of the "
              "2 CPUs other than 0"]),
            (lambda d: clock(d)["drift_ppm"][1].update(cpu=1),
             ["cross_cpu: tsc: drift_ppm lists CPU 1 more than once"]),
            (lambda d: clock(d, 5)["offsets"].append(dict(clock(d, 5)["offsets"][1], cpu=3)),
             ["cross_cpu: pit: offsets covers 3 CPUs [1, 2, 3], expected one entry for each "
              "of the 2 CPUs other than 0"]),
            (lambda d: clock(d, 4)["drift_ppm"][1].update(cpu=3),
             ["cross_cpu: acpi_pm: drift_ppm covers CPUs [1, 3], but offsets CPUs [1, 2]"]),
            (lambda d: clock(d, 1)["offsets"][1].update(offset_ns=None),
             ["cross_cpu: tsc_rdtscp: offsets: CPU 2 has offset_ns null, expected a number"]),
            (lambda d: clock(d, 1)["offsets"][0].update(uncertainty_ns=None),
             ["cross_cpu: tsc_rdtscp: offsets: CPU 1 has uncertainty_ns null, expected a "
              "number"]),
            (lambda d: clock(d)["drift_ppm"][0].update(uncertainty_ppm=None),
             ["cross_cpu: tsc: drift_ppm: CPU 1 has uncertainty_ppm null but not the other"]),
            (lambda d: clock(d)["drift_ppm"][0].update(samples=1),
             ["cross_cpu: tsc: drift_ppm: CPU 1 has a slope from 1 samples, expected at "
              "least 2"]),
            (lambda d: clock(d).update(clock="kvm_clock"),
             ["cross_cpu: kvm_clock: is not a present clock of the report"]),
            (lambda d: d["cross_cpu"]["clocks"].append(copy.deepcopy(clock(d, 3))),
             ["cross_cpu: the clock 'hpet' is listed more than once"]),
            (lambda d: clock(d).update(claims_stable=True),
             ["cross_cpu: tsc: claims_stable is true, but the clock's flags ['per_cpu'] say "
              "otherwise"]),
        ]
        for change, expected in cases:
            with self.subTest(expected[0] if expected else "passes"):
                self.assertEqual(self.problems("smp_facts", change, smp_document()), expected)
                self.assertEqual(self.problems("valid", change, smp_document()), [])
        # A stable clock without warps, a clock that does not claim stability with them,
        # and a drift that could not be fitted are all fine.
        def fine(document):
            stable_tsc(document)
            clock(document, 3).update(warps=7, worst_warp_ns=1200.0)
            clock(document, 2)["drift_ppm"][0].update(drift_ppm=None, uncertainty_ppm=None,
                                                      samples=0)
        self.assertEqual(self.problems("smp_facts", fine, smp_document()), [])

    def test_smp_facts_with_a_cpu_held_back(self):
        """4 CPUs listed, CPU 2 held back: CPUs 1 and 3 are compared with CPU 0."""
        def held_back(document):
            for clock in document["cross_cpu"]["clocks"]:
                clock["offsets"][1].update(cpu=3, apic_id=3)
                clock["drift_ppm"][1]["cpu"] = 3
        document = smp_document()
        document["env"]["cpus"] = 4
        self.assertEqual(self.problems("smp_facts", held_back, document), [])

    def test_xen_pv_facts(self):
        self.assertEqual(self.problems("xen_pv_facts", document=xen_document()), [])
        self.assertEqual(self.problems("smp_facts", document=xen_document()), [])

        def pvclock(document):
            return document["clocks"][7]

        def one_cpu(document):
            document["env"]["cpus_online"] = 1
            document["cross_cpu"] = {"applies": False, "cpus": 1, "clocks": [],
                                     "reason": "Only one CPU is online: nothing to compare."}

        def stable_pvclock(document):
            pvclock(document)["flags"].append("claims_stable")
            document["cross_cpu"]["clocks"][4]["claims_stable"] = True

        def without_pvclock(document):
            document["clocks"].pop()
            document["clocks"][3]["rate_reference"] = "tsc_ordered"
            document["cross_cpu"]["clocks"].pop()

        cases = [
            (lambda d: d["env"].update(hypervisor="TCG"),
             ["env.hypervisor is 'TCG', expected 'Xen'"]),
            (lambda d: d["env"].update(boot="pvh"), ["env.boot is 'pvh', expected 'xen-pv'"]),
            (without_pvclock, ["xen_pvclock is absent: not listed"]),
            (lambda d: pvclock(d).update(freq_hz=2300000000),
             ["xen_pvclock: freq_hz is 2300000000, expected 1000000000 (it counts ns)"]),
            (lambda d: pvclock(d)["flags"].remove("reads_ns"),
             ["xen_pvclock: flags ['per_cpu'] lack reads_ns"]),
            (lambda d: d["clocks"][3].update(freq_hz=14318180),
             ["hpet: freq_hz is 14318180, expected 100000000"]),
            (lambda d: d["clocks"][5].update(absent_reason="no PIT here"),
             ["pit: absent_reason 'no PIT here' does not say 'denied by Xen'"]),
            (lambda d: d["cross_cpu"]["clocks"][3].update(warps=2, worst_warp_ns=80.0),
             ["cross_cpu: hpet: warps is 2 (worst 80.0 ns), expected 0"]),
            (lambda d: d.pop("cross_cpu"),
             ["cross_cpu is missing although env.cpus_online is 3"]),
            (stable_pvclock,
             ["cross_cpu: xen_pvclock: warps is 5019 (worst 3101925 ns), expected 0"]),
        ]
        for change, expected in cases:
            with self.subTest(expected[0]):
                self.assertEqual(self.problems("xen_pv_facts", change, xen_document()),
                                 expected)
        # One CPU: nothing compared, nothing required.
        self.assertEqual(self.problems("xen_pv_facts", one_cpu, xen_document()), [])

    def test_xen_pvh_dom0_facts(self):
        """A PVH dom0's report: boot pvh, the map from Xen, rdtsc emulated by Xen and
        so trapped, the PM timer and PIT denied."""
        def pvh_dom0(document):
            document["env"].update(boot="pvh")
            document["env"]["xen"].update(guest="pvh", tsc_emulated=True)
            document["clocks"][0]["trapped"] = True
            # Two emulated rdtsc: the empty bracket is far above native.
            document["empty_bracket_cycles"].update(min=130000, p50=140000, p90=150000,
                                                    p99=160000, p999=170000, max=180000)

        def changed(change):
            def both(document):
                pvh_dom0(document)
                change(document)
            return both

        self.assertEqual(self.problems("xen_pvh_dom0_facts", pvh_dom0, xen_document()), [])
        cases = [
            (lambda d: d["env"]["xen"].update(domain="domU"),
             ["env.xen says pvh domU, expected pvh dom0"]),
            (lambda d: d["env"].update(boot="multiboot2"),
             ["env.boot is 'multiboot2', expected 'pvh'"]),
            (lambda d: d["clocks"][0].update(trapped=False),
             ["tsc is not trapped, although Xen's CPUID leaf says it emulates rdtsc here"]),
            (lambda d: d["env"].update(memory_mib=0),
             ["env.memory_mib is 0: the memory map did not come from Xen"]),
            (lambda d: d["clocks"][4].update(absent_reason="port 0x608 reads as all ones"),
             ["acpi_pm: absent_reason 'port 0x608 reads as all ones' does not say "
              "'denied by Xen'"]),
        ]
        for change, expected in cases:
            with self.subTest(expected[0]):
                self.assertEqual(self.problems("xen_pvh_dom0_facts", changed(change),
                                               xen_document()), expected)
        # Xen's PV dom0 check refuses it.
        self.assertIn("env.boot is 'pvh', expected 'xen-pv'",
                      self.problems("xen_pv_facts", pvh_dom0, xen_document()))

    def test_xen_domu_facts(self):
        """A domU of each kind: its boot and guest type, and the clocks it can and cannot
        have."""
        def domu(guest, boot):
            def change(document):
                document["env"].update(boot=boot)
                document["env"]["xen"].update(guest=guest, domain="domU",
                                              tsc_emulated=True)
                document["clocks"][0]["trapped"] = True
                document["empty_bracket_cycles"].update(min=13000, p50=14000, p90=15000,
                                                        p99=16000, p999=17000, max=18000)
                native = smp_document()["clocks"]
                absent = document["clocks"][6]
                for index, name in ((3, "hpet"), (4, "acpi_pm"), (5, "pit")):
                    if guest == "hvm":
                        document["clocks"][index] = dict(native[index], trapped=True)
                    elif guest == "pvh" or name != "pit":
                        document["clocks"][index] = dict(
                            copy.deepcopy(absent), name=name, absent_reason="no such device")
                if guest != "hvm":
                    document["cross_cpu"]["clocks"] = [
                        clock for clock in document["cross_cpu"]["clocks"]
                        if clock["clock"] != "hpet"]
                    for clock in document["clocks"]:
                        if clock["present"] and clock["rate_reference"] == "hpet":
                            clock["rate_reference"] = "tsc"
                    document["clocks"][0]["rate_reference"] = "xen_pvclock"
            return change

        def then(first, second):
            def both(document):
                first(document)
                second(document)
            return both

        self.assertEqual(self.problems("xen_pvh_domu_facts", domu("pvh", "pvh"),
                                       xen_document()), [])
        self.assertEqual(self.problems("xen_pv_domu_facts", domu("pv", "xen-pv"),
                                       xen_document()), [])
        self.assertEqual(self.problems("xen_hvm_domu_facts", domu("hvm", "multiboot2"),
                                       xen_document()), [])
        self.assertEqual(self.problems("xen_pv_domu_facts", domu("pvh", "pvh"),
                                       xen_document()),
                         ["env.boot is 'pvh', expected 'xen-pv'",
                          "env.xen says pvh domU, expected pv domU",
                          "pit: absent_reason 'no such device' does not say 'denied by "
                          "Xen'"])
        self.assertEqual(self.problems(
            "xen_hvm_domu_facts",
            then(domu("hvm", "multiboot2"),
                 lambda d: d["clocks"].__setitem__(5, dict(copy.deepcopy(d["clocks"][6]),
                                                           name="pit", absent_reason="gone"))),
            xen_document()), ["pit is absent (gone), expected Xen's emulated one"])
        self.assertEqual(self.problems(
            "xen_pvh_domu_facts",
            then(domu("pvh", "pvh"),
                 lambda d: d["clocks"].__setitem__(3, dict(smp_document()["clocks"][3],
                                                           rate_reference="tsc"))),
            xen_document()),
            ["hpet is present, expected it absent: Xen emulates no such device for a PVH "
             "domU"])

    def test_xen_pv_facts_on_other_machines(self):
        """Under TCG the PM timer and PIT are present and xen_pvclock is missing; an HPET
        Xen left unusable is absent."""
        self.assertEqual(self.problems("xen_pv_facts", document=smp_document()), [
            "env.hypervisor is 'TCG', expected 'Xen'",
            "env.boot is 'multiboot1', expected 'xen-pv'",
            "env.xen says None None, expected pv dom0",
            "xen_pvclock is absent: not listed",
            "acpi_pm is present, expected it absent: Xen denies dom0 its ports",
            "pit is present, expected it absent: Xen denies dom0 its ports"])

        def hpet_absent(document):
            document["clocks"][3] = dict(copy.deepcopy(document["clocks"][4]), name="hpet",
                                         absent_reason="Xen's platform timer owns it")
            document["cross_cpu"]["clocks"].pop(3)
            for clock in document["clocks"][1:3]:
                clock["rate_reference"] = "xen_pvclock"
            document["clocks"][7]["rate_reference"] = "tsc"
        self.assertEqual(self.problems("xen_pv_facts", hpet_absent, xen_document()),
                         ["hpet is absent: Xen's platform timer owns it"])

    def test_absent_tsc(self):
        absent = dict(_GOOD["clocks"][6], name="tsc", absent_reason="no TSC")
        self.assertEqual(self.problems("tcg_facts", lambda d: d["clocks"].__setitem__(0, absent)),
                         ["tsc is absent"])

    def tick_problems(self, change=None):
        return self.problems("ticks_facts", change, document=ticks_document())

    @staticmethod
    def with_timing(document):
        """`document` as a guest with the timing section and port paths writes it."""
        names = ("setup", "environment", "probe", "calibrate", "cpus", "measure",
                 "cross_cpu", "ticks", "selftest", "report", "print")
        document["timing"] = {
            "timed": True, "run_ms": 66.0, "tsc_at_first_line_ms": 12.5,
            "phases_ms": {name: float(i + 1) for i, name in enumerate(names)},
            "console": {"bytes": 30000, "bytes_per_s": 1e6, "burst_bytes": 16}}
        for clock in document["clocks"]:
            if clock["name"] in ("acpi_pm", "pit"):  # the fixture predates their flags
                clock["flags"] = sorted(set(clock["flags"]) | {"port_io"})
                clock["port_path"] = {"path": "native",
                                      "ports": [{"port": 0x608, "detours": 0}]}
        return document

    def test_timing_facts(self):
        """The section must be there, add up within 5 %, and have printed something; and
        a port clock must say its path."""
        def check(change=None):
            return self.problems("timing_facts", change,
                                 document=self.with_timing(good_document()))
        self.assertEqual(check(), [])
        self.assertEqual(self.problems("timing_facts"), ["the timing section is missing"])

        def slow(document):
            document["timing"]["run_ms"] = 80.0
        self.assertEqual(check(slow), ["timing: the phases add up to 66.0 ms, not within 5% "
                                       "of run_ms 80.0"])

        def within(document):
            document["timing"]["run_ms"] = 68.0
        self.assertEqual(check(within), [])

        def silent(document):
            document["timing"]["phases_ms"]["print"] = 0.0
            document["timing"]["run_ms"] = 55.0
        self.assertEqual(check(silent), ["timing: print is 0.0 ms, expected more than 0 "
                                         "(the report itself was printed)"])

        def pathless(document):
            pm = next(c for c in document["clocks"] if c["name"] == "acpi_pm")
            pm["port_path"] = None
        self.assertEqual(check(pathless), ["acpi_pm: read through I/O ports, but port_path "
                                           "is null"])

    def test_port_paths_under_tcg_and_kvm(self):
        """tcg_facts wants every port clock native; kvm_facts too where IOPL or the I/O
        bitmap works, not where neither does."""
        def detour(document):
            pm = next(c for c in document["clocks"] if c["name"] == "acpi_pm")
            pm["port_path"] = {"path": "ring0", "ports": [{"port": 0x608, "detours": 9}]}
        self.assertEqual(
            self.problems("tcg_facts", detour, document=self.with_timing(good_document())),
            ["acpi_pm: port_path.path is 'ring0', expected 'native' "
             "(ports: [{'port': 1544, 'detours': 9}])"])

        def kvm(io_bitmap):
            def change(document):
                detour(document)
                document["env"].update(iopl_honoured=False, io_bitmap_honoured=io_bitmap)
            return self.problems("kvm_facts", change,
                                 document=self.with_timing(kvm_document()))
        self.assertEqual(len(kvm(True)), 1)
        self.assertEqual(kvm(False), [])

    def test_port_trap_facts(self):
        """port_io=trap: ring 0 performed and counted every port access where IOPL is
        ignored; where it is honoured the accesses stay native."""
        def trapped(detours, path="ring0"):
            def change(document):
                document["env"].update(iopl_honoured=False, io_bitmap_honoured=True)
                for clock in document["clocks"]:
                    if clock.get("port_path"):
                        clock["port_path"] = {"path": path, "ports": [
                            {"port": 0x608, "detours": detours}]}
            return self.problems("port_trap_facts", change,
                                 document=self.with_timing(good_document()))
        self.assertEqual(trapped(40), [])
        self.assertEqual(trapped(0), ["acpi_pm: ports [1544] took the #GP path, but ring 0 "
                                      "counted no detour for them",
                                      "pit: ports [1544] took the #GP path, but ring 0 "
                                      "counted no detour for them"])
        self.assertEqual(len(trapped(0, path="native")), 2)
        self.assertEqual(self.problems("port_trap_facts",
                                       document=self.with_timing(good_document())), [])

    def test_ticks_facts_on_the_fixture(self):
        self.assertEqual(self.tick_problems(), [])
        self.assertEqual(self.problems("tcg_facts", document=ticks_document()), [])
        self.assertEqual(self.problems("ticks_facts"),
                         ["ticks is missing (a guest from before the tick measurements?)"])

    def test_ticks_facts(self):
        def not_applied(document):
            document["ticks"].update(applies=False, reason="tick_rates is empty: no tick "
                                     "measurements asked for", sources=[])

        def rate(hz, source="pit"):
            return lambda d: tick_rate(d, source, hz)

        pit100 = tick_rate(_TICKS, "pit", 100)
        cases = [
            (not_applied, ["ticks did not apply: tick_rates is empty: no tick measurements "
                           "asked for"]),
            (lambda d: d["ticks"]["sources"].append(copy.deepcopy(d["ticks"]["sources"][0])),
             ["ticks: the source 'lapic' is listed more than once"]),
            (lambda d: [s.update(present=False, absent_reason="gone", notes="", rates=[],
                                 baseline_disturbed_ms=None)
                        for s in d["ticks"]["sources"]],
             ["ticks: no tick source is present"]),
            (lambda d: rate(100)(d).update(cpu_stolen_pct=None),
             ["ticks: pit at 100 Hz: cpu_stolen_pct is null"]),
            (lambda d: rate(100)(d).update(cycles_per_interrupt=None),
             [f"ticks: pit at 100 Hz: cycles_per_interrupt is None with "
              f"{pit100['interrupts']} interrupts"]),
            (lambda d: rate(100)(d)["handler_cycles"].update(min=10 ** 12),
             [f"ticks: pit at 100 Hz: handler_cycles is out of order: min 1000000000000 > "
              f"p50 {pit100['handler_cycles']['p50']}"]),
            (lambda d: rate(100)(d).update(records=0, handler_cycles=None, lateness_ns=None),
             []),
            (lambda d: rate(100)(d).update(records=0),
             ["ticks: pit at 100 Hz: distributions without records"]),
            (lambda d: rate(1000)(d).update(state="unreachable", problem="too fast"), []),
        ]
        for change, expected in cases:
            with self.subTest(expected[0] if expected else "passes"):
                self.assertEqual(self.tick_problems(change), expected)

    def test_tick_steal_facts(self):
        def with_steal(document):
            """The fixture as a guest that read a steal record in every window writes it:
            of each rate's records, one unclassified and one preempted."""
            document["ticks"].update(steal_interface="Xen runstate area",
                                     steal_words="Xen runstate area, with its update flag",
                                     steal_reason=None)
            for source in document["ticks"]["sources"]:
                for rate in source["rates"] if source["present"] else []:
                    if rate["state"] != "measured":
                        continue
                    split = rate["lateness_ns"] is not None and rate["records"] > 1
                    late = {"count": 1, "p50": 900000, "p99": 900000, "max": 900000}
                    rest = {"count": rate["records"] - 2, "p50": 10, "p99": 20, "max": 30}
                    rate["steal"] = {
                        "total_ns": 5000000, "spans": 3, "spans_dropped": 0,
                        "failed_reads": 0,
                        "preempted_lateness_ns": late if split else None,
                        "not_preempted_lateness_ns": rest if split else None,
                        "unclassified": 1 if split else None}
            return document

        def steal_problems(change=None):
            document = with_steal(ticks_document())
            if change:
                change(document)
            return (reportchecks.check_tick_steal_facts(document),
                    reportchecks.check_ticks_facts(document))

        pit100 = tick_rate(_TICKS, "pit", 100)
        self.assertEqual(steal_problems(), ([], []))
        self.assertEqual(reportchecks.check_tick_steal_facts(ticks_document()),
                         ["ticks read no steal record: None"])
        added = [f"ticks: pit at 100 Hz: steal: 1 preempted, {pit100['records'] - 1} not and "
                 f"1 unclassified make {pit100['records'] + 1}, not its "
                 f"{pit100['records']} records"]
        self.assertEqual(steal_problems(lambda d: tick_rate(d, "pit", 100)["steal"]
                                        ["not_preempted_lateness_ns"].update(
                                            count=pit100["records"] - 1)),
                         (added, added))
        self.assertEqual(steal_problems(lambda d: tick_rate(d, "pit", 100).update(steal=None)),
                         (["ticks: pit at 100 Hz: no steal"], []))
        self.assertEqual(steal_problems(lambda d: tick_rate(d, "pit", 100)["steal"].update(
            preempted_lateness_ns=None))[0],
            ["ticks: pit at 100 Hz: steal.preempted_lateness_ns is null beside lateness_ns"])
        self.assertEqual(steal_problems(lambda d: tick_rate(d, "pit", 100)["steal"]
                                        ["preempted_lateness_ns"].update(p50=10 ** 7))[0],
                         ["ticks: pit at 100 Hz: steal.preempted_lateness_ns is out of order: "
                          "p50 10000000, p99 900000, max 900000"])
        self.assertEqual(steal_problems(lambda d: d["ticks"].update(
            steal_reason="VCPUOP_register_runstate_memory_area for vCPU 0 failed: -22"))[0],
            ["ticks could not read its steal record: VCPUOP_register_runstate_memory_area "
             "for vCPU 0 failed: -22"])

    def test_run_report_checks(self):
        lines = fixture_lines("good.log")
        self.assertEqual(reportchecks.run_report_checks(["valid", "tcg_facts"], lines, "g"), [])
        self.assertEqual(reportchecks.run_report_checks([], [], "g"), [])
        self.assertEqual(reportchecks.run_report_checks(["valid", "tcg_facts", "smp_facts"],
                                                        fixture_lines("smp.log"), "s"), [])
        self.assertEqual(reportchecks.run_report_checks(["smp_facts", "single_cpu_facts"],
                                                        lines, "g"), [
            "report=smp_facts: cross_cpu is missing (a guest from before cross-CPU "
            "measurements?)",
            "report=single_cpu_facts: cross_cpu is missing (a guest from before cross-CPU "
            "measurements?)"])
        self.assertEqual(reportchecks.run_report_checks(["valid", "kvm_facts"], lines, "g"), [
            "report=kvm_facts: env.hypervisor is 'TCG', expected 'KVM'",
            "report=kvm_facts: kvm_clock is absent: no KVM signature (the hypervisor is TCG)"])
        self.assertEqual(
            reportchecks.run_report_checks(["valid", "tcg_facts"],
                                           fixture_lines("truncated.log"), "t.log"),
            ["report=valid/tcg_facts: t.log: the report ends before 'clockbench-json end' "
             "(truncated log?)"])

    def test_many_problems_are_cut_short(self):
        document = good_document()
        for clock in document["clocks"][:6]:
            clock["read_ns"]["p90"] = clock["read_ns"]["max"] + 1
        lines = [report.BEGIN, *json_lines(document), report.END]
        problems = reportchecks.run_report_checks(["tcg_facts"], lines, "x")
        self.assertEqual(len(problems), reportchecks.MAX_PROBLEMS_SHOWN + 1)
        self.assertEqual(problems[-1], "report=tcg_facts: and 1 more")


class TestsCfgReportKey(unittest.TestCase):
    """report= in tests/tests.cfg and in `clockbench test`'s judgement."""

    def test_parsing(self):
        (test,) = parse_cfg("boot t report=valid report=tcg_facts report=valid\n")
        self.assertEqual(test.report, ["valid", "tcg_facts"])
        with self.assertRaises(RunnerError) as caught:
            parse_cfg("boot t report=fast\n", "t.cfg")
        self.assertEqual(str(caught.exception), "t.cfg:2: report=fast is not a report check "
                                                "(known: valid, tcg_facts, kvm_facts, "
                                                "xen_pv_facts, xen_pvh_dom0_facts, "
                                                "xen_pv_domu_facts, xen_pvh_domu_facts, "
                                                "xen_hvm_domu_facts, smp_facts, "
                                                "single_cpu_facts, timing_facts, "
                                                "port_trap_facts, ticks_facts, "
                                                "tick_steal_facts, histogram_facts).")

    def test_repository_report_tests(self):
        tests = testlist.load_tests_cfg(os.path.join(ROOT, testlist.TESTS_CFG))
        found = {t.name: (t.spec.accel, t.spec.machine, t.report) for t in tests
                 if isinstance(t, testlist.BootTest) and t.report}
        self.assertEqual(found, {
            "report-pc": ("tcg", "pc", ["valid", "tcg_facts", "timing_facts",
                                        "histogram_facts"]),
            "report-q35": ("tcg", "q35", ["valid", "tcg_facts", "timing_facts"]),
            "report-kvm": ("kvm", "pc", ["valid", "kvm_facts", "timing_facts"]),
            "console-uart": ("tcg", "pc", ["valid", "timing_facts"]),
            "console-uart-kvm": ("kvm", "pc", ["valid", "timing_facts"]),
            "seabios-tcg": ("tcg", "pc", ["valid", "timing_facts"]),
            "seabios-kvm": ("kvm", "pc", ["valid", "timing_facts"]),
            "ports-trap": ("tcg", "pc", ["valid", "port_trap_facts"]),
            "ports-trap-kvm": ("kvm", "pc", ["valid", "port_trap_facts"]),
            "smp-1": ("tcg", "pc", ["valid", "single_cpu_facts"]),
            "acpi-madt-no-cpus": ("tcg", "pc", ["valid", "single_cpu_facts"]),
            "acpi-ioapic-dead": ("tcg", "pc", ["valid"]),
            "acpi-ioapic-dead-first": ("tcg", "pc", ["valid"]),
            "smp-2": ("tcg", "pc", ["valid", "smp_facts", "histogram_facts"]),
            "smp-4": ("tcg", "pc", ["valid", "smp_facts"]),
            "smp-2-kvm": ("kvm", "pc", ["valid", "smp_facts"]),
            "xen-report-1": ("tcg", "pc", ["valid", "xen_pv_facts", "single_cpu_facts",
                                           "timing_facts"]),
            "xen-report-2": ("tcg", "pc", ["valid", "xen_pv_facts", "smp_facts",
                                           "histogram_facts"]),
            "xen-hpet": ("tcg", "pc", ["valid", "xen_pv_facts", "smp_facts"]),
            "xen-tsc": ("tcg", "pc", ["valid", "xen_pv_facts", "smp_facts"]),
            "xen-ticks": ("tcg", "pc", ["valid", "xen_pv_facts", "ticks_facts"]),
            "xen-pvh-dom0-1": ("tcg", "q35", ["valid", "xen_pvh_dom0_facts",
                                              "single_cpu_facts"]),
            "xen-pvh-dom0-2": ("tcg", "q35", ["valid", "xen_pvh_dom0_facts", "smp_facts"]),
            "xen-smp-4": ("tcg", "pc", ["valid", "xen_pv_facts", "smp_facts", "ticks_facts"]),
            "xen-pv-domu-1": ("tcg", "pc", ["valid", "xen_pv_domu_facts", "single_cpu_facts"]),
            "xen-pv-domu-2": ("tcg", "pc", ["valid", "xen_pv_domu_facts", "smp_facts",
                                            "tick_steal_facts"]),
            "xen-pvh-domu-2": ("tcg", "pc", ["valid", "xen_pvh_domu_facts", "smp_facts"]),
            "xen-hvm-domu-1": ("tcg", "pc", ["valid", "xen_hvm_domu_facts",
                                              "single_cpu_facts"]),
            "ticks-pc": ("tcg", "pc", ["valid", "ticks_facts", "histogram_facts"]),
            "ticks-q35": ("tcg", "q35", ["valid", "ticks_facts"]),
            "ticks-kvm": ("kvm", "pc", ["valid", "ticks_facts", "kvm_facts"]),
            "ticks-hpet-off": ("tcg", "pc", ["valid", "ticks_facts"]),
            "ticks-slow": ("tcg", "pc", ["valid", "ticks_facts"]),
            "ticks-smp": ("tcg", "pc", ["valid", "ticks_facts", "smp_facts"]),
            "ticks-none": ("tcg", "pc", ["valid"]),
            "cpu-qemu64": ("tcg", "pc", ["valid", "tcg_facts"]),
            "cpu-qemu64-kvm": ("kvm", "pc", ["valid", "ticks_facts"]),
            "clocks-kvm": ("kvm", "pc", ["kvm_facts"]),
            "names-stable": ("tcg", "pc", ["valid"]),
            "names-stable-kvm": ("kvm", "pc", ["valid"]),
            "linux-pc": ("tcg", "pc", ["valid", "linux_tcg_facts", "kernel_readback"]),
            "linux-stop-tcg": ("tcg", "pc", ["valid", "kernel_readback"]),
            "linux-kvm": ("kvm", "pc", ["valid", "kernel_readback"]),
            "linux-stop-kvm": ("kvm", "pc", ["valid", "kernel_readback"]),
            "xen-linux-dom0": ("tcg", "pc", ["valid", "linux_xen_dom0_facts",
                                             "kernel_readback"]),
            "xen-linux-pv-domu": ("tcg", "pc", ["valid", "linux_xen_pv_domu_facts",
                                                "kernel_readback"]),
        })
        xen = {t.name: (t.spec.smp, t.spec.xen_args) for t in tests
               if isinstance(t, testlist.BootTest) and t.spec.boot == "xen" and t.report}
        self.assertEqual(xen, {"xen-report-1": (1, ""), "xen-report-2": (2, ""),
                               "xen-hpet": (2, "clocksource=hpet"),
                               "xen-tsc": (2, "clocksource=tsc"), "xen-ticks": (1, ""),
                               "xen-smp-4": (4, "")})

    def test_evaluation(self):
        (test,) = parse_cfg("boot t report=valid report=tcg_facts\n")
        lines = fixture_lines("good.log")
        self.assertEqual(boottest.evaluate_boot_test(test, "pass", None, lines, "b/t.log"),
                         ("ok", None))
        state, reason = boottest.evaluate_boot_test(test, "pass", None,
                                               fixture_lines("missing-field.log"), "b/t.log")
        self.assertEqual((state, reason), ("not ok", "report=valid/tcg_facts: b/t.log: "
                                           "clocks[3]: 'read_ns' is a required property"))
        (test,) = parse_cfg("boot t match=nothing report=kvm_facts\n")
        state, reason = boottest.evaluate_boot_test(test, "pass", None, lines)
        self.assertEqual(state, "not ok")
        self.assertTrue(reason.startswith("no line matches /nothing/; report=kvm_facts: "
                                          "env.hypervisor is 'TCG'"), reason)


class WithFakeQemu(unittest.TestCase):
    """tools/clockbench run/test and tools/bench in a scratch tree with a fake QEMU."""

    def setUp(self):
        self.root = scratch.make_tree(programs=("clockbench", "bench"))
        scratch.write_elf(os.path.join(self.root, "build", "clockbench-mb1.elf"),
                          scratch.FAKE_IMAGE_END, wide=False)

    def tearDown(self):
        shutil.rmtree(self.root)

    def tool(self, program, *args, log=None):
        """Run a copied tool with the fake QEMU printing `log`'s report (if given)."""
        env = {"CLOCKBENCH_QEMU": FAKE_QEMU}
        if log:
            env["FAKE_QEMU_REPORT"] = fixture(log)
        return run_tool(args, cwd=self.root, env=env,
                        program=os.path.join(self.root, "tools", program))

    def log_line_of(self, name, line_no):
        """The number of the line in the saved run log that shows line `line_no` of the
        fixture `name`."""
        with open(fixture(name), encoding="utf-8") as log:
            wanted = log.read().splitlines()[line_no - 1]
        lines = report.read_log_lines(os.path.join(self.root, "build", "run", "last.log"))
        return lines.index(wanted) + 1

    def written(self, name):
        """The JSON file `name` in the scratch tree."""
        with open(os.path.join(self.root, name), encoding="utf-8") as document:
            return json.load(document)

    def test_run_json_writes_the_guest_report(self):
        result = self.tool("clockbench", "run", "--accel", "tcg", "--no-build", "--json",
                           "r.json", log="good.log")
        self.assertEqual(result.returncode, 0, result.stderr)
        written = self.written("r.json")
        report.validate_document(written, "r.json")  # the schema knows the host's keys
        runner = written.pop("runner")
        # The guest's clockbench/1 report (good.log), in a clockbench/2 record.
        self.assertEqual((written.pop("reason"), written.pop("qemu_status"),
                          written.pop("xen")), (None, 3, None))
        # Every record has a run id of its own (a UUID), so a copy counts once in compare.
        run_id = written.pop("run_id")
        self.assertEqual(str(uuid.UUID(run_id, version=4)), run_id)
        self.assertEqual(written, dict(_GOOD, schema=report.SCHEMA))
        self.assertEqual((runner["accel"], runner["cpu"], runner["cpu_choice"]),
                         ("tcg", "max", None))
        self.assertEqual(runner["qemu_command"][0], FAKE_QEMU)
        # The host's identity: its machine id hashed, never the id itself.
        machine_id = runner["host"]["machine_id"]
        if os.path.isfile("/etc/machine-id"):
            with open("/etc/machine-id", encoding="ascii") as source:
                self.assertNotIn(source.read().strip()[:16], machine_id or "")
        self.assertEqual(machine_id, hostinfo.machine_id())
        self.assertEqual(runner["qemu_version"], fake_qemu.VERSION_LINE)
        self.assertEqual(runner["host"], runinfo.host_facts())
        self.assertIsNone(runner["xen_version"])
        self.assertEqual(runner["argv"][1:], ["run", "--accel", "tcg", "--no-build", "--json",
                                              "r.json"])
        self.assertRegex(runner["revision"], r"^\S+ \(.+\)$")
        self.assertLessEqual(runner["started_utc"], runner["ended_utc"])
        # How busy the host was: /proc/stat read at both ends, the fake QEMU followed.
        self.assertEqual(runner["host_state"]["cpus"], os.cpu_count())
        self.assertIsInstance(runner["host_state"]["busy"], (bool, type(None)))
        self.assertRegex(runner["host_state"]["said"], r"^(the host was (busy|quiet)|how busy)")
        self.assertEqual(result.stderr, "fake qemu: exiting\n")

    def test_run_json_without_report_writes_the_record_without_it(self):
        result = self.tool("clockbench", "run", "--accel", "tcg", "--no-build", "--json",
                           "r.json")
        self.assertEqual(result.returncode, 0, result.stderr)
        written = self.written("r.json")
        report.validate_document(written, "r.json")
        self.assertEqual((written["schema"], written["verdict"], written["reason"]),
                         (report.SCHEMA, "pass", "the guest printed no JSON report"))
        self.assertFalse(report.has_guest_report(written))
        self.assertEqual(written["console"]["checks"]["passed"], 1)
        self.assertEqual(written["runner"]["host"]["name"], runinfo.host_facts()["name"])
        self.assertIn("clockbench run: the guest printed no JSON report; the --json file "
                      "records the run without it.", result.stderr)

    def test_run_json_with_a_broken_report_is_an_error(self):
        for name, sentence in MALFORMED.items():
            if name == "no-report.log":
                continue
            with self.subTest(name):
                result = self.tool("clockbench", "run", "--accel", "tcg", "--no-build",
                                   "--json", "r.json", log=name)
                self.assertEqual(result.returncode, 2)
                # The fake console is shorter than the fixture, and QEMU's stderr lines
                # are logged where they arrive: the bad line's number in the saved log.
                sentence = sentence.replace("log line 36,",
                                            f"log line {self.log_line_of('bad-json.log', 36)},")
                expected = f"build/run/last.log: {sentence}"
                self.assertIn(f"clockbench run: {expected}\n", result.stderr)
                self.assertNotIn("Traceback", result.stderr)
                self.assertRegex(result.stdout, r"clockbench run: ERROR \(tcg pc multiboot1 -cpu max qboot, ")
                summary = self.written("r.json")
                self.assertEqual((summary["schema"], summary["verdict"], summary["reason"]),
                                 (report.SCHEMA, "error", expected))
                report.validate_document(summary, "r.json")
                self.assertFalse(report.has_guest_report(summary))

    def test_boot_test_with_report_checks(self):
        with open(os.path.join(self.root, testlist.TESTS_CFG), "w", encoding="utf-8") as cfg:
            cfg.write(sections("boot good report=valid report=tcg_facts\n"
                      "boot kvm  report=kvm_facts\n"))
        result = self.tool("clockbench", "test", "--no-build", log="good.log")
        lines = result.stdout.splitlines()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertRegex(lines[2], r"^ok 1 good # [0-9.]+ s$")
        self.assertEqual(lines[3], "not ok 2 kvm # report=kvm_facts: env.hypervisor is 'TCG', "
                                   "expected 'KVM' (and 1 more problem)")
        self.assertEqual(lines[4:7], [
            "#   failed: report=kvm_facts: env.hypervisor is 'TCG', expected 'KVM'",
            "#   failed: report=kvm_facts: kvm_clock is absent: no KVM signature (the "
            "hypervisor is TCG)",
            "#   verdict: PASS (expected PASS)"])
        result = self.tool("clockbench", "test", "--no-build", "good", log="truncated.log")
        self.assertIn("not ok 1 good # report=valid/tcg_facts: build/tests/good.log: the report "
                      "ends before 'clockbench-json end' (truncated log?)",
                      result.stdout.splitlines())

    def test_bench(self):
        result = self.tool("bench", "--no-build", "--env", "tcg", log="good.log")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertRegex(lines[0], r"^== tcg \(tcg pc multiboot1 -cpu max qboot, --smp 1\): PASS; "
                                   r"host: QEMU start to first line [0-9.]+ s, to verdict "
                                   r"[0-9.]+ s$")
        self.assertEqual(lines[2].split()[:6], ["clock", "p50", "ns", "p99", "ns", "batch"])
        self.assertIn("update Hz", lines[2])
        self.assertEqual(lines[6].split()[:6], ["hpet", "300", "609", "280", "10.0", "3,300,000"])
        self.assertTrue(os.path.exists(os.path.join(self.root, "build", "bench", "tcg.log")))

    def test_bench_against_kvm_unit_tests(self):
        kut = os.path.join(self.root, "kut")
        result = self.tool("bench", "--no-build", "--env", "tcg", "--kvm-unit-tests", kut,
                           log="good.log")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(), f"bench: --kvm-unit-tests {kut}: "
                         f"{kut}/x86/tsc.flat is not there (build kvm-unit-tests there "
                         f"first: ./configure && make)")
        self.assertEqual(result.stdout, "", "nothing is booted before the check")
        os.makedirs(os.path.join(kut, "x86"))
        for name in ("tsc.flat", "hpet_read_test.flat", "vmexit.flat"):
            with open(os.path.join(kut, "x86", name), "wb"):
                pass
        argv_file = os.path.join(self.root, "argv.json")
        result = run_tool(["--no-build", "--env", "tcg", "--kvm-unit-tests", kut,
                           "--kut-pairs", "2"], cwd=self.root,
                          env={"CLOCKBENCH_QEMU": FAKE_QEMU,
                               "FAKE_QEMU_REPORT": fixture("good.log"),
                               "FAKE_QEMU_ARGV": argv_file},
                          program=os.path.join(self.root, "tools", "bench"))
        self.assertEqual(result.returncode, 0, result.stderr)
        pairs = [line for line in result.stderr.splitlines() if " pair " in line]
        self.assertEqual(len(pairs), 2, result.stderr)
        self.assertRegex(pairs[1], r"^bench: pair 2: this tree's default TCG run [0-9.]+ s, "
                                   r"kvm-unit-tests' three clock tests [0-9.]+ s$")
        self.assertRegex(result.stdout.splitlines()[-1],
                         r"^  tcg +default run / kvm-unit-tests' 3 clock tests +[0-9.]+ +goal "
                         r"<= 0\.800 +(NOT )?met +median of pairs \(s, this/theirs\): "
                         r"[0-9.]+/[0-9.]+, [0-9.]+/[0-9.]+$")
        with open(argv_file, encoding="utf-8") as argv:  # the last boot: vmexit
            last = json.load(argv)
        self.assertEqual(last[last.index("-kernel") + 1:],
                         [os.path.join(kut, "x86", "vmexit.flat"), "-smp", "1", "-append",
                          "inl_from_pmtimer cpuid"])
        self.assertIn("accel=tcg", last)
        result = run_tool(["--no-build", "--env", "tcg", "--kvm-unit-tests", kut],
                          cwd=self.root,
                          env={"CLOCKBENCH_QEMU": FAKE_QEMU,
                               "FAKE_QEMU_REPORT": fixture("good.log"),
                               "FAKE_QEMU_KUT_STATUS": "3"},
                          program=os.path.join(self.root, "tools", "bench"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("bench: kvm-unit-tests' tsc.flat exited with 3, not 1 (its pass)",
                      result.stderr)

    def test_bench_without_report(self):
        result = self.tool("bench", "--no-build", "--env", "tcg", log="no-report.log")
        self.assertEqual(result.returncode, 2)
        self.assertIn("   no table: build/bench/tcg.log: there is no JSON report",
                      result.stdout)


def load_bench():
    """tools/bench as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("bench", os.path.join(ROOT, "tools", "bench"))
    spec = importlib.util.spec_from_loader("bench", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class BenchGoals(unittest.TestCase):
    """bench's goal lines: the TCG goals from a run's report, and the KVM goals named as
    not measured, with the reason, where KVM was skipped."""

    def goals(self, results, skipped=None):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            met = load_bench().print_goals(results, None, skipped)
        return met, out.getvalue().splitlines()

    def tcg(self, batch_min_ns, batch_max_ns):
        return {"verdict_s": 4.0, "document": {
            "timing": {"timed": True, "phases_ms": {"print": 100.0}},
            "clocks": [{"name": "hpet", "measured": True, "batch_ns_per_read": 100.0,
                        "batch_ns_min": batch_min_ns, "batch_ns_max": batch_max_ns},
                       {"name": "kvm_clock", "measured": False}]}}

    def test_tcg_goals_and_kvm_skipped(self):
        met, lines = self.goals({"tcg": self.tcg(98.0, 104.0)},
                                {"kvm": "/dev/kvm: No such file or directory"})
        self.assertTrue(met)
        kvm = [line for line in lines if line.startswith("  kvm ")]
        self.assertEqual(len(kvm), 3)
        for line in kvm:
            self.assertTrue(line.endswith("not measured: /dev/kvm: No such file or directory"),
                            line)
        self.assertRegex(lines[-2], r"^  tcg +printing / run .* 0\.025 +goal <= 0\.100 +met$")
        self.assertRegex(lines[-1],
                         r"^  tcg +batch \(max - min\) / median, worst clock +0\.060 +"
                         r"goal <= 0\.100 +met +hpet$")

    def test_kvm_unit_tests_ratio_is_the_median_of_the_pairs(self):
        met, lines = self.goals({"kut": {"pairs": [(3.3, 3.0), (3.0, 3.3), (3.5, 3.0)]}})
        self.assertFalse(met)
        self.assertEqual(lines[-1], "  tcg  default run / kvm-unit-tests' 3 clock tests      "
                                    "1.100  goal <= 0.800  NOT met  median of pairs (s, "
                                    "this/theirs): 3.30/3.00, 3.00/3.30, 3.50/3.00")
        met, lines = self.goals({"kut": {"pairs": [(3.0, 3.3)]}})
        self.assertFalse(met)
        self.assertRegex(lines[-1], r" 0\.909  goal <= 0\.800  NOT met  ")
        met, lines = self.goals({"kut": {"pairs": [(2.4, 3.3)]}})
        self.assertTrue(met)
        self.assertRegex(lines[-1], r" 0\.727  goal <= 0\.800  met  ")

    def test_a_wide_batch_spread_is_not_met(self):
        met, lines = self.goals({"tcg": self.tcg(90.0, 130.0)})
        self.assertFalse(met)
        self.assertRegex(lines[-1], r" 0\.400 +goal <= 0\.100 +NOT met +hpet$")
        self.assertFalse([line for line in lines if line.startswith("  kvm ")])


if __name__ == "__main__":
    unittest.main()


