# SPDX-License-Identifier: MIT
"""Building clockbench's Linux dom0 from Debian 12's packages, without installing them.

The packages and their exact versions are dom0/packages.cfg; `apt-get download` fetches
each into build/dom0/debs/ once (a file already there is used when its control fields say
the pinned package and version), `dpkg -x` unpacks them into build/dom0/staging/, and
dom0/contents.cfg says what of that tree, and of this one, goes into the initramfs:
programs with every library they need (found in the staging tree as the dynamic loader
would find them), kernel modules after the modules they depend on, data files, links and
device nodes.  The initramfs is written here in the newc cpio format (cpio.py), so no host
cpio is needed; the kernel is copied beside it, and the ELF kernel it holds is unpacked
beside that (vmlinux: Xen's dom0 kernel, bzimage.py).  A second, small initramfs for a Linux PV
domU (dom0/domu-contents.cfg: busybox, clockbench-user and the domU's /init) is written
first, and dom0's holds it and the kernel (its `built` lines), so that dom0 can hand both
to xl.

Every failure is a DomBuildError said in one sentence: a pin apt cannot download any
more (naming the package and what to change), a library no package provides (naming its
soname and who needs it), a module that is not there.  When apt's candidate differs from
a pin, notes say so in one sentence each, and the pin is used.
"""

import filecmp
import glob
import lzma
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from ..base import paths
from . import bzimage, cpio, elffile

PACKAGES_CFG = "dom0/packages.cfg"
CONTENTS_CFG = "dom0/contents.cfg"
DOMU_CONTENTS_CFG = "dom0/domu-contents.cfg"
OUT_DIR = f"{paths.BUILD_DIR}/dom0"
KERNEL_NAME = "vmlinuz"
# The ELF kernel the bzImage holds, which Xen loads as its dom0 (bzimage.py).
KERNEL_ELF_NAME = "vmlinux"
INITRD_NAME = "initrd.img"
DOMU_INITRD_NAME = "domu-initrd.img"
# What a `built` line may name: the files build() writes before dom0's initramfs.
BUILT_NAMES = (KERNEL_NAME, DOMU_INITRD_NAME)
# The file in the initramfs that lists the modules /init loads, in order.
MODULE_LIST = "/etc/clockbench/modules"
STAGING_STAMP = ".clockbench-debs"
# Where the dynamic loader looks after a file's run path (Debian's multiarch glibc).
LIBRARY_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")
MAX_LINK_DEPTH = 40
FILE_MODE = 0o644
PROGRAM_MODE = 0o755


class Dom0BuildError(Exception):
    """Why the dom0 could not be built, in one sentence."""


# ------------------------------------------------------------------- the two config files

@dataclass(frozen=True)
class Pin:
    """One line of packages.cfg: a package at an exact version."""

    name: str
    version: str
    follows: str = None  # the metapackage whose dependency names the current package
    line: int = 0


def _config_lines(path):
    """(line number, words) for each line of a config file that is not blank or a comment."""
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except OSError as error:
        raise Dom0BuildError(f"cannot read {path}: {error.strerror}.") from None
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if words:
            yield number, words


def read_pins(path):
    """The pins of packages.cfg at `path`, in order."""
    pins, seen = [], set()
    for number, words in _config_lines(path):
        extra = dict(word.split("=", 1) for word in words[2:] if "=" in word)
        if len(words) < 2 or len(extra) != len(words) - 2 or set(extra) - {"follows"}:
            raise Dom0BuildError(f"{path}:{number}: expected 'PACKAGE VERSION "
                                 f"[follows=METAPACKAGE]', got '{' '.join(words)}'.")
        if words[0] in seen:
            raise Dom0BuildError(f"{path}:{number}: {words[0]} is pinned twice.")
        seen.add(words[0])
        pins.append(Pin(words[0], words[1], extra.get("follows"), number))
    if not pins:
        raise Dom0BuildError(f"{path} pins no package.")
    return pins


@dataclass
class Contents:
    """What contents.cfg asks for (paths are absolute paths inside the initramfs)."""

    kernel: str = None
    modules: list = field(default_factory=list)
    programs: list = field(default_factory=list)
    libraries: list = field(default_factory=list)
    files: list = field(default_factory=list)
    links: list = field(default_factory=list)      # (path, target)
    nodes: list = field(default_factory=list)      # (path, kind, major, minor)
    locals: list = field(default_factory=list)     # (source in this tree, path, mode)
    built: list = field(default_factory=list)      # (name in the output folder, path, mode)


