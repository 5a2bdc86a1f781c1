# SPDX-License-Identifier: MIT
"""Choosing the -cpu model KVM starts on this host (tools/clockbench_lib/boot/cpumodel.py), with a
fake QEMU that refuses an MSR as a KVM host may: once for -cpu host, and for every model.

Run: /usr/bin/python3 -m unittest tests.tools.test_cpumodel
"""

import contextlib
import io
import json
import os
import shutil
import tempfile
import textwrap
import unittest
from unittest import mock

from tests.tools import FAKE_QEMU, parse_cfg, scratch
from clockbench_lib.base import paths
from clockbench_lib.model import console
from clockbench_lib.boot import cpumodel, qemu, run
from clockbench_lib.testing import boottest
from clockbench_lib.compare import matrix
from clockbench_lib import cli
from clockbench_lib.base.outcome import RunnerError

# What QEMU 7.2 printed on an AMD EPYC host whose nested KVM refuses IA32_ARCH_CAPABILITIES.
ARCH_CAPABILITIES_REFUSED = "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69"
REFUSES_HOST = {"FAKE_QEMU_KVM_REFUSE": "0x10a=-arch-capabilities"}
REFUSES_ALL = {"FAKE_QEMU_KVM_REFUSE_ALL": "1"}
KVM_USABLE = (True, "/dev/kvm is usable")


def fake(**environ):
    """Patch the environment for the fake QEMU."""
    return mock.patch.dict(os.environ, environ)


class FindModel(unittest.TestCase):
    """find_model() against the fake QEMU."""

    def test_host_starts(self):
        with fake():
            choice = cpumodel.find_model(FAKE_QEMU)
        self.assertEqual(choice.model, "host")
        self.assertEqual(choice.reason, "-cpu host starts under KVM here")
        self.assertEqual(len(choice.attempts), 1)

    def test_host_refused_then_without_arch_capabilities(self):
        with fake(**REFUSES_HOST):
            choice = cpumodel.find_model(FAKE_QEMU)
        self.assertEqual(choice.model, "host,-arch-capabilities")
        self.assertEqual([a.started for a in choice.attempts], [False, True])
        self.assertEqual(
            choice.reason,
            f'-cpu host,-arch-capabilities is the first model KVM starts here (-cpu host: '
            f'QEMU said "{ARCH_CAPABILITIES_REFUSED}", and MSR 0x10a is '
            f'IA32_ARCH_CAPABILITIES: leaving out -arch-capabilities)')

    def test_two_refusals_in_turn(self):
        with fake(FAKE_QEMU_KVM_REFUSE="0x10a=-arch-capabilities 0x345=pmu=off"):
            choice = cpumodel.find_model(FAKE_QEMU)
        self.assertEqual(choice.model, "host,-arch-capabilities,pmu=off")
        self.assertEqual(len(choice.attempts), 3)

    def test_every_model_refused(self):
        with fake(**REFUSES_ALL):
            choice = cpumodel.find_model(FAKE_QEMU)
        self.assertIsNone(choice.model)
        self.assertEqual(len(choice.attempts), 1)  # an MSR nothing turns off: no retry
        self.assertEqual(choice.reason, 'no CPU model starts under KVM here (-cpu host: QEMU '
                                        'said "qemu-system-x86_64: error: failed to set MSR '
                                        '0x1d9 to 0x0")')

    def test_quoting_what_qemu_said(self):
        self.assertEqual(cpumodel.qemu_said("", -6),
                         "QEMU was killed by signal 6 and said nothing")
        self.assertEqual(cpumodel.qemu_said("a warning\nlast words\n", 1),
                         'QEMU said "last words"')
        self.assertEqual(cpumodel.qemu_said("x\nqemu: cannot set up guest memory\ny\n", 1),
                         'QEMU said "qemu: cannot set up guest memory"')
        self.assertLess(len(cpumodel.qemu_said("error " * 500, 1)), console.QUOTE_CHARS + 40)

    def test_bounded_when_a_removal_does_not_help(self):
        calls = []

        def refuses(_qemu, model):
            calls.append(model)
            return cpumodel.Attempt(model, False, f'QEMU said "{ARCH_CAPABILITIES_REFUSED}"')
        choice = cpumodel.find_model("q", try_one=refuses)
        self.assertIsNone(choice.model)
        self.assertEqual(calls, ["host", "host,-arch-capabilities"])

    def test_unknown_program(self):
        attempt = cpumodel.try_model("/nonexistent/qemu", "host")
        self.assertFalse(attempt.started)
        self.assertIn("cannot run /nonexistent/qemu", attempt.said)


