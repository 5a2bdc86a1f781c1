# SPDX-License-Identifier: MIT
"""The verdict (docs/verdict.md): the seed's arithmetic, the rules that choose a
clocksource, what the verdict says without an OS layer, and the command's bad input.

A test that needs a given prediction or decision patches it into the predictor's modules
(watchdog, choice, linuxread, agree); the others run them as they are."""

import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from tests.tools import FIXTURES, ROOT, run_cli

# pylint: disable=wrong-import-position,wrong-import-order
from clockbench_lib.model.report import read_log_lines  # noqa: E402
from clockbench_lib.model.osreport import load_os_report  # noqa: E402
from clockbench_lib.verdict import cost, model, text  # noqa: E402
from clockbench_lib.verdict import verdict as judging  # noqa: E402
from clockbench_lib.verdict.verdict import Environment, judge  # noqa: E402

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

MATRIX = os.path.join(FIXTURES, "matrix")
SAMPLE, AMD, LIFE = (os.path.join(MATRIX, name) for name in ("sample", "amd", "life"))
LINUX_LOG = os.path.join(FIXTURES, "linux", "linux-pc.log")
SCHEMA = os.path.join(ROOT, "docs", "verdict.schema.json")


def clock(name, p50_ns, flags=()):
    """A measured clock of a record, as the report has it (what the verdict reads)."""
    return {"name": name, "present": True, "measured": True, "flags": list(flags),
            "read_ns": {"p50": p50_ns}}


def cross(name, warps=0, offset=(10, 50), drift=(0.01, 0.1), claims_stable=False):
    """A cross_cpu entry of one clock: warps, CPU 1's offset and drift with their
    uncertainties."""
    return {"clock": name, "claims_stable": claims_stable, "iterations": 1000, "warps": warps,
            "worst_warp_ns": 900 if warps else 0,
            "offsets": [{"cpu": 1, "offset_ns": offset[0], "uncertainty_ns": offset[1]}],
            "drift_ppm": [{"cpu": 1, "drift_ppm": drift[0], "uncertainty_ppm": drift[1]}]}


def record(*entries, clocks=None, events=None, checks=()):
    """A run record with tsc at 33 ns and xen_pvclock at 680 ns (the seed's), two CPUs."""
    found = {"schema": "clockbench/2",
             "clocks": clocks or [clock("tsc", 33, ["per_cpu"]),
                                  clock("xen_pvclock", 680, ["per_cpu"])],
             "cross_cpu": {"applies": True, "clocks": list(entries) or [cross("tsc"),
                                                                         cross("xen_pvclock")]},
             "checks": {"list": list(checks)}}
    if events:
        found["lifecycle"] = {"events": events}
    return found


def os_document(**costs):
    """A clockbench-os/1 document with clock_gettime(CLOCK_MONOTONIC) through libc at
    `costs[clocksource] = (ns, through)`."""
    runs = [{"clocksource": name, "problem": None, "reads": [
        {"clock": "CLOCK_MONOTONIC", "path": "libc", "through": through, "measured": True,
         "read_ns": {"p50": ns}},
        {"clock": "CLOCK_MONOTONIC", "path": "syscall", "through": "syscall",
         "measured": True, "read_ns": {"p50": 700}}]} for name, (ns, through) in costs.items()]
    return {"schema": "clockbench-os/1", "runs": runs,
            "clocksources": {"original": "xen", "available": list(costs)}}


def picks(name):
    """Patch choice.predict_choice to say Linux picks `name`."""
    return mock.patch.object(judging.choice, "predict_choice",
                             return_value=(name, f"{name} rated highest"))


def predicts(*predictions):
    """Patch watchdog.predict to give `predictions`."""
    return mock.patch.object(judging.watchdog, "predict", return_value=list(predictions))


def seed_environment():
    """The seed's Xen guest: xen at 0.68 µs a read as a system call, tsc at 0.033 µs
    through the vDSO."""
    return Environment("xen-seed", "seedhost", [record()],
                       [os_document(xen=(680, "syscall"), tsc=(33, "vdso"))])


