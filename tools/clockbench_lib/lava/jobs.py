# SPDX-License-Identifier: MIT
"""LAVA job definitions for the image, and the device configurations they run on.

A job deploys the image by URL, boots it, and watches its serial console with three
LAVA `monitors` (LAVA's test action for a console it cannot type into), in the order the
image prints:

  clockbench-read-cost  each timed clock's read cost, the median in ns as the image's
                        notes say it ("tsc  not trapped: a read takes 10 ns (median)"),
                        as a LAVA measurement with its unit
  clockbench            every KTAP check as a test case: pass, fail, skip; a check in
                        error ("not ok N name # ERROR") is a fail in LAVA, which has no
                        error result (`lava results` says which)
  clockbench-verdict    the run's verdict line ("clockbench: FAIL") as the case
                        "clockbench"; ERROR is a fail here too

Every start and end string is one the image prints whatever happens after it boots: a
run that faults prints its KTAP and verdict too, and "clockbench: ending the run: ..."
after the verdict, so a fault is a failed test case, never LAVA's "infrastructure" error
(which is what LAVA makes of a console that closes before the end string).  The patterns
follow how LAVA 2023.01 matches (lava_dispatcher/actions/test/monitor.py, over pexpect):
compiled with re.DOTALL and run on the text as it arrives, so every pattern needs its whole
line ([^\\r\\n], an explicit line end) and each match consumes what it matched.

QEMU jobs carry their settings in the job's context, as LAVA's qemu device-type template
reads them (arch, no_kvm, memory, extra_options); qemu_device() writes the device
configuration that template renders from them, for `lava-run` without a server.
"""

import os
import re
from dataclasses import dataclass, field

from ..base import paths
from ..base.outcome import RunnerError
from ..boot import qemu

QEMU_BOOTS = ("multiboot1", "iso-bios", "iso-uefi")
HARDWARE_BOOTS = ("ipxe", "grub")
BOOT_KINDS = {"qemu": QEMU_BOOTS, "hardware": HARDWARE_BOOTS}
# What each boot kind loads: iPXE's `kernel` loads a multiboot 1 ELF; GRUB's multiboot2
# the multiboot 2 image the ISO holds.
BOOT_IMAGES = {"multiboot1": qemu.BOOT_IMAGES["multiboot1"],
               "iso-bios": qemu.BOOT_IMAGES["iso-bios"],
               "iso-uefi": qemu.BOOT_IMAGES["iso-uefi"],
               "ipxe": qemu.BOOT_IMAGES["multiboot1"],
               "grub": qemu.BOOT_IMAGES["pvh"]}
# The device types of LAVA's own templates these jobs are for.
DEVICE_TYPES = {"qemu": "qemu", "hardware": "x86"}
# OVMF as one file (code and variables), which -bios takes: Debian's ovmf package.
OVMF_BIOS = "/usr/share/ovmf/OVMF.fd"
DEFAULT_MEMORY_MIB = {"multiboot1": qemu.DEFAULT_MEMORY_MIB, "iso-bios": 128,
                      "iso-uefi": 128}
DEFAULT_TIMEOUT_S = {"tcg": 120, "kvm": 60, "hardware": 600}
# LAVA's own setting for a lab's network boot interface (its x86 template's default).
BOOT_INTERFACE = "net0"

# The monitors' strings (see the module's comment).  LINE_END: a console line's end as
# LAVA's serial connection gives it (\r\n, or \r\r\n through a pty).
LINE_END = r"\r*\n"
LINE_START = r"(?<![^\n])"  # at the start of a line (or of what is left to match)
BANNER = r"clockbench \d+\.\d+\.\d+ \("
KTAP_HEADER = r"KTAP version 1"
KTAP_PLAN = r"1\.\.\d+" + LINE_END
KTAP_TOTALS = r"# \d+ passed, \d+ failed, \d+ skipped, \d+ errors" + LINE_END
END_ANNOUNCEMENT = r"clockbench: ending the run: "
READ_COST_PATTERN = (LINE_START + r"  (?P<test_case_id>[a-z][a-z0-9_]*) +"
                     r"(?:not trapped|trapped|translated): "
                     r"a read takes (?P<measurement>\d+) (?P<units>ns) \(median\)")
