# SPDX-License-Identifier: MIT
"""Booting clockbench as a Xen domU under QEMU: Xen, clockbench's Linux dom0 (dom0build.py
makes build/dom0/vmlinuz and build/dom0/initrd.img) and the parameters dom0's /init reads.

QEMU boots Xen as a multiboot1 kernel with two modules, dom0's kernel with its command
line and dom0's initramfs; /init (dom0/init) starts the domU with dom0/clockbench-domu,
copies its console to dom0's, which Xen prints unprefixed, and ends QEMU through
isa-debug-exit with the verdict, as a native image does (docs/dom0.md).
"""

import urllib.parse

from . import paths, xen

DOMU_TYPES = ("pv", "pvh", "hvm")
DOM0_KERNEL = f"{paths.BUILD_DIR}/dom0/vmlinuz"
DOM0_INITRD = f"{paths.BUILD_DIR}/dom0/initrd.img"
# dom0 holds the initramfs unpacked (about 65 MiB) and, for an HVM domU, its device model.
DOM0_MEM = "512M"
MEMORY_MIB = 1024
DOMU_MEMORY_MIB = 128
DOMU_TIMEOUT_S = 300
# smap=0: QEMU 7.2 checks a PV kernel's IRET frame reads as supervisor accesses, so with
# SMAP a Linux PV dom0 dies about 40 ms in (fixed in QEMU in 2024).
# cpuid=no-xsave: with XSAVE, the FPU and SSE state Xen switches between dom0 and a domU
# under QEMU 7.2's TCG came back wrong: while a domU ran, dom0's busybox crashed in malloc
# 27 times in 25 s (with pointers made of text), and never with FXSAVE, which Xen uses
# without XSAVE.
XEN_OPTIONS = ("console=com1", "com1=115200,8n1", f"dom0_mem={DOM0_MEM}", "smap=0",
               "cpuid=no-xsave", "noreboot")
# dom0's console is Xen's (hvc0); loglevel=1 keeps the kernel's own lines off it but for
# emergencies, so the console holds Xen's lines, dom0's "(dom0) " lines and the domU's.
DOM0_KERNEL_OPTIONS = ("console=hvc0", "loglevel=1")


def encode_value(text):
    """`text` as a kernel command line value /init decodes: every byte outside
    A-Z a-z 0-9 - . _ ~ as %HH (UTF-8), so spaces, '=', ',' and '%' survive."""
    return urllib.parse.quote(text, safe="")


def dom0_cmdline(domu_type, vcpus=1, memory_mib=DOMU_MEMORY_MIB, timeout_s=DOMU_TIMEOUT_S,
                 options="", image=None):
    """dom0's kernel command line: the console, quiet, and /init's clockbench.* words."""
    if domu_type not in DOMU_TYPES:
        raise ValueError(f"domU type '{domu_type}' is not one of {', '.join(DOMU_TYPES)}")
    words = [*DOM0_KERNEL_OPTIONS, f"clockbench.type={domu_type}",
             f"clockbench.vcpus={int(vcpus)}", f"clockbench.memory={int(memory_mib)}",
             f"clockbench.timeout={int(timeout_s)}"]
    if options:
        words.append(f"clockbench.options={encode_value(options)}")
    if image:
        words.append(f"clockbench.image={encode_value(image)}")
    return " ".join(words)


def xen_options(smp, xen_args=""):
    """Xen's command line for a dom0 with every CPU (`smp`), then `xen_args`, which win."""
    words = [*XEN_OPTIONS, f"dom0_max_vcpus={int(smp)}"]
    if xen_args.strip():
        words.append(xen_args.strip())
    return " ".join(words)


def _no_blank(path):
    """`path`, unless it holds whitespace, which ends a file name in QEMU's -initrd."""
    if any(char.isspace() for char in path):
        raise ValueError(f"{path} contains a space, but QEMU's -initrd ends a file name at "
                         f"its first space; move the tree to a path without spaces")
    return path


def initrd_argument(kernel, cmdline, initrd):
    """-initrd's value: two multiboot modules, dom0's kernel with its command line and the
    initramfs.  QEMU splits at commas (a comma is written twice), and ends each file name at
    its first space."""
    return ",".join(part.replace(",", ",,") for part in (
        f"{_no_blank(kernel)} {cmdline}", _no_blank(initrd)))


def boot_arguments(domu_type, smp=2, vcpus=1, memory_mib=DOMU_MEMORY_MIB,
                   timeout_s=DOMU_TIMEOUT_S, options="", xen_args="",
                   hypervisor=xen.XEN_BINARY, kernel=DOM0_KERNEL, initrd=DOM0_INITRD):
    """QEMU's -kernel, -append and -initrd for one domU run."""
    return ["-kernel", xen.kernel_argument(hypervisor),
            "-append", xen_options(smp, xen_args),
            "-initrd", initrd_argument(kernel, dom0_cmdline(domu_type, vcpus, memory_mib,
                                                            timeout_s, options), initrd)]


def qemu_command(domu_type, qemu="qemu-system-x86_64", smp=2, memory_mib=MEMORY_MIB,
                 **boot):
    """A whole QEMU command line (TCG, COM1 on stdio, isa-debug-exit) for one domU run;
    `boot` goes to boot_arguments()."""
    return [qemu, "-machine", "pc", "-accel", "tcg", "-cpu", "max", "-m", str(memory_mib),
            "-smp", str(smp), "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            *boot_arguments(domu_type, smp=smp, **boot)]