class Cache(unittest.TestCase):
    """choose(): the answer is kept per host, kernel and QEMU, and found once."""

    def setUp(self):
        self.directory = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.directory)

    def test_found_once_then_kept(self):
        found = []

        def find(qemu_program):
            found.append(qemu_program)
            return cpumodel.Choice("host,-arch-capabilities",
                                   [cpumodel.Attempt("host", False, "QEMU said \"no\""),
                                    cpumodel.Attempt("host,-arch-capabilities", True)])
        first = cpumodel.choose(FAKE_QEMU, self.directory, find=find)
        second = cpumodel.choose(FAKE_QEMU, self.directory, find=find)
        self.assertEqual(found, [FAKE_QEMU])
        self.assertFalse(first.from_cache)
        self.assertTrue(second.from_cache)
        self.assertEqual(second.model, "host,-arch-capabilities")
        self.assertEqual(second.reason, first.reason)
        with open(second.cache_path, encoding="utf-8") as kept:
            data = json.load(kept)
        self.assertEqual(set(data["key"]), {"host_cpu", "kernel", "qemu", "qemu_version"})
        self.assertEqual(data["model"], "host,-arch-capabilities")

    def test_another_host_finds_again(self):
        found = []

        def find(qemu_program):
            found.append(qemu_program)
            return cpumodel.Choice("host", [cpumodel.Attempt("host", True)])
        cpumodel.choose(FAKE_QEMU, self.directory, find=find)
        with mock.patch.object(cpumodel.hostinfo, "host_cpu", return_value="Other CPU"):
            cpumodel.choose(FAKE_QEMU, self.directory, find=find)
        self.assertEqual(len(found), 2)

    def test_broken_cache_file_is_found_again(self):
        key = cpumodel.host_key(FAKE_QEMU)
        path = cpumodel.cache_file(self.directory, key)
        os.makedirs(self.directory, exist_ok=True)
        with open(path, "w", encoding="utf-8") as broken:
            broken.write("{not json")
        with fake():
            choice = cpumodel.choose(FAKE_QEMU, self.directory)
        self.assertEqual(choice.model, "host")
        self.assertFalse(choice.from_cache)


class ChooseAccel(unittest.TestCase):
    """run.choose_accel(): which accelerator and model, and the sentence it prints."""

    def choose(self, requested, cpu="", environ=None):
        with fake(**(environ or {})), mock.patch.object(qemu, "kvm_status",
                                                        return_value=KVM_USABLE):
            return run.choose_accel(requested, cpu=cpu,
                                    kvm_choice=lambda: cpumodel.find_model(FAKE_QEMU))

    def test_host_starts(self):
        chosen = self.choose(None)
        self.assertEqual((chosen.accel, chosen.cpu, chosen.note), ("kvm", "host", None))
        self.assertEqual(chosen.cpu_reason, "-cpu host starts under KVM here")

    def test_host_refused(self):
        chosen = self.choose(None, environ=REFUSES_HOST)
        self.assertEqual((chosen.accel, chosen.cpu), ("kvm", "host,-arch-capabilities"))
        self.assertTrue(chosen.note.startswith("KVM with -cpu host,-arch-capabilities is the "
                                               "first model KVM starts here (-cpu host: "))
        self.assertIn(ARCH_CAPABILITIES_REFUSED, chosen.note)

    def test_every_model_refused_falls_back_to_tcg(self):
        chosen = self.choose(None, environ=REFUSES_ALL)
        self.assertEqual((chosen.accel, chosen.cpu), ("tcg", ""))
        self.assertTrue(chosen.note.startswith("no CPU model starts under KVM here (-cpu "
                                               "host: QEMU said "), chosen.note)
        self.assertTrue(chosen.note.endswith("; using TCG"), chosen.note)
        with self.assertRaises(RunnerError) as caught:
            self.choose("kvm", environ=REFUSES_ALL)
        self.assertIn("so --accel kvm cannot be used (try --accel tcg)", str(caught.exception))

    def test_a_users_model_is_never_overridden(self):
        def never():
            raise AssertionError("no model is looked for when the user gave one")
        with mock.patch.object(qemu, "kvm_status", return_value=KVM_USABLE):
            chosen = run.choose_accel(None, cpu="host", kvm_choice=never)
        self.assertEqual((chosen.accel, chosen.cpu, chosen.note), ("kvm", "host", None))
        self.assertIsNone(chosen.cpu_reason)

    def test_tcg_needs_no_model(self):
        chosen = run.choose_accel("tcg", kvm_choice=None)
        self.assertEqual((chosen.accel, chosen.cpu, chosen.note), ("tcg", "", None))


