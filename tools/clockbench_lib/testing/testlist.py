# SPDX-License-Identifier: MIT
"""Reading tests/tests.cfg, the one list of every clockbench test.

A section per test, as kvm-unit-tests' unittests.cfg has: a `[KIND NAME]` line, then one
`key = value` a line, the value being the rest of the line as it is written (no quoting);
a key that asserts something (match, nomatch, report, json, check) may be given again,
one assertion a line.  A line whose first character is `#` is a comment; blank lines are
ignored.  The runner runs the `boot` tests; `unit` tests belong to the Makefile (their
`source` lines) and are only checked for shape.
"""

import difflib
import functools
import json
import os
import re
import shlex
from dataclasses import dataclass, field, replace

from ..base import paths
from ..model import osreport, report
from ..boot import guestopts, lifecycle, qemu
from . import checkmatch, jsonmatch
from ..base.outcome import RunnerError
from .reportchecks import checks_for

FORMAT_HELP = """\
tests.cfg:
  A section per test: a `[boot NAME]` (or `[unit NAME]`) line, then one `key = value`
  a line, the value the rest of the line as written (no quotes); the assertions (match,
  nomatch, report, json, check) repeat, one a line; a line starting with `#` is a
  comment. `unit` tests belong to the Makefile (source = FILE...).
  boot keys [defaults]:
    boot=multiboot1|pvh|iso-bios|iso-uefi|xen|xen-pvh-dom0|xen-pv-domu|
         xen-pvh-domu|xen-hvm-domu|linux|xen-linux-dom0|xen-linux-pv-domu
         [multiboot1]
                    Xen 4.17 under TCG only (docs/xen.md): xen boots
                    build/clockbench-xenpv.elf as a PV dom0; xen-pvh-dom0
                    build/clockbench-xen.iso (GRUB, Xen, the PVH image as dom0)
                    under OVMF; xen-*-domu the Linux dom0 (make dom0), which runs
                    the image as a PV, PVH or HVM domU; linux the same Linux alone
                    under QEMU and xen-linux-dom0 as Xen's dom0, each running
                    clockbench-user --switch --console with args= (docs/os-layer.md);
                    xen-linux-pv-domu that dom0 running the same Linux as a PV domU
                    with its own initramfs, which runs clockbench-user so
    machine=pc|q35 [pc; q35 for xen-pvh-dom0; pc only for xen-*-domu and the
                    linux boots]
    machine_opts=a=b,c=d  appended to -machine (e.g. hpet=off, acpi=off) [none]
    cpu=MODEL  QEMU -cpu (e.g. EPYC) [under kvm the model KVM starts on this host
                    (host, or host without what it refuses), max under tcg]
    cpu_features=F  appended to the -cpu model, chosen or given (e.g. -kvmclock) [none]
    firmware=seabios|qboot  what starts a multiboot1 or pvh boot [qboot under kvm,
                    seabios under tcg]
    console=virtio|uart  a virtio console beside COM1, or COM1 alone [virtio; uart
                    for the Xen and linux boots]
    accel=tcg|kvm [tcg]   smp=N [1; a domU's vCPUs for xen-*-domu]
    memory=MiB [64; 512 xen, xen-pvh-dom0 and the linux boots; 1024 xen-*-domu]
    memory_check=on|off  off boots with less RAM than the boot needs, to see what
                    the image itself says [on: the runner refuses it]
    timeout=S [60 tcg, 120 kvm, 300 kvm ISO, 120 xen, xen-pvh-dom0 and the linux
                    boots, 180 xen-pv-domu and xen-pvh-domu, 360 xen-hvm-domu]
    args="guest options" [none]   expect=pass|fail|skip [pass]
                    args= is checked against the image's option table before any
                    boot (`run --help` lists it); a wrong option is an error unless
                    the line says expect=fail
    linux_args="kernel options"  boot=linux: appended to Linux's command line, e.g.
                    linux_args=clocksource=tsc (--linux-args) [none]
    xen_args="Xen options"  appended to Xen's command line, after its defaults
                    (console=com1 com1=115200,8n1 dom0_mem=128M dom0_max_vcpus=SMP
                    [dom0=pvh for xen-pvh-dom0] noreboot; for xen-*-domu dom0_mem=512M
                    dom0_max_vcpus=1 smap=0 in place of dom0's two; for
                    xen-linux-dom0 dom0_mem=384M dom0_max_vcpus=SMP smap=0), e.g.
                    "clocksource=tsc" [none; Xen boots only]
    acpi_patch=madt-no-cpus|ioapic-dead|ioapic-dead-first  boot with a firmware
                    table patched from tests/fixtures/acpi/pc/
                    (tools/clockbench_lib/boot/acpipatch.py): the MADT with no CPU enabled,
                    with its IOAPIC where nothing answers, or with a second IOAPIC there
                    for GSIs 0-23; GRUB's acpi command loads it, so boot=iso-bios
                    machine=pc smp=1 only (docs/hostile.md) [none]
    match=REGEX     must be found in the log (repeatable)
    nomatch=REGEX   must not be found in the log (repeatable)
    report=CHECK    the guest's JSON report must pass CHECK (repeatable): valid,
                    tcg_facts, kvm_facts, xen_pv_facts, xen_pvh_dom0_facts,
                    xen_pv_domu_facts, xen_pvh_domu_facts, xen_hvm_domu_facts, smp_facts,
                    single_cpu_facts, ticks_facts, timing_facts,
                    histogram_facts or port_trap_facts; for the linux boots, of clockbench-user's
                    document (clockbench-os/1): valid, linux_tcg_facts,
                    linux_xen_dom0_facts, linux_xen_pv_domu_facts or kernel_readback
                    (tools/clockbench_lib/testing/reportchecks.py)
    json='PATH OP VALUE'  one value of the guest's JSON report (for the linux
                    boots clockbench-user's document) must compare so
                    (repeatable), e.g. json='clocks[hpet].freq_hz == 100000000';
                    OP: == != < <= > >= with a JSON value, or ~ with a regex as a
                    JSON string (tools/clockbench_lib/testing/jsonmatch.py)
    check='NAME = RESULT[|RESULT] [~ "REGEX"]'  a check the guest made, named as
                    it prints it after `ok N` (`*` any run of characters), must have
                    one of the results pass, fail, skip, error (repeatable), and with ~
                    an info that the regex, a JSON string, finds something in, e.g.
                    check='hpet: advances = pass' (the guest's JSON lists every check;
                    tools/clockbench_lib/testing/checkmatch.py)
    event=KIND[:TIME]  an event in the VM's life at the guest's next event point, in
                    order (repeatable): stop:1s, savevm, migrate, as `run --event`
                    (docs/lifecycle.md); the guest gets events= and event_wait_ms=
                    (boot=linux: clockbench-user --events, --event-wait-ms), COM1
                    alone is the console, and the timeout grows by each event's
                    time plus 15 s [none]
    console_reader=live|stalled  stalled: the runner reads nothing of QEMU's output
                    until QEMU has exited, the worst a busy host can do; the pipe
                    must hold all of it (tools/clockbench_lib/boot/process.py) [live]
    contend=on|off  a busy loop pinned beside each vCPU thread from before the guest
                    runs to the run's end, as `run --contend` [off]
    repeat=N        boot N times; each boot must pass the line, and every boot's
                    KTAP check names must be the same, in the same order [1]
    groups=a,b      groups for --group
    profile=check|measure|none  check: the image's measurements cut to what a test's
                    assertions need, guest options added unless args= gives them:
                    {check_options}; measure: the image's
                    defaults, for a test that asserts measured figures (tick
                    delivery, costs); only such a boot that measures ticks under TCG
                    runs alone; none: args= alone, for a test of the command line
                    itself [check; the linux boots take no profile]
  A test passes when the guest's verdict equals expect=, the regexes hold and the
  report, json and check assertions pass. A guest SKIP that was not expected makes the test a skip."""

