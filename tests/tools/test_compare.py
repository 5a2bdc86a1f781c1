# SPDX-License-Identifier: MIT
"""Unit tests for `clockbench matrix` (environment list, manifest) and `clockbench compare`
(reading matrix folders and single reports, spreads, ratios, missing clocks, tick costs,
output formats, clear errors on malformed input, and --plot end to end) on the real
reports in tests/tools/fixtures/matrix/ (see its README.md).

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.tools import FIXTURES, GOOD_LOG, PYTHON, ROOT, run_cli
from clockbench_lib.boot import cpumodel
from clockbench_lib.compare import matrix
from clockbench_lib.compare.clocks import METRICS, compare, format_csv, format_table
from clockbench_lib.compare.cells import number_text
from clockbench_lib.model.record import Report
from clockbench_lib.compare.inputs import Inputs, Run, load_inputs
from clockbench_lib.compare.ostable import RAW_TO_CLOCKSOURCE, compare_os
from clockbench_lib.compare.ticks import (compare_ticks, format_tick_csv, format_tick_table,
                                          has_ticks, tick_cost_measured)
from clockbench_lib.compare.xentable import compare_xen, format_xen_csv, format_xen_table
from clockbench_lib.base.outcome import RunnerError

MATRIX_FIXTURES = os.path.join(FIXTURES, "matrix")
SAMPLE = os.path.join(MATRIX_FIXTURES, "sample")


def load(env, number):
    with open(os.path.join(SAMPLE, env, f"run-{number}.json"), encoding="utf-8") as source:
        return json.load(source)


def add_xen_hpet_as_pv_dom0(inputs):
    """Add the sample's two xen-hpet runs to `inputs`, each with the env.xen a PV dom0's
    report of today carries (the sample predates that member)."""
    for number in (1, 2):
        document = load("xen-hpet", number)
        document["env"]["xen"] = {"guest": "pv", "domain": "dom0", "version": "4.17",
                                  "tsc_mode": 0, "tsc_emulated": False}
        inputs.add(Run("xen-hpet", f"run-{number}", document))


def clock(document, name):
    return next(c for c in document["clocks"] if c["name"] == name)


def tick_rate(document, source, hz):
    entry = next(s for s in document["ticks"]["sources"] if s["name"] == source)
    return next(r for r in entry["rates"] if r["requested_hz"] == hz)



class MatrixTest(unittest.TestCase):
    def test_environments(self):
        names = [env.name for env in matrix.ENVIRONMENTS]
        self.assertEqual(names, ["tcg-pc", "tcg-q35", "kvm-pc", "xen-pv-dom0", "xen-pvh-dom0",
                                 "xen-pv-domu", "xen-pvh-domu", "xen-hvm-domu", "xen-hpet",
                                 "xen-tsc", "tcg-life", "kvm-life", "xen-pv-life",
                                 "xen-pvh-life", "xen-hvm-life"])
        pvh = matrix.ENVIRONMENTS[4]
        self.assertEqual((pvh.spec().machine, pvh.spec().cpu_option),
                         ("q35", "max,-rdtscp"))
        self.assertIn(" dom0=pvh ", pvh.xen_options)
        for env in matrix.ENVIRONMENTS[:3]:
            self.assertEqual((env.spec().boot, env.spec().smp, env.spec().memory_mib),
                             ("multiboot1", 2, 64))
            self.assertIsNone(env.xen_options)

    def test_kvm_skipped_with_the_reason_when_unusable(self):
        kvm = matrix.ENVIRONMENTS[2]
        self.assertEqual(matrix.skip_reason(kvm, lambda: (False, "/dev/kvm: No such file")),
                         "/dev/kvm: No such file")
        host = cpumodel.Choice("host", [cpumodel.Attempt("host", True)])
        self.assertIsNone(matrix.skip_reason(kvm, lambda: (True, "usable"),
                                             kvm_choice=lambda: host))
        self.assertIsNone(matrix.skip_reason(matrix.ENVIRONMENTS[0]))

    def test_fixture_manifest_records_host_versions_and_commands(self):
        with open(os.path.join(SAMPLE, matrix.MANIFEST), encoding="utf-8") as source:
            manifest = json.load(source)
        self.assertEqual(manifest["schema"], matrix.MANIFEST_SCHEMA_0)  # an older matrix's
        self.assertTrue(manifest["xen_version"].startswith("4.17"))
        self.assertTrue(manifest["qemu_version"].startswith("QEMU emulator version"))
        runs = [run for env in manifest["environments"] for run in env["runs"]]
        self.assertTrue(runs)
        for run in runs:
            self.assertIn("-smp", run["qemu_command"])


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.inputs = load_inputs([SAMPLE])
        self.table = dict(compare(self.inputs, "tcg-pc"))

    def cell(self, clock_name, env):
        return next(c for c in self.table[clock_name] if c.env == env)

    def test_reads_every_environment_and_skip(self):
        self.assertEqual(list(self.inputs.runs),
                         ["tcg-pc", "tcg-q35", "kvm-pc", "xen-hpet", "xen-tsc"])
        self.assertEqual(len(self.inputs.runs["tcg-pc"]), 2)
        self.assertEqual(len(self.inputs.runs["xen-tsc"]), 2)
        self.assertEqual(set(self.inputs.skipped), set())

    def test_median_and_range_across_repeats(self):
        values = [clock(load("tcg-pc", n), "hpet")["read_ns"]["p50"] for n in (1, 2)]
        spread = self.cell("hpet", "tcg-pc").metrics["p50"]
        self.assertEqual(spread.median, sum(values) / 2)
        self.assertEqual((spread.low, spread.high), (min(values), max(values)))
        self.assertEqual(spread.count, 2)

    def test_ratio_against_baseline(self):
        base = [clock(load("tcg-pc", n), "hpet")["read_ns"]["p50"] for n in (1, 2)]
        kvm = [clock(load("kvm-pc", n), "hpet")["read_ns"]["p50"] for n in (1, 2)]
        expected = (sum(kvm) / 2) / (sum(base) / 2)
        self.assertAlmostEqual(self.cell("hpet", "kvm-pc").ratios["p50"], expected)
        self.assertEqual(self.cell("hpet", "tcg-pc").ratios["p50"], 1.0)

    def test_warps_and_drift_from_cross_cpu(self):
        document = load("kvm-pc", 1)
        entry = next(c for c in document["cross_cpu"]["clocks"] if c["clock"] == "tsc")
        drift = max(abs(d["drift_ppm"]) for d in entry["drift_ppm"])
        guest = Report.from_json(document)
        self.assertEqual(METRICS["drift"][2](guest.clock("tsc"), guest), drift)
        self.assertEqual(METRICS["warps"][2](guest.clock("tsc"), guest), entry["warps"])

    def test_missing_clock_is_shown_as_missing(self):
        cell = self.cell("kvm_clock", "tcg-pc")
        self.assertTrue(cell.missing)
        self.assertIn("kvm-clock needs KVM", cell.missing_reason)
        self.assertIsNone(self.cell("kvm_clock", "kvm-pc").ratios["p50"])
        text = "\n".join(format_table(list(self.table.items()), self.inputs, "tcg-pc"))
        # One line per clock and reason: the environments that share it are named together.
        self.assertRegex(text, r"\nkvm_clock\s+tcg-pc, tcg-q35 \(2 runs each\): missing: no "
                               r"KVM signature")
        self.assertRegex(text, r"\nxen_pvclock\s+kvm-pc\s+2\s+missing: no Xen signature")
        # Under Xen the PM timer is denied, and xen_pvclock has no TCG baseline.
        self.assertRegex(text, r"\nacpi_pm\s+xen-hpet, xen-tsc \(2 runs each\): missing: "
                               r"denied by Xen")
        self.assertEqual(text.count("denied by Xen: port 0x608"), 1)
        self.assertIsNone(self.cell("xen_pvclock", "xen-hpet").ratios["p50"])
        self.assertFalse(self.cell("xen_pvclock", "xen-hpet").missing)

    def test_xen_rows_of_reports_before_env_xen(self):
        """The sample's clockbench/1 Xen runs have no env.xen: they are rows all the same,
        the guest type not said, rather than dropped without a word."""
        rows = compare_xen(load_inputs([SAMPLE]))
        self.assertEqual([(row.env, row.guest, row.runs) for row in rows],
                         [("xen-hpet", "not said (before env.xen)", 2),
                          ("xen-tsc", "not said (before env.xen)", 2)])
        self.assertIsNotNone(rows[0].ratio)

    def test_xen_guests_table(self):
        """Per Xen environment: the guest type, a xen_pvclock and a tsc read, their
        ratio (the median of the runs' ratios), and whether Xen emulates rdtsc."""
        inputs = Inputs()
        add_xen_hpet_as_pv_dom0(inputs)
        inputs.add(Run("tcg-pc", "run-1", load("tcg-pc", 1)))
        (row,) = compare_xen(inputs)
        ratios = [clock(run.document, "xen_pvclock")["read_ns"]["p50"]
                  / clock(run.document, "tsc")["read_ns"]["p50"]
                  for run in inputs.runs["xen-hpet"]]
        self.assertEqual((row.env, row.guest, row.runs, row.rdtsc),
                         ("xen-hpet", "pv dom0", 2, "native"))
        self.assertAlmostEqual(row.ratio.median, sum(ratios) / 2)
        text = "\n".join(format_xen_table([row]))
        self.assertRegex(text, r"xen-hpet\s+pv dom0\s+2\s+.*x\s+native")
        rows = list(csv.DictReader(format_xen_csv([row])))
        # At the table's precision (three significant digits), as the text shows it.
        self.assertEqual(rows[0]["xen_pvclock_over_tsc_median"],
                         number_text(row.ratio.median))

    def test_csv_numbers(self):
        rows = list(csv.DictReader(format_csv(list(self.table.items()), "tcg-pc")))
        row = next(r for r in rows if r["clock"] == "hpet" and r["env"] == "kvm-pc")
        self.assertEqual(float(row["p50_ratio_to_tcg-pc"]),
                         round(self.cell("hpet", "kvm-pc").ratios["p50"], 2))
        # No float noise: every figure as the table writes it (0.00353, not
        # 0.0035288437025000003).
        for name, value in row.items():
            if name.endswith(("_median", "_min", "_max")) and "." in value:
                self.assertLessEqual(len(value.split(".")[-1]), 4, (name, value))
        row = next(r for r in rows if r["clock"] == "kvm_clock" and r["env"] == "tcg-q35")
        self.assertEqual(row["p50_ns_median"], "")
        self.assertIn("KVM", row["missing_reason"])

    def test_single_files_take_their_folder_as_environment(self):
        inputs = load_inputs([os.path.join(SAMPLE, "tcg-pc", "run-1.json"),
                                      os.path.join(SAMPLE, "kvm-pc", "run-1.log")])
        self.assertEqual(list(inputs.runs), ["tcg-pc", "kvm-pc"])


class TickCompareTest(unittest.TestCase):
    """The tick-cost table: per source, rate and environment."""

    def setUp(self):
        self.inputs = load_inputs([SAMPLE])
        self.table = dict(compare_ticks(self.inputs, "tcg-pc"))

    def cell(self, source, hz, env):
        return next(c for c in self.table[(source, hz)] if c.env == env)

    def test_order_sources_and_rates(self):
        self.assertTrue(has_ticks(self.inputs))
        self.assertEqual(list(self.table),
                         [(source, hz) for source in ("lapic", "tsc_deadline", "hpet", "pit",
                                                      "xen_periodic", "xen_oneshot")
                          for hz in (100, 1000, 10000, 100000)])

    def test_median_range_and_ratio(self):
        ratios = 0
        for source, hz in (("hpet", 10000), ("lapic", 100000)):
            with self.subTest(source=source, hz=hz):
                base = [tick_rate(load("tcg-pc", n), source, hz) for n in (1, 2)]
                kvm = [tick_rate(load("kvm-pc", n), source, hz) for n in (1, 2)]
                stolen = self.cell(source, hz, "kvm-pc").metrics["stolen"]
                values = [r["cpu_stolen_pct"] for r in kvm]
                self.assertEqual(stolen.median, sum(values) / 2)
                self.assertEqual((stolen.low, stolen.high), (min(values), max(values)))
                cycles = self.cell(source, hz, "kvm-pc")
                measured = all(r["cpu_stolen_pct"] > r["noise_pct"] for r in base + kvm)
                if measured:
                    expected = (sum(r["cycles_per_interrupt"] for r in kvm) /
                                sum(r["cycles_per_interrupt"] for r in base))
                    self.assertAlmostEqual(cycles.ratios["cycles"], expected)
                    self.assertEqual(self.cell(source, hz, "tcg-pc").ratios["cycles"], 1.0)
                    ratios += 1
        self.assertTrue(ratios, "the fixture has no rate costly enough for a ratio")

    def test_no_ratio_below_the_noise(self):
        for (source, hz), cells in self.table.items():
            base = next(c for c in cells if c.env == "tcg-pc")
            for cell in cells:
                if cell.ratios.get("stolen") is not None:
                    self.assertTrue(tick_cost_measured(cell), (source, hz, cell.env))
                    self.assertTrue(tick_cost_measured(base), (source, hz))

    def test_absent_source_is_missing_with_its_reason(self):
        cell = self.cell("tsc_deadline", 1000, "tcg-pc")
        self.assertTrue(cell.missing)
        self.assertEqual(cell.missing_reason, "absent: not offered: CPUID.1:ECX[24] "
                                              "(TSC-deadline timer) is clear")
        self.assertFalse(self.cell("tsc_deadline", 1000, "kvm-pc").missing)
        text = "\n".join(format_tick_table(list(self.table.items()), "tcg-pc"))
        self.assertRegex(text, r"\ntsc_deadline\s+all\s+tcg-pc, tcg-q35, xen-hpet, xen-tsc "
                               r"\(2 runs each\): missing: absent: not offered")
        self.assertIn("lost / tcg-pc", text)

    def test_reports_without_ticks(self):
        inputs = load_inputs([GOOD_LOG])
        self.assertFalse(has_ticks(inputs))
        self.assertEqual(compare_ticks(inputs), [])
        result = run_cli("compare", GOOD_LOG, "--table", "ticks")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no report has tick measurements", result.stderr)

    def test_tick_csv(self):
        rows = list(csv.DictReader(format_tick_csv(list(self.table.items()),
                                                           "tcg-pc")))
        row = next(r for r in rows if (r["source"], r["rate_hz"], r["env"]) ==
                   ("pit", "1000", "kvm-pc"))
        self.assertEqual(row["cpu_stolen_pct_median"],
                         number_text(self.cell("pit", 1000, "kvm-pc").metrics["stolen"].median))
        row = next(r for r in rows if (r["source"], r["env"]) == ("tsc_deadline", "tcg-q35"))
        self.assertEqual(row["measured_runs"], "0")
        self.assertIn("TSC-deadline", row["missing_reason"])


class MalformedTest(unittest.TestCase):
    """Each bad input gives one sentence naming the file, exit 2, no traceback."""

    CASES = {
        "truncated.log": "the report ends before 'clockbench-json end' (truncated log?)",
        "bad.json": "not valid JSON: Expecting ',' delimiter (line 3, column 3)",
        "wrong-schema.json": "report schema is 'clockbench/9'; this tool reads clockbench/2 "
                             "(and clockbench/1 reports)",
        "missing-field.json": "clocks[0]: 'read_ns' is a required property",
        "run-summary.json": "this records a run that gave no report (clockbench-run/0, "
                            "verdict hang: hang: no verdict after 60 s",
    }

    def test_sentences(self):
        for name, sentence in self.CASES.items():
            with self.subTest(name=name):
                path = os.path.join(MATRIX_FIXTURES, "malformed", name)
                with self.assertRaises(RunnerError) as caught:
                    load_inputs([path])
                self.assertIn(f"{path}: ", str(caught.exception))
                self.assertIn(sentence, str(caught.exception))

    def test_cli_exit_status_and_no_traceback(self):
        result = run_cli("compare", os.path.join(MATRIX_FIXTURES, "malformed", "truncated.log"))
        self.assertEqual(result.returncode, 2)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_folder_without_manifest(self):
        with self.assertRaisesRegex(RunnerError, "no manifest.json here"):
            load_inputs([os.path.join(MATRIX_FIXTURES, "malformed")])

    def test_manifest_of_another_schema(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, matrix.MANIFEST), "w", encoding="utf-8") as out:
                json.dump({"schema": "clockbench-matrix/9", "environments": []}, out)
            with self.assertRaisesRegex(RunnerError, "manifest schema is \"clockbench-matrix/9\""):
                load_inputs([folder])


