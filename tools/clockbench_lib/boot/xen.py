# SPDX-License-Identifier: MIT
"""Xen under QEMU: the Xen boot paths, Xen's command line, and what Xen's own console says.

Debian's Xen 4.17 boots under QEMU TCG (docs/xen.md): as a multiboot1 kernel with
clockbench's PV image as its dom0 module (boot path xen), or from a GRUB ISO under OVMF
with the PVH image as a PVH dom0 (xen-pvh-dom0), or with the project's Linux dom0, which
runs the image as a domU (xen-*-domu), clockbench-user itself (xen-linux-dom0), or itself
again as a Linux PV domU that runs clockbench-user (xen-linux-pv-domu).  Xen's
lines share the serial console with the guest's, each prefixed `(XEN) `; parse_xen_log()
reads from them the Xen version, the platform timer Xen chose, its TSC lines and warnings,
and how dom0 ended when Xen had to say so.  The
wording matched here is Xen 4.17's (xen/arch/x86/time.c, xen/common/shutdown.c,
xen/drivers/char/console.c), checked against its output under QEMU 7.2.
"""

import re
import subprocess
import urllib.parse
from dataclasses import dataclass, field

from ..base import paths
from ..model.console import quote
from ..base.outcome import (GUEST_ERROR_REASON, IMAGE, RunnerError, no_verdict_reason,
                            status_verdict)

XEN_PACKAGE = "xen-hypervisor-4.17-amd64"
XEN_GZ = "/boot/xen-4.17-amd64.gz"
# QEMU's multiboot loader takes only the raw ELF32, so the Makefile decompresses XEN_GZ here.
XEN_BINARY = f"{paths.BUILD_DIR}/xen-4.17-amd64"
XEN_TIMEOUT_S = 120
XEN_MEMORY_MIB = 512   # Xen, dom0 and Xen's heap share the QEMU machine's RAM
# The least RAM Xen and dom0 boot in: Xen 4.17.7 with this dom0 booted in 44 MiB here and
# panicked in 40 ("Not enough RAM for domain 0 allocation").
XEN_MIN_MEMORY_MIB = 44
# The same for the Linux dom0 alone (xen-linux-dom0, dom0_mem=384M, its 74.5 MiB
# initramfs): it ran in 432 MiB and in 416 Xen panicked the same way.
LINUX_DOM0_ALONE_MIN_MEMORY_MIB = 432
# The least RAM OVMF, Xen and a PVH dom0 of DOM0_MEM boot in (xen-pvh-dom0): it booted in
# 152 MiB here and not in 144 (Xen: "Failed to setup Dom0 physical memory map", a panic).
PVH_DOM0_MIN_MEMORY_MIB = 152
DOM0_MEM = "128M"

# Xen's serial console needs this spelling ("com1=115200,,8n1" prints nothing).  noreboot
# keeps Xen from rebooting 5 s after dom0 crashes: it halts at once, and the runner stops
# QEMU as soon as Xen says why (END_LINE).
BASE_OPTIONS = ("console=com1", "com1=115200,8n1")
FINAL_OPTIONS = ("noreboot",)

KVM_REFUSAL = ("Xen boots run under TCG only: Xen lives in guest ring 0, which this "
               "machine's KVM (kvm-pvm) runs only through a limited emulator, so it cannot "
               "host Xen; use TCG (drop --accel kvm, or accel=kvm in tests.cfg).")

# Xen's names for its platform timers (struct platform_timesource .name) and the
# clocksource= words that ask for them.
CLOCKSOURCE_NAMES = {"hpet": "HPET", "acpi": "ACPI PM Timer", "pit": "PIT", "tsc": "TSC"}

_XEN_LINE = re.compile(r"^\(XEN\) (?:\[[^\]]*\] )?(.*)$")
_VERSION = re.compile(r"^Xen version (\S+)(?: \(([^)]*)\))?")
_COMMAND_LINE = re.compile(r"^Command line: (.*)$")
# "Platform timer is 100.000MHz HPET"; clocksource=tsc, once the TSC proves reliable
# after every CPU is up: "Switched to Platform timer 2300.000MHz TSC".
_PLATFORM_TIMER = re.compile(r"^(?:Platform timer is|Switched to Platform timer) "
                             r"([0-9.]+)MHz (.+?)\s*$")