class SeedArithmetic(unittest.TestCase):
    """The seed's figures (0.68 µs, 0.033 µs, a third of a CPU) give its conclusion."""

    def test_the_read_rate_a_third_of_a_cpu_implies(self):
        rate = cost.implied_reads_per_s(cost.SEED_XEN_READ_NS, cost.SEED_CPU_SHARE)
        self.assertAlmostEqual(rate, 490_196, delta=1)

    def test_the_tsc_at_that_rate(self):
        rate = cost.implied_reads_per_s(cost.SEED_XEN_READ_NS, cost.SEED_CPU_SHARE)
        self.assertAlmostEqual(cost.reading_cost(cost.SEED_TSC_READ_NS, rate).cpu_pct, 1.62,
                               places=2)

    def test_the_cpu_the_tsc_saves(self):
        rate = cost.implied_reads_per_s(cost.SEED_XEN_READ_NS, cost.SEED_CPU_SHARE)
        saved = cost.cpu_saved(cost.SEED_XEN_READ_NS, cost.SEED_TSC_READ_NS, rate)
        self.assertAlmostEqual(saved, 0.3172, places=4)

    def test_the_most_reads_one_cpu_makes(self):
        self.assertAlmostEqual(cost.reading_cost(680, 1).max_reads_per_s, 1_470_588, delta=1)

    def test_the_default_rate_is_the_seeds_rounded(self):
        rate = cost.implied_reads_per_s(cost.SEED_XEN_READ_NS, cost.SEED_CPU_SHARE)
        self.assertEqual(cost.DEFAULT_READS_PER_S, round(rate, -5))

    def test_the_verdict_draws_the_seeds_conclusion(self):
        rate = cost.implied_reads_per_s(cost.SEED_XEN_READ_NS, cost.SEED_CPU_SHARE)
        with picks("xen"):
            found = judge(seed_environment(), rate)
        self.assertEqual(found.recommended, "tsc")
        self.assertAlmostEqual(found.saved_cpu_share, 0.3172, places=4)
        self.assertIn("switch the clocksource from xen", text.paragraph(found))
        self.assertIn("switching saves 32 % of one CPU", text.paragraph(found))
        self.assertIn("33 % of a CPU", text.paragraph(found))

    def test_a_rate_of_zero_is_refused(self):
        with self.assertRaises(ValueError):
            cost.reading_cost(680, 0)


