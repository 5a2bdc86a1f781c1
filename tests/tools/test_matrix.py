# SPDX-License-Identifier: MIT
"""Unit tests for `clockbench matrix`'s pass-through and environment file: guest options,
--cpu, --smp and --xen-args reach every environment's QEMU command and the manifest, and
an environment file (tests.cfg's key=value style) adds environments, a bad line being one
sentence naming FILE:LINE and exit 2.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import io
import json
import os
import shutil
import subprocess
import unittest
from unittest import mock

from tests.tools import FAKE_QEMU, FIXTURES, GOOD_LOG, PYTHON, scratch
from clockbench_lib.base import paths
from clockbench_lib.model import report
from clockbench_lib.boot import qemu, runinfo, xen
from clockbench_lib.compare import matrix
from clockbench_lib.compare.inputs import load_inputs
from clockbench_lib import cli
from clockbench_lib.base.outcome import RunnerError

ENV_FILE = """\
# two more environments
env tcg-epyc  accel=tcg cpu=EPYC args="tick_rates=100"   # a comment
env xen-tsc-4 boot=xen smp=4 xen_args='clocksource=tsc' description="Xen, 4 vCPUs"

env q35-pvh   boot=pvh machine=q35
"""


# The fake QEMU's exit status for a guest's FAIL: isa-debug-exit's (2 << 1) | 1.
FAIL_STATUS = "5"


def fake_environ(**settings):
    """os.environ for the fake QEMU: CLOCKBENCH_QEMU and FAKE_QEMU_* settings."""
    environ = dict(os.environ, CLOCKBENCH_QEMU=FAKE_QEMU, PYTHONDONTWRITEBYTECODE="1")
    environ.update({f"FAKE_QEMU_{key}": value for key, value in settings.items()})
    return environ


class EnvironmentFile(unittest.TestCase):
    def setUp(self):
        self.root = scratch.make_tree()

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, text, name="envs.cfg"):
        path = os.path.join(self.root, name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    def test_environments_from_a_file(self):
        path = self.write(ENV_FILE)
        epyc, xen4, pvh = matrix.load_env_file(path)
        self.assertEqual((epyc.name, epyc.accel, epyc.machine, epyc.boot, epyc.cpu, epyc.smp,
                          epyc.args, epyc.source),
                         ("tcg-epyc", "tcg", "pc", "multiboot1", "EPYC", matrix.MATRIX_SMP,
                          "tick_rates=100", f"{path}:2"))
        self.assertEqual(epyc.description, "accel=tcg cpu=EPYC args=tick_rates=100")
        self.assertEqual((epyc.spec().cpu_option, epyc.spec().cmdline), ("EPYC", "tick_rates=100"))
        self.assertEqual((xen4.boot, xen4.smp, xen4.description, xen4.source),
                         ("xen", 4, "Xen, 4 vCPUs", f"{path}:3"))
        self.assertTrue(xen4.xen_options.endswith(" clocksource=tsc"), xen4.xen_options)
        self.assertIn("dom0_max_vcpus=4", xen4.xen_options)
        self.assertEqual((pvh.boot, pvh.machine, pvh.source), ("pvh", "q35", f"{path}:5"))
        chosen = matrix.choose_environments(["xen-tsc-4", "tcg-pc"], path)
        self.assertEqual([env.name for env in chosen], ["tcg-pc", "xen-tsc-4"])
        self.assertEqual(len(matrix.choose_environments([], path)),
                         len(matrix.ENVIRONMENTS) + 3)

    def test_bad_lines_name_file_and_line(self):
        cases = [
            ("environment tcg-x\n", "a line must start with 'env', not 'environment'"),
            ("env\n", "an env line needs a name after 'env'"),
            ("env accel=tcg\n", "an env line needs a name after 'env'"),
            ("env tcg-pc accel=tcg\n", "the environment name 'tcg-pc' is already used "
                                       "(built in)"),
            ("env a\nenv a\n", "the environment name 'a' is already used (FILE:2)"),
            ("env a accel=kvm memory=64\n", "unknown key 'memory' (known keys: accel, "
                                            "machine, boot"),
            ("env a boot=floppy\n", "boot=floppy is not one of multiboot1, pvh"),
            ("env a smp=0\n", "smp=0 is not a number of at least 1"),
            ("env a smp=2 smp=3\n", "smp= is given 2 times; give it once"),
            ("env a args=\"unclosed\n", "cannot split the line"),
            ("env a tick_rates\n", "'tick_rates' is not of the form key=value"),
            ("env a boot=pvh xen_args=clocksource=tsc\n",
             "Xen options (--xen-args, xen_args=) apply only to the Xen boot paths"),
            ("env a! accel=tcg\n", "'a!' is not a valid environment name"),
        ]
        for text, message in cases:
            with self.subTest(text):
                path = self.write("# first line\n" + text)
                line = text.count("\n") + 1  # the last line of `text`
                message = message.replace("FILE", path)
                with self.assertRaises(RunnerError) as caught:
                    matrix.load_env_file(path)
                self.assertTrue(str(caught.exception).startswith(f"{path}:{line}: {message}"),
                                str(caught.exception))
                self.assertTrue(str(caught.exception).endswith("."), str(caught.exception))
                self.assertEqual(caught.exception.status, 2)
        with self.assertRaisesRegex(RunnerError, "^cannot read the environment file "
                                                 "/nonexistent/envs.cfg: No such file"):
            matrix.load_env_file("/nonexistent/envs.cfg")
        with self.assertRaisesRegex(RunnerError, "^there is no environment named 'nosuch' "
                                                 r"\(known: tcg-pc, "):
            matrix.choose_environments(["nosuch"])

    def test_bad_line_from_the_command_line(self):
        path = self.write("env ok\nenv bad boot=floppy\n")
        result = subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"),
                                 "matrix", "--no-build", "--env-file", path],
                                env=fake_environ(), cwd=self.root, capture_output=True,
                                text=True, timeout=60, check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr.splitlines(),
                         [f"clockbench matrix: {path}:2: boot=floppy is not one of "
                          f"{', '.join(qemu.BOOTS)}."])
        self.assertEqual(result.stdout, "")
        self.assertFalse(os.path.exists(os.path.join(self.root, "results")))

    def test_misspelt_guest_option_is_refused_before_any_boot(self):
        result = subprocess.run([PYTHON, os.path.join(self.root, "tools", "clockbench"),
                                 "matrix", "--env", "tcg-pc", "--",
                                 "sample=100"],
                                env=fake_environ(), cwd=self.root, capture_output=True,
                                text=True, timeout=60, check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr.splitlines(),
                         ["clockbench matrix: environment tcg-pc: unknown guest option "
                          "'sample' (did you mean 'samples'?); `tools/clockbench run "
                          "--help` lists the guest options."])
        self.assertFalse(os.path.exists(os.path.join(self.root, "results")))


class PassThrough(unittest.TestCase):
    """Guest options, --cpu, --smp and --xen-args in every environment's QEMU command."""

    def setUp(self):
        self.root = scratch.make_tree()
        for image in ("build/clockbench-mb1.elf", "build/clockbench-xenpv.elf",
                      "build/xen-4.17-amd64"):
            scratch.write_elf(os.path.join(self.root, image), scratch.FAKE_IMAGE_END)

    def tearDown(self):
        shutil.rmtree(self.root)

    def matrix(self, *argv, **fake):
        """Run `clockbench matrix --no-build --repeats 1 ARGV` in the scratch tree with the
        fake QEMU (printing good.log's report, unless `fake` sets its FAKE_QEMU_*), every
        environment runnable; returns (status, manifest)."""
        argv = ["matrix", "--no-build", "--repeats", "1", "--out",
                os.path.join(self.root, "mx"), *argv]
        args = cli.build_parser().parse_args(argv)
        with mock.patch.dict(os.environ, fake_environ(**(fake or {"REPORT": GOOD_LOG}))), \
                mock.patch.object(runinfo, "_ARGV", ["clockbench", *argv]), \
                mock.patch.object(paths, "ROOT", self.root), \
                mock.patch.object(matrix, "skip_reason", lambda env, **_: None), \
                mock.patch.object(xen, "installed_version", return_value="4.17.7+13-1"), \
                mock.patch("sys.stdout", new_callable=io.StringIO) as self.stdout, \
                mock.patch("sys.stderr", new_callable=io.StringIO) as self.stderr:
            status = matrix.cmd_matrix(args)
        with open(os.path.join(self.root, "mx", matrix.MANIFEST), encoding="utf-8") as source:
            return status, json.load(source)

    @staticmethod
    def command(entry):
        (run,) = entry["runs"]
        return run["qemu_command"]

    def test_options_reach_every_environment(self):
        path = os.path.join(self.root, "envs.cfg")
        with open(path, "w", encoding="utf-8") as out:
            out.write(ENV_FILE)
        status, manifest = self.matrix("--env", "tcg-pc", "xen-hpet", "tcg-epyc", "xen-tsc-4",
                                       "--env-file", path, "--cpu", "Haswell", "--smp", "3",
                                       "--xen-args", "loglvl=all", "--", "tick_rates=10",
                                       "verbose=1")
        self.assertEqual(status, 0)
        self.assertEqual(manifest["passed"], {"guest_options": "tick_rates=10 verbose=1",
                                              "cpu": "Haswell", "xen_args": "loglvl=all",
                                              "smp": 3, "env_file": path})
        tcg, hpet, epyc, xen4 = manifest["environments"]
        self.assertEqual([env["source"] for env in manifest["environments"]],
                         ["built in", "built in", f"{path}:2", f"{path}:3"])
        for entry in manifest["environments"]:
            with self.subTest(entry["name"]):
                command = self.command(entry)
                self.assertEqual(command[command.index("-cpu") + 1].split(",")[0], "Haswell")
                self.assertEqual(command[command.index("-smp") + 1], "3")
                self.assertEqual((entry["cpu"].split(",")[0], entry["smp"]), ("Haswell", 3))
        self.assertEqual(tcg["guest_options"], "tick_rates=10 verbose=1")
        self.assertEqual(self.command(tcg)[self.command(tcg).index("-append") + 1],
                         "tick_rates=10 verbose=1")
        self.assertEqual(epyc["guest_options"], "tick_rates=100 tick_rates=10 verbose=1")
        self.assertIsNone(tcg["xen_options"])
        self.assertTrue(hpet["xen_options"].endswith(" clocksource=hpet loglvl=all"))
        self.assertIn("dom0_max_vcpus=3", hpet["xen_options"])
        self.assertTrue(xen4["xen_options"].endswith(" clocksource=tsc loglvl=all"))
        self.assertEqual(self.command(xen4)[self.command(xen4).index("-append") + 1],
                         xen4["xen_options"])
        self.assertTrue(self.command(xen4)[self.command(xen4).index("-initrd") + 1]
                        .endswith(" tick_rates=10 verbose=1"))

    def test_without_options_the_environments_are_their_own(self):
        status, manifest = self.matrix("--env", "tcg-pc", "xen-hpet")
        self.assertEqual(status, 0)
        self.assertEqual(manifest["passed"], {"guest_options": "", "cpu": None,
                                              "xen_args": "", "smp": None, "env_file": None})
        tcg, hpet = manifest["environments"]
        self.assertEqual((tcg["smp"], tcg["guest_options"], tcg["cpu"]),
                         (matrix.MATRIX_SMP, "", "max"))
        self.assertEqual(self.command(tcg)[self.command(tcg).index("-append") + 1], "")
        self.assertTrue(hpet["xen_options"].endswith("noreboot clocksource=hpet"))