_TSC = re.compile(r"\bTSC\b|^Detected [0-9.]+ MHz processor")
_WARNING = re.compile(r"^WARNING\b")
_PANIC = re.compile(r"^Panic on CPU \d+:")
_PANIC_END = re.compile(r"^(?:Manual reset required|Reboot in five seconds)")
_DOM0_END = re.compile(r"^Hardware Dom\d+ (crashed|halted|shutdown)\b")

# A console line after which Xen never hands the machine back: run_process() stops QEMU.
END_LINE = re.compile(r"^\(XEN\) (?:\[[^\]]*\] )?(?:Hardware Dom\d+ (?:crashed|halted)"
                      r"|.*'noreboot' set - not rebooting"
                      r"|Manual reset required|Reboot in five seconds)")

DOM0_END_WORDS = {"crashed": "dom0 crashed", "halted": "dom0 powered off",
                  "shutdown": "dom0 shut down", "panic": "Xen panicked"}


@dataclass(frozen=True)
class Workaround:
    """Something a Xen boot path does only because of a bug or a limit met here."""

    what: str    # what the runner does, as the user would type it
    why: str     # the bug or limit, and where it is fixed


# Every workaround the Xen boot paths apply, each named once (docs/xen.md).
WORKAROUNDS = {
    "no-rdtscp": Workaround(
        "-cpu max,-rdtscp",
        "QEMU 7.2 reports an intercepted RDTSCP to Xen as RDTSC; without NRIPS, which TCG "
        "lacks, Xen then injects #GP into an HVM or PVH guest"),
    "iommu": Workaround(
        "-machine q35 -device intel-iommu,intremap=off",
        "Xen 4.17 panics without an IOMMU for a PVH hardware domain ('iommu must be "
        "enabled for PVH hardware domain')"),
    "ovmf": Workaround(
        "OVMF and GRUB-EFI (build/clockbench-xen.iso)",
        "with SeaBIOS's RSDT-only ACPI tables Xen 4.17.7 builds dom0's XSDT header from "
        "physical address 0 (fixed upstream in 2023, not in Debian's 4.17); OVMF provides "
        "an XSDT"),
    "smap-0": Workaround(
        "Xen option smap=0",
        "QEMU 7.2 checks a PV kernel's IRET stack reads as supervisor accesses, so with "
        "SMAP the Linux PV dom0 dies ~40 ms in (fixed upstream in QEMU in 2024)"),
    "no-xsave": Workaround(
        "Xen option cpuid=no-xsave",
        "with XSAVE, the FPU and SSE state Xen switches between the Linux dom0 and a domU "
        "came back wrong under QEMU 7.2's TCG (dom0's busybox crashed in malloc 27 times in "
        "25 s while a domU ran, never with FXSAVE)"),
    "domu-no-rdtscp": Workaround(
        'xl cpuid = "host,rdtscp=0" for the HVM or PVH domU',
        "the same QEMU 7.2 RDTSCP report, one level down: Xen injects #GP into an HVM or "
        "PVH guest that uses RDTSCP"),
}


@dataclass(frozen=True)
class XenBoot:
    """One way the runner boots clockbench under Xen."""

    guest: str           # the kind of Xen guest that measures: pv, pvh or hvm
    domain: str          # dom0 or domU
    dom0_options: tuple  # Xen options for dom0, after BASE_OPTIONS; "{smp}" is --smp
    workarounds: tuple   # keys of WORKAROUNDS
    linux_dom0: bool = False  # dom0 is the project's Linux dom0 (docs/dom0.md)
    domu_type: str = None     # clockbench-domu's --type, when not `guest` (linux-pv)

    @property
    def on_linux_dom0(self):
        """True when dom0 is the project's Linux dom0 (docs/dom0.md): it runs the image as
        a domU, or clockbench-user itself."""
        return self.linux_dom0

    @property
    def runs_domu(self):
        """True when the Linux dom0 runs a domU (clockbench-domu): the image, or Linux
        running clockbench-user (domu_type linux-pv)."""
        return self.linux_dom0 and self.domain == "domU"

    @property
    def clockbench_type(self):
        """dom0's clockbench.type= (clockbench-domu's --type) for a domU boot."""
        return self.domu_type or self.guest


