# SPDX-License-Identifier: MIT
"""What a boot needs: KVM detection, dependency checks, boot files and QEMU command lines.

Everything here except make_args_disk() and prepare_boot_files() is free of side effects
apart from probing the host, so the unit tests can check the command lines exactly.
"""

import errno
import fcntl
import os
import re
import shutil
import signal
import struct
import subprocess
from dataclasses import dataclass

from ..base import paths
from . import acpipatch, linux, xen
from ..model.console import quote
from ..base.outcome import RunnerError

QEMU_PROGRAM = "qemu-system-x86_64"
QEMU_ENV_OVERRIDE = "CLOCKBENCH_QEMU"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
# QEMU's minimal firmware (qemu-system-data): it enters 32-bit mode at once and loads a
# -kernel image from fw_cfg, with QEMU's ACPI tables.  SeaBIOS's real-mode code is what
# this project's kvm-pvm is slow at: a KVM -kernel boot reached its first line after
# 6.4 s with SeaBIOS and 1.6 s with qboot (same image, same host).  Under TCG the guest's
# TSC had counted 86-522 ms at the first line with SeaBIOS, 34-47 ms with qboot.
QBOOT_ROM = "/usr/share/qemu/qboot.rom"
FIRMWARES = ("seabios", "qboot")
# Leaves pc's default floppy drive empty, which nothing here reads: GRUB under SeaBIOS
# asks for every BIOS drive, and SeaBIOS waits out the empty drive's timeouts, under TCG
# 4.6 s of the 8.4 s to GRUB's menu entry (q35 has no floppy controller).  For the ISO
# boots under SeaBIOS on pc, here and in LAVA's jobs.
NO_FLOPPY = ("-global", "isa-fdc.fdtypeA=none")
# The guest's console: COM1 alone, or a virtio console beside it (PCI, legacy virtio;
# drivers/virtio_console.c) on the same stdout.  Every byte to a UART is a trapped port
# access: under this project's kvm-pvm ~35 us, so the ~40 KiB report took 1.4-2 s; the
# virtio console takes 4 KiB a notification.  Xen's own boot path keeps COM1 (Xen and
# dom0 share it).
CONSOLES = ("virtio", "uart")
KERNEL_BOOTS = ("multiboot1", "pvh")  # the -kernel boots, which qboot can start
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
KVM_DEVICE = "/dev/kvm"
TCG_TIMEOUT_S = 60
KVM_TIMEOUT_S = 120
KVM_ISO_TIMEOUT_S = 300
DEFAULT_MEMORY_MIB = 64

# From <linux/kvm.h>: KVM_GET_API_VERSION is _IO(KVMIO = 0xAE, 0x00); the only
# API version Linux has ever returned is KVM_API_VERSION = 12.
KVM_GET_API_VERSION = 0xAE00
KVM_API_VERSION = 12

# The image each boot path needs, relative to the repository root (the make target too).
BOOT_IMAGES = {
    "multiboot1": f"{paths.BUILD_DIR}/clockbench-mb1.elf",
    "pvh": f"{paths.BUILD_DIR}/clockbench.elf",
    "iso-bios": f"{paths.BUILD_DIR}/clockbench.iso",
    "iso-uefi": f"{paths.BUILD_DIR}/clockbench.iso",
    "xen": f"{paths.BUILD_DIR}/clockbench-xenpv.elf",  # dom0 of Xen (xen.XEN_BINARY), TCG only
    # GRUB-EFI, Xen and the PVH image: a PVH dom0 of Xen under OVMF, TCG only.
    "xen-pvh-dom0": f"{paths.BUILD_DIR}/clockbench-xen.iso",
    # The Linux dom0's initramfs, which holds the images; it runs one as a domU.
    "xen-pv-domu": xen.DOM0_INITRD,
    "xen-pvh-domu": xen.DOM0_INITRD,
    "xen-hvm-domu": xen.DOM0_INITRD,
    # The same initramfs, whose /init runs clockbench-user: Linux alone under QEMU, or the
    # Linux dom0 of Xen (TCG only).
    "linux": xen.DOM0_INITRD,
    "xen-linux-dom0": xen.DOM0_INITRD,
    # The same initramfs, which holds the kernel and the Linux PV domU's own initramfs.
    "xen-linux-pv-domu": xen.DOM0_INITRD,
}
BOOTS = tuple(BOOT_IMAGES)
# The ELF each boot path loads into guest RAM: an ISO's is the one GRUB loads from it, the
# multiboot 2 and PVH image the Makefile copies in.
BOOT_KERNELS = dict(BOOT_IMAGES, **{"iso-bios": BOOT_IMAGES["pvh"],
                                    "iso-uefi": BOOT_IMAGES["pvh"],
                                    "xen-pvh-dom0": BOOT_IMAGES["pvh"],
                                    "xen-pv-domu": BOOT_IMAGES["xen"],
                                    "xen-pvh-domu": BOOT_IMAGES["pvh"],
                                    "xen-hvm-domu": BOOT_IMAGES["iso-bios"],
                                    "linux": xen.DOM0_KERNEL,
                                    "xen-linux-dom0": xen.DOM0_KERNEL_ELF,
                                    "xen-linux-pv-domu": xen.DOM0_KERNEL_ELF})