class GuestVerdicts(PassThrough):
    """A run the guest judged FAIL makes the matrix exit 1; progress goes to stderr."""

    def test_options_reach_every_environment(self):
        pass  # PassThrough's, not run again

    def test_without_options_the_environments_are_their_own(self):
        pass  # likewise

    def test_a_guest_fail_is_exit_1(self):
        failing = os.path.join(FIXTURES, "matrix", "amd", "tcg-pc", "run-1.log")
        status, manifest = self.matrix("--env", "tcg-pc", REPORT=failing, STATUS=FAIL_STATUS)
        self.assertEqual(status, 1)
        self.assertEqual(self.stdout.getvalue(), "")  # progress is on stderr
        ((run,),) = [env["runs"] for env in manifest["environments"]]
        self.assertEqual((run["verdict"], run["report"]), ("fail", True))
        lines = self.stderr.getvalue().splitlines()
        self.assertIn("clockbench matrix: tcg-pc: run 1/1 FAIL", "\n".join(lines))
        self.assertRegex(lines[-1], r"^clockbench matrix: done: .* \(0 runs without a "
                                    r"report, 1 the guest judged FAIL or ERROR\)")
        shutil.rmtree(os.path.join(self.root, "mx"))
        status, _ = self.matrix("--env", "tcg-q35")  # good.log: PASS
        self.assertEqual(status, 0)


