# SPDX-License-Identifier: MIT
"""The image's LAVA jobs run for real by lava-run (Debian's lava-dispatcher, which `make
deps` installs), on the device configuration `lava device` writes: a TCG boot, a run that
faults (a failed test, not a lab error), an ISO boot, a KVM boot where KVM is usable;
each log checked case by case by `lava results`.  The hardware jobs are validated by
`lava-run --validate` against `lava device --hardware`.  The boots run at once, in
setUpClass, each bounded by its job's timeouts and by a process timeout."""

import concurrent.futures
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.tools import CLOCKBENCH, PYTHON
from clockbench_lib.boot import qemu
from clockbench_lib.lava import results
from clockbench_lib.model.record import load_record

LAVA_RUN = shutil.which("lava-run")
QUICK = ["--", "tick_rates=", "budget_ms=200"]  # tests.cfg's check profile
# Each job: its `lava job` arguments.  A job's actions may take --timeout seconds each;
# lava-run itself is stopped after RUN_TIMEOUT_S.
BOOTS = {
    "tcg": ["--timeout", "60", *QUICK],
    "fault-gp": ["--timeout", "60", "--", "fault=gp"],
    # q35: GRUB reads the image from the CD over AHCI, seconds sooner under TCG than pc's IDE.
    "iso-bios": ["--boot", "iso-bios", "--machine", "q35", "--timeout", "90"],
    "kvm": ["--accel", "kvm", "--timeout", "60", *QUICK],
}
RUN_TIMEOUT_S = 200


def why_not():
    """Why lava-run cannot run here, or None."""
    if LAVA_RUN is None:
        return "lava-run is not installed (make deps installs lava-dispatcher)"
    if os.geteuid() != 0:
        return "lava-run runs jobs as root only (it writes under /var/lib/lava)"
    return None


def kvm_usable():
    """Why a KVM job cannot run here, or None."""
    if not os.access(qemu.KVM_DEVICE, os.R_OK | os.W_OK):
        return f"KVM is not usable here ({qemu.KVM_DEVICE} is missing or not ours)"
    return None


def tool(*args):
    return subprocess.run([PYTHON, CLOCKBENCH, *args], capture_output=True, text=True,
                          check=False, timeout=60)


def lava_run(folder, name, job, device, validate=False):
    """Run `job` on `device` under lava-run in `folder`; returns the log's path."""
    log = os.path.join(folder, f"{name}.log")
    with open(log, "w", encoding="utf-8") as stderr:
        subprocess.run([LAVA_RUN, *(["--validate"] if validate else []),
                        "--job-id", f"clockbench-{os.getpid()}-{name}",
                        "--output-dir", os.path.join(folder, f"{name}.out"),
                        "--device", device, job], stdout=subprocess.DEVNULL, stderr=stderr,
                       check=False, timeout=RUN_TIMEOUT_S)
    return log


def boot(folder, name, job_args):
    """Write the job and its device configuration with the tool, run it; the log."""
    job, device = (os.path.join(folder, f"{name}.{kind}.yaml") for kind in ("job", "device"))
    for done in (tool("lava", "job", "--out", job, *job_args),
                 tool("lava", "device", job, "--out", device)):
        if done.returncode != 0:
            raise AssertionError(f"{name}: {done.stderr}")
    return lava_run(folder, name, job, device)


@unittest.skipIf(why_not(), why_not())
class LavaRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="clockbench-lava-run-")
        names = [name for name in BOOTS if name != "kvm" or not kvm_usable()]
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
            cls.logs = dict(zip(names, pool.map(
                lambda name: boot(cls.folder, name, BOOTS[name]), names)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def results_of(self, name):
        record = os.path.join(self.folder, f"{name}.json")
        done = tool("lava", "results", self.logs[name], "--device", "qemu01", "--json", record)
        return done, record

    def assert_one_for_one(self, done):
        """LAVA's cases are the console's checks, whatever the guest judged them (a check
        of the guest's that a loaded host fails is the guest's verdict, not LAVA's)."""
        self.assertIn(done.returncode, (results.EXIT_CLEAN, results.EXIT_CASE_FAILED),
                      done.stdout + done.stderr)
        self.assertRegex(done.stdout, r"(\d+) LAVA cases for \1 KTAP checks")
        self.assertIn(" 0 problem(s))", done.stdout)

    def test_tcg_cases_are_the_consoles_checks(self):
        done, record = self.results_of("tcg")
        self.assert_one_for_one(done)
        self.assertIn("6 read costs measured", done.stdout)
        self.assertEqual(load_record(record).runner.environment, "tcg-pc")

    def test_a_fault_is_a_failed_test(self):
        done, record = self.results_of("fault-gp")
        self.assertEqual(done.returncode, results.EXIT_CASE_FAILED, done.stdout + done.stderr)
        self.assertIn("failed: no unexpected exception # #GP general protection fault",
                      done.stdout)
        self.assertIn("failed: the verdict: FAIL", done.stdout)
        self.assertEqual(load_record(record).verdict, "fail")
        with open(self.logs["fault-gp"], encoding="utf-8") as log:
            self.assertNotIn('"error_type"', log.read())

    def test_an_iso_boot_under_bios(self):
        done, record = self.results_of("iso-bios")
        self.assert_one_for_one(done)
        runner = load_record(record).runner
        self.assertEqual((runner.boot, runner.environment), ("iso-bios", "tcg-q35"))

    @unittest.skipIf(kvm_usable(), kvm_usable())
    def test_kvm_cases_are_the_consoles_checks(self):
        done, record = self.results_of("kvm")
        self.assert_one_for_one(done)
        self.assertEqual(load_record(record).runner.accel, "kvm")

    def test_lava_run_validates_the_hardware_jobs(self):
        device = os.path.join(self.folder, "x86.device.yaml")
        self.assertEqual(tool("lava", "device", "--hardware", "--out", device).returncode, 0)
        for boot_kind in ("ipxe", "grub"):
            job = os.path.join(self.folder, f"{boot_kind}.job.yaml")
            self.assertEqual(tool("lava", "job", "--device", "hardware", "--boot", boot_kind,
                                  "--out", job, "--", "tick_rates=100").returncode, 0)
            log = lava_run(self.folder, f"validate-{boot_kind}", job, device, validate=True)
            with open(log, encoding="utf-8") as text:
                logged = text.read()
            self.assertIn('"case": "validate", "definition": "lava", "result": "pass"',
                          logged, boot_kind)
            self.assertIn('"case": "job", "definition": "lava", "result": "pass"', logged,
                          boot_kind)


if __name__ == "__main__":
    unittest.main()