# The boot paths that run on one machine only, and why.
_PVH_DOM0_MACHINE = ("q35", "Xen needs an IOMMU for a PVH dom0, and QEMU's intel-iommu is "
                            "q35's")
_DOMU_MACHINE = ("pc", "a domU sees the machine Xen and its device model make for it, not "
                       "QEMU's, so the other machine would test nothing new")
# Linux reads QEMU's HPET and PM timer at the same address and port on both machines,
# through its own ACPI code, not clockbench's: q35 boots and measures the same
# clocksources (tsc, hpet, acpi_pm here), so it would only add a boot.
_LINUX_MACHINE = ("pc", "Linux finds the same HPET and PM timer on q35 through its own ACPI "
                        "code, not clockbench's, so q35 would test nothing new")
_LINUX_DOM0_MACHINE = ("pc", "the Linux dom0 reads its clocks through Xen (xen, tsc), not "
                             "QEMU's chipset, so the other machine would test nothing new")
ONLY_MACHINE = {"xen-pvh-dom0": _PVH_DOM0_MACHINE, "xen-pv-domu": _DOMU_MACHINE,
                "xen-pvh-domu": _DOMU_MACHINE, "xen-hvm-domu": _DOMU_MACHINE,
                "linux": _LINUX_MACHINE, "xen-linux-dom0": _LINUX_DOM0_MACHINE,
                "xen-linux-pv-domu": _DOMU_MACHINE}

MIB = 1 << 20
# What the firmware and loader need beside the image, measured here: GRUB under SeaBIOS
# booted an image ending at 7.75 MiB in 12 MiB and not in 11, and one ending at 7.84 MiB
# in 13 MiB and not in 12 ("error: out of memory"): more than 4 MiB beside it, so 5;
# OVMF needs 60 MiB whatever the image (56 hung).
GRUB_EXTRA_MIB = 5
OVMF_MIN_MEMORY_MIB = 60
MACHINES = ("pc", "q35")
ACCELS = ("tcg", "kvm")
# -cpu when none is given: all the host has under KVM (cpumodel may have to leave some
# of it out), all QEMU emulates under TCG.
DEFAULT_CPU = {"kvm": "host", "tcg": "max"}

# Debian package that provides each program or file the runner may need.
DEBIAN_PACKAGES = {
    QEMU_PROGRAM: "qemu-system-x86",
    "make": "make",
    "mformat": "mtools",
    "mcopy": "mtools",
    OVMF_CODE: "ovmf",
    OVMF_VARS: "ovmf",
    QBOOT_ROM: "qemu-system-data",
    xen.XEN_GZ: xen.XEN_PACKAGE,
}


