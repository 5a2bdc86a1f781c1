# SPDX-License-Identifier: MIT
"""clockbench in a LAVA lab, without booting (clockbench_lib/lava/): the jobs and device
configurations written, the monitors' patterns run the way LAVA 2023.01 runs them over a
real console, and `lava results` on real lava-run logs (tests/fixtures/lava/) and on every
bad input the issue names.  test_lava_run.py runs the jobs under lava-run."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.tools import CLOCKBENCH, GOOD_LOG, PYTHON, ROOT
from clockbench_lib.base.outcome import RunnerError
from clockbench_lib.lava import command, jobs, logs, results
from clockbench_lib.model import console
from clockbench_lib.model.record import load_record

LAVA_FIXTURES = os.path.join(ROOT, "tests", "fixtures", "lava")
TCG_PASS = os.path.join(LAVA_FIXTURES, "tcg-pass.log")          # lava-run, TCG, quick
FAULT_GP = os.path.join(LAVA_FIXTURES, "fault-gp.log")          # lava-run, fault=gp
# LAVA's own schema checker (Debian's lava-common, which lava-dispatcher brings).
LAVA_SCHEMA = "/usr/share/lava-common/lava-schema.py"
NEVER_BOOTED = os.path.join(LAVA_FIXTURES, "kvm-never-booted.log")  # a KVM job, no KVM
LAB_SERVER = os.path.join(LAVA_FIXTURES, "lab-server.log")  # make lava-lab-check's job


def run_tool(*args):
    return subprocess.run([PYTHON, CLOCKBENCH, *args], capture_output=True, text=True,
                          check=False, timeout=60)


def monitor_cases(monitors, text, chunk_chars):
    """What LAVA 2023.01's monitors make of console `text` arriving `chunk_chars` at a
    time (lava_dispatcher/actions/test/monitor.py over pexpect): each monitor waits for
    its start, then takes the earliest of its end and its pattern in what has arrived
    (the end first on a tie), each match consuming its text.  Returns (definition,
    test_case_id, result, measurement, units) tuples; None where a monitor never ends."""
    arrived, buffer, cases = 0, "", []

    def more():
        nonlocal arrived, buffer
        if arrived >= len(text):
            return False
        buffer += text[arrived:arrived + chunk_chars]
        arrived += chunk_chars
        return True

    for monitor in monitors:
        start = re.compile(monitor["start"], re.DOTALL)
        while not (found := start.search(buffer)):
            if not more():
                return None
        buffer = buffer[found.end():]
        end = re.compile(monitor["end"], re.DOTALL)
        pattern = re.compile(monitor["pattern"], re.DOTALL)
        while True:
            hits = [(match.start(), kind, match) for kind, match in
                    ((0, end.search(buffer)), (1, pattern.search(buffer))) if match]
            if not hits:
                if not more():
                    return None
                continue
            _, kind, match = min(hits, key=lambda hit: hit[:2])
            buffer = buffer[match.end():]
            if kind == 0:
                break
            groups = match.groupdict()
            result = groups.get("result")
            if result is not None:
                result = (monitor.get("fixupdict") or {}).get(result, result)
            cases.append((monitor["name"], groups["test_case_id"].strip(),
                          result or "pass", groups.get("measurement"), groups.get("units")))
    return cases


def console_text(path):
    """The console of a LAVA log as it came over the serial line (\\r\\n line ends)."""
    return "".join(line + "\r\n" for line in logs.read_log(path).console)


class Jobs(unittest.TestCase):
    def test_a_tcg_job_runs_without_kvm_on_the_image_of_this_checkout(self):
        job = jobs.job_definition(jobs.JobSpec(smp=2, cmdline="tick_rates="))
        self.assertEqual(job["device_type"], "qemu")
        self.assertEqual(job["context"]["no_kvm"], True)
        self.assertIn("-smp 2", job["context"]["extra_options"])
        self.assertIn("-cpu max", job["context"]["extra_options"])
        kernel = job["actions"][0]["deploy"]["images"]["kernel"]
        self.assertEqual(kernel["url"], "file://" + os.path.join(ROOT, "build",
                                                                 "clockbench-mb1.elf"))
        self.assertEqual(kernel["image_arg"], '-kernel {kernel} -append "tick_rates="')
        self.assertEqual([monitor["name"] for monitor in job["actions"][2]["test"]["monitors"]],
                         list(jobs.MONITOR_NAMES))

    def test_a_kvm_job_leaves_kvm_to_the_template(self):
        job = jobs.job_definition(jobs.JobSpec(accel="kvm"))
        self.assertEqual(job["context"]["no_kvm"], False)
        self.assertNotIn("-cpu max", job["context"]["extra_options"])
        device = jobs.qemu_device(job["context"])
        options = device["actions"]["boot"]["methods"]["qemu"]["parameters"]["options"]
        self.assertEqual(options[:2], ["-cpu host", "-enable-kvm"])

    def test_a_tcg_device_has_no_kvm_options(self):
        device = jobs.qemu_device(jobs.qemu_context(jobs.JobSpec(memory_mib=96)))
        parameters = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
        self.assertNotIn("-enable-kvm", parameters["options"])
        self.assertIn("-m 96", parameters["options"])
        self.assertIn("-bios qboot.rom", parameters["extra"])

    def test_iso_jobs_boot_the_cd_under_bios_or_uefi(self):
        bios = jobs.job_definition(jobs.JobSpec(boot="iso-bios"))
        uefi = jobs.job_definition(jobs.JobSpec(boot="iso-uefi"))
        self.assertEqual(bios["actions"][0]["deploy"]["images"]["iso"]["image_arg"],
                         "-cdrom {iso}")
        self.assertNotIn(f"-bios {jobs.OVMF_BIOS}", bios["context"]["extra_options"])
        self.assertIn(f"-bios {jobs.OVMF_BIOS}", uefi["context"]["extra_options"])
        self.assertGreaterEqual(uefi["context"]["memory"], 60)
        # GRUB under SeaBIOS on pc finds no floppy drive to wait on; q35 has none.
        self.assertIn("-global isa-fdc.fdtypeA=none", bios["context"]["extra_options"])
        q35 = jobs.job_definition(jobs.JobSpec(boot="iso-bios", machine="q35"))
        self.assertNotIn("-global isa-fdc.fdtypeA=none", q35["context"]["extra_options"])

    def test_hardware_jobs_load_the_image_over_the_network(self):
        ipxe = jobs.job_definition(jobs.JobSpec(device="hardware", boot="ipxe",
                                                cmdline="tick_rates=100"))
        grub = jobs.job_definition(jobs.JobSpec(device="hardware", boot="grub"))
        self.assertEqual(ipxe["device_type"], "x86")
        self.assertNotIn("context", ipxe)
        self.assertIn("kernel tftp://{SERVER_IP}/{KERNEL} tick_rates=100",
                      ipxe["actions"][1]["boot"]["commands"])
        self.assertTrue(ipxe["actions"][0]["deploy"]["kernel"]["url"].endswith(
            "clockbench-mb1.elf"))
        self.assertIn("multiboot2 (tftp,{SERVER_IP})/{KERNEL}",
                      grub["actions"][1]["boot"]["commands"])
        self.assertTrue(grub["actions"][0]["deploy"]["kernel"]["url"].endswith(
            "clockbench.elf"))

    def test_a_boot_the_device_cannot_do_is_refused(self):
        for spec, says in (
                (jobs.JobSpec(boot="ipxe"), "a qemu device cannot boot ipxe"),
                (jobs.JobSpec(device="hardware", boot="iso-uefi"),
                 "a hardware device cannot boot iso-uefi"),
                (jobs.JobSpec(device="hardware", boot="grub", accel="kvm"),
                 "--accel is for a qemu device"),
                (jobs.JobSpec(cmdline='x="y"'), "cannot contain a double quote"),
                (jobs.JobSpec(boot="iso-bios", cmdline="verbose=1"),
                 "takes its options from the ISO"),
                (jobs.JobSpec(boot="iso-uefi", memory_mib=32), "at least 60 MiB")):
            with self.assertRaises(RunnerError) as caught:
                jobs.job_definition(spec)
            self.assertIn(says, str(caught.exception))

    def test_the_command_writes_yaml_and_refuses_in_one_sentence(self):
        written = run_tool("lava", "job", "--", "tick_rates=", "budget_ms=200")
        self.assertEqual(written.returncode, 0, written.stderr)
        self.assertIn('image_arg: -kernel {kernel} -append "tick_rates= budget_ms=200"',
                      written.stdout)
        refused = run_tool("lava", "job", "--boot", "grub")
        self.assertEqual(refused.returncode, 2)
        self.assertEqual(refused.stderr.strip().count("\n"), 0)
        self.assertIn("a qemu device cannot boot grub", refused.stderr)
        unknown = run_tool("lava", "job", "--", "no_such_option=1")
        self.assertEqual(unknown.returncode, 2)


class Monitors(unittest.TestCase):
    """The patterns, run as LAVA runs them over the consoles of real runs."""

    def expected(self, path):
        lines = logs.read_log(path).console
        checks = console.parse_check_list(lines)
        verdict = console.parse_final_verdict(lines)
        return ([(jobs.MONITOR_NAMES[1], check["name"], results.LAVA_RESULTS[check["result"]])
                 for check in checks],
                (jobs.MONITOR_NAMES[2], "clockbench", jobs.VERDICT_FIXUP[verdict.upper()]))

    def test_every_ktap_check_is_a_case_whatever_the_chunks(self):
        ktap, verdict = self.expected(TCG_PASS)
        self.assertIn((jobs.MONITOR_NAMES[1], "cross-CPU checks", "skip"), ktap)
        for chunk_chars in (61, 4092):
            cases = monitor_cases(jobs.monitors(), console_text(TCG_PASS), chunk_chars)
            self.assertIsNotNone(cases, chunk_chars)
            self.assertEqual([case[:3] for case in cases if case[0] == "clockbench"], ktap)
            self.assertEqual([case[:3] for case in cases if case[0] == verdict[0]], [verdict])
            costs = [case for case in cases if case[0] == jobs.MONITOR_NAMES[0]]
            self.assertEqual([case[1] for case in costs],
                             ["tsc", "tsc_rdtscp", "tsc_ordered", "hpet", "acpi_pm", "pit"])
            self.assertTrue(all(case[4] == "ns" and float(case[3]) > 0 for case in costs))

    def test_a_faulting_run_ends_every_monitor(self):
        ktap, verdict = self.expected(FAULT_GP)
        cases = monitor_cases(jobs.monitors(), console_text(FAULT_GP), 13)
        self.assertEqual([case[:3] for case in cases if case[0] != jobs.MONITOR_NAMES[0]],
                         ktap + [verdict])
        self.assertEqual(verdict[2], "fail")

    def test_a_check_in_error_is_a_fail(self):
        text = ("clockbench 0.1.0 (x)\r\nKTAP version 1\r\n1..2\r\nok 1 a # SKIP no\r\n"
                "not ok 2 b: c # ERROR broken\r\n# 0 passed, 0 failed, 1 skipped, 1 errors\r\n"
                "clockbench: ERROR\r\nclockbench: ending the run: halt\r\n")
        self.assertEqual([case[1:3] for case in monitor_cases(jobs.monitors(), text, 5)],
                         [("a", "skip"), ("b: c", "fail"), ("clockbench", "fail")])


class Results(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="clockbench-lava-")

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def scratch_log(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    def test_a_passing_run_rebuilds_its_record_for_compare(self):
        check = results.check_log(TCG_PASS, device="qemu01")
        self.assertEqual((check.status, check.problems, check.failed), (0, [], []))
        path = os.path.join(self.scratch, "lab.json")
        done = run_tool("lava", "results", TCG_PASS, "--device", "qemu01", "--json", path)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("30 LAVA cases for 30 KTAP checks", done.stdout)
        record = load_record(path)
        self.assertEqual((record.verdict, record.runner.environment, record.runner.accel),
                         ("pass", "tcg-pc", "tcg"))
        self.assertEqual(record.runner.host.name, "qemu01")
        self.assertRegex(record.runner.host.machine_id, r"^[0-9a-f]{16}$")
        self.assertEqual(record.report.clock("tsc").read_p50_ns, 10)
        self.assertTrue(record.run_id.startswith("lava-"))

    def test_compare_keeps_the_lab_device_apart_from_a_local_host(self):
        path = os.path.join(self.scratch, "lab.json")
        self.assertEqual(run_tool("lava", "results", TCG_PASS, "--device", "qemu01",
                                  "--json", path).returncode, 0)
        local = os.path.join(ROOT, "tests", "tools", "fixtures", "matrix", "sample")
        done = run_tool("compare", local, path, "--table", "clocks")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stdout, r"(?m)^tsc +tcg-pc@qemu01 +1 ")
        self.assertRegex(done.stdout, r"(?m)^tsc +tcg-pc@sample +2 ")

    def test_a_servers_log_reads_as_lava_runs(self):
        """lavacli jobs logs --raw: the same entries as a YAML list, from a real lab."""
        check = results.check_log(LAB_SERVER, device="clockbench-qemu01", job_id="1")
        self.assertEqual((check.status, check.problems), (0, []))
        self.assertIn("30 LAVA cases for 30 KTAP checks", check.summary)
        runner = check.record["runner"]
        self.assertEqual(runner["qemu_command"][-2:], ["-append", "tick_rates= budget_ms=200"])
        self.assertEqual((runner["accel"], runner["machine"], runner["smp"],
                          runner["memory_mib"], runner["cpu"]), ("tcg", "pc", 1, 64, "max"))
        self.assertEqual(check.record["lava"]["job_id"], "1")

    def test_a_fault_is_a_failed_test_not_a_lab_error(self):
        self.assertEqual(logs.read_log(FAULT_GP).job_result["result"], "pass")
        check = results.check_log(FAULT_GP)
        self.assertEqual(check.status, results.EXIT_CASE_FAILED)
        self.assertEqual(check.problems, [])
        self.assertEqual(check.failed, ["no unexpected exception # #GP general protection "
                                        "fault at RIP 0x11323a", "the verdict: FAIL"])
        self.assertEqual(check.record["verdict"], "fail")
        self.assertEqual(check.record["console"]["checks"]["failed"], 1)

    def test_a_device_that_never_booted_is_a_lab_error(self):
        check = results.check_log(NEVER_BOOTED)
        self.assertEqual(check.status, results.EXIT_LAB_ERROR)
        self.assertIn("the device never booted clockbench", check.lab_error)
        self.assertIn("lab error, not a test result", check.lab_error)
        done = run_tool("lava", "results", NEVER_BOOTED)
        self.assertEqual(done.returncode, results.EXIT_LAB_ERROR)
        self.assertIn("kvm module is not enabled", done.stderr)

    def test_a_log_that_is_not_lavas_is_refused(self):
        with self.assertRaisesRegex(RunnerError, "not a LAVA job log"):
            results.check_log(GOOD_LOG)
        with self.assertRaisesRegex(RunnerError, "not a LAVA job log: it is empty"):
            results.check_log(self.scratch_log("empty.log", "\n"))
        done = run_tool("lava", "results", GOOD_LOG)
        self.assertEqual(done.returncode, 2)

    def test_a_cut_log_keeps_its_cases_and_says_so(self):
        with open(TCG_PASS, encoding="utf-8") as source:
            lines = source.readlines()
        cut_at = next(index for index, line in enumerate(lines)
                      if '"case": "hpet_advances"' in line) + 1
        text = "".join(lines[:cut_at]) + lines[cut_at][:40]
        check = results.check_log(self.scratch_log("cut.log", text))
        self.assertEqual(check.status, results.EXIT_BROKEN)
        self.assertIn("the log was cut", check.problems[0])
        self.assertIn("the 11 KTAP case(s) before the cut", check.problems[0])
        self.assertEqual(check.record["verdict"], "error")

    def test_a_run_that_never_ends_is_no_pass(self):
        with open(TCG_PASS, encoding="utf-8") as source:
            lines = source.readlines()
        end = next(index for index, line in enumerate(lines) if "KTAP version 1" in line)
        text = "".join(lines[:end]) + (
            '{"dt": "2026-12-04T16:03:28.0", "lvl": "results", "msg": {"case": "job", '
            '"definition": "lava", "error_msg": "lava test monitoring has timed out", '
            '"error_type": "Test", "result": "fail"}}\n')
        check = results.check_log(self.scratch_log("hang.log", text))
        self.assertEqual(check.status, results.EXIT_BROKEN)
        self.assertIn("the console has no verdict line: the run never ended", check.problems[0])
        self.assertIn("its Test error lava test monitoring has timed out after the image had "
                      "booted", check.problems[1])
        self.assertEqual(check.record["verdict"], "error")

    def test_a_case_that_disagrees_with_the_console_is_found(self):
        with open(TCG_PASS, encoding="utf-8") as source:
            text = source.read()
        changed = text.replace('"case": "tsc_advances", "definition": "clockbench", "extra": '
                               '{"test_case_id": "tsc: advances"}, "level": "3.1", "result": '
                               '"pass"', '"case": "tsc_advances", "definition": "clockbench", '
                               '"extra": {"test_case_id": "tsc: advances"}, "level": "3.1", '
                               '"result": "skip"', 1)
        self.assertNotEqual(changed, text)
        check = results.check_log(self.scratch_log("changed.log", changed))
        self.assertEqual(check.status, results.EXIT_BROKEN)
        self.assertIn("LAVA's case 2 is \"tsc: advances\" skip, where the console's check 2 is "
                      "\"tsc: advances\" pass", check.problems[0])
        dropped = "".join(line for line in text.splitlines(True)
                          if '"case": "pit_advances"' not in line)
        check = results.check_log(self.scratch_log("dropped.log", dropped))
        self.assertTrue(any("the console has 1 more KTAP case(s) than LAVA" in problem
                            for problem in check.problems), check.problems)

    def test_a_read_cost_that_is_not_the_reports_is_found(self):
        with open(TCG_PASS, encoding="utf-8") as source:
            text = source.read()
        changed = re.sub(r'("case": "hpet", "definition": "clockbench-read-cost".*?'
                         r'"measurement": ! ")[0-9.]+', r"\g<1>999.0", text, count=1)
        check = results.check_log(self.scratch_log("cost.log", changed))
        self.assertIn("LAVA's read cost of hpet is 999.0 ns, where the guest's report gives "
                      "100 ns", " ".join(check.problems))


class Devices(unittest.TestCase):
    @unittest.skipUnless(os.path.isfile(LAVA_SCHEMA), f"{LAVA_SCHEMA} is not installed "
                         "(make deps installs lava-dispatcher, which brings it)")
    def test_lavas_schema_accepts_every_job_and_device(self):
        scratch = tempfile.mkdtemp(prefix="clockbench-lava-")
        self.addCleanup(shutil.rmtree, scratch)
        written = []
        specs = {"tcg": jobs.JobSpec(), "kvm": jobs.JobSpec(accel="kvm", smp=2),
                 "iso-bios": jobs.JobSpec(boot="iso-bios", machine="q35"),
                 "iso-uefi": jobs.JobSpec(boot="iso-uefi"),
                 "ipxe": jobs.JobSpec(device="hardware", boot="ipxe"),
                 "grub": jobs.JobSpec(device="hardware", boot="grub")}
        documents = [("job", name, jobs.job_definition(spec)) for name, spec in specs.items()]
        documents += [("device", "qemu", jobs.qemu_device(documents[0][2]["context"])),
                      ("device", "x86", jobs.hardware_device())]
        for kind, name, document in documents:
            path = os.path.join(scratch, f"{name}.{kind}.yaml")
            with open(path, "w", encoding="utf-8") as out:
                out.write(command.yaml_text(document))
            written.append((kind, path))
        for kind, path in written:
            done = subprocess.run([PYTHON, LAVA_SCHEMA, kind, path], capture_output=True,
                                  text=True, check=False, timeout=60)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        bad = subprocess.run([PYTHON, LAVA_SCHEMA, "job", GOOD_LOG], capture_output=True,
                             text=True, check=False, timeout=60)
        self.assertNotEqual(bad.returncode, 0)

    def test_lava_run_on_our_device_starts_qemu_as_the_labs_template_does(self):
        """The QEMU command of the fixture run on `lava device`'s configuration is the one
        a real lab (make lava-lab-check, LAVA's qemu template) started for the same job,
        but for where each put the downloaded image."""
        def command(path):
            words = logs.read_log(path).boot_command.split()
            return [word if "/deployimages-" not in word else "IMAGE" for word in words]
        self.assertEqual(command(TCG_PASS), command(LAB_SERVER))
        self.assertIn("-cpu max", " ".join(command(TCG_PASS)))

    def test_the_device_command_writes_what_lava_run_reads(self):
        scratch = tempfile.mkdtemp(prefix="clockbench-lava-")
        self.addCleanup(shutil.rmtree, scratch)
        job = os.path.join(scratch, "job.yaml")
        self.assertEqual(run_tool("lava", "job", "--out", job).returncode, 0)
        done = run_tool("lava", "device", job, "--hostname", "qemu07")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("hostname: qemu07", done.stdout)
        self.assertIn("- -nographic", done.stdout)
        self.assertIn("{% extends 'qemu.jinja2' %}",
                      run_tool("lava", "device", "--dictionary").stdout)
        bad = run_tool("lava", "device", GOOD_LOG)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("not", bad.stderr)


if __name__ == "__main__":
    unittest.main()