# A KTAP result line: its name (up to the " # " of its figures or directive) read by a
# lookahead from the line's start; `result` is then "not ok", "ok", or the "SKIP" of an
# `ok ... # SKIP` line, found by moving to it first.
KTAP_PATTERN = (LINE_START
                + r"(?=(?:not )?ok \d+ (?P<test_case_id>[^\r\n]*?)(?: # [^\r\n]*)?" + LINE_END
                + r")(?:ok \d+ [^\r\n]*? # (?=SKIP[ \r\n])|(?=not ok )"
                r"|(?=ok \d+ (?![^\r\n]*? # SKIP[ \r\n])))"
                r"(?P<result>not ok|ok|SKIP)[^\r\n]*" + LINE_END)
KTAP_FIXUP = {"ok": "pass", "not ok": "fail", "SKIP": "skip"}
VERDICT_PATTERN = (LINE_START + r"(?P<test_case_id>clockbench): "
                   r"(?P<result>PASS|FAIL|SKIP|ERROR)" + LINE_END)
VERDICT_FIXUP = {"PASS": "pass", "FAIL": "fail", "SKIP": "skip", "ERROR": "fail"}
MONITOR_NAMES = ("clockbench-read-cost", "clockbench", "clockbench-verdict")
VERDICT_CASE = "clockbench"


def monitors():
    """The job's test action: its three monitors, in the order the image prints."""
    return [
        {"name": MONITOR_NAMES[0], "start": BANNER, "end": KTAP_HEADER,
         "pattern": READ_COST_PATTERN},
        # The KTAP monitor ends before the totals line (a lookahead) so that the verdict's
        # monitor can start at it: the next line of a faulting run is the verdict itself.
        {"name": MONITOR_NAMES[1], "start": KTAP_PLAN, "end": f"(?={KTAP_TOTALS})",
         "pattern": KTAP_PATTERN, "fixupdict": dict(KTAP_FIXUP)},
        {"name": MONITOR_NAMES[2], "start": KTAP_TOTALS, "end": END_ANNOUNCEMENT,
         "pattern": VERDICT_PATTERN, "fixupdict": dict(VERDICT_FIXUP)},
    ]


@dataclass
class JobSpec:
    """What `lava job` was asked for; validate() refuses what the device cannot do."""

    device: str = "qemu"          # BOOT_KINDS
    boot: str = "multiboot1"
    accel: str = "tcg"            # qemu only
    smp: int = 1
    memory_mib: int = None
    machine: str = "pc"
    image_url: str = None         # default: this checkout's image, as a file:// URL
    cmdline: str = ""             # the guest options
    name: str = None
    timeout_s: float = None
    device_type: str = None       # default: DEVICE_TYPES[device]
    tags: list = field(default_factory=list)

    def validate(self):
        kinds = BOOT_KINDS[self.device]
        if self.boot not in kinds:
            other = next(device for device, boots in BOOT_KINDS.items() if self.boot in boots)
            raise RunnerError(f"a {self.device} device cannot boot {self.boot}: its boot "
                              f"kinds are {', '.join(kinds)} ({self.boot} is for a {other} "
                              f"device).")
        if self.device == "hardware" and self.accel != "tcg":
            raise RunnerError("--accel is for a qemu device: hardware runs the image on the "
                              "machine itself.")
        if self.smp < 1 or (self.memory_mib is not None and self.memory_mib < 1):
            raise RunnerError("--smp and --memory take a whole number of at least 1.")
        if self.device == "hardware" and (self.smp != 1 or self.memory_mib):
            raise RunnerError("--smp and --memory are for a qemu device: hardware has the "
                              "CPUs and memory it has.")
        for bad, why in (('"', "a double quote"), ("\\", "a backslash"), ("\n", "a line break"),
                         ("'", "a single quote")):
            if bad in self.cmdline:
                raise RunnerError(f"guest options for a LAVA job cannot contain {why}: LAVA "
                                  f"hands the command line to QEMU or the boot loader in "
                                  f"quotes of its own.")
        if self.cmdline and self.boot in ("iso-bios", "iso-uefi"):
            raise RunnerError(f"the {self.boot} boot takes its options from the ISO itself "
                              f"(make iso ISO_ARGS='{self.cmdline}'), not from the job: GRUB "
                              f"on the ISO has no command line a job could set.")
        memory_min = qemu.OVMF_MIN_MEMORY_MIB if self.boot == "iso-uefi" else 16
        if self.memory_mib is not None and self.memory_mib < memory_min:
            raise RunnerError(f"--memory {self.memory_mib} is too little for the "
                              f"{self.boot} boot: it needs at least {memory_min} MiB.")

    @property
    def url(self):
        return self.image_url or "file://" + os.path.abspath(
            paths.root_path(BOOT_IMAGES[self.boot]))

    @property
    def timeout(self):
        return self.timeout_s or DEFAULT_TIMEOUT_S[
            "hardware" if self.device == "hardware" else self.accel]