# clockbench as dom0: its memory and every vCPU.
DOM0_OPTIONS = (f"dom0_mem={DOM0_MEM}", "dom0_max_vcpus={smp}")
# The Linux dom0 of the domU boots: one vCPU and enough memory for an HVM guest's device
# model (about 512 MiB); the rest of the machine is the domU's.
LINUX_DOM0_OPTIONS = ("dom0_mem=512M", "dom0_max_vcpus=1", "smap=0", "cpuid=no-xsave")
# The Linux dom0 alone, running clockbench-user (xen-linux-dom0): every vCPU, as the
# image's PV dom0 gets, and memory for the unpacked initramfs (alone Linux needs 288 MiB
# to unpack it, linux.LINUX_MIN_MEMORY_MIB; as this dom0, since the initramfs holds the
# Linux PV domU's kernel and initramfs too, 74.5 MiB, it unpacked it with 384M and not
# with 352M: "Initramfs unpacking failed: write error").  Without a domU Xen switches no
# FPU state between domains, so cpuid=no-xsave is not needed: no dom0 program crashed in
# six runs here with XSAVE.
LINUX_DOM0_ALONE_MEM = "384M"
LINUX_DOM0_ALONE_OPTIONS = (f"dom0_mem={LINUX_DOM0_ALONE_MEM}", "dom0_max_vcpus={smp}",
                            "smap=0")


# The boot paths under Xen, by their --boot name.
XEN_BOOTS = {
    "xen": XenBoot("pv", "dom0", DOM0_OPTIONS, ()),
    "xen-pvh-dom0": XenBoot("pvh", "dom0", (*DOM0_OPTIONS, "dom0=pvh"),
                            ("no-rdtscp", "iommu", "ovmf")),
    "xen-pv-domu": XenBoot("pv", "domU", LINUX_DOM0_OPTIONS, ("smap-0", "no-xsave"), True),
    "xen-pvh-domu": XenBoot("pvh", "domU", LINUX_DOM0_OPTIONS,
                            ("smap-0", "no-xsave", "domu-no-rdtscp"), True),
    "xen-hvm-domu": XenBoot("hvm", "domU", LINUX_DOM0_OPTIONS,
                            ("smap-0", "no-xsave", "domu-no-rdtscp"), True),
    # The Linux dom0 itself measures (clockbench-user): a PV dom0, like the xen boot's.
    "xen-linux-dom0": XenBoot("pv", "dom0", LINUX_DOM0_ALONE_OPTIONS, ("smap-0",), True),
    # The Linux dom0 runs the same kernel as a PV domU, which measures (clockbench-user):
    # a PV domU, like xen-pv-domu's image.
    "xen-linux-pv-domu": XenBoot("pv", "domU", LINUX_DOM0_OPTIONS, ("smap-0", "no-xsave"),
                                 True, "linux-pv"),
}

# The project's Linux dom0 (make dom0, docs/dom0.md) and what its /init reads from the
# kernel command line: the domU's type, vCPUs, memory, the wait's bound, the guest options
# and xl's cpuid=, each value percent-encoded.
DOM0_KERNEL = f"{paths.BUILD_DIR}/dom0/vmlinuz"
# The ELF kernel that bzImage holds, unpacked by make dom0: Xen's dom0 kernel, which Xen
# would otherwise decompress under TCG at every boot (4.4 s of it here).
DOM0_KERNEL_ELF = f"{paths.BUILD_DIR}/dom0/vmlinux"
DOM0_INITRD = f"{paths.BUILD_DIR}/dom0/initrd.img"
DOM0_KERNEL_OPTIONS = ("console=hvc0", "loglevel=1")
DOMU_MEMORY_MIB = 128
# A domU that is saved or migrated: xl save writes its memory into dom0's tmpfs (the
# initramfs's root, half of dom0's 512 MiB, 75 MiB of it the unpacked initramfs); a 32
# MiB domU saved to about 34 MB (PV) and 42 MB (PVH), a 128 MiB one did not fit; a
# migration to this host holds two copies for a while, and under TCG moves each page
# slowly.  16 MiB (the image needs 9): a PVH domU of two vCPUs saved to 25 MB in 3.5 s
# where 32 MiB took 5.0 s alone and 16.5 s beside make check's other boots.
DOMU_SAVE_MEMORY_MIB = 16
# The Linux PV domU (xen-linux-pv-domu): LINUX_DOMU_MEMORY_MIB, measured below.
DOMU_QEMU_MEMORY_MIB = 1024    # Xen, the 512 MiB dom0 and the domU
# Measured with the PV domU: it booted in 672 MiB (the HVM one too) and not in 640, where
# xl create failed ("can't allocate low memory for domain: Out of memory").
DOMU_MIN_MEMORY_MIB = 672
# How long a domU boot may take: Linux dom0 boots in ~4 s under TCG, a PV or PVH domU
# runs in 15-20 s, an HVM one needs its firmware and GRUB first (60-125 s in all, on a
# slow host beside other boots; with an IDE CD and COM1 there it had taken 330-480 s).
DOMU_TIMEOUT_S = {"pv": 180, "pvh": 180, "hvm": 360}
# The dom0's own wait ends this much before the runner's, so that its sentence arrives.
DOMU_WAIT_MARGIN_S = 30
# The start of the lines dom0's runner (dom0/clockbench-domu) says its judgement in.
DOMU_RUNNER_PREFIX = "(dom0) clockbench-domu: "