@unittest.skipUnless(shutil.which(PYTHON) and os.path.exists(
    "/usr/lib/python3/dist-packages/matplotlib"), "python3-matplotlib is not installed")
class EndToEndTest(unittest.TestCase):
    def test_compare_with_plots(self):
        with tempfile.TemporaryDirectory() as plots:
            result = run_cli("compare", SAMPLE, "--plot", plots)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertRegex(result.stdout, r"hpet\s+kvm-pc\s+2\s+\S+")
            self.assertIn("p50 / tcg-pc", result.stdout)
            self.assertRegex(result.stdout, r"tick costs: .*\n.*lost / tcg-pc")
            self.assertRegex(result.stdout, r"hpet\s+10000\s+kvm-pc\s+2\s+\S+")
            for stem in ("read-cost", "percentiles-tsc", "percentiles-xen_pvclock",
                         "cross-cpu", "tick-cost"):
                for ext in ("png", "svg"):
                    path = os.path.join(plots, f"{stem}.{ext}")
                    self.assertTrue(os.path.getsize(path) > 1000, path)
            self.assertNotIn("not written", result.stderr)
            self.assertIn(f"clockbench compare: wrote {plots}/tick-cost.svg", result.stderr)

    def test_plots_without_ticks_say_so(self):
        with tempfile.TemporaryDirectory() as plots:
            result = run_cli("compare", GOOD_LOG,
                              "--plot", plots)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("no report has tick measurements (a 'ticks' section that "
                          "applies), so the tick-cost plot is not written.",
                          result.stderr)
            self.assertFalse(os.path.exists(os.path.join(plots, "tick-cost.png")))

    def test_markdown_and_csv(self):
        markdown = run_cli("compare", SAMPLE, "--format", "markdown", "--baseline", "kvm-pc")
        self.assertEqual(markdown.returncode, 0, markdown.stderr)
        self.assertIn("| clock | env | runs |", markdown.stdout)
        self.assertIn("p50 / kvm-pc", markdown.stdout)
        self.assertIn("| source | rate Hz | env | runs |", markdown.stdout)
        result = run_cli("compare", SAMPLE, "--format", "csv")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("clock,env,runs,present_runs,missing_reason,"))
        result = run_cli("compare", SAMPLE, "--format", "csv", "--table", "ticks")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("source,rate_hz,env,runs,measured_runs,"))
        result = run_cli("compare", SAMPLE, "--table", "clocks")
        self.assertNotIn("tick costs", result.stdout)

    def test_unknown_baseline(self):
        result = run_cli("compare", SAMPLE, "--baseline", "xen-pvh")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--baseline xen-pvh: no report from that environment", result.stderr)