TESTS_CFG = os.path.join("tests", "tests.cfg")  # relative to the repository root
KINDS = ("unit", "boot")
EXPECTS = ("pass", "fail", "skip")
BOOT_KEYS = ("boot", "machine", "machine_opts", "cpu", "cpu_features", "firmware", "console",
             "accel", "smp",
             "memory", "memory_check", "timeout", "args", "xen_args", "linux_args", "acpi_patch",
             "expect", "match",
             "nomatch", "report", "json", "check", "repeat", "groups", "profile", "event",
             "contend", "console_reader")
REPEATABLE_KEYS = ("match", "nomatch", "report", "json", "check", "event")
UNIT_KEYS = ("source",)
MAX_REPEAT = 5
# What a boot test's profile adds to its guest options (each unless args= gives it).  A
# check needs no tick measurements (about 1.6 s of a TCG boot) and none of the per-read
# loop's full second: 200 ms still gives every clock thousands of reads.  The noise phase's
# 20 ms spin still sees a busy host's gaps.  With several CPUs, a warp test of 20 ms a clock
# still hands off hundreds of times (even where every read traps, under Xen in TCG), and
# offsets followed over 100 ms still give a drift to fit: 0.7-0.9 s less a boot, on every
# vCPU.
PROFILE_OPTIONS = {
    "check": ("tick_rates=", "budget_ms=200", "noise_ms=20", "warp_ms=20", "drift_ms=100"),
    "measure": (),
    "none": (),  # args= alone: a test of the command line itself
}
PROFILES = tuple(PROFILE_OPTIONS)
FORMAT_HELP = FORMAT_HELP.replace("{check_options}", " ".join(PROFILE_OPTIONS["check"]))
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_GROUP = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class Value(str):
    """A value of tests.cfg, which knows where it was written (`where`: FILE:LINE), so that
    what is wrong with it names its own line."""

    where = None

    def __new__(cls, text, where=None):
        value = super().__new__(cls, text)
        value.where = where
        return value


