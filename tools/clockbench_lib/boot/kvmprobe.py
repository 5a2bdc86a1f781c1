# SPDX-License-Identifier: MIT
"""Whether this host's KVM runs a guest's ring 0 natively, asked of the image itself.

A Linux kernel runs in ring 0.  The nested KVM of this project's machines (kvm-pvm) runs
guest ring 3 natively but emulates guest ring 0 instruction by instruction
(docs/architecture.md): Debian's kernel printed nothing after its real-mode setup code
in 120 s there.  The image measures a privileged request's round trip to its own ring 0
and says whether the hypervisor emulates ring 0 (`env.ring0_emulated`,
`env.ring0_round_trip_cycles`, docs/report-format.md), so one short KVM boot of it tells
the runner, before a Linux boot under KVM, whether that boot can run usefully.
"""

import os
from dataclasses import dataclass

from ..base import paths
from ..model import report
from . import qemu
from .once import boot_once
from ..base.outcome import RunnerError

# A short run: no ticks, the least measuring; the environment section is what is read.
PROBE_OPTIONS = "tick_rates= budget_ms=100 samples=50 rate_ms=10"
PROBE_TIMEOUT_S = 60
PROBE_IMAGE = qemu.BOOT_IMAGES["multiboot1"]
PROBE_DIR = os.path.join(paths.BUILD_DIR, "kvm-ring0")


@dataclass(frozen=True)
class Ring0:
    """What the probe found: `emulated` True or False, or None when it could not tell
    (then `problem` says why)."""

    emulated: bool = None
    round_trip_cycles: int = None
    problem: str = None

    def linux_skip_reason(self):
        """The sentence a Linux boot under this KVM is skipped with, or None to boot it."""
        if not self.emulated:
            return None
        return (f"a Linux kernel runs in guest ring 0, which this host's KVM emulates "
                f"instruction by instruction (in a probe boot of {PROBE_IMAGE} a request "
                f"to its ring 0 and back took {self.round_trip_cycles} TSC cycles, and the "
                f"image found ring 0 emulated), so Linux does not run usefully under it")


def probe_spec(cpu):
    """The probe's BootSpec: the multiboot1 image under KVM with `cpu`, briefly."""
    return qemu.BootSpec(boot="multiboot1", accel="kvm", cpu=cpu, cmdline=PROBE_OPTIONS,
                         timeout_s=PROBE_TIMEOUT_S)


def read_ring0(lines, source):
    """A Ring0 from the probe's console `lines` (its report's env section)."""
    try:
        env = report.load_report(lines, source)["env"]
    except RunnerError as error:
        return Ring0(problem=str(error))
    if env.get("ring0_emulated") is None:
        return Ring0(problem=f"{source}: the report does not say whether ring 0 is emulated")
    return Ring0(env["ring0_emulated"], env.get("ring0_round_trip_cycles"))


def probe(root, cpu, boot=boot_once, work=None):
    """Boot the image under `root` once under KVM with -cpu `cpu` and read what it found,
    writing under `work` (default `root`); a boot that gives no report is a Ring0 that
    cannot tell, not an error."""
    work_dir = os.path.join(work or root, PROBE_DIR)
    log_path = os.path.join(work_dir, "probe.log")
    os.makedirs(work_dir, exist_ok=True)
    spec = probe_spec(cpu)
    outcome = boot(spec, root, PROBE_TIMEOUT_S, work_dir, log_path)
    ring0 = read_ring0(outcome.lines, os.path.join(PROBE_DIR, "probe.log"))
    if ring0.emulated is None and outcome.reason:
        return Ring0(problem=f"{ring0.problem} ({outcome.verdict}: {outcome.reason})")
    return ring0