@dataclass(frozen=True)
class BootSpec:
    """How to boot one image: the QEMU machine, the guest's command line and, for the xen
    boot path, options for Xen itself."""

    boot: str = "multiboot1"
    machine: str = "pc"
    accel: str = "tcg"
    smp: int = 1
    memory_mib: int = DEFAULT_MEMORY_MIB
    cmdline: str = ""
    machine_opts: str = ""  # appended to -machine, e.g. "hpet=off" or "acpi=off"
    cpu: str = ""           # -cpu model; default "host" under KVM, "max" under TCG
    xen_args: str = ""      # appended to Xen's own command line (Xen boot paths only)
    linux_args: str = ""    # appended to the plain Linux guest's kernel command line
    cpu_features: str = ""  # appended to the -cpu model, e.g. "-kvmclock"
    firmware: str = ""      # FIRMWARES; "" = default_firmware()
    console: str = ""       # CONSOLES; "" = virtio, but uart for the Xen and Linux boots
    timeout_s: float = 0    # the runner's bound, for a domU boot's dom0 to wait less;
                            # 0 = default_timeout_s()
    acpi_patch: str = ""    # acpipatch.PATCHES: a patched firmware table (iso-bios only)
    contend: bool = False   # --contend: a busy loop beside each vCPU thread (contend.py)
    console_reader: str = ""  # "stalled": the runner reads nothing until QEMU exits (a test's)
    events: tuple = ()      # a Xen domU's events for dom0 to carry out ("pause:3s")

    @property
    def image(self):
        """The image path relative to the repository root."""
        return BOOT_IMAGES[self.boot]

    @property
    def hypervisor(self):
        """The hypervisor image QEMU loads itself, relative to the repository root, or None
        (no hypervisor, or one inside the image: xen-pvh-dom0's ISO)."""
        if self.boot == "xen" or (self.xen_boot and self.xen_boot.on_linux_dom0):
            return xen.XEN_BINARY
        return None

    @property
    def dom0_kernel(self):
        """The Linux dom0's kernel of a boot under Xen with the Linux dom0, or None."""
        return xen.DOM0_KERNEL_ELF if self.xen_boot and self.xen_boot.on_linux_dom0 else None

    @property
    def runs_domu(self):
        """True for the boots whose Linux dom0 runs the image as a domU."""
        return bool(self.xen_boot and self.xen_boot.runs_domu)

    @property
    def runs_user(self):
        """True for the boots whose /init runs clockbench-user (linux.USER_BOOTS): their
        verdict line and JSON document are the program's."""
        return self.boot in linux.USER_BOOTS

    @property
    def qemu_smp(self):
        """QEMU's -smp: `smp`, but for a domU boot, whose domU gets `smp` vCPUs, at least 2
        CPUs, so that the Linux dom0's vCPU does not wait for the domU's."""
        return max(2, self.smp) if self.runs_domu else self.smp

    @property
    def environment(self):
        """The environment the measuring guest runs in, named as `clockbench matrix`
        names them (docs/compare.md): ACCEL-MACHINE without Xen, xen-GUEST-DOMAIN under
        Xen.  The Linux dom0 of xen-linux-dom0 is a PV dom0 as the xen boot's image is, so
        its clock reads compare with the image's there; the Linux PV domU of
        xen-linux-pv-domu is a PV domU as xen-pv-domu's image is."""
        if self.xen_boot:
            return f"xen-{self.xen_boot.guest}-{self.xen_boot.domain.lower()}"
        return f"{self.accel}-{self.machine}"

    @property
    def workaround_lines(self):
        """What the runner prints once per run: the workarounds of the Xen boot path and
        of the Linux kernel (xen.WORKAROUNDS, linux.WORKAROUNDS)."""
        return xen.workaround_lines(self.boot) + (
            linux.workaround_lines(self.accel, self.smp) if self.runs_user else [])

    @property
    def xen_boot(self):
        """The xen.XenBoot of a boot under Xen, or None."""
        return xen.XEN_BOOTS.get(self.boot)

    @property
    def xen_command_line(self):
        """Xen's options for a boot under Xen, or None."""
        if not self.xen_boot:
            return None
        # --contend gives dom0 a vCPU on each physical CPU, each a busy neighbour of the
        # domU's vCPU there (dom0/clockbench-domu).
        dom0_vcpus = self.qemu_smp if self.contend and self.runs_domu else None
        return xen.xen_options(self.smp, self.xen_args, self.boot, dom0_vcpus)

    @property
    def kernel(self):
        """The ELF file loaded into guest RAM, relative to the repository root (for an ISO,
        the one inside it)."""
        return BOOT_KERNELS[self.boot]

    @property
    def build_targets(self):
        """The files this boot needs from make, relative to the repository root."""
        return tuple(dict.fromkeys((self.image, self.kernel)
                                   + ((self.hypervisor,) if self.hypervisor else ())
                                   + ((self.dom0_kernel,) if self.dom0_kernel else ())))

    @property
    def is_iso(self):
        """True for the GRUB rescue-image boots."""
        return self.boot.startswith("iso-")

    @property
    def needs_args_disk(self):
        """True when options reach GRUB through the small FAT disk: guest options or a
        patched ACPI table for an ISO, and always Xen's options for xen-pvh-dom0."""
        return ((self.is_iso and bool(self.cmdline or self.acpi_patch))
                or self.boot == "xen-pvh-dom0")

    @property
    def uses_ovmf(self):
        """True for the boots that start from UEFI firmware."""
        return self.boot in ("iso-uefi", "xen-pvh-dom0")

    @property
    def cpu_option(self):
        """What -cpu is given: the model (or the accelerator's default) and the features,
        with the features a Xen workaround removes (xen.WORKAROUNDS)."""
        model = self.cpu or DEFAULT_CPU[self.accel]
        features = [self.cpu_features] if self.cpu_features else []
        if (self.xen_boot and "no-rdtscp" in self.xen_boot.workarounds
                and "rdtscp" not in self.cpu_features):
            features.append("-rdtscp")
        return ",".join([model, *features])

    @property
    def firmware_choice(self):
        """The firmware this boot runs: the one asked for, else default_firmware()."""
        return self.firmware or default_firmware(self.accel, self.boot)

    @property
    def uart_only(self):
        """True for the boots that have COM1 alone: Xen's (Xen and its guests share it)
        and the plain Linux guest's (its kernel console is ttyS0)."""
        return bool(self.xen_boot) or self.runs_user

    @property
    def console_choice(self):
        """The console this boot gives the guest: the one asked for, else virtio (uart
        for the Xen and Linux boots)."""
        return self.console or ("uart" if self.uart_only else "virtio")

    def describe(self):
        """Short human form, e.g. "tcg pc multiboot1 -cpu max" ("... qboot" when qboot
        starts it, "... uart" when the guest has no virtio console, "... contended" with
        --contend)."""
        text = f"{self.accel} {self.machine} {self.boot} -cpu {self.cpu_option}"
        text += " qboot" if self.firmware_choice == "qboot" else ""
        text += " uart" if self.console_choice == "uart" and not self.uart_only else ""
        return text + (" contended" if self.contend else "")