if __name__ == "__main__":
    unittest.main()


class OsLayerCompareTest(unittest.TestCase):
    """Raw against OS: the image's tcg-pc reports beside a clockbench-user document of the
    same environment (written on this host by build/clockbench-user; named tcg-pc.os.json
    so that it pairs with tcg-pc.json)."""

    @classmethod
    def setUpClass(cls):
        program = os.path.join(ROOT, "build", "clockbench-user")
        if not os.access(program, os.X_OK):
            raise AssertionError(f"{program} is missing: `make tool-tests` builds it first")
        cls.scratch = tempfile.TemporaryDirectory()
        cls.image = os.path.join(cls.scratch.name, "tcg-pc.json")
        shutil.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"), cls.image)
        cls.os_doc = os.path.join(cls.scratch.name, "tcg-pc.os.json")
        subprocess.run([program, "--budget-ms", "100", "--json", cls.os_doc],
                       capture_output=True, check=True, timeout=120)
        with open(cls.os_doc, encoding="utf-8") as source:
            cls.document = json.load(source)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def monotonic(self, path):
        (run,) = self.document["runs"]
        return next(r for r in run["reads"]
                    if r["clock"] == "CLOCK_MONOTONIC" and r["path"] == path)

    def test_the_os_document_pairs_with_the_image_report(self):
        inputs = load_inputs([self.image, self.os_doc])
        self.assertEqual(list(inputs.runs), ["tcg-pc"])
        self.assertEqual(list(inputs.os_runs), ["tcg-pc"])
        rows = compare_os(inputs)
        source = self.document["runs"][0]["clocksource"]
        (row,) = [row for row in rows if row.clocksource == source]
        raw_clock = {v: k for k, v in RAW_TO_CLOCKSOURCE.items()}.get(source)
        self.assertEqual(row.raw_clock, raw_clock or "-")
        libc = self.monotonic("libc")
        self.assertEqual(row.libc.median, libc["read_ns"]["p50"])
        self.assertEqual(row.syscall.median, self.monotonic("syscall")["read_ns"]["p50"])
        self.assertEqual(row.via, libc["through"])
        if raw_clock == "tsc":
            raw = clock(load("tcg-pc", 1), "tsc")["read_ns"]["p50"]
            self.assertEqual(row.raw.median, raw)
            self.assertEqual(row.added, libc["read_ns"]["p50"] - raw)

    def test_the_table_and_its_formats(self):
        result = run_cli("compare", "--table", "os", self.image, self.os_doc)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("What the OS adds: clock_gettime(CLOCK_MONOTONIC) through libc",
                      result.stdout)
        self.assertRegex(result.stdout, r"\ntcg-pc\s+\S+\s+\S+\s+")
        result = run_cli("compare", "--table", "os", "--format", "csv", self.os_doc)
        rows = list(csv.reader(result.stdout.splitlines()))
        self.assertEqual(rows[0][:3], ["env", "clocksource", "raw_clock"])
        self.assertEqual(rows[1][0], "tcg-pc")

    def test_an_os_document_alone_says_what_is_missing(self):
        result = run_cli("compare", self.os_doc)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("tcg-pc: no image report of this environment", result.stdout)
        result = run_cli("compare", "--table", "clocks", self.os_doc)
        self.assertEqual(result.returncode, 2)
        self.assertIn("only clockbench-user documents, which have no clocks table",
                      result.stderr)
        result = run_cli("compare", "--table", "os", self.image)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no clockbench-user document (clockbench-os/1)", result.stderr)

    def test_a_broken_os_document_is_one_sentence(self):
        broken = os.path.join(self.scratch.name, "broken.os.json")
        with open(broken, "w", encoding="utf-8") as out:
            json.dump(dict(self.document, runs=[]), out)
        with self.assertRaisesRegex(RunnerError, r"broken.os.json: runs: \[\] should be "
                                                 r"non-empty|broken.os.json: runs"):
            load_inputs([broken])