class KvmTests(unittest.TestCase):
    """accel=kvm boot tests run with the chosen model, or skip with the reason."""

    TESTS = textwrap.dedent("""\
        boot plain  accel=kvm
        boot noclk  accel=kvm cpu_features=-kvmclock
        boot own    accel=kvm cpu=qemu64
        boot soft   accel=tcg
        """)

    def settle(self, environ):
        tests = parse_cfg(self.TESTS, "t.cfg")
        with fake(**environ), mock.patch.object(qemu, "kvm_status", return_value=KVM_USABLE):
            return boottest.kvm_models(tests, kvm_choice=lambda: cpumodel.find_model(FAKE_QEMU))

    def test_chosen_model(self):
        tests, skips, note = self.settle(REFUSES_HOST)
        self.assertEqual({t.name: t.spec.cpu_option for t in tests},
                         {"plain": "host,-arch-capabilities",
                          "noclk": "host,-arch-capabilities,-kvmclock",
                          "own": "qemu64", "soft": "max"})
        self.assertEqual(skips, {})
        self.assertIn("host,-arch-capabilities", note)

    def test_no_model_skips_with_the_reason(self):
        tests, skips, note = self.settle(REFUSES_ALL)
        self.assertEqual(set(skips), {"plain", "noclk"})  # "own" has its own model
        self.assertTrue(skips["plain"].startswith("no CPU model starts under KVM here"))
        self.assertEqual(note, skips["plain"])
        self.assertEqual([t.spec.cpu for t in tests], ["", "", "qemu64", ""])

    def test_unusable_kvm_skips_all(self):
        tests = parse_cfg(self.TESTS, "t.cfg")
        with mock.patch.object(qemu, "kvm_status", return_value=(False, "/dev/kvm: nope")):
            _, skips, _ = boottest.kvm_models(tests, kvm_choice=None)
        self.assertEqual(skips, {"plain": "/dev/kvm: nope", "noclk": "/dev/kvm: nope",
                                 "own": "/dev/kvm: nope"})


class MatrixEnvironments(unittest.TestCase):
    """The kvm matrix environment: skipped, quoting QEMU, when no model starts."""

    def test_kvm_environment(self):
        kvm = next(env for env in matrix.ENVIRONMENTS if env.accel == "kvm")
        with fake(**REFUSES_ALL):
            reason = matrix.skip_reason(kvm, lambda: KVM_USABLE,
                                        kvm_choice=lambda: cpumodel.find_model(FAKE_QEMU))
        self.assertIn('QEMU said "qemu-system-x86_64: error: failed to set MSR 0x1d9', reason)
        with fake(**REFUSES_HOST):
            self.assertIsNone(matrix.skip_reason(
                kvm, lambda: KVM_USABLE, kvm_choice=lambda: cpumodel.find_model(FAKE_QEMU)))


class RunCommand(unittest.TestCase):
    """`clockbench run` in a scratch tree, KVM said to be usable, the fake QEMU refusing
    -cpu host: it runs under KVM with the model that starts, says so and records it."""

    def setUp(self):
        self.root = scratch.make_tree()
        scratch.write_elf(os.path.join(self.root, "build", "clockbench-mb1.elf"),
                          scratch.FAKE_IMAGE_END, wide=False)

    def tearDown(self):
        shutil.rmtree(self.root)

    def run_cli(self, *args, **environ):
        """cli.main(args) in the scratch tree: (status, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        environ = dict(environ, CLOCKBENCH_QEMU=FAKE_QEMU)
        with fake(**environ), mock.patch.object(paths, "ROOT", self.root), \
                mock.patch.object(qemu, "kvm_status", return_value=KVM_USABLE), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["run", "--no-build", *args])
        return status, out.getvalue(), err.getvalue()

    def test_refused_host_runs_with_the_model_that_starts(self):
        json_path = os.path.join(self.root, "r.json")
        status, out, err = self.run_cli("--json", json_path, **REFUSES_HOST)
        self.assertEqual(status, 0, err)
        self.assertIn("clockbench run: KVM with -cpu host,-arch-capabilities is the first "
                      "model KVM starts here", err)
        self.assertIn("clockbench run: PASS (kvm pc multiboot1 -cpu host,-arch-capabilities qboot, ",
                      out)
        with open(json_path, encoding="utf-8") as document:
            runner = json.load(document)["runner"]
        self.assertEqual(runner["cpu"], "host,-arch-capabilities")
        self.assertIn(ARCH_CAPABILITIES_REFUSED, runner["cpu_choice"])
        self.assertEqual(runner["qemu_command"][runner["qemu_command"].index("-cpu") + 1],
                         "host,-arch-capabilities")
        # Found once: the second run reads it from build/kvm-cpu/.
        self.assertEqual(len(os.listdir(os.path.join(self.root, cpumodel.CACHE_DIR))), 1)
        status, out, _ = self.run_cli(**REFUSES_HOST)
        self.assertEqual(status, 0)

    def test_every_model_refused_runs_under_tcg(self):
        status, out, err = self.run_cli(**REFUSES_ALL)
        self.assertEqual(status, 0, err)
        self.assertIn("clockbench run: no CPU model starts under KVM here (-cpu host: QEMU "
                      "said \"qemu-system-x86_64: error: failed to set MSR 0x1d9 to 0x0\"); "
                      "using TCG", err)
        self.assertIn("clockbench run: PASS (tcg pc multiboot1 -cpu max qboot, ", out)

    def test_a_refused_model_of_the_users_is_quoted(self):
        status, _, err = self.run_cli("--accel", "kvm", "--cpu", "host", **REFUSES_HOST)
        self.assertEqual(status, 2)
        self.assertIn("QEMU was killed by signal 6: " + ARCH_CAPABILITIES_REFUSED, err)


if __name__ == "__main__":
    unittest.main()
