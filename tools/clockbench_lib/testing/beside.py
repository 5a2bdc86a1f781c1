# SPDX-License-Identifier: MIT
"""A command run beside the boot tests (`clockbench test --beside COMMAND`).

make test runs the tool tests that need the images beside the boots that may share the
machine, so that neither leaves a core idle.  The command starts once no boot that must
run alone (bootgate.py) is left, since those judge timer ticks that a neighbour, even a
niced one, disturbs; its output goes to a log, shown whole after the boots' results, and
its failure fails the run.  Every wait on it is bounded.
"""

import os
import signal
import subprocess
import threading

# After the last boot, how long the command may still take before it is stopped: the
# tool tests take about two minutes alone on two cores.
FINISH_BOUND_S = 900


class Beside:
    """`command` (run through sh) started on the first start() call, with its output
    written to `log_path`."""

    def __init__(self, command, log_path):
        self.command = command
        self.log_path = log_path
        self._lock = threading.Lock()
        self._process = None
        self._log = None

    def start(self):
        """Start the command, once; later calls do nothing."""
        with self._lock:
            if self._process is not None:
                return
            os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
            self._log = open(self.log_path, "w", encoding="utf-8")
            self._process = subprocess.Popen(
                ["sh", "-c", self.command], stdout=self._log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)

    def stop(self):
        """Stop the command and whatever it started (an interrupted run)."""
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()

    def finish(self):
        """Start the command if it has not started, wait for it within FINISH_BOUND_S;
        returns (what it printed, None when it exited with 0 or else one sentence)."""
        self.start()
        try:
            status = self._process.wait(timeout=FINISH_BOUND_S)
            problem = None if status == 0 else (
                f"the command beside the boots, `{self.command}`, exited with {status}.")
        except subprocess.TimeoutExpired:
            self.stop()
            problem = (f"the command beside the boots, `{self.command}`, had not ended "
                       f"{FINISH_BOUND_S} s after the last boot: it was stopped.")
        self._log.close()
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return log.read(), problem