_CONTENT_WORDS = {"kernel": 1, "module": 1, "program": 1, "library": 1, "file": 1,
                  "link": 2, "node": 4, "local": 3, "built": 3}


def read_contents(path, need_kernel=True):
    """contents.cfg at `path` as Contents.  Without `need_kernel` (the domU's file, whose
    kernel is dom0's) a kernel line, and so a module line, is refused."""
    contents = Contents()
    for number, words in _config_lines(path):
        kind, args = words[0], words[1:]
        if kind not in _CONTENT_WORDS or len(args) != _CONTENT_WORDS[kind]:
            raise Dom0BuildError(f"{path}:{number}: '{' '.join(words)}' is not one of the "
                                 f"line kinds the file's header lists.")
        if kind in ("kernel", "program", "file", "link", "node") and not args[0].startswith("/"):
            raise Dom0BuildError(f"{path}:{number}: {args[0]} is not an absolute path.")
        if kind == "kernel":
            if contents.kernel:
                raise Dom0BuildError(f"{path}:{number}: a second kernel line.")
            contents.kernel = args[0]
        elif kind == "module":
            contents.modules.append(args[0])
        elif kind == "program":
            contents.programs.append(args[0])
        elif kind == "library":
            contents.libraries.append(args[0])
        elif kind == "file":
            contents.files.append(args[0])
        elif kind == "link":
            contents.links.append((args[0], args[1]))
        elif kind == "node":
            if args[1] not in ("c", "b") or not all(a.isdigit() for a in args[2:]):
                raise Dom0BuildError(f"{path}:{number}: expected 'node PATH c|b MAJOR "
                                     f"MINOR'.")
            contents.nodes.append((args[0], args[1], int(args[2]), int(args[3])))
        else:
            if not re.fullmatch(r"0[0-7]{3}", args[2]) or not args[1].startswith("/"):
                raise Dom0BuildError(f"{path}:{number}: expected '{kind} SOURCE /PATH "
                                     f"MODE' with an octal mode such as 0755.")
            if kind == "built" and args[0] not in BUILT_NAMES:
                raise Dom0BuildError(f"{path}:{number}: a built line names one of "
                                     f"{', '.join(BUILT_NAMES)}, not {args[0]}.")
            (contents.built if kind == "built" else contents.locals).append(
                (args[0], args[1], int(args[2], 8)))
    if need_kernel and not contents.kernel:
        raise Dom0BuildError(f"{path} names no kernel.")
    if not need_kernel and (contents.kernel or contents.modules or contents.built):
        raise Dom0BuildError(f"{path} names a kernel, a module or a built file, but its "
                             f"kernel and what it builds are dom0's.")
    return contents


def kernel_release(kernel_path):
    """The kernel's release (its modules' folder name) from its path: vmlinuz-RELEASE."""
    name = os.path.basename(kernel_path)
    if not name.startswith("vmlinuz-") or name == "vmlinuz-":
        raise Dom0BuildError(f"the kernel {kernel_path} is not named vmlinuz-RELEASE, so its "
                             f"modules' folder is unknown.")
    return name[len("vmlinuz-"):]


# ------------------------------------------------------------------------------- apt

def _run(command, cwd=None):
    """Run `command`; returns (status, stdout, stderr).  A missing program is status 127."""
    try:
        result = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return 127, "", f"{command[0]}: not found"
    return result.returncode, result.stdout, result.stderr


def parse_policy(text):
    """`apt-cache policy P...` output as {package: candidate version or None}."""
    candidates, package = {}, None
    for line in text.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            package = line[:-1]
            candidates[package] = None
        elif package and line.strip().startswith("Candidate:"):
            value = line.split(":", 1)[1].strip()
            candidates[package] = None if value == "(none)" else value
    return candidates


def parse_depends(text):
    """The packages a `apt-cache depends PACKAGE` output says it depends on, in order."""
    return [line.split(":", 1)[1].strip() for line in text.splitlines()
            if line.strip(" |").startswith("Depends:")]