def workaround_lines(boot):
    """What the runner prints once per run of a Xen boot path: one line per workaround."""
    xen_boot = XEN_BOOTS.get(boot)
    return [f"working around: {WORKAROUNDS[key].what}: {WORKAROUNDS[key].why}"
            for key in (xen_boot.workarounds if xen_boot else ())]


def xen_options(smp, xen_args="", boot="xen", dom0_vcpus=None):
    """Xen's command line: the kind of dom0, the console, dom0's memory and every vCPU,
    then `xen_args`.  `dom0_vcpus`, if given, is dom0's vCPUs (a domU's --contend gives
    dom0 one on each physical CPU, CONTEND_DOM0_VCPUS).

    Xen reads its options in order and the last value of a key wins, so `xen_args`
    (e.g. "clocksource=tsc dom0_max_vcpus=1") overrides the defaults.
    """
    words = [*BASE_OPTIONS, *(word.replace("{smp}", str(smp))
                              for word in XEN_BOOTS[boot].dom0_options), *FINAL_OPTIONS]
    if dom0_vcpus:
        words.append(f"dom0_max_vcpus={dom0_vcpus}")
    if xen_args.strip():
        words.append(xen_args.strip())
    return " ".join(words)


def _no_blank(path, what):
    """RunnerError when `path` holds whitespace, which ends a file name where it is used."""
    if any(char.isspace() for char in path):
        raise RunnerError(f"{path} contains a space, but {what} ends a file name at its "
                          f"first space; move the tree to a path without spaces.")
    return path


def percent_encode(text):
    """`text` as dom0's /init decodes it: every byte but A-Z a-z 0-9 - . _ ~ as %HH."""
    return urllib.parse.quote(text, safe="")


def dom0_command_line(boot, vcpus, options, timeout_s, memory_mib=DOMU_MEMORY_MIB,
                      domu_kernel_words=(), contend=False, events=()):
    """The Linux dom0's kernel command line for a domU boot: quiet, on Xen's console, and
    the domU to run (`domu_kernel_words`: more of a Linux domU's kernel options;
    `contend`: clockbench-domu --contend, a busy loop in dom0 on the domU's pCPU;
    `events`: clockbench-domu's --event texts, e.g. "pause:3s")."""
    xen_boot = XEN_BOOTS[boot]
    if any(event.partition(":")[0] in ("save", "migrate") for event in events):
        memory_mib = min(memory_mib, DOMU_SAVE_MEMORY_MIB)
    words = [*DOM0_KERNEL_OPTIONS, f"clockbench.type={xen_boot.clockbench_type}",
             f"clockbench.vcpus={vcpus}", f"clockbench.memory={memory_mib}",
             f"clockbench.timeout={max(10, int(timeout_s) - DOMU_WAIT_MARGIN_S)}",
             f"clockbench.options={percent_encode(options)}"]
    if domu_kernel_words:
        words.append(f"clockbench.kernel={percent_encode(' '.join(domu_kernel_words))}")
    if events:
        words.append(f"clockbench.events={percent_encode(' '.join(events))}")
    if "domu-no-rdtscp" in xen_boot.workarounds:
        words.append(f"clockbench.cpuid={percent_encode('host,rdtscp=0')}")
    if contend:
        words.append("clockbench.contend=1")
    return " ".join(words)