def _timeout(seconds):
    """A LAVA timeout of at least `seconds` (whole seconds)."""
    return {"seconds": max(1, int(-(-seconds // 1)))}


def qemu_context(spec):
    """The job context LAVA's qemu template reads: the device's architecture, KVM or
    not, memory, and the options it appends (machine, CPU model under TCG, vCPUs, the
    firmware)."""
    extra = [f"-machine {spec.machine}", f"-smp {spec.smp}"]
    if spec.accel == "tcg":
        extra.append("-cpu max")
    if spec.boot == "multiboot1":
        extra.append("-bios qboot.rom")  # QEMU's minimal firmware: see qemu.QBOOT_ROM
    elif spec.boot == "iso-uefi":
        extra += [f"-bios {OVMF_BIOS}", "-boot d"]
    else:
        extra.append("-boot d")
        if spec.machine == "pc":
            extra.append(" ".join(qemu.NO_FLOPPY))
    return {"arch": "amd64", "no_kvm": spec.accel == "tcg",
            "memory": spec.memory_mib or DEFAULT_MEMORY_MIB[spec.boot],
            "extra_options": extra}


def _qemu_actions(spec, timeout):
    if spec.boot == "multiboot1":
        image = {"kernel": {"url": spec.url,
                            "image_arg": f'-kernel {{kernel}} -append "{spec.cmdline}"'}}
    else:
        image = {"iso": {"url": spec.url, "image_arg": "-cdrom {iso}"}}
    return [{"deploy": {"to": "tmpfs", "timeout": timeout, "images": image}},
            {"boot": {"method": "qemu", "media": "tmpfs", "timeout": timeout}}]


def _hardware_actions(spec, timeout):
    if spec.boot == "ipxe":
        commands = [f"dhcp {BOOT_INTERFACE}",
                    f"kernel tftp://{{SERVER_IP}}/{{KERNEL}} {spec.cmdline}".rstrip(), "boot"]
    else:
        commands = ["insmod multiboot2", "net_bootp",
                    f"multiboot2 (tftp,{{SERVER_IP}})/{{KERNEL}} {spec.cmdline}".rstrip(),
                    "boot"]
    return [{"deploy": {"to": "tftp", "timeout": timeout, "kernel": {"url": spec.url}}},
            {"boot": {"method": spec.boot, "commands": commands, "timeout": timeout}}]


def job_definition(spec):
    """The LAVA job (a dict, written as YAML) for `spec`."""
    spec.validate()
    timeout = _timeout(spec.timeout)
    device_type = spec.device_type or DEVICE_TYPES[spec.device]
    where = (f"{spec.accel} {spec.machine} {spec.boot}, {spec.smp} vCPU"
             if spec.device == "qemu" else f"{device_type} hardware, {spec.boot}")
    job = {"device_type": device_type,
           "job_name": spec.name or f"clockbench ({where})",
           "timeouts": {"job": _timeout(spec.timeout * 3 + 60),
                        "action": timeout, "connection": timeout},
           "priority": "medium", "visibility": "public"}
    if spec.tags:
        job["tags"] = list(spec.tags)
    if spec.device == "qemu":
        job["context"] = qemu_context(spec)
        actions = _qemu_actions(spec, timeout)
    else:
        actions = _hardware_actions(spec, timeout)
    job["actions"] = actions + [{"test": {"timeout": timeout, "monitors": monitors()}}]
    return job


# ---------------------------------------------------------------------------- devices

def qemu_device(context):
    """The device configuration LAVA 2023.01's qemu device-type template renders for an
    amd64 device from a job's `context` (only what this image's jobs use): its QEMU
    command and options, -cpu host and -enable-kvm unless no_kvm."""
    if not isinstance(context, dict) or context.get("arch") not in ("amd64", "x86_64"):
        raise RunnerError("the job's context names no amd64 architecture (arch: amd64), "
                          "so it is not a job for a qemu device of this image.")
    options = [] if context.get("no_kvm") else ["-cpu host", "-enable-kvm"]
    options += ["-nographic", "-net nic,model=virtio,macaddr=52:54:00:12:34:58 -net user",
                f"-m {int(context.get('memory', 512))}", "-monitor none"]
    parameters = {"command": "qemu-system-x86_64",
                  "boot_options": {"root": "/dev/sda1", "console": "ttyS0,115200",
                                   "boot_order": "c"},
                  "options": options}
    extra = context.get("extra_options")
    if extra:
        parameters["extra"] = [str(item) for item in extra]
    return {"constants": _constants(), "parameters": {"pass": None},
            "available_architectures": ["amd64", "x86_64"],
            "actions": {"deploy": {"connections": {"serial": None, "lxc": None},
                                   "methods": {"tmpfs": None, "image": {"parameters": {
                                       "guest": {"size": 512, "interface": "ide",
                                                 "driveid": "lavatest"}}}}},
                        "boot": {"connections": {"serial": None, "ssh": None, "lxc": None},
                                 "methods": {"qemu": {"parameters": parameters}}}},
            "timeouts": {"actions": {}, "connections": {}}}


def _constants():
    """The constants LAVA's base device template renders (those the dispatcher reads for
    these jobs' boot methods), with its defaults."""
    return {"ipxe": {"interrupt-prompt": "Press Ctrl-B for the iPXE command line",
                     "interrupt_ctrl_list": ["b"],
                     "error-messages": ["No configuration methods succeeded"]},
            "grub": {"interrupt-prompt": "for a command-line", "interrupt-character": "c",
                     "interrupt-newline": False,
                     "error-messages": ["error: missing (.*) symbol."]},
            "shutdown-message": "The system is going down for reboot NOW",
            "kernel-start-message": "Linux version [0-9]",
            "default-shell-prompt": "lava-test: # ",
            "spawn_maxread": "4092", "failure_retry": 1, "boot_retry": 1,
            "posix": {"lava_test_sh_cmd": "/bin/sh", "lava_test_results_dir": "/lava-%s",
                      "lava_test_shell_file": "~/.bashrc"}}


def hardware_device(hostname="x86-01"):
    """A device configuration for an x86 machine of a lab, as LAVA's x86 template (iPXE)
    and its GRUB templates render them, with placeholder console and power commands: what
    `lava-run --validate` needs to check the hardware jobs (it runs nothing)."""
    return {"hostname": hostname,
            "character_delays": {"boot": 500},
            "constants": _constants(),
            "commands": {"connect": "cat /dev/ttyUSB0",
                         "hard_reset": "/bin/true", "power_off": "/bin/true",
                         "power_on": "/bin/true"},
            "parameters": {"interfaces": {"target": {"ip": "", "mac": ""}}},
            "actions": {"deploy": {"methods": {"tftp": None}},
                        "boot": {"connections": {"serial": None},
                                 "methods": {
                                     "ipxe": {"parameters": {"bootloader_prompt": "iPXE>",
                                                             "use_bootscript": False,
                                                             "lava_mac": "00:90:05:af:00:7d"}},
                                     "grub": {"parameters": {"bootloader_prompt": "grub>"}}}}},
            "timeouts": {"actions": {}, "connections": {}}}


def device_dictionary(hostname):
    """A lab's device dictionary (jinja2, for lava-server) of a qemu device for these
    jobs: LAVA's own qemu template, which takes KVM or not, memory and the options from
    each job's context."""
    return (f"{{% extends 'qemu.jinja2' %}}\n"
            f"{{# {check_hostname(hostname)}: a qemu device for clockbench #}}\n")


_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def check_hostname(name):
    """RunnerError unless `name` is a device name LAVA takes."""
    if not _SAFE_NAME.match(name or ""):
        raise RunnerError(f"{name!r} is not a device name: letters, digits, '.', '_' and "
                          f"'-', starting with a letter or digit.")
    return name