def _at(where, value):
    """Where `value` was written when it knows, else `where` (the test's section)."""
    return getattr(value, "where", None) or where


@dataclass
class UnitTest:
    """A `[unit NAME]` section: host unit tests the Makefile builds and runs."""

    name: str
    line_no: int
    keys: dict


@dataclass
class BootTest:
    """A `[boot NAME]` section: one QEMU boot and what its console, its verdict and its
    report must show."""

    name: str
    line_no: int
    spec: qemu.BootSpec
    timeout_s: float
    expect: str = "pass"
    match: list = field(default_factory=list)
    nomatch: list = field(default_factory=list)
    report: list = field(default_factory=list)
    json: list = field(default_factory=list)  # jsonmatch.Expectation
    checks: list = field(default_factory=list)  # checkmatch.CheckExpectation
    repeat: int = 1
    groups: tuple = ()
    memory_check: bool = True  # refuse less RAM than the boot needs (qemu.check_memory)
    profile: str = "check"  # PROFILES; None for a boot that runs clockbench-user
    events: tuple = ()  # lifecycle.EventSpec, in order


def strip_comment(line):
    """Cut `line` at the first `#` that starts a word outside quotes, as a shell would."""
    quote = None
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def split_fields(line, where):
    """Split one line into words; RunnerError naming `where` when the quoting is broken."""
    try:
        return shlex.split(strip_comment(line))
    except ValueError as error:
        raise RunnerError(f"{where}: cannot split the line: {error}.") from None


def parse_key_values(words, where):
    """Turn `key=value` words into a dict of lists, in order; RunnerError on other words."""
    keys = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise RunnerError(f"{where}: '{word}' is not of the form key=value.")
        keys.setdefault(key, []).append(value)
    return keys


def _single(keys, key, where, default=None):
    """The one value of `key`, or `default`; RunnerError when given more than once."""
    values = keys.get(key)
    if not values:
        return default
    if len(values) > 1 and key not in REPEATABLE_KEYS:
        raise RunnerError(f"{_at(where, values[1])}: {key}= is given {len(values)} times; "
                          f"give it once.")
    return values[0]


def _choice(keys, key, choices, where, default):
    """A value that must be one of `choices`."""
    value = _single(keys, key, where, default)
    if value not in choices:
        raise RunnerError(f"{_at(where, value)}: {key}={value} is not one of "
                          f"{', '.join(choices)}.")
    return value