# dom0's runner's lines on --contend (dom0/clockbench-domu's contend_start, contend_stop).
DOMU_CONTEND = re.compile(r"--contend: (\d+ busy loops? in dom0 .*?)\.?$")
DOMU_CONTEND_PCPU = re.compile(r"pCPU (\d+): ([^;)]*)")
DOMU_CONTEND_RAN = re.compile(r"--contend: the busy loops? ran (\d+) s\.$")


def domu_contend(lines, vcpus):
    """What --contend arranged under Xen, as dom0's runner said it (the record's
    runner.contend), or None when it said nothing of it: which physical CPU each of the
    domU's `vcpus` vCPUs and each busy dom0 vCPU was pinned to."""
    said = [line[len(DOMU_RUNNER_PREFIX):].strip() for line in lines
            if line.startswith(DOMU_RUNNER_PREFIX)]
    started = next((m for m in map(DOMU_CONTEND.search, said) if m), None)
    if not started:
        return None
    ran = next((m for m in map(DOMU_CONTEND_RAN.search, said) if m), None)
    domu_pcpu, dom0_pcpu = {}, {}
    for pcpu, who in DOMU_CONTEND_PCPU.findall(started.group(1)):
        for kind, index in re.findall(r"(dom0|domU) vCPU (\d+)", who):
            (dom0_pcpu if kind == "dom0" else domu_pcpu)[int(index)] = int(pcpu)
    bound = re.search(r"bounded to (\d+) s", started.group(1))
    seconds = float(ran.group(1)) if ran else 0.0
    return {
        "what": "busy loops in Xen's dom0 (its shell spinning), one on each dom0 vCPU, "
                "each dom0 vCPU pinned (xl vcpu-pin) to a physical CPU of the domU's",
        "bound_s": float(bound.group(1)) if bound else 0.0,
        "host_cpus": sorted(set(domu_pcpu.values()) | set(dom0_pcpu.values())),
        "vcpus": [{"vcpu": index, "thread_id": None, "host_cpu": domu_pcpu[index]}
                  for index in range(vcpus) if index in domu_pcpu],
        "loops": [{"host_cpu": dom0_pcpu[index], "seconds": seconds, "cpu_seconds": None}
                  for index in sorted(dom0_pcpu)],
        "said": "--contend: " + started.group(1)
                + (f"; it ran {ran.group(1)} s" if ran else ""),
    }


def domu_event_failures(lines):
    """What dom0's runner said of each event it could not carry out ("event 1 (migrate)
    failed: xl migrate failed: ..."), in order."""
    return [line[len(DOMU_RUNNER_PREFIX):].strip() for line in lines
            if line.startswith(DOMU_RUNNER_PREFIX)
            and re.match(r"event \d+ \(.*\) failed: ", line[len(DOMU_RUNNER_PREFIX):])]


def domu_runner_sentence(lines):
    """The last sentence dom0's runner said (its judgement of the domU), or None."""
    said = [line[len(DOMU_RUNNER_PREFIX):].strip() for line in lines
            if line.startswith(DOMU_RUNNER_PREFIX)]
    return said[-1] if said else None


def kernel_argument(hypervisor):
    """-kernel's value: Xen itself (QEMU hands Xen "PATH OPTIONS" and Xen drops PATH)."""
    return _no_blank(hypervisor, "Xen's command line").replace(",", ",,")


def initrd_argument(image, cmdline):
    """-initrd's value: dom0's image and its command line, as one multiboot module.

    QEMU splits -initrd at commas (a comma is written twice) and ends the file name at the
    first space; Xen hands dom0 what follows the file name.
    """
    module = _no_blank(image, "QEMU's -initrd")
    if cmdline:
        module += " " + cmdline
    return module.replace(",", ",,")


def xen_text(line):
    """The text of a line Xen printed (without `(XEN) ` and a timestamp), or None."""
    match = _XEN_LINE.match(line)
    return match.group(1).strip() if match else None


