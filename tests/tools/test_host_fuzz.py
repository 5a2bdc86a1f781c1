# SPDX-License-Identifier: MIT
"""The host fuzzer's regression seeds (tests/fuzz/host-regressions/, its minimised
findings) replayed through tests/fuzz/host_fuzz.py: each must now be one sentence and
exit 2 (or a clean result), in process and through `clockbench parse` and `compare`.
(`make fuzz-smoke` runs the fuzzer itself for a few seconds.)"""

import glob
import os
import subprocess
import unittest

from tests.tools import PYTHON, ROOT

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

FUZZER = os.path.join(ROOT, "tests", "fuzz", "host_fuzz.py")
REGRESSIONS = os.path.join(ROOT, "tests", "fuzz", "host-regressions")


class RegressionSeeds(unittest.TestCase):
    """Replaying the kept findings finds nothing."""

    def test_there_are_seeds_of_each_kind(self):
        names = os.listdir(REGRESSIONS)
        for suffix in (".log", ".json", ".manifest.json"):
            self.assertTrue(any(name.endswith(suffix) for name in names), suffix)

    def test_replay(self):
        result = subprocess.run([PYTHON, FUZZER, "--seconds", "0", "--seed", "0"],
                                capture_output=True, text=True, timeout=600, check=False)
        self.assertEqual(result.returncode, 0, result.stdout[-3000:] + result.stderr[-3000:])
        seeds = len(glob.glob(os.path.join(REGRESSIONS, "*.json"))
                    + glob.glob(os.path.join(REGRESSIONS, "*.log")))
        self.assertIn(f"replayed {seeds} regression seeds", result.stdout)
        self.assertRegex(result.stdout, rf"host_fuzz: {seeds} executions in \d+ s, "
                                        r"0 findings\n$")
        self.assertNotIn("Traceback", result.stderr)


if __name__ == "__main__":
    unittest.main()