def default_firmware(accel, boot):
    """qboot for a -kernel boot, under either accelerator (see QBOOT_ROM), else QEMU's own
    default: SeaBIOS, which the ISO's GRUB needs, or OVMF as the boot path says."""
    del accel  # both ACCELS start -kernel boots faster from qboot
    return "qboot" if boot in KERNEL_BOOTS else "seabios"


def default_timeout_s(accel, boot="multiboot1"):
    """Default seconds allowed for one boot.

    Under the nested KVM of these machines the firmware's real-mode work is slow:
    a `-kernel` boot needs seconds, but a GRUB ISO boot took ~110 s (BIOS) even for
    a tiny kernel, so ISO boots under KVM get more time.  Xen under TCG boots in a
    second or two, then dom0's run takes as long as a native one under TCG.
    """
    if boot in xen.XEN_BOOTS and xen.XEN_BOOTS[boot].runs_domu:
        return xen.DOMU_TIMEOUT_S[xen.XEN_BOOTS[boot].guest]
    if boot in xen.XEN_BOOTS:
        return xen.XEN_TIMEOUT_S
    if boot == "linux":
        return linux.LINUX_TIMEOUT_S
    if accel != "kvm":
        return TCG_TIMEOUT_S
    return KVM_ISO_TIMEOUT_S if boot.startswith("iso-") else KVM_TIMEOUT_S


def default_memory_mib(boot="multiboot1"):
    """Default guest RAM in MiB: Xen boots share it between Xen and dom0, and Linux
    unpacks its initramfs into it."""
    if boot in xen.XEN_BOOTS and xen.XEN_BOOTS[boot].runs_domu:
        return xen.DOMU_QEMU_MEMORY_MIB
    if boot == "linux":
        return linux.LINUX_MEMORY_MIB
    return xen.XEN_MEMORY_MIB if boot in xen.XEN_BOOTS else DEFAULT_MEMORY_MIB


def default_machine(boot="multiboot1"):
    """The QEMU machine a boot path gets when none is asked for."""
    return ONLY_MACHINE[boot][0] if boot in ONLY_MACHINE else "pc"


def boot_machines(boot):
    """The QEMU machines a boot path runs on."""
    return (ONLY_MACHINE[boot][0],) if boot in ONLY_MACHINE else MACHINES


def elf_ram_end(path):
    """The highest physical address + 1 that the ELF file at `path` loads into (its
    PT_LOAD segments, .bss included); RunnerError when it is no ELF file."""
    try:
        with open(path, "rb") as elf:
            header = elf.read(64)
            if header[:4] != b"\x7fELF" or header[4] not in (1, 2):
                raise RunnerError(f"{path} is not an ELF file.")
            wide = header[4] == 2
            phoff, phentsize, phnum = (struct.unpack_from("<Q", header, 32)[0],
                                       *struct.unpack_from("<HH", header, 54)) if wide else (
                struct.unpack_from("<I", header, 28)[0], *struct.unpack_from("<HH", header, 42))
            elf.seek(phoff)
            table = elf.read(phentsize * phnum)
    except (OSError, struct.error) as error:
        raise RunnerError(f"cannot read the ELF program headers of {path}: {error}.") from None
    end = 0
    for index in range(phnum):
        entry = table[index * phentsize:(index + 1) * phentsize]
        if len(entry) < (56 if wide else 32):
            raise RunnerError(f"{path} has a truncated program header table.")
        if wide:
            kind, _, _, _, paddr, _, memsz = struct.unpack_from("<IIQQQQQ", entry)
        else:
            kind, _, _, paddr, _, memsz = struct.unpack_from("<IIIIII", entry)
        if kind == 1:  # PT_LOAD
            end = max(end, paddr + memsz)
    return end