def apt_notes(pins, run=_run):
    """One sentence for each pin apt's candidate differs from, and for each follows= whose
    metapackage now depends on another package (empty when apt-cache is not there)."""
    status, out, _ = run(["apt-cache", "policy", *[pin.name for pin in pins]])
    if status != 0:
        return []
    candidates = parse_policy(out)
    notes = []
    for pin in pins:
        candidate = candidates.get(pin.name)
        if candidate and candidate != pin.version:
            notes.append(f"{PACKAGES_CFG} pins {pin.name} {pin.version}, but apt's candidate "
                         f"is {candidate}: the pin is used; change its line to take the "
                         f"new one.")
        if pin.follows:
            status, out, _ = run(["apt-cache", "depends", pin.follows])
            current = [name for name in parse_depends(out) if name != pin.name]
            if status == 0 and current and pin.name not in parse_depends(out):
                notes.append(f"{pin.follows} now depends on {current[0]}, not on "
                             f"{pin.name}: {PACKAGES_CFG} keeps {pin.name}; to move to "
                             f"Debian's current one, pin {current[0]} and change the "
                             f"kernel line of {CONTENTS_CFG}.")
    return notes


def deb_control(path, run=_run):
    """(Package, Version) of the .deb at `path`, or None when dpkg-deb cannot read it."""
    status, out, _ = run(["dpkg-deb", "--showformat=${Package} ${Version}\n", "--show",
                          path])
    words = out.split()
    return tuple(words[:2]) if status == 0 and len(words) >= 2 else None


def _deb_glob(pin):
    """A pattern for the name apt-get download gives the pin's file (":" spelled "%3a"),
    any architecture."""
    return glob.escape(f"{pin.name}_{pin.version.replace(':', '%3a')}_") + "*.deb"


def find_deb(debs_dir, pin, run=_run):
    """The downloaded .deb of `pin` in `debs_dir` whose control fields match it, or None."""
    for path in sorted(glob.glob(os.path.join(glob.escape(debs_dir), _deb_glob(pin)))):
        if deb_control(path, run) == (pin.name, pin.version):
            return path
    return None


