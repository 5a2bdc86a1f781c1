# SPDX-License-Identifier: MIT
"""`make install` and `make uninstall` into a temporary DESTDIR and PREFIX: the installed
runner works from outside the checkout (--help, test --list, parse, run with the fake
QEMU, bash completion), writing only under the user's cache folder; the man page and the
completion file are there; uninstall leaves nothing behind but what it did not install.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
(`make install` builds what is not built yet: the images, clockbench-user, the ISO.)
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from tests.tools import FAKE_QEMU, GOOD_LOG, ROOT

# Whole commands: its run time is far beyond what its size says (tests/tools/run).
RUNS_LONG = True

PREFIX = "/opt/clockbench-test"


def tree(top):
    """Every path under `top`, relative to it."""
    return sorted(os.path.relpath(os.path.join(folder, name), top)
                  for folder, folders, files in os.walk(top) for name in folders + files)


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.destdir = os.path.join(self.tmp, "dest")
        self.home = os.path.join(self.tmp, "home")
        self.outside = os.path.join(self.tmp, "elsewhere")
        os.makedirs(self.home)
        os.makedirs(self.outside)
        self.installed = self.destdir + PREFIX

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def make(self, target):
        result = subprocess.run(["make", "-s", "-C", ROOT, target, f"DESTDIR={self.destdir}",
                                 f"PREFIX={PREFIX}"], capture_output=True, text=True,
                                timeout=600, check=False)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return result

    def tool(self, *args, **environ):
        """Run the installed clockbench from a folder outside the checkout."""
        env = {key: value for key, value in os.environ.items()
               if key not in ("XDG_CACHE_HOME", "CLOCKBENCH_QEMU")}
        env.update(HOME=self.home, **environ)
        return subprocess.run([os.path.join(self.installed, "bin", "clockbench"), *args],
                              cwd=self.outside, env=env, capture_output=True, text=True,
                              timeout=120, check=False)

    def test_install_run_uninstall(self):
        self.make("install")
        share = os.path.join(self.installed, "share")
        self.assertTrue(os.path.islink(os.path.join(self.installed, "bin", "clockbench")))
        domu = os.path.join(self.installed, "bin", "clockbench-domu")
        self.assertTrue(os.path.islink(domu))
        self.assertTrue(os.access(domu, os.X_OK))
        self.assertEqual(os.path.realpath(domu),
                         os.path.join(share, "clockbench", "dom0", "clockbench-domu"))
        for path in ("clockbench/build/clockbench-mb1.elf", "clockbench/build/clockbench.iso",
                     "clockbench/build/clockbench-user", "clockbench/docs/report.schema.json",
                     "clockbench/tests/tests.cfg", "clockbench/build/guest-options.json",
                     "clockbench/tests/fixtures/acpi/pc/APIC.bin", "doc/clockbench/LICENSE",
                     "doc/clockbench/README.md", "doc/clockbench/docs/compare.md"):
            self.assertTrue(os.path.isfile(os.path.join(share, path)), path)
        self.assertFalse(os.path.exists(os.path.join(share, "clockbench", "Makefile")))
        with open(os.path.join(share, "man", "man1", "clockbench.1"), encoding="utf-8") as man:
            page = man.read()
        self.assertIn('.TH CLOCKBENCH "1"', page)
        self.assertIn("usage: clockbench", page)
        self.assertIn('.SH "COMMAND: CLOCKBENCH MATRIX"', page)
        for section in ("SYNOPSIS", "EXAMPLES", '"EXIT STATUS"', "FILES"):
            self.assertIn(f".SH {section}", page)
        self.assertIn("last.log", page)
        self.assertIn("\\-\\-env\\-file", page)
        with open(os.path.join(share, "bash-completion", "completions", "clockbench"),
                  encoding="utf-8") as completion:
            self.assertRegex(completion.read(), r"(?m)^complete .*-F _python_argcomplete "
                                                r"clockbench$")
        before = tree(self.installed)

        result = self.tool("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("usage: clockbench"))
        result = self.tool("test", "--list")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"(?m)^mb1-pc +multiboot1 pc +tcg ")
        result = self.tool("parse", GOOD_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("clockbench/1 report from clockbench", result.stdout)
        result = self.tool("--version")
        self.assertEqual(result.returncode, 0, result.stderr)
        described = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as version:
            self.assertTrue(result.stdout.startswith(
                f"clockbench {version.read().strip()} ({described})\n"), result.stdout)
        result = self.tool("run", "--accel", "tcg", "--", "sample=100",
                           CLOCKBENCH_QEMU=FAKE_QEMU, FAKE_QEMU_REPORT=GOOD_LOG)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("unknown guest option 'sample' (did you mean 'samples'?)", result.stderr)
        result = self.tool("run", "--accel", "tcg", "--", "verbose=1",
                           CLOCKBENCH_QEMU=FAKE_QEMU, FAKE_QEMU_REPORT=GOOD_LOG)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"clockbench run: PASS \(tcg pc multiboot1 -cpu max qboot, ")
        self.assertIn('command line     "verbose=1"', result.stdout)
        log = os.path.join(self.home, ".cache", "clockbench", "build", "run", "last.log")
        self.assertTrue(os.path.isfile(log), tree(self.home))
        completion = subprocess.run(
            ["bash", "-c", '"$0" 8>&1 9>&2 1>/dev/null 2>&1',
             os.path.join(self.installed, "bin", "clockbench")],
            cwd=self.outside, capture_output=True, text=True, timeout=60, check=False,
            env=dict(os.environ, _ARGCOMPLETE="1", _ARGCOMPLETE_IFS=" ",
                     COMP_LINE="clockbench matrix --env-f", COMP_POINT="25"))
        self.assertEqual(completion.stdout.split(), ["--env-file"])
        self.assertEqual(tree(self.installed), before)  # the runner wrote nothing there
        self.assertEqual(os.listdir(self.outside), [])

        # What clockbench did not install stays, and so does its folder.
        other = os.path.join(share, "man", "man1", "other.1")
        with open(other, "w", encoding="utf-8"):
            pass
        result = self.make("uninstall")
        self.assertIn("kept", result.stdout)
        self.assertEqual(tree(self.destdir), sorted(
            os.path.relpath(path, self.destdir)
            for path in (self.destdir + "/opt", self.installed, share,
                         os.path.join(share, "man"), os.path.join(share, "man", "man1"),
                         other)))
        os.unlink(other)
        self.make("install")
        self.make("install")  # a second install over the first
        self.make("uninstall")
        self.assertEqual(os.listdir(self.destdir), ["opt"])  # /opt was there the first time
        shutil.rmtree(self.destdir)
        self.make("install")
        self.make("uninstall")
        self.assertEqual(os.listdir(self.destdir), [])


if __name__ == "__main__":
    unittest.main()