class OsLayerCaptureTest(unittest.TestCase):
    """Raw against OS on real captures: the matrix sample's tcg-pc and xen-hpet reports
    (Xen's default platform timer is the HPET too) beside the consoles of the boot tests
    linux-pc and xen-linux-dom0 (tests/tools/fixtures/linux/), renamed to pair."""

    def test_tcg_and_xen(self):
        linux = os.path.join(FIXTURES, "linux")
        with tempfile.TemporaryDirectory() as scratch:
            pairs = {"tcg-pc": "linux-pc.log", "xen-hpet": "xen-linux-dom0.log"}
            results = []
            for env, capture in pairs.items():
                results.append(os.path.join(scratch, f"{env}.json"))
                shutil.copy(os.path.join(SAMPLE, env, "run-1.json"), results[-1])
                results.append(os.path.join(scratch, f"{env}.os.log"))
                shutil.copy(os.path.join(linux, capture), results[-1])
            rows = {(row.env, row.clocksource): row
                    for row in compare_os(load_inputs(results))}
            result = run_cli("compare", "--table", "os", *results)
        self.assertEqual(set(rows), {("tcg-pc", "tsc"), ("tcg-pc", "hpet"),
                                     ("tcg-pc", "acpi_pm"), ("xen-hpet", "tsc"),
                                     ("xen-hpet", "xen")})
        self.assertEqual(rows["tcg-pc", "tsc"].via, "vdso")
        self.assertEqual(rows["tcg-pc", "hpet"].via, "syscall")
        self.assertEqual(rows["tcg-pc", "acpi_pm"].raw_clock, "acpi_pm")
        xen_row = rows["xen-hpet", "xen"]
        self.assertEqual((xen_row.raw_clock, xen_row.via), ("xen_pvclock", "syscall"))
        self.assertEqual(xen_row.raw.median,
                         clock(load("xen-hpet", 1), "xen_pvclock")["read_ns"]["p50"])
        # A pvclock read through a PV kernel's system call costs more than the raw read.
        self.assertGreater(xen_row.ratio, 1)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"\nxen-hpet +xen +xen_pvclock +\S+ +\S+ +syscall ")