class Rules(unittest.TestCase):
    """The cheapest clocksource whose safety evidence holds, and what takes one out."""

    def judged(self, env, *predictions, chosen="xen"):
        with picks(chosen), predicts(*predictions):
            return judge(env, cost.DEFAULT_READS_PER_S)

    def test_warps_take_a_clocksource_out(self):
        env = seed_environment()
        env.records = [record(cross("tsc", warps=3), cross("xen_pvclock"))]
        found = self.judged(env)
        self.assertEqual(found.recommended, "xen")
        self.assertIn("tsc (33 ns a read, through the vDSO) is cheaper but out: tsc went "
                      "backwards between CPUs", found.recommended_why)

    def test_an_offset_beyond_its_bound_takes_it_out(self):
        env = seed_environment()
        env.records = [record(cross("tsc", offset=(5000, 100)), cross("xen_pvclock"))]
        self.assertEqual(self.judged(env).recommended, "xen")

    def test_an_offset_within_its_bound_does_not(self):
        env = seed_environment()
        env.records = [record(cross("tsc", offset=(1500, 600)), cross("xen_pvclock"))]
        self.assertEqual(self.judged(env).recommended, "tsc")

    def test_a_drift_beyond_its_error_takes_it_out(self):
        env = seed_environment()
        env.records = [record(cross("tsc", drift=(40, 2)), cross("xen_pvclock"))]
        self.assertEqual(self.judged(env).recommended, "xen")

    def test_a_drift_within_its_error_does_not(self):
        env = seed_environment()
        env.records = [record(cross("tsc", drift=(40, 20)), cross("xen_pvclock"))]
        self.assertEqual(self.judged(env).recommended, "tsc")

    def test_unstable_at_rest_takes_it_out(self):
        found = self.judged(seed_environment(), model.WatchdogPrediction(
            "tsc", "xen", model.AT_REST, model.UNSTABLE, "Linux would mark tsc unstable"))
        self.assertEqual(found.recommended, "xen")
        self.assertIn("Linux would mark tsc unstable (at rest)", found.recommended_why)

    def test_unstable_across_an_event_takes_it_out(self):
        found = self.judged(seed_environment(), model.WatchdogPrediction(
            "tsc", "xen", "stop 1", model.UNSTABLE, "it stepped 3.0 s against xen"))
        self.assertEqual(found.recommended, "xen")

    def test_a_skipped_check_is_a_caveat_only(self):
        found = self.judged(seed_environment(), model.WatchdogPrediction(
            "tsc", "xen", model.AT_REST, model.SKIP, "would skip its check for 5 minutes"))
        self.assertEqual(found.recommended, "tsc")
        self.assertIn("Would skip its check for 5 minutes.", text.caveat_sentences(found))

    def test_a_failed_guest_check_takes_it_out(self):
        env = seed_environment()
        env.records = [record(checks=[{"name": "tsc: never went backwards in back-to-back "
                                               "reads", "result": "fail", "info": "2 steps"}])]
        self.assertEqual(self.judged(env).recommended, "xen")

    def test_a_step_back_across_an_event_takes_it_out(self):
        env = seed_environment()
        env.records = [record(events=[{"seq": 1, "kind": "stop", "clocks": [
            {"clock": "tsc", "behaviour": "went back", "back_steps": 4,
             "worst_back_ns": 10, "step_from_tsc_ns": 0}]}])]
        self.assertEqual(self.judged(env).recommended, "xen")

    def test_a_dearer_read_after_an_event_is_a_caveat(self):
        env = seed_environment()
        env.records = [record(events=[{"seq": 2, "kind": "savevm", "clocks": [
            {"clock": "tsc", "behaviour": "ran on", "back_steps": 0,
             "cost_before_ns": 20, "cost_after_ns": 360}]}])]
        found = self.judged(env)
        self.assertEqual(found.recommended, "tsc")
        self.assertIn("After savevm 2 a tsc read cost ×18 (20 ns before, 360 ns after, each "
                      "the mean of 64 reads).", text.caveat_sentences(found))

    def test_linux_pick_kept_when_as_cheap(self):
        env = seed_environment()
        env.os_documents = [os_document(xen=(33, "vdso"), tsc=(33, "vdso"))]
        self.assertEqual(self.judged(env).recommended, "xen")

    def test_linux_pick_kept_when_within_the_spread(self):
        env = seed_environment()
        env.os_documents = [os_document(xen=(1000, "syscall"), tsc=(900, "syscall"))]
        found = self.judged(env)
        self.assertEqual(found.recommended, "xen")
        self.assertIn("tsc (900 ns a read, a system call) is 10 % cheaper, within the 20 % "
                      "a read's cost moves between runs: too little to switch for",
                      found.recommended_why)

    def test_a_saving_beyond_the_spread_is_a_switch(self):
        env = seed_environment()
        env.os_documents = [os_document(xen=(1000, "syscall"), tsc=(790, "syscall"))]
        self.assertEqual(self.judged(env).recommended, "tsc")

    def test_none_when_nothing_holds(self):
        env = seed_environment()
        env.records = [record(cross("tsc", warps=1),
                              cross("xen_pvclock", warps=1, claims_stable=True))]
        found = self.judged(env)
        self.assertIsNone(found.recommended)
        self.assertIn("no clocksource here can be recommended", text.paragraph(found))

    def test_pvclock_warps_linux_clamps_are_a_caveat(self):
        env = seed_environment()
        env.records = [record(cross("tsc", warps=1), cross("xen_pvclock", warps=2,
                                                            offset=(5000, 100)))]
        found = self.judged(env)
        self.assertEqual(found.recommended, "xen")
        paragraph = text.paragraph(found)
        self.assertIn("returns no less than the last value any CPU read", paragraph)
        self.assertIn("the clock stands still on the CPU behind instead", paragraph)

    def test_a_dearer_safe_choice_says_what_it_costs(self):
        env = seed_environment()
        env.records = [record(cross("tsc", warps=1), cross("xen_pvclock"))]
        found = self.judged(env, chosen="tsc")
        self.assertEqual(found.recommended, "xen")
        self.assertLess(found.saved_cpu_share, 0)
        self.assertIn("switching costs 32 % more of one CPU, the price of a clocksource "
                      "that stays safe", text.paragraph(found))
        self.assertNotIn("saves -", text.paragraph(found))
        self.assertIn("for safety", text.short(found))

    def test_contention_is_a_caveat(self):
        env = seed_environment()
        env.records[0]["noise"] = {"measured": True, "steal_interface": "Xen runstate area",
                                   "cpus": [{"ran": True, "availability_pct": 61.0,
                                             "span_ns": 1e8, "steal": {"total_ns": 3e7}}]}
        caveats = text.caveat_sentences(self.judged(env))
        self.assertIn("The guest ran contended: the vCPUs kept at least 61 % of their time "
                      "while spinning, steal 30 % (Xen runstate area); a vCPU taken away "
                      "between the watchdog's reads makes a watched clocksource look "
                      "skewed.", caveats)

    def test_a_disagreement_fails_the_verdict(self):
        decision = model.LinuxDecision("boot", "tsc", ["tsc", "xen"])
        refuted = model.Agreement("Linux's choice at boot agrees", False, "predicted xen")
        with mock.patch.object(judging.linuxread, "decisions", return_value=[decision]), \
                mock.patch.object(judging.agree, "agreements", return_value=[refuted]):
            found = self.judged(seed_environment())
        self.assertFalse(found.agrees)
        self.assertEqual(found.linux_chose, "tsc")


