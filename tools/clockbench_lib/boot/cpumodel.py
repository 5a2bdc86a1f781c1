# SPDX-License-Identifier: MIT
"""Which QEMU -cpu model this host's KVM starts, found once per host and remembered.

On some KVM hosts `-cpu host` (and `max`) abort QEMU before the guest runs: QEMU sets an
MSR for a feature the host CPU has, and this KVM refuses it ("error: failed to set MSR
0x10a to 0x69", then an assertion and SIGABRT).  The runner asks QEMU to start, with the
guest stopped (-S), `host` first, then `host` without each feature QEMU named that way
(REFUSED_MSRS), and only then gives up on KVM.  The answer is kept under build/kvm-cpu/,
keyed by the host CPU, the kernel and QEMU, so that the probing happens once per host.
"""

import json
import os
import subprocess
from dataclasses import asdict, dataclass, field

from ..base import hostinfo, paths
from . import qemu as qemu_cmd

CACHE_DIR = os.path.join(paths.BUILD_DIR, "kvm-cpu")
FIRST_MODEL = qemu_cmd.DEFAULT_CPU["kvm"]
PROBE_TIMEOUT_S = 30


@dataclass(frozen=True)
class RefusedMsr:
    """An MSR QEMU sets for a -cpu feature, and how to leave the feature out."""

    msr: int
    name: str
    option: str   # appended to the -cpu model


# QEMU's "failed to set MSR 0x... to 0x..." names the MSR; each entry turns off the QEMU
# feature that makes QEMU set it (target/i386/kvm/kvm.c, kvm_init_msrs and kvm_put_msrs).
REFUSED_MSRS = (
    # Seen on an AMD EPYC host under a nested kvm-pvm: -cpu host and max abort.
    RefusedMsr(0x10a, "IA32_ARCH_CAPABILITIES", "-arch-capabilities"),
    RefusedMsr(0x345, "IA32_PERF_CAPABILITIES", "pmu=off"),
    RefusedMsr(0xe1, "IA32_UMWAIT_CONTROL", "-waitpkg"),
    RefusedMsr(0x6e0, "IA32_TSC_DEADLINE", "-tsc-deadline"),
    RefusedMsr(0x3b, "IA32_TSC_ADJUST", "-tsc-adjust"),
)


@dataclass
class Attempt:
    """One try of a -cpu model: whether QEMU started, and if not, QEMU's line saying why."""

    model: str
    started: bool
    said: str = ""

    def describe(self):
        """"-cpu MODEL: QEMU said ..." in words."""
        return f"-cpu {self.model}: {self.said}"


@dataclass
class Choice:
    """The model to run KVM guests with (None: none starts), how it was found, and where
    the answer is kept."""

    model: str
    attempts: list = field(default_factory=list)
    cache_path: str = None
    from_cache: bool = False

    @property
    def reason(self):
        """One sentence: which model and why, or why none."""
        tried = "; ".join(attempt.describe() for attempt in self.attempts
                          if not attempt.started)
        if self.model is None:
            return f"no CPU model starts under KVM here ({tried})"
        if self.model == FIRST_MODEL:
            return f"-cpu {FIRST_MODEL} starts under KVM here"
        return f"-cpu {self.model} is the first model KVM starts here ({tried})"

    def to_json(self):
        """What the cache file, the --json report and the matrix manifest record."""
        return {"model": self.model, "reason": self.reason,
                "attempts": [asdict(attempt) for attempt in self.attempts]}


def probe_command(qemu, model):
    """QEMU with KVM and `model`, the guest stopped before its first instruction, and a
    monitor on stdin that is told to quit: it exits 0 once the machine was made, which is
    where a refused MSR aborts it."""
    return [qemu, "-accel", "kvm", "-cpu", model, "-machine", "pc", "-nodefaults",
            "-display", "none", "-serial", "none", "-monitor", "stdio", "-S"]


def qemu_said(stderr, status):
    """QEMU's line saying why it did not start, quoted, else its exit status, in words."""
    line = qemu_cmd.start_error_line(stderr.splitlines())
    if line is not None:
        return f'QEMU said "{line}"'
    if status < 0:
        return f"QEMU was killed by signal {-status} and said nothing"
    return f"QEMU exited with status {status} and said nothing"


def try_model(qemu, model, timeout_s=PROBE_TIMEOUT_S, run=subprocess.run):
    """Start QEMU with `model` under KVM and stop it again; returns an Attempt."""
    try:
        result = run(probe_command(qemu, model), input="quit\n", capture_output=True,
                     text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return Attempt(model, False, f"QEMU did not start within {timeout_s:g} s")
    except OSError as error:
        return Attempt(model, False, f"cannot run {qemu}: {os.strerror(error.errno)}")
    if result.returncode == 0:
        return Attempt(model, True)
    return Attempt(model, False, qemu_said(result.stderr, result.returncode))


def refused_msr(said):
    """The REFUSED_MSRS entry QEMU's line names, or None."""
    match = qemu_cmd.MSR_REFUSAL.search(said)
    if not match:
        return None
    number = int(match.group(1), 16)
    return next((entry for entry in REFUSED_MSRS if entry.msr == number), None)


def find_model(qemu, try_one=try_model):
    """Try `host`, then `host` without each feature QEMU names as refused, one at a time;
    returns a Choice (model None when none starts).  Bounded: each entry of REFUSED_MSRS
    is taken off at most once."""
    model, attempts = FIRST_MODEL, []
    for _ in range(len(REFUSED_MSRS) + 1):
        attempt = try_one(qemu, model)
        attempts.append(attempt)
        if attempt.started:
            return Choice(model, attempts)
        entry = refused_msr(attempt.said)
        if entry is None or entry.option in model.split(","):
            break
        attempt.said += f", and MSR {entry.msr:#x} is {entry.name}: leaving out {entry.option}"
        model += "," + entry.option
    return Choice(None, attempts)


def host_key(qemu):
    """What the answer depends on: the host CPU, the kernel, and which QEMU."""
    return {"host_cpu": hostinfo.host_cpu(), "kernel": hostinfo.kernel(), "qemu": qemu,
            "qemu_version": hostinfo.first_line([qemu, "--version"])}


def cache_file(cache_dir, key):
    """The file that keeps the answer for `key`."""
    import hashlib  # pylint: disable=import-outside-toplevel  (OpenSSL: only under KVM)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return os.path.join(cache_dir, f"{digest}.json")


def _load(path, key):
    """The Choice kept at `path` for `key`, or None (no file, another key, unreadable)."""
    try:
        with open(path, encoding="utf-8") as kept:
            data = json.load(kept)
        if data.get("key") != key:
            return None
        attempts = [Attempt(**attempt) for attempt in data["attempts"]]
        return Choice(data["model"], attempts, cache_path=path, from_cache=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(path, key, choice):
    """Keep `choice` at `path`; a cache that cannot be written only costs a probe later."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as out:
            json.dump({"key": key, **choice.to_json()}, out, indent=2)
            out.write("\n")
        os.replace(path + ".tmp", path)
    except OSError:
        return None
    return path


def choose(qemu, cache_dir, find=find_model):
    """The Choice for this host: the kept one when host, kernel and QEMU are the same,
    else found now and kept."""
    key = host_key(qemu)
    path = cache_file(cache_dir, key)
    choice = _load(path, key)
    if choice is None:
        choice = find(qemu)
        choice.cache_path = _store(path, key, choice)
    return choice


def choose_for(root):
    """The Choice for the QEMU the runner runs (qemu.qemu_program()), kept under `root`."""
    return choose(qemu_cmd.qemu_program(), os.path.join(root, CACHE_DIR))