def _apt_error(stderr):
    """apt's own error line (the first 'E: ' line), else its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return next((line for line in lines if line.startswith("E:")),
                lines[-1] if lines else "no message")


def download(pins, debs_dir, run=_run):
    """The .deb path of every pin, downloading those not in `debs_dir` yet."""
    os.makedirs(debs_dir, exist_ok=True)
    found = {pin: find_deb(debs_dir, pin, run) for pin in pins}
    missing = [pin for pin, path in found.items() if path is None]
    # As root apt drops to its _apt user, which may not write here: stay root.
    command = ["apt-get", "download", *(["-o", "APT::Sandbox::User=root"]
                                        if os.geteuid() == 0 else [])]
    if missing:
        # One apt-get for all (what it fetched is checked below); then one for each
        # still missing, to name the pin at fault.
        run([*command, *[f"{p.name}={p.version}" for p in missing]], cwd=debs_dir)
        for pin in missing:
            found[pin] = find_deb(debs_dir, pin, run)
            if found[pin] is None:
                status, _, err = run([*command, f"{pin.name}={pin.version}"], cwd=debs_dir)
                found[pin] = find_deb(debs_dir, pin, run) if status == 0 else None
            if found[pin] is None:
                raise Dom0BuildError(_download_failure(pin, status, err, run))
    return [found[pin] for pin in pins]


def _download_failure(pin, status, stderr, run):
    """The sentence for a pin that could not be downloaded."""
    if status == 127:
        return (f"cannot download {pin.name} {pin.version}: apt-get is not there (the dom0 "
                f"is built from Debian's packages, on a Debian 12 host).")
    status, out, _ = run(["apt-cache", "policy", pin.name])
    candidate = parse_policy(out).get(pin.name) if status == 0 else None
    said = f"cannot download {pin.name} {pin.version} (apt-get: {_apt_error(stderr)})"
    if candidate == pin.version:
        return (f"{said}, although apt offers that version: check the network, or run "
                f"apt-get update.")
    change = (f"pin {candidate}, apt's candidate, in {PACKAGES_CFG} line {pin.line}"
              if candidate else f"change {PACKAGES_CFG} line {pin.line} to a package apt "
              f"offers (after apt-get update)")
    return (f"{said}: Debian no longer offers that version, or apt's lists are out of "
            f"date; {change}.")


def stage(debs, staging, run=_run):
    """Unpack `debs` with dpkg -x into `staging`, unless it holds exactly these already."""
    stamp = os.path.join(staging, STAGING_STAMP)
    wanted = "".join(f"{os.path.basename(path)}\n" for path in sorted(debs))
    try:
        with open(stamp, encoding="utf-8") as source:
            if source.read() == wanted:
                return False
    except OSError:
        pass
    if os.path.lexists(staging):
        shutil.rmtree(staging)
    os.makedirs(staging)
    for path in debs:
        status, _, err = run(["dpkg", "-x", path, staging])
        if status != 0:
            raise Dom0BuildError(f"dpkg -x could not unpack {path}: "
                                 f"{(err.strip().splitlines() or ['no message'])[-1]}.")
    with open(stamp, "w", encoding="utf-8") as out:
        out.write(wanted)
    return True


# ------------------------------------------------------------ the staging tree's files

def tree_path(root, path):
    """The host path of `path` (absolute, inside the tree at `root`) with every symbolic
    link followed inside the tree (an absolute target is taken from `root`), or None when
    it leads nowhere."""
    parts = [part for part in path.split("/") if part]
    resolved = []
    links = 0
    while parts:
        part = parts.pop(0)
        if part == ".":
            continue
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        host = os.path.join(root, *resolved, part)
        if os.path.islink(host):
            links += 1
            if links > MAX_LINK_DEPTH:
                return None
            target = os.readlink(host)
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p] + parts
            continue
        if not os.path.lexists(host):
            return None
        resolved.append(part)
    return os.path.join(root, *resolved)


def find_library(root, soname, runpath=(), origin="/"):
    """(path in the tree, host path) of the library `soname`, searched in `runpath` ($ORIGIN
    being `origin`) and then LIBRARY_DIRS, or None."""
    for folder in [*runpath, *LIBRARY_DIRS]:
        folder = folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
        candidate = os.path.join(folder, soname)
        host = tree_path(root, candidate)
        if host and os.path.isfile(host):
            return candidate, host
    return None


def library_closure(root, programs, libraries=()):
    """Every ELF file `programs` need, and `libraries` (sonames) with what they need:
    {path in the tree: host path}, the programs and their interpreter included."""
    chosen = {}
    queue = []
    for program in programs:
        host = tree_path(root, program)
        if not host or not os.path.isfile(host):
            raise Dom0BuildError(f"{program} is in no package of {PACKAGES_CFG} (not in "
                                 f"{root}).")
        chosen[program] = host
        queue.append((program, host))
    for soname in libraries:
        found = find_library(root, soname)
        if not found:
            raise Dom0BuildError(f"no package of {PACKAGES_CFG} provides the library "
                                 f"{soname} that {CONTENTS_CFG} asks for.")
        chosen.setdefault(found[0], found[1])
        queue.append(found)
    while queue:
        path, host = queue.pop(0)
        try:
            info = elffile.read_elf(host)
        except elffile.ElfError as error:
            raise Dom0BuildError(str(error)) from None
        if info.interpreter and info.interpreter not in chosen:
            interpreter = tree_path(root, info.interpreter)
            if not interpreter or not os.path.isfile(interpreter):
                raise Dom0BuildError(f"{path} needs the interpreter {info.interpreter}, "
                                     f"which no package of {PACKAGES_CFG} provides.")
            chosen[info.interpreter] = interpreter
        for soname in info.needed:
            found = find_library(root, soname, info.runpath, os.path.dirname(path))
            if not found:
                raise Dom0BuildError(f"{path} needs {soname}, which no package of "
                                     f"{PACKAGES_CFG} provides: add the package that holds "
                                     f"it (dpkg -S {soname}, or packages.debian.org).")
            if found[0] not in chosen:
                chosen[found[0]] = found[1]
                queue.append(found)
    return chosen


def module_index(root, release):
    """{module name: host path} of every module under lib/modules/RELEASE in the tree
    (names with '-' and '_' alike, as the kernel treats them)."""
    top = tree_path(root, f"/lib/modules/{release}")
    if not top or not os.path.isdir(top):
        raise Dom0BuildError(f"the kernel package has no lib/modules/{release} (is the "
                             f"kernel line of {CONTENTS_CFG} the pinned kernel's?).")
    index = {}
    for folder, _, names in os.walk(top):
        for name in names:
            for suffix in (".ko", ".ko.xz", ".ko.zst", ".ko.gz"):
                if name.endswith(suffix):
                    index[name[:-len(suffix)].replace("-", "_")] = os.path.join(folder, name)
    return index


def module_data(path):
    """The module at `path` uncompressed: busybox's insmod need not know xz."""
    with open(path, "rb") as source:
        data = source.read()
    if path.endswith(".ko.xz"):
        return lzma.decompress(data)
    if not path.endswith(".ko"):
        raise Dom0BuildError(f"{path} is compressed in a way the builder does not undo "
                             f"(only .ko and .ko.xz).")
    return data