def _number(keys, key, where, default, convert=int, minimum=1):
    """A number of at least `minimum`."""
    value = _single(keys, key, where)
    if value is None:
        return default
    try:
        number = convert(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise RunnerError(f"{_at(where, value)}: {key}={value} is not a number of at least "
                          f"{minimum}.")
    return number


def _patterns(keys, key, where):
    """The regular expressions given for `key`, each checked to compile."""
    patterns = keys.get(key, [])
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise RunnerError(f"{_at(where, pattern)}: {key}={pattern} is not a valid regular "
                              f"expression: {error}.") from None
    return patterns


def _report_checks(keys, where, user):
    """The report checks named by report=, each one that reportchecks knows for the
    boot's document: the image's report, or clockbench-user's (`user`)."""
    names = keys.get("report", [])
    known = checks_for(user)
    for name in names:
        if name not in known:
            whose = f" of {osreport.OS_SCHEMA} documents (boots that run clockbench-user)" \
                if user else ""
            raise RunnerError(f"{_at(where, name)}: report={name} is not a report check{whose} "
                              f"(known: {', '.join(known)}).")
    return list(dict.fromkeys(names))


def _schema_file(user):
    """The schema of the boot's document, relative to the repository root."""
    return osreport.OS_FRAMING.schema_file if user else report.SCHEMA_FILE


@functools.lru_cache(maxsize=None)
def _report_schema(schema_file=report.SCHEMA_FILE):
    """A document schema (docs/report.schema.json by default), read once."""
    with open(paths.root_path(schema_file), encoding="utf-8") as schema:
        return json.load(schema)


def _json_expectations(keys, where, user):
    """The json= expectations, each parsed (jsonmatch) and its path one the schema of the
    boot's document defines."""
    expectations = []
    for text in keys.get("json", []):
        try:
            expectation = jsonmatch.parse(text)
        except ValueError as error:
            raise RunnerError(f"{_at(where, text)}: json={text}: {error}.") from None
        problem = jsonmatch.schema_problem(_report_schema(_schema_file(user)), expectation,
                                           _schema_file(user))
        if problem:
            raise RunnerError(f"{_at(where, text)}: json={text}: {problem}.")
        expectations.append(expectation)
    return expectations


def _check_expectations(keys, where):
    """The check= assertions, each parsed (checkmatch)."""
    expectations = []
    for text in keys.get("check", []):
        try:
            expectations.append(checkmatch.parse(text))
        except ValueError as error:
            raise RunnerError(f"{_at(where, text)}: check={text}: {error}.") from None
    return expectations


def _groups(keys, where):
    """The comma-separated group names."""
    value = _single(keys, "groups", where, "")
    groups = tuple(group for group in value.split(",") if group)
    for group in groups:
        if not _GROUP.match(group):
            raise RunnerError(f"{_at(where, value)}: '{group}' is not a valid group name.")
    return groups


def _repeat(keys, where):
    """How many boots repeat= asks for, at most MAX_REPEAT."""
    repeat = _number(keys, "repeat", where, 1)
    if repeat > MAX_REPEAT:
        raise RunnerError(f"{_at(where, keys['repeat'][0])}: repeat={repeat} is more than "
                          f"{MAX_REPEAT} boots.")
    return repeat


def _option_name(word):
    """The option a guest command-line word gives ("tick_rates" of "tick_rates=")."""
    return word.partition("=")[0]


def profile_cmdline(cmdline, profile):
    """The guest command line `cmdline` with what `profile` adds: each of its options that
    the line does not give itself, after the line's own (the image refuses an option
    given twice)."""
    words = guestopts.cmdline_words(cmdline)
    given = {_option_name(word) for word in words}
    added = [option for option in PROFILE_OPTIONS[profile]
             if _option_name(option) not in given]
    return " ".join(([cmdline] if words else []) + added)


def _profile(keys, where, user):
    """The profile= of a boot, None for a boot that runs clockbench-user (its options are
    not the image's)."""
    if user:
        if "profile" in keys:
            raise RunnerError(f"{_at(where, keys['profile'][0])}: profile= is for boots of the "
                              f"image; this boot runs clockbench-user, whose options args= "
                              f"gives as they are.")
        return None
    return _choice(keys, "profile", PROFILES, where, "check")


def parse_boot_test(name, keys, line_no, where):
    """Build a BootTest from the key=value words of a `boot` line."""
    unknown = [key for key in keys if key not in BOOT_KEYS]
    if unknown:
        raise RunnerError(f"{_at(where, keys[unknown[0]][0])}: unknown key '{unknown[0]}' "
                          f"(known keys: {', '.join(BOOT_KEYS)}).")
    boot = _choice(keys, "boot", qemu.BOOTS, where, "multiboot1")
    try:
        events = lifecycle.parse_events(keys.get("event", ()))
    except RunnerError as error:
        raise RunnerError(f"{_at(where, keys['event'][0])}: {error}") from None
    spec = qemu.BootSpec(
        boot=boot,
        machine=_choice(keys, "machine", qemu.MACHINES, where, qemu.default_machine(boot)),
        accel=_choice(keys, "accel", qemu.ACCELS, where, "tcg"),
        smp=_number(keys, "smp", where, 1),
        memory_mib=_number(keys, "memory", where, qemu.default_memory_mib(boot)),
        cmdline=_single(keys, "args", where, ""),
        machine_opts=_single(keys, "machine_opts", where, ""),
        cpu=_single(keys, "cpu", where, ""),
        cpu_features=_single(keys, "cpu_features", where, ""),
        xen_args=_single(keys, "xen_args", where, ""),
        linux_args=_single(keys, "linux_args", where, ""),
        firmware=_single(keys, "firmware", where, ""),
        console=_single(keys, "console", where, ""),
        acpi_patch=_single(keys, "acpi_patch", where, ""),
        contend=_choice(keys, "contend", ("on", "off"), where, "off") == "on",
        console_reader=("stalled" if _choice(keys, "console_reader", ("live", "stalled"),
                                             where, "live") == "stalled" else ""),
    )
    spec = lifecycle.with_events(spec, events)
    timeout_s = _number(keys, "timeout", where, qemu.default_timeout_s(spec.accel, spec.boot)
                        + lifecycle.extra_timeout_s(events), convert=float, minimum=0.1)
    profile = _profile(keys, where, spec.runs_user)
    spec = replace(spec, timeout_s=timeout_s,
                   cmdline=profile_cmdline(spec.cmdline, profile) if profile else spec.cmdline)
    try:
        qemu.validate_spec(spec)
        lifecycle.check_boot(spec, events)
    except RunnerError as error:
        raise RunnerError(f"{where}: {error}") from None
    return BootTest(
        name=name,
        line_no=line_no,
        spec=spec,
        timeout_s=timeout_s,
        expect=_choice(keys, "expect", EXPECTS, where, "pass"),
        match=_patterns(keys, "match", where),
        nomatch=_patterns(keys, "nomatch", where),
        report=_report_checks(keys, where, spec.runs_user),
        json=_json_expectations(keys, where, spec.runs_user),
        checks=_check_expectations(keys, where),
        repeat=_repeat(keys, where),
        groups=_groups(keys, where),
        memory_check=_choice(keys, "memory_check", ("on", "off"), where, "on") == "on",
        profile=profile,
        events=events,
    )


_SECTION = re.compile(r"^\[(?P<kind>\S+)\s+(?P<name>[^\]\s]+)\]$")
_KEY = re.compile(r"^[a-z][a-z_]*$")


def _section(line, where):
    """The (kind, name) of a `[KIND NAME]` line; RunnerError naming `where`."""
    match = _SECTION.match(line)
    if not match:
        raise RunnerError(f"{where}: '{line}' is not a section line: a test starts with "
                          f"[KIND NAME] (kinds: {', '.join(KINDS)}).")
    kind, name = match.group("kind"), match.group("name")
    if kind not in KINDS:
        raise RunnerError(f"{where}: unknown kind '{kind}' (known: {', '.join(KINDS)}).")
    if not _NAME.match(name):
        raise RunnerError(f"{where}: '{name}' is not a valid test name "
                          f"(letters, digits, '.', '_', '-').")
    return kind, name


def _key_value(line, where):
    """The (key, Value) of a `key = value` line; RunnerError naming `where`."""
    key, equals, value = line.partition("=")
    key = key.strip()
    if not equals or not _KEY.match(key):
        raise RunnerError(f"{where}: '{line}' is not of the form key = value.")
    return key, Value(value.strip(), where)


def _unit_test(name, keys, line_no, where):
    """Build a UnitTest from the keys of a `[unit NAME]` section: its sources."""
    unknown = [key for key in keys if key not in UNIT_KEYS]
    if unknown:
        raise RunnerError(f"{_at(where, keys[unknown[0]][0])}: unknown key '{unknown[0]}' "
                          f"of a unit test (known keys: {', '.join(UNIT_KEYS)}).")
    sources = [word for value in keys.get("source", []) for word in value.split()]
    if not sources:
        raise RunnerError(f"{where}: the unit test '{name}' names no source = FILE.")
    return UnitTest(name=name, line_no=line_no, keys={"source": sources})


def _sections(text, filename):
    """The sections of tests.cfg text: (kind, name, header line number, {key: [Value]})
    in file order; RunnerError names the line."""
    sections = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        where = f"{filename}:{line_no}"
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            kind, name = _section(stripped, where)
            sections.append((kind, name, line_no, {}))
            continue
        if not sections:
            raise RunnerError(f"{where}: '{stripped}' comes before the first test: a test "
                              f"starts with [KIND NAME].")
        key, value = _key_value(stripped, where)
        sections[-1][3].setdefault(key, []).append(value)
    return sections


def parse_tests_cfg(text, filename=TESTS_CFG):
    """Parse the whole file: every section is checked, names must be unique.

    Returns the UnitTest and BootTest objects in file order; RunnerError names the line.
    """
    tests = []
    seen = {}
    for kind, name, line_no, keys in _sections(text, filename):
        where = f"{filename}:{line_no}"
        if name in seen:
            raise RunnerError(f"{where}: test name '{name}' is already used on line "
                              f"{seen[name]}.")
        seen[name] = line_no
        tests.append(_unit_test(name, keys, line_no, where) if kind == "unit"
                     else parse_boot_test(name, keys, line_no, where))
    return tests


def load_tests_cfg(path, shown_name=None):
    """Read and parse the file at `path`; `shown_name` is how errors name it."""
    try:
        with open(path, encoding="utf-8") as cfg:
            text = cfg.read()
    except OSError as error:
        raise RunnerError(f"cannot read {shown_name or path}: {error.strerror}.") from None
    return parse_tests_cfg(text, shown_name or path)


def _did_you_mean(word, names):
    """" (did you mean 'x'?)" for the one of `names` nearest to `word`, or ""."""
    close = difflib.get_close_matches(word, list(names), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def select_boot_tests(tests, names=(), group=None, shown="tests.cfg"):
    """The boot tests named in `names` (all when empty) that belong to `group` (if given).

    RunnerError for a name that is no boot test, or a group no test is in (`shown` names
    the file).
    """
    boot_tests = [test for test in tests if isinstance(test, BootTest)]
    known = {test.name for test in boot_tests}
    for name in names:
        if name not in known:
            raise RunnerError(f"there is no boot test named '{name}' in "
                              f"{shown}{_did_you_mean(name, known)}.")
    groups = sorted({name for test in boot_tests for name in test.groups})
    if group and group not in groups:
        raise RunnerError(f"there is no group '{group}' in {shown}"
                          f"{_did_you_mean(group, groups)} (groups: {', '.join(groups)}).")
    chosen = [test for test in boot_tests if not names or test.name in names]
    if group:
        chosen = [test for test in chosen if group in test.groups]
    return chosen


# For the other files in this style (matrix's environment file).
NAME_PATTERN = _NAME
single_key = _single
choice_key = _choice
number_key = _number