class WithoutOsLayer(unittest.TestCase):
    """An environment with no clockbench-user document rests on the image's raw reads,
    and says so."""

    def test_raw_reads_said(self):
        found = judge(Environment("tcg-pc", "h", [record()]), cost.DEFAULT_READS_PER_S)
        self.assertEqual(found.basis, judging.BASIS_RAW)
        self.assertIn("no OS-layer run here: the figures are the image's raw reads, which "
                      "leave out what Linux adds: typically", text.paragraph(found))
        self.assertEqual([c.through for c in found.costs], ["raw read", "raw read"])

    def test_a_document_alone_says_what_is_missing(self):
        env = Environment("tcg-pc", "h", [], [os_document(tsc=(106, "vdso"))])
        found = judge(env, cost.DEFAULT_READS_PER_S)
        self.assertEqual(found.recommended, "tsc")
        self.assertIn("No image record of this environment: no warps, offsets, drift, "
                      "events or watchdog predictions to judge by", text.paragraph(found))


def validated(document):
    """The document, after checking it against docs/verdict.schema.json."""
    import jsonschema  # pylint: disable=import-outside-toplevel
    with open(SCHEMA, encoding="utf-8") as schema:
        jsonschema.validate(document, json.load(schema))
    return document


class Command(unittest.TestCase):
    """`clockbench verdict`: one verdict per host, the JSON, and bad input."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="clockbench-verdict-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch)

    def verdicts(self, *paths):
        out = os.path.join(self.scratch, "verdict.json")
        result = run_cli("verdict", "--json", out, *paths)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as source:
            return result, validated(json.load(source))

    def test_two_hosts_give_two_verdicts(self):
        _, document = self.verdicts(SAMPLE, AMD)
        hosts = {v["environment"]: v["host"] for v in document["verdicts"]}
        self.assertIn("an unnamed host", hosts["xen-tsc@sample"])
        self.assertEqual(hosts["xen-tsc@vm"], "vm, CPU AMD EPYC")

    def test_an_older_schema_is_read(self):
        _, document = self.verdicts(os.path.join(SAMPLE, "kvm-pc", "run-1.json"))
        self.assertEqual(document["verdicts"][0]["runs"], 1)

    def test_a_run_summary_alone_says_why_not(self):
        result = run_cli("verdict", os.path.join(MATRIX, "malformed", "run-summary.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("this records a run that gave no report (clockbench-run/0",
                      result.stderr)

    def test_a_failed_run_is_left_out_and_said(self):
        result, document = self.verdicts(LIFE)
        self.assertEqual(document["verdicts"][0]["runs"], 1)
        self.assertIn("a FAIL run (", document["verdicts"][0]["notes"][0])
        self.assertIn("left out, as compare leaves it out", result.stdout)

    def test_a_row_of_failed_runs_only_is_said(self):
        result, document = self.verdicts(AMD)
        self.assertNotIn("tcg-pc", [v["environment"] for v in document["verdicts"]])
        self.assertIn("tcg-pc: FAIL run", result.stderr)

    def test_a_document_pairs_by_name(self):
        folder = os.path.join(self.scratch, "paired")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"),
                    os.path.join(folder, "tcg-pc.json"))
        shutil.copy(LINUX_LOG, os.path.join(folder, "tcg-pc.os.log"))
        _, document = self.verdicts(os.path.join(folder, "tcg-pc.json"),
                                    os.path.join(folder, "tcg-pc.os.log"))
        found = document["verdicts"][0]
        self.assertEqual(found["basis"], "os layer")
        self.assertEqual([(c["clocksource"], c["through"]) for c in found["costs"]],
                         [("tsc", "vdso"), ("acpi_pm", "syscall"), ("hpet", "syscall")])
        self.assertEqual(found["linux_chose"], "tsc")

    def test_a_document_two_hosts_share_stands_alone(self):
        folder = os.path.join(self.scratch, "shared")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(LINUX_LOG, os.path.join(folder, "xen-tsc.os.log"))
        _, document = self.verdicts(SAMPLE, AMD, os.path.join(folder, "xen-tsc.os.log"))
        found = {v["environment"]: v for v in document["verdicts"]}
        self.assertEqual(found["xen-tsc"]["runs"], 0)
        self.assertIn("2 hosts ran xen-tsc, and the document names no host, so it stands "
                      "alone", found["xen-tsc"]["notes"][0])
        self.assertEqual(found["xen-tsc@vm"]["os_runs"], 0)

    def test_a_disagreement_exits_1(self):
        decision = model.LinuxDecision("boot", "hpet", ["tsc", "hpet"])
        refuted = model.Agreement("Linux's choice at boot agrees", False,
                                  "predicted tsc, Linux chose hpet")
        folder = os.path.join(self.scratch, "refuted")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(SAMPLE, "tcg-pc", "run-1.json"),
                    os.path.join(folder, "tcg-pc.json"))
        shutil.copy(LINUX_LOG, os.path.join(folder, "tcg-pc.os.log"))
        with mock.patch.object(judging.linuxread, "decisions", return_value=[decision]), \
                mock.patch.object(judging.agree, "agreements", return_value=[refuted]):
            result = run_cli("verdict", folder + "/tcg-pc.json", folder + "/tcg-pc.os.log")
        self.assertEqual(result.returncode, 1)
        self.assertIn("FAIL: tcg-pc: Linux's choice at boot agrees: predicted tsc, Linux "
                      "chose hpet", result.stderr)

    def test_the_rate_prices_each_clocksource(self):
        _, document = self.verdicts("--reads-per-second", "1000000",
                                    os.path.join(SAMPLE, "kvm-pc", "run-1.json"))
        costs = document["verdicts"][0]["costs"]
        self.assertEqual([round(c["cpu_share"] * 1e9 / 1e6, 6) for c in costs],
                         [c["cost_ns"] for c in costs])


class BadRate(unittest.TestCase):
    """--reads-per-second takes a number above 0, else exit 2 and a sentence."""

    def refused(self, value):
        result = run_cli("verdict", "--reads-per-second", value, SAMPLE)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"'{value}' is not a read rate: give reads a second, a number above 0",
                      result.stderr)

    def test_zero(self):
        self.refused("0")

    def test_negative(self):
        self.refused("-5")

    def test_not_a_number(self):
        self.refused("many")

    def test_not_finite(self):
        self.refused("inf")


class Compare(unittest.TestCase):
    """The verdict on compare's console (after its summary), alone with --table verdict,
    and at the top of its HTML page."""

    def test_after_the_summary(self):
        lines = run_cli("compare", LIFE).stdout.splitlines()
        self.assertTrue(lines[5].startswith("verdict: tcg-life (on vm, CPU AMD EPYC): "))

    def test_alone(self):
        result = run_cli("compare", "--table", "verdict", LIFE)
        self.assertIn("verdict: tcg-life", result.stdout)
        self.assertNotIn("clocks: what one read costs", result.stdout)

    def test_not_as_csv(self):
        result = run_cli("compare", "--table", "verdict", "--format", "csv", LIFE)
        self.assertEqual(result.returncode, 2)

    def test_at_the_top_of_the_page(self):
        with tempfile.TemporaryDirectory() as folder:
            page = os.path.join(folder, "page.html")
            with mock.patch("clockbench_lib.compare.html.written_plots",
                            return_value=([], [])):
                result = run_cli("compare", "--html", page, LIFE)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(page, encoding="utf-8") as source:
                html = source.read()
        self.assertLess(html.index("<h2>Verdict</h2>"), html.index("<h2>Summary</h2>"))


class OsDocumentFixture(unittest.TestCase):
    """The fixture document's costs as the verdict reads them."""

    def test_costs(self):
        document = load_os_report(read_log_lines(LINUX_LOG), LINUX_LOG)
        costs = judging.os_costs([document])
        self.assertEqual((costs["tsc"].cost_ns, costs["tsc"].through), (106, "vdso"))
        self.assertEqual(costs["hpet"].through, "syscall")


if __name__ == "__main__":
    unittest.main()