def module_depends(data, path):
    """The modules the module `data` (uncompressed, from `path`) names in its .modinfo."""
    try:
        section = elffile.section_bytes(data, ".modinfo", path)
    except elffile.ElfError as error:
        raise Dom0BuildError(str(error)) from None
    if section is None:
        raise Dom0BuildError(f"the module {path} has no .modinfo section.")
    depends = elffile.modinfo(section).get("depends", [""])[0]
    return [name for name in depends.split(",") if name]


def module_order(root, release, names):
    """[(module name, uncompressed bytes)] for `names` and what they depend on, each after
    its dependencies."""
    index = module_index(root, release)
    order, data, visiting = [], {}, set()

    def visit(name, wanted_by):
        key = name.replace("-", "_")
        if key in data:
            return
        if key in visiting:
            raise Dom0BuildError(f"the module {name} depends on itself through "
                                 f"{wanted_by}.")
        if key not in index:
            raise Dom0BuildError(f"the module {name} ({wanted_by}) is not in the kernel "
                                 f"package's lib/modules/{release}.")
        visiting.add(key)
        blob = module_data(index[key])
        for dependency in module_depends(blob, index[key]):
            visit(dependency, f"needed by {name}")
        visiting.discard(key)
        data[key] = blob
        order.append(key)

    for name in names:
        visit(name, f"asked for in {CONTENTS_CFG}")
    return [(name, data[name]) for name in order]


# ------------------------------------------------------------------------- the initramfs

@dataclass
class Initramfs:
    """What was written: the counts and sizes a summary line gives."""

    path: str
    entries: int
    size_bytes: int
    modules: list
    release: str


def _read(path):
    with open(path, "rb") as source:
        return source.read()


def write_initramfs(contents, staging, root, out_path):
    """Write the initramfs `contents` asks for to `out_path`, from the staging tree, the
    tree at `root` and (its built lines) the folder of `out_path`; returns Initramfs (its
    release None without a kernel)."""
    release = kernel_release(contents.kernel) if contents.kernel else None
    modules = module_order(staging, release, contents.modules) if release else []
    items = {}  # path -> (mode, bytes) for files; links and nodes apart

    def add(path, mode, data, why):
        if path in items:
            raise Dom0BuildError(f"{path} is in the initramfs twice ({why}).")
        items[path] = (mode, data)

    for path, host in library_closure(staging, contents.programs,
                                      contents.libraries).items():
        add(path, PROGRAM_MODE, _read(host), "a program or library")
    for path in contents.files:
        host = tree_path(staging, path)
        if not host or not os.path.isfile(host):
            raise Dom0BuildError(f"{path} ({CONTENTS_CFG}) is in no package of "
                                 f"{PACKAGES_CFG}.")
        add(path, FILE_MODE, _read(host), "a file line")
    for source, path, mode in contents.locals:
        try:
            add(path, mode, _read(os.path.join(root, source)), "a local line")
        except OSError as error:
            raise Dom0BuildError(f"cannot read {source} ({CONTENTS_CFG}): "
                                 f"{error.strerror}.") from None
    for name, path, mode in contents.built:
        try:
            add(path, mode, _read(os.path.join(os.path.dirname(out_path), name)),
                "a built line")
        except OSError as error:
            raise Dom0BuildError(f"cannot read the built file {name}: "
                                 f"{error.strerror}.") from None
    module_paths = []
    for name, data in modules:
        path = f"/lib/modules/{release}/{name}.ko"
        add(path, FILE_MODE, data, "a module")
        module_paths.append(path)
    if release:
        add(MODULE_LIST, FILE_MODE, "".join(f"{p}\n" for p in module_paths).encode(),
            "the module list")

    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    partial = out_path + ".partial"
    with open(partial, "wb") as out:
        writer = cpio.NewcWriter(out)
        try:
            for path in sorted(items):
                mode, data = items[path]
                writer.file(path, data, mode)
            for path, target in contents.links:
                writer.symlink(path, target)
            for path, kind, major, minor in contents.nodes:
                writer.device(path, kind, major, minor)
        except cpio.CpioError as error:
            raise Dom0BuildError(f"the initramfs cannot hold it: {error}") from None
        writer.close()
        count = writer.entries
    os.replace(partial, out_path)
    return Initramfs(out_path, count, os.path.getsize(out_path), [n for n, _ in modules],
                     release)