def min_memory_mib(spec, root):
    """The least guest RAM in MiB that `spec` boots in, and why, in words."""
    if spec.boot == "xen":
        return xen.XEN_MIN_MEMORY_MIB, "Xen 4.17 and its dom0 do not boot in less"
    if spec.boot == "xen-pvh-dom0":
        return xen.PVH_DOM0_MIN_MEMORY_MIB, ("OVMF, Xen 4.17 and its PVH dom0 do not boot "
                                            "in less")
    if spec.runs_domu:
        return xen.DOMU_MIN_MEMORY_MIB, (f"Xen, the Linux dom0 (dom0_mem=512M) and a "
                                         f"{xen.DOMU_MEMORY_MIB} MiB domU need it")
    if spec.boot == "xen-linux-dom0":
        return xen.LINUX_DOM0_ALONE_MIN_MEMORY_MIB, (
            f"Xen and the Linux dom0 (dom0_mem={xen.LINUX_DOM0_ALONE_MEM}) need it")
    if spec.boot == "linux":
        return linux.LINUX_MIN_MEMORY_MIB, ("Linux unpacks the initramfs "
                                            f"({xen.DOM0_INITRD}) into RAM")
    kernel = spec.kernel
    end = elf_ram_end(os.path.join(root, kernel))
    need = -(-end // MIB)
    why = f"{kernel} fills guest RAM up to {end / MIB:.2f} MiB"
    if spec.is_iso:
        need += GRUB_EXTRA_MIB
        why += f" and GRUB needs {GRUB_EXTRA_MIB} MiB beside it"
    if spec.boot == "iso-uefi" and need < OVMF_MIN_MEMORY_MIB:
        need, why = OVMF_MIN_MEMORY_MIB, "OVMF, the UEFI firmware, does not start in less"
    return need, why


def check_memory(spec, root):
    """RunnerError unless spec.memory_mib is at least what the boot needs."""
    need, why = min_memory_mib(spec, root)
    if spec.memory_mib < need:
        raise RunnerError(f"{spec.memory_mib} MiB of guest RAM is too little for the "
                          f"{spec.boot} boot, which needs at least {need} MiB: {why}.")


def kvm_status(path=KVM_DEVICE):
    """Tell whether KVM is usable at `path`: returns (usable, reason in words).

    Usable means the device opens read-write and KVM_GET_API_VERSION returns 12.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as error:
        return False, f"{path}: {os.strerror(error.errno)}"
    try:
        version = fcntl.ioctl(fd, KVM_GET_API_VERSION)
    except OSError as error:
        return False, f"{path}: KVM_GET_API_VERSION failed: {os.strerror(error.errno)}"
    finally:
        os.close(fd)
    if version != KVM_API_VERSION:
        return False, f"{path}: KVM API version is {version}, not {KVM_API_VERSION}"
    return True, f"{path} is usable"


# QEMU's words for why it did not start: an MSR KVM refused (target/i386/kvm/kvm.c), and
# the words its other start-up errors use.
MSR_REFUSAL = re.compile(r"failed to set MSR (0x[0-9a-fA-F]+)")
_START_ERROR = re.compile(r"\berror\b|unable|not supported|cannot|failed", re.IGNORECASE)


def start_error_line(lines):
    """QEMU's own line saying why it stopped: the first that names a refused MSR, else the
    first error line, else the last line; quoted (console.quote); None without lines."""
    lines = [line.strip() for line in lines if line.strip()]
    line = (next((line for line in lines if MSR_REFUSAL.search(line)), None)
            or next((line for line in lines if _START_ERROR.search(line)), None)
            or (lines[-1] if lines else None))
    return quote(line) if line is not None else None


# What QEMU prints on stderr when a signal stops it (it then exits with status 0, as on
# a power-off): "qemu-system-x86_64: terminating on signal 15 from pid 1234 (bash)".
_SIGNAL_STOP = re.compile(r"terminating on signal (\d+)(?: from pid (\d+)(?: \((.*)\))?)?")


def signal_stop_reason(lines):
    """Say in words that something outside the runner stopped QEMU with a signal, from
    QEMU's own line in `lines` (its stderr); None when there is no such line."""
    match = next((m for line in lines if (m := _SIGNAL_STOP.search(line))), None)
    if match is None:
        return None
    number = int(match.group(1))
    try:
        name = f" ({signal.Signals(number).name})"
    except ValueError:
        name = ""
    sender = ""
    if match.group(2):
        sender = f" from pid {match.group(2)}"
        sender += f" ({quote(match.group(3), 40)})" if match.group(3) else ""
    return (f"QEMU was stopped by signal {number}{name}{sender}, not by the guest, so "
            f"the run has no verdict")


def qemu_program(environ=os.environ):
    """The QEMU to run: $CLOCKBENCH_QEMU when set (for fakes in tests), else the real one."""
    return environ.get(QEMU_ENV_OVERRIDE) or QEMU_PROGRAM


def missing_dependency_message(name):
    """One sentence naming the Debian package that provides `name`."""
    package = DEBIAN_PACKAGES.get(name)
    if package is None:
        return f"{name} is missing (it is set by ${QEMU_ENV_OVERRIDE})."
    return (f"{name} is missing: install the Debian package {package} "
            f"(`make deps` installs all of clockbench's dependencies).")


def required_programs(spec, qemu, build):
    """Programs and files a boot needs: a list of names (paths for files)."""
    needed = [qemu]
    if build:
        needed.append("make")
    if spec.needs_args_disk:
        needed += ["mformat", "mcopy"]
    if spec.uses_ovmf:
        needed += [OVMF_CODE, OVMF_VARS]
    if spec.firmware_choice == "qboot":
        needed.append(QBOOT_ROM)
    if spec.xen_boot and build:
        needed.append(xen.XEN_GZ)
    return needed


def check_dependencies(names):
    """Raise RunnerError naming the first program or file in `names` that is missing."""
    for name in dict.fromkeys(names):
        if os.path.isabs(name) and not os.path.exists(name):
            raise RunnerError(missing_dependency_message(name))
        if not os.path.isabs(name) and shutil.which(name) is None:
            raise RunnerError(missing_dependency_message(name))


def iso_args_file_text(cmdline, xen_options=None, acpi_tables=()):
    """The clockbench-args.cfg that GRUB sources to pick up the guest options (and, for
    xen-pvh-dom0, Xen's), and to load the ACPI table files `acpi_tables` (names on the
    same disk) in place of the firmware's.

    GRUB reads the options from a single-quoted string, which cannot hold a single quote,
    so options containing one are refused.
    """
    text = ""
    for what, value, name in (("guest options", cmdline, "clockbench_args"),
                              ("Xen options", xen_options, "xen_args")):
        if value is None:
            continue
        if "'" in value:
            raise RunnerError(f"{what} for an ISO boot cannot contain a single quote ('), "
                              f"because GRUB reads them from a single-quoted string.")
        if "\n" in value or "\r" in value:
            raise RunnerError(f"{what} cannot contain a line break.")
        text += f"set {name}='{value}'\n"
    for table in acpi_tables:
        text += f"acpi $cbdisk/{table}\n"
    return text


def validate_spec(spec):
    """Refuse, before anything is built, what this boot path cannot do: guest options it
    cannot carry, Xen under KVM, Xen options without Xen."""
    if spec.needs_args_disk:
        iso_args_file_text(spec.cmdline, spec.xen_command_line)
    if spec.xen_boot and spec.accel == "kvm":
        raise RunnerError(xen.KVM_REFUSAL)
    if spec.acpi_patch:
        validate_acpi_patch(spec)
    if spec.contend and (spec.runs_user or (spec.xen_boot and not spec.runs_domu)):
        raise RunnerError(f"--contend pins a busy neighbour beside the measuring guest's "
                          f"vCPUs: QEMU's own guests', or under Xen a domU's (xen-*-domu, "
                          f"a busy loop in dom0); the {spec.boot} boot's guest runs "
                          f"{'under Xen as dom0' if spec.xen_boot else 'under Linux'}, "
                          f"whose contention is not arranged yet.")
    linux.check_linux_args(spec.boot, spec.linux_args)
    if spec.xen_args and not spec.xen_boot:
        raise RunnerError(f"Xen options (--xen-args, xen_args=) apply only to the Xen boot "
                          f"paths ({', '.join(xen.XEN_BOOTS)}).")
    if spec.machine not in boot_machines(spec.boot):
        machine, why = ONLY_MACHINE[spec.boot]
        raise RunnerError(f"the {spec.boot} boot runs on the {machine} machine only: "
                          f"{why}.")
    if spec.boot == "xen-pvh-dom0" and spec.firmware:
        raise RunnerError("the xen-pvh-dom0 boot always starts from OVMF (Xen 4.17 misreads "
                          "SeaBIOS's ACPI tables for a PVH dom0); drop --firmware.")
    if spec.firmware not in ("",) + FIRMWARES:
        raise RunnerError(f"firmware '{spec.firmware}' is not one of "
                          f"{', '.join(FIRMWARES)}.")
    if spec.console not in ("",) + CONSOLES:
        raise RunnerError(f"console '{spec.console}' is not one of {', '.join(CONSOLES)}.")
    if spec.console == "virtio" and spec.xen_boot:
        raise RunnerError(f"the {spec.boot} boot path has no virtio console: Xen and "
                          f"clockbench share COM1.")
    if spec.console == "virtio" and spec.runs_user:
        raise RunnerError(f"the {spec.boot} boot path has no virtio console: Linux's "
                          f"console is COM1 (console=ttyS0).")
    if spec.firmware == "qboot" and spec.boot not in KERNEL_BOOTS:
        raise RunnerError(f"qboot starts only the -kernel boots ({', '.join(KERNEL_BOOTS)}); "
                          f"--boot {spec.boot} needs "
                          f"{'OVMF' if spec.boot == 'iso-uefi' else 'SeaBIOS'}.")


def validate_acpi_patch(spec):
    """Refuse a patched table this boot cannot take: GRUB's `acpi` puts the new tables
    where the multiboot2 boot of an iso-bios ISO finds them, and each patch starts from
    the table of the machine and CPU count its fixture was captured on."""
    if spec.acpi_patch not in acpipatch.PATCHES:
        raise RunnerError(f"acpi_patch={spec.acpi_patch} is not one of "
                          f"{', '.join(acpipatch.PATCHES)}.")
    if (spec.boot, spec.machine, spec.smp) != ("iso-bios", acpipatch.MACHINE, acpipatch.SMP):
        raise RunnerError(f"acpi_patch= needs boot=iso-bios machine={acpipatch.MACHINE} "
                          f"smp={acpipatch.SMP}: GRUB loads the table, and it is patched "
                          f"from that machine's ({acpipatch.FIXTURE_DIR}).")


def make_args_disk(disk_path, cmdline, xen_options=None, acpi_tables=()):
    """Create a FAT floppy-sized disk image holding /clockbench-args.cfg and the ACPI
    table files `acpi_tables`, (name, bytes) pairs, for it to load (uses mtools)."""
    text_path = disk_path + ".cfg"
    with open(text_path, "w", encoding="utf-8") as text_file:
        text_file.write(iso_args_file_text(cmdline, xen_options,
                                           [name for name, _ in acpi_tables]))
    table_paths = []
    for name, data in acpi_tables:
        table_paths.append(os.path.join(os.path.dirname(disk_path), name))
        with open(table_paths[-1], "wb") as table_file:
            table_file.write(data)
    if os.path.exists(disk_path):
        os.unlink(disk_path)
    for command in (["mformat", "-i", disk_path, "-C", "-f", "1440", "::"],
                    ["mcopy", "-i", disk_path, text_path, "::/clockbench-args.cfg"],
                    *(["mcopy", "-i", disk_path, path, "::/" + os.path.basename(path)]
                      for path in table_paths)):
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            detail = result.stderr.strip().splitlines()
            raise RunnerError(f"{command[0]} could not make the guest-options disk "
                              f"{disk_path}: {detail[-1] if detail else 'no message'}.")


@dataclass(frozen=True)
class BootFiles:
    """Per-boot files beside the image: the guest-options disk and the UEFI variable store."""

    args_disk: str = None
    ovmf_vars: str = None


def boot_file_paths(spec, work_dir):
    """Where prepare_boot_files() puts this boot's files (None where not needed)."""
    return BootFiles(
        args_disk=os.path.join(work_dir, "args.img") if spec.needs_args_disk else None,
        ovmf_vars=os.path.join(work_dir, "OVMF_VARS_4M.fd") if spec.uses_ovmf else None,
    )


def prepare_boot_files(spec, work_dir):
    """Create the files a boot needs in `work_dir`; returns their BootFiles."""
    files = boot_file_paths(spec, work_dir)
    if files.args_disk or files.ovmf_vars:
        os.makedirs(work_dir, exist_ok=True)
    if files.args_disk:
        tables = [acpipatch.patched_table(spec.acpi_patch)] if spec.acpi_patch else []
        make_args_disk(files.args_disk, spec.cmdline, spec.xen_command_line, tables)
    if files.ovmf_vars:
        try:
            shutil.copyfile(OVMF_VARS, files.ovmf_vars)
        except OSError as error:
            raise RunnerError(f"cannot copy {OVMF_VARS} to {files.ovmf_vars}: "
                              f"{os.strerror(error.errno or errno.EIO)}.") from None
    return files


def build_qemu_command(spec, qemu, image, files=BootFiles(), hypervisor=None):
    """The full QEMU argument vector for one boot of `image` (an absolute or relative path);
    `hypervisor` is the path of spec.hypervisor, for the xen boot path."""
    command = [
        qemu,
        "-display", "none",
        "-monitor", "none",
        *_console_arguments(spec),
        "-no-reboot",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
        "-machine", spec.machine + (f",{spec.machine_opts}" if spec.machine_opts else ""),
        "-accel", spec.accel,
        "-cpu", spec.cpu_option,
        "-m", str(spec.memory_mib),
        "-smp", str(spec.qemu_smp),
    ]
    return command + _boot_arguments(spec, image, files, hypervisor)


def _console_arguments(spec):
    """COM1 on stdout, and the virtio console on the same stdout (a mux chardev passes
    every frontend's output through) when the boot has one."""
    if spec.console_choice == "uart":
        return ["-serial", "stdio"]
    return ["-chardev", "stdio,id=console,mux=on", "-serial", "chardev:console",
            "-device", "virtio-serial-pci", "-device", "virtconsole,chardev=console"]


def _boot_arguments(spec, image, files, hypervisor):
    """The QEMU arguments that differ between boot paths."""
    if spec.boot in KERNEL_BOOTS:
        firmware = (["-bios", _option_path(QBOOT_ROM)]
                    if spec.firmware_choice == "qboot" else [])
        return firmware + ["-kernel", image, "-append", spec.cmdline]
    if spec.boot == "xen":
        return ["-kernel", xen.kernel_argument(hypervisor or spec.hypervisor),
                "-append", spec.xen_command_line,
                "-initrd", xen.initrd_argument(image, spec.cmdline)]
    # The Linux kernel lies beside its initramfs, the image.
    kernel = os.path.join(os.path.dirname(image), os.path.basename(xen.DOM0_KERNEL))
    if spec.boot == "linux":
        return ["-kernel", kernel, "-initrd", image,
                "-append", linux.kernel_command_line(spec.cmdline, spec.accel, spec.smp,
                                                     spec.linux_args)]
    if spec.dom0_kernel:
        timeout_s = spec.timeout_s or default_timeout_s(spec.accel, spec.boot)
        if spec.runs_user and spec.runs_domu:
            dom0 = linux.domu_dom0_command_line(spec.boot, spec.cmdline, spec.smp, timeout_s)
        elif spec.runs_user:
            dom0 = linux.dom0_command_line(spec.cmdline, spec.smp)
        else:
            dom0 = xen.dom0_command_line(spec.boot, spec.smp, spec.cmdline, timeout_s,
                                         contend=spec.contend, events=spec.events)
        return ["-kernel", xen.kernel_argument(hypervisor or spec.hypervisor),
                "-append", spec.xen_command_line,
                "-initrd", xen.initrd_argument(os.path.join(os.path.dirname(image),
                                                            os.path.basename(
                                                                spec.dom0_kernel)), dom0)
                + "," + xen.initrd_argument(image, "")]
    arguments = []
    if spec.boot == "xen-pvh-dom0":
        arguments += ["-device", "intel-iommu,intremap=off"]
    if spec.uses_ovmf:
        arguments += [
            "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={_option_path(OVMF_CODE)}",
            "-drive", f"if=pflash,format=raw,unit=1,file={_option_path(files.ovmf_vars)}",
            "-cdrom", image,
        ]
    else:
        arguments += ["-cdrom", image, "-boot", "d"]
        if spec.machine == "pc":
            arguments += NO_FLOPPY
    if files.args_disk:
        arguments += ["-drive",
                      f"file={_option_path(files.args_disk)},format=raw,if=ide,media=disk"]
    return arguments


def _option_path(path):
    """Escape a path for a QEMU key=value option list, where a comma is written twice."""
    return path.replace(",", ",,")