def requested_clocksource(options):
    """The clocksource= value of Xen's command line `options` (the last one), or None."""
    found = re.findall(r"(?:^|\s)clocksource=(\S*)", options or "")
    return found[-1] if found else None


@dataclass
class XenEnd:
    """How Xen said dom0 (or Xen itself) ended: kind is crashed, halted (dom0 powered off),
    shutdown (dom0 asked for a reboot, or its watchdog fired) or panic."""

    kind: str
    line: str
    detail: str = None  # a panic's message

    def describe(self):
        """In words, e.g. "dom0 crashed (Xen: Hardware Dom0 crashed: ...)"."""
        if self.kind == "panic" and self.detail:
            return f"Xen panicked: {quote(self.detail)}"
        return f"{DOM0_END_WORDS[self.kind]} (Xen: {quote(self.line)})"


@dataclass
class XenFacts:
    """What Xen's console lines said in one boot; None or [] where Xen did not say."""

    options: str = None            # the command line the runner gave Xen
    version: str = None            # "4.17.7"
    build: str = None              # the version line's first parenthesis: Debian's
                                   # package version, "Debian 4.17.7+13-g2445b30a44-0+deb12u1"
    command_line: str = None       # Xen's echo of its command line
    platform_timer: str = None     # "HPET"
    platform_timer_mhz: float = None
    tsc_lines: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    end: XenEnd = None

    @property
    def clocksource(self):
        """The clocksource= Xen was given, or None."""
        return requested_clocksource(self.command_line or self.options)

    def clocksource_note(self):
        """A sentence when Xen was asked for a platform timer it did not choose, else None."""
        asked = self.clocksource
        if not asked or not self.platform_timer:
            return None
        wanted = CLOCKSOURCE_NAMES.get(asked)
        if wanted == self.platform_timer:
            return None
        if wanted is None:
            return f"clocksource={asked} is not a platform timer Xen knows"
        return f"clocksource={asked} was asked for, but Xen kept {self.platform_timer}"

    def to_json(self):
        """The facts as JSON (for run --json summaries and matrix manifests)."""
        return {
            "options": self.options,
            "version": self.version,
            "build": self.build,
            "command_line": self.command_line,
            "clocksource": self.clocksource,
            "platform_timer": self.platform_timer,
            "platform_timer_mhz": self.platform_timer_mhz,
            "tsc_lines": list(self.tsc_lines),
            "warnings": list(self.warnings),
            "end": None if self.end is None else {
                "kind": self.end.kind, "line": self.end.line, "detail": self.end.detail},
        }

    def summary_lines(self):
        """What `clockbench run` prints about Xen after a boot (how dom0 ended is the run's
        reason, printed apart)."""
        version = self.version or "(no version line seen)"
        lines = [f"Xen {version}{f' ({self.build})' if self.build else ''}, options: "
                 f"{self.command_line or self.options}"]
        if self.platform_timer:
            note = self.clocksource_note()
            lines.append(f"Xen's platform timer: {self.platform_timer_mhz:.3f} MHz "
                         f"{self.platform_timer}{f' ({note})' if note else ''}")
        else:
            lines.append("Xen's platform timer: not in the log (Xen stopped before choosing "
                         "one)")
        if self.tsc_lines:
            lines.append(f"Xen's TSC lines: {' | '.join(self.tsc_lines)}")
        lines += [f"Xen: {warning}" for warning in self.warnings]
        return lines


def parse_xen_log(lines, options=None):
    """Read Xen's own lines among the console `lines`; returns XenFacts.

    `options` is the command line the runner gave Xen (kept as it is).  When a line says
    a thing twice (a platform timer switched after boot), the last one wins.
    """
    facts = XenFacts(options=options)
    panic = None
    for line in lines:
        text = xen_text(line)
        if text is None:
            continue
        if panic is not None and not panic and text and not text.startswith("*"):
            panic.append(text)
        if match := _VERSION.match(text):
            facts.version, facts.build = match.group(1), match.group(2)
        elif match := _COMMAND_LINE.match(text):
            facts.command_line = match.group(1).strip()
        elif match := _PLATFORM_TIMER.match(text):
            facts.platform_timer_mhz = float(match.group(1))
            facts.platform_timer = match.group(2)
        elif _PANIC.match(text):
            panic = []
        elif _PANIC_END.match(text) and panic is not None:
            facts.end = XenEnd("panic", text, panic[0] if panic else None)
        elif match := _DOM0_END.match(text):
            facts.end = XenEnd(match.group(1), text)
        if _TSC.search(text) and not _COMMAND_LINE.match(text):
            facts.tsc_lines.append(text)
        if _WARNING.match(text):
            facts.warnings.append(text)
    return facts