def write_kernel_elf(kernel_path, out_path):
    """Write the ELF kernel the bzImage at `kernel_path` holds to `out_path`: the Linux
    dom0's kernel as Xen loads it, so that Xen need not decompress it under TCG at every
    boot (bzimage.py)."""
    with open(kernel_path, "rb") as image:
        try:
            elf = bzimage.kernel_elf(image.read())
        except bzimage.KernelImageError as error:
            raise Dom0BuildError(f"the kernel {kernel_path} cannot be unpacked for Xen: "
                                 f"{error}.") from None
    with open(out_path + ".partial", "wb") as out:
        out.write(elf)
    os.replace(out_path + ".partial", out_path)


def prepare(root, out_dir, log=print, run=_run):
    """The part of build() that needs nothing of this tree's own builds: the packages
    downloaded and unpacked into the staging tree, the kernel copied to `out_dir` and the
    ELF kernel it holds unpacked beside it (each done again only when what it comes from
    changed).  Returns (contents, domU's contents, staging folder, kernel path); `make`
    runs it beside newlib's build (`dom0-build --stage`)."""
    pins = read_pins(os.path.join(root, PACKAGES_CFG))
    contents = read_contents(os.path.join(root, CONTENTS_CFG))
    domu_contents = read_contents(os.path.join(root, DOMU_CONTENTS_CFG), need_kernel=False)
    for note in apt_notes(pins, run):
        log(f"note: {note}")
    debs = download(pins, os.path.join(out_dir, "debs"), run)
    staging = os.path.join(out_dir, "staging")
    if stage(debs, staging, run):
        log(f"unpacked {len(debs)} packages into {staging}")
    kernel_host = tree_path(staging, contents.kernel)
    if not kernel_host or not os.path.isfile(kernel_host):
        raise Dom0BuildError(f"the kernel {contents.kernel} ({CONTENTS_CFG}) is in no "
                             f"package of {PACKAGES_CFG}.")
    kernel_out = os.path.join(out_dir, KERNEL_NAME)
    elf_out = os.path.join(out_dir, KERNEL_ELF_NAME)
    if not (os.path.isfile(elf_out) and os.path.isfile(kernel_out)
            and filecmp.cmp(kernel_host, kernel_out, shallow=False)
            and os.path.getmtime(elf_out) >= os.path.getmtime(kernel_out)):
        shutil.copyfile(kernel_host, kernel_out + ".partial")
        os.replace(kernel_out + ".partial", kernel_out)
        write_kernel_elf(kernel_out, elf_out)
    else:  # as new as what asked for them, for make
        os.utime(kernel_out)
        os.utime(elf_out)
    return contents, domu_contents, staging, kernel_out


def build(root, out_dir, log=print, run=_run):
    """Build the dom0 under `out_dir` from the tree at `root`: returns (kernel path,
    Initramfs).  `log` gets the notes and progress lines (the domU's initramfs among
    them)."""
    contents, domu_contents, staging, kernel_out = prepare(root, out_dir, log, run)
    domu = write_initramfs(domu_contents, staging, root,
                           os.path.join(out_dir, DOMU_INITRD_NAME))
    log(f"{os.path.relpath(domu.path, root)} (the Linux PV domU's): {domu.entries} "
        f"entries, {domu.size_bytes / (1 << 20):.1f} MiB")
    initramfs = write_initramfs(contents, staging, root, os.path.join(out_dir, INITRD_NAME))
    return kernel_out, initramfs