class OutFolder(PassThrough):
    """A matrix never hides or overwrites earlier results: a folder with files in it is
    refused unless --add, which keeps every earlier run and numbers the new ones on."""

    def test_options_reach_every_environment(self):
        pass  # PassThrough's, not run twice

    def test_without_options_the_environments_are_their_own(self):
        pass  # likewise

    def read(self, *parts):
        with open(os.path.join(self.root, "mx", *parts), "rb") as source:
            return source.read()

    def test_a_non_empty_out_is_refused_then_added_to(self):
        status, first = self.matrix("--env", "tcg-pc", "--repeats", "2")
        self.assertEqual(status, 0)
        earlier = {name: self.read("tcg-pc", name) for name in ("run-1.json", "run-2.json",
                                                                 "run-1.log")}
        with self.assertRaisesRegex(RunnerError, r"mx is not empty \(manifest\.json, "
                                                 r"tcg-pc\): --add adds this matrix's runs"):
            self.matrix("--env", "tcg-pc", "xen-hpet")
        self.assertEqual(self.read(matrix.MANIFEST).decode(),
                         json.dumps(first, indent=2) + "\n")  # untouched
        # Added to, the second time with a run that gives no report.
        status, manifest = self.matrix("--env", "tcg-pc", "xen-hpet", "--add", STATUS="3")
        self.assertEqual(status, 1)
        for name, content in earlier.items():
            self.assertEqual(self.read("tcg-pc", name), content)
        tcg, hpet = manifest["environments"]
        self.assertEqual([(run["run"], run["invocation"], run["report"]) for run in tcg["runs"]],
                         [(1, 1, True), (2, 1, True), (3, 2, False)])
        self.assertEqual([(run["run"], run["invocation"]) for run in hpet["runs"]], [(1, 2)])
        self.assertEqual([inv["number"] for inv in manifest["invocations"]], [1, 2])
        self.assertIn("--add", manifest["invocations"][1]["argv"])
        self.assertEqual(manifest["host"], runinfo.host_facts())
        # Every run has its record; the one without a report validates as such.
        record = json.loads(self.read("tcg-pc", "run-3.json"))
        report.validate_document(record, "run-3.json")
        self.assertFalse(report.has_guest_report(record))
        self.assertEqual(record["runner"]["environment"], "tcg-pc")
        # compare reads the three: two measured runs, one noted as giving no report.
        inputs = load_inputs([os.path.join(self.root, "mx")])
        self.assertEqual({env: len(runs) for env, runs in inputs.runs.items()},
                         {"tcg-pc": 2})
        self.assertEqual([(env, os.path.basename(source)) for env, source, _ in inputs.failed],
                         [("tcg-pc", "run-3.log"), ("xen-hpet", "run-1.log")])

    def test_add_refuses_another_setup_of_a_name(self):
        self.matrix("--env", "tcg-pc")
        with self.assertRaisesRegex(RunnerError, r"--add: tcg-pc in .*mx was run otherwise "
                                                 r"\(smp 2 before, 3 now\)"):
            self.matrix("--env", "tcg-pc", "--smp", "3", "--add")

    def test_add_refuses_another_hosts_folder(self):
        self.matrix("--env", "tcg-pc")
        other = dict(runinfo.host_facts(), name="another-host")
        with mock.patch.object(runinfo, "host_facts", return_value=other), \
                self.assertRaisesRegex(RunnerError, r"holds runs of .*, and this is "
                                                    r"another-host .*one folder holds one "
                                                    r"host's runs"):
            self.matrix("--env", "tcg-pc", "--add")

    def test_add_needs_out(self):
        args = cli.build_parser().parse_args(["matrix", "--no-build", "--add"])
        with self.assertRaisesRegex(RunnerError, "--add adds runs to the matrix folder --out "
                                                 "names: give --out DIR"):
            matrix.cmd_matrix(args)

    def test_add_needs_a_matrix_folder(self):
        os.makedirs(os.path.join(self.root, "mx"))
        with open(os.path.join(self.root, "mx", "notes.txt"), "w", encoding="utf-8") as out:
            out.write("mine\n")
        with self.assertRaisesRegex(RunnerError, "--add: .*mx has no manifest.json"):
            self.matrix("--env", "tcg-pc", "--add")


if __name__ == "__main__":
    unittest.main()