def judge_end(end, console_verdict, announced_end=None):
    """The verdict of a boot whose end Xen reported: returns (verdict, reason).

    The guest writes its verdict to isa-debug-exit, which ends QEMU with a status that says
    it; only when that failed does it shut dom0 down: power off after PASS or SKIP, crash
    after FAIL or ERROR.  So a crash is a failure unless the console said ERROR (then it
    is an error), a power-off carries the console's PASS or SKIP, and anything else (a
    reboot, a Xen panic) has no verdict.  A guest told to end another way (exit=halt,
    acpi or reset) says so after its verdict (`announced_end`); then dom0's power-off or
    reboot carries the console's verdict, and so does a crash after FAIL or ERROR, which
    is how it shuts down after one.
    """
    said = f"'clockbench: {console_verdict.upper()}'" if console_verdict else None
    if announced_end and console_verdict and end.kind != "panic" and (
            end.kind != "crashed" or console_verdict in ("fail", "error")):
        return console_verdict, GUEST_ERROR_REASON if console_verdict == "error" else None
    if end.kind == "crashed" and console_verdict == "error":
        return "error", f"{GUEST_ERROR_REASON}; then {end.describe()}"
    if end.kind == "crashed":
        if console_verdict == "fail":
            return "fail", (f"{end.describe()} after {said}: the guest could not end QEMU "
                            f"through isa-debug-exit")
        return "fail", end.describe() + (f", although the console said {said}" if said
                                         else ", before the guest printed a verdict")
    if end.kind == "halted" and console_verdict in ("pass", "skip"):
        return console_verdict, (f"{end.describe()} after {said}: the guest could not end "
                                 f"QEMU through isa-debug-exit")
    if end.kind == "halted" and console_verdict == "fail":
        return "error", (f"verdict mismatch: {end.describe()}, which the guest does after "
                         f"PASS or SKIP, but the console said {said}")
    return "error", end.describe() + (f", although the console said {said}" if said
                                      else " without a verdict")


def judge_domu(qemu_status, console_verdict, lines, reporter=IMAGE):
    """The verdict of a domU boot: returns (verdict, reason).

    dom0's runner judged the domU (its console's verdict and how the domain ended) and
    ended QEMU with that verdict through isa-debug-exit.  A PASS or SKIP must be the
    console's too; a FAIL or ERROR the console does not show (the domain crashed, xl
    could not create it, no verdict came in time) carries the runner's sentence.
    `reporter` (outcome.Reporter) is who says the domU's verdict: the image, or
    clockbench-user in the Linux PV domU.
    """
    verdict = status_verdict(qemu_status)
    said = domu_runner_sentence(lines)
    if verdict is None:
        reason = (no_verdict_reason(qemu_status) if qemu_status is not None
                  else "the runner stopped QEMU before dom0 ended it")
        return "error", reason + (f"; dom0's runner last said: {said}" if said else "")
    if verdict in ("pass", "skip") and console_verdict != verdict:
        shown = reporter.said(console_verdict) if console_verdict else "no verdict"
        return "error", (f"verdict mismatch: dom0's runner ended QEMU with "
                         f"{verdict.upper()} but the domU's console shows {shown}")
    if verdict == console_verdict:
        return verdict, reporter.error_reason if verdict == "error" else None
    return verdict, said or (f"dom0's runner ended QEMU with {verdict.upper()} without "
                             f"saying why")


def installed_version(package=XEN_PACKAGE):
    """The Debian version of the Xen package, or None when it is not installed."""
    try:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Status}|${Version}", package],
                                capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    status, _, version = result.stdout.partition("|")
    if result.returncode != 0 or not status.endswith(" installed") or not version:
        return None
    return version.strip()
