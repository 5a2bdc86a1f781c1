# SPDX-License-Identifier: MIT
"""`clockbench matrix`: boot the image in every environment this machine can run, N times.

Every run leaves DIR/ENV/run-K.log (the cleaned console) and, when the guest printed a valid
report, DIR/ENV/run-K.json; DIR/manifest.json says what ran where, with what, and why
anything did not.  A run that fails is recorded with its reason and the matrix goes on.
The xen-* environments boot the image as a Xen guest of each kind under TCG (docs/xen.md);
they are skipped, saying why, when Xen is not installed or their files cannot be built.
More environments come from an environment file (--env-file), one a line, in the
key=value style of tests/tests.cfg (ENV_FILE_HELP).
"""

import functools
import json
import os
import sys
from dataclasses import dataclass, replace

from ..base import paths
from ..model import histogram, report
from ..boot import cpumodel, guestopts, lifecycle, qemu, runinfo, xen
from ..testing import testlist
from ..boot.once import boot_once, build_images, check_image
from ..base.outcome import EXIT_FAIL, EXIT_PASS, RunnerError
from ..model.manifest import MANIFEST, MANIFEST_SCHEMA, MANIFEST_SCHEMA_0

# What an environment is run with; runs added to a folder must agree with its earlier ones.
ENTRY_SETUP = ("accel", "machine", "boot", "cpu", "smp", "guest_options", "xen_options",
               "events")
RESULTS_DIR = "results"
DEFAULT_REPEATS = 3
# A run's verdicts that make the matrix exit 1 although it gave a report: the guest judged
# its own checks failed (fail) or broken (error).
GUEST_FAILED = ("fail", "error")
MATRIX_SMP = 2  # two vCPUs, so that cross_cpu (warps, offsets, drift) is measured


@dataclass(frozen=True)
class Environment:
    """One column of the matrix: how to boot it."""

    name: str
    description: str
    accel: str = "tcg"
    machine: str = "pc"
    boot: str = "multiboot1"
    xen_args: str = ""       # appended to Xen's command line (the Xen boots)
    cpu: str = ""            # QEMU -cpu, "" for the accelerator's default (or KVM's choice)
    smp: int = MATRIX_SMP
    args: str = ""           # guest options
    source: str = "built in"  # or FILE:LINE of the environment file that gave it
    events: tuple = ()       # run --event's words, in order (docs/lifecycle.md)

    @property
    def event_specs(self):
        """The lifecycle.EventSpecs of `events`."""
        return lifecycle.parse_events(self.events)

    def spec(self, cpu=""):
        """The BootSpec of one run in this environment, with -cpu `cpu` when the
        environment names none ("" for the accelerator's default), and what its events
        need (lifecycle.with_events)."""
        events = self.event_specs
        return lifecycle.with_events(
            qemu.BootSpec(boot=self.boot, machine=self.machine, accel=self.accel,
                          smp=self.smp, memory_mib=qemu.default_memory_mib(self.boot),
                          xen_args=self.xen_args, cpu=self.cpu or cpu, cmdline=self.args,
                          timeout_s=(qemu.default_timeout_s(self.accel, self.boot)
                                     + lifecycle.extra_timeout_s(events)) if events else 0),
            events)

    @property
    def on_xen(self):
        """True for the environments that boot Xen."""
        return self.boot in xen.XEN_BOOTS

    @property
    def xen_options(self):
        """Xen's whole command line in this environment, or None without Xen."""
        return self.spec().xen_command_line


ENVIRONMENTS = (
    Environment("tcg-pc", "QEMU TCG, i440FX machine (pc)", accel="tcg", machine="pc"),
    Environment("tcg-q35", "QEMU TCG, Q35 machine", accel="tcg", machine="q35"),
    Environment("kvm-pc", "QEMU with KVM, i440FX machine (pc)", accel="kvm", machine="pc"),
    Environment("xen-pv-dom0", "Xen 4.17 PV dom0 under QEMU TCG (pc)", boot="xen"),
    Environment("xen-pvh-dom0", "Xen 4.17 PVH dom0 under QEMU TCG (q35 with an IOMMU, "
                "OVMF)", machine="q35", boot="xen-pvh-dom0"),
    Environment("xen-pv-domu", "Xen 4.17 PV domU of a Linux dom0, under QEMU TCG (pc)",
                boot="xen-pv-domu"),
    Environment("xen-pvh-domu", "Xen 4.17 PVH domU of a Linux dom0, under QEMU TCG (pc)",
                boot="xen-pvh-domu"),
    Environment("xen-hvm-domu", "Xen 4.17 HVM domU of a Linux dom0 (hvmloader, SeaBIOS, "
                "GRUB), under QEMU TCG (pc)", boot="xen-hvm-domu"),
    Environment("xen-hpet", "Xen 4.17 PV dom0 under QEMU TCG (pc), Xen booted with "
                "clocksource=hpet", boot="xen", xen_args="clocksource=hpet"),
    Environment("xen-tsc", "Xen 4.17 PV dom0 under QEMU TCG (pc), Xen booted with "
                "clocksource=tsc", boot="xen", xen_args="clocksource=tsc"),
    Environment("tcg-life", "QEMU TCG (pc) through a 1 s stop, a savevm with the VM running "
                "1 s before its loadvm, and a live migration", accel="tcg", machine="pc",
                events=("stop:1s", "savevm:1s", "migrate")),
    Environment("kvm-life", "QEMU with KVM (pc) through a 1 s stop, a savevm with the VM "
                "running 1 s before its loadvm, and a live migration", accel="kvm",
                machine="pc", events=("stop:1s", "savevm:1s", "migrate")),
    # One vCPU, as the results in docs/lifecycle.md were measured: with two, the PV
    # domU's pending one-shot timer fired early in two runs of three (not understood yet;
    # docs/lifecycle.md), while the PVH image's two come back from a save (xen-pvh-domu-2).
    Environment("xen-pv-life", "Xen 4.17 PV domU of a Linux dom0, under QEMU TCG (pc), one "
                "vCPU, through a 1 s xl pause and an xl save and restore", boot="xen-pv-domu",
                smp=1, events=("pause:1s", "save")),
    Environment("xen-pvh-life", "Xen 4.17 PVH domU of a Linux dom0, under QEMU TCG (pc), one "
                "vCPU, through a 1 s xl pause, an xl save and restore, and an xl migrate to "
                "the same host", boot="xen-pvh-domu", smp=1,
                events=("pause:1s", "save", "migrate")),
    # Xen saves and migrates the HVM domU with its device model, without asking the
    # image (docs/lifecycle.md).
    Environment("xen-hvm-life", "Xen 4.17 HVM domU of a Linux dom0 (hvmloader, SeaBIOS, "
                "GRUB), under QEMU TCG (pc), one vCPU, through a 1 s xl pause, an xl save "
                "and restore, and an xl migrate to the same host", boot="xen-hvm-domu",
                smp=1, events=("pause:1s", "save", "migrate")),
)
ENVIRONMENT_NAMES = tuple(env.name for env in ENVIRONMENTS)

ENV_FILE_KEYS = ("accel", "machine", "boot", "cpu", "smp", "xen_args", "args", "event",
                 "description")
ENV_FILE_HELP = """\
environment file (--env-file):
  One environment a line, `env NAME key=value...`, split like a shell would (as
  tests/tests.cfg); `#` at the start of a word begins a comment. Keys [defaults]:
  accel=tcg|kvm [tcg]  machine=pc|q35 [the boot's]  boot=BOOT [multiboot1]
  cpu=MODEL [the accelerator's]  smp=N [2]  xen_args="Xen options" [none]
  args="guest options" [none]  event=KIND[:TIME] [none; repeatable, in order, as
  run --event]  description="words" [from the keys]
  e.g.  env tcg-epyc accel=tcg cpu=EPYC args="tick_rates=100"
        env xen-tsc-4 boot=xen smp=4 xen_args="clocksource=tsc"
        env tcg-stop3 event=stop:3s event=migrate
  A bad line is an error (exit 2) naming FILE:LINE."""


def _env_description(keys, events=()):
    """What an environment file's line asks for, in words, when it gives no description."""
    return " ".join([f"{key}={value}" for key, value in keys.items()]
                    + [f"event={event}" for event in events]) or "the defaults"


def parse_env_line(words, where, taken):
    """An Environment from the words of one environment-file line; RunnerError naming
    `where` (FILE:LINE) for a bad one.  `taken` holds the names already in use."""
    if words[0] != "env":
        raise RunnerError(f"{where}: a line must start with 'env', not '{words[0]}'.")
    if len(words) < 2 or "=" in words[1]:
        raise RunnerError(f"{where}: an env line needs a name after 'env'.")
    name = words[1]
    if not testlist.NAME_PATTERN.match(name):
        raise RunnerError(f"{where}: '{name}' is not a valid environment name "
                          f"(letters, digits, '.', '_', '-').")
    if name in taken:
        raise RunnerError(f"{where}: the environment name '{name}' is already used "
                          f"({taken[name]}).")
    keys = testlist.parse_key_values(words[2:], where)
    unknown = [key for key in keys if key not in ENV_FILE_KEYS]
    if unknown:
        raise RunnerError(f"{where}: unknown key '{unknown[0]}' "
                          f"(known keys: {', '.join(ENV_FILE_KEYS)}).")
    boot = testlist.choice_key(keys, "boot", qemu.BOOTS, where, "multiboot1")
    single = {key: testlist.single_key(keys, key, where, "") for key in keys
              if key != "event"}
    env = Environment(
        name=name,
        description=single.get("description") or _env_description(
            {key: value for key, value in single.items() if key != "description"},
            keys.get("event", ())),
        accel=testlist.choice_key(keys, "accel", qemu.ACCELS, where, "tcg"),
        machine=testlist.choice_key(keys, "machine", qemu.MACHINES, where,
                                    qemu.default_machine(boot)),
        boot=boot,
        cpu=single.get("cpu", ""),
        smp=testlist.number_key(keys, "smp", where, MATRIX_SMP),
        xen_args=single.get("xen_args", ""),
        args=single.get("args", ""),
        source=where,
        events=tuple(keys.get("event", ())))
    try:
        qemu.validate_spec(env.spec())
        lifecycle.check_boot(env.spec(), env.event_specs)
    except RunnerError as error:
        raise RunnerError(f"{where}: {error}") from None
    return env


def load_env_file(path, taken=None):
    """The environments of the file at `path`, in order; RunnerError naming FILE:LINE for
    a line that is not one, or the file when it cannot be read.  `taken` maps the names
    already in use (the built-in ones by default) to where they come from."""
    taken = dict(taken if taken is not None else {name: "built in" for name in
                                                  ENVIRONMENT_NAMES})
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise RunnerError(f"cannot read the environment file {path}: {reason}.") from None
    environments = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        where = f"{path}:{line_no}"
        words = testlist.split_fields(line, where)
        if not words:
            continue
        env = parse_env_line(words, where, taken)
        taken[env.name] = where
        environments.append(env)
    return environments


def with_command_line(env, guest_options="", xen_args="", cpu="", smp=None):
    """`env` with what the matrix's command line adds to every environment: guest options
    after its own, Xen options after its own (Xen environments only), and -cpu and --smp
    in place of its own when given."""
    return replace(env,
                   args=" ".join(part for part in (env.args, guest_options) if part),
                   xen_args=(" ".join(part for part in (env.xen_args, xen_args) if part)
                             if env.on_xen else env.xen_args),
                   cpu=cpu or env.cpu,
                   smp=smp or env.smp)


def skip_reason(env, kvm_status=qemu.kvm_status, xen_gz=xen.XEN_GZ, kvm_choice=None):
    """Why `env` cannot run on this machine before anything is built, or None.

    Under KVM, `kvm_choice()` (cpumodel) says which CPU model starts; none is a reason.
    """
    if env.accel == "kvm":
        usable, reason = kvm_status()
        if not usable:
            return reason
        if env.cpu:  # a model the user gave is used as it is, as `run` does
            return None
        choice = kvm_choice()
        if choice.model is None:
            return choice.reason
    if env.on_xen and not os.path.exists(xen_gz):
        return qemu.missing_dependency_message(xen_gz)
    return None


def missing_file_reason(env, root, built):
    """Why `env` cannot run because a file it boots is missing under `root`, or None."""
    for target in env.spec().build_targets:
        if not os.path.isfile(os.path.join(root, target)):
            hint = "" if built else f"; run `make {target}` or drop --no-build"
            return f"{target} does not exist{hint}"
    return None


def prepare_environments(chosen, reasons, root, build):
    """Build (unless not `build`) and check the files of every runnable environment.

    A QEMU environment's missing image stops the matrix (RunnerError); a Xen
    environment whose files cannot be built or are missing is skipped instead, with the
    reason stored in `reasons`: Xen's PV image may not be built on every checkout.
    """
    runnable = [env for env in chosen if reasons[env.name] is None]
    native = [env for env in runnable if not env.on_xen]
    on_xen = [env for env in runnable if env.on_xen]
    targets = list(dict.fromkeys(t for env in native for t in env.spec().build_targets))
    if build and targets:
        build_images(root, targets)
    for target in targets:
        check_image(root, target, built=build)
    xen_targets = list(dict.fromkeys(t for env in on_xen for t in env.spec().build_targets))
    if build and xen_targets:
        try:
            build_images(root, xen_targets)
        except RunnerError as error:
            for env in on_xen:
                reasons[env.name] = str(error)
    for env in on_xen:
        if reasons[env.name] is None:
            reasons[env.name] = missing_file_reason(env, root, build)


def invocation_entry(number, repeats, started, passed):
    """The manifest's record of one `matrix` command that added runs to the folder."""
    return {"number": number, "started_utc": runinfo.iso_utc(started),
            "argv": runinfo.argv(), "revision": runinfo.clockbench_revision(),
            "repeats": repeats, "passed": passed or {}}


def new_manifest(out_dir, repeats, started, with_xen=False, passed=None):
    """The manifest before any run: host, versions, date, the invocation, and no
    environments yet.

    `xen_version` is the installed Xen package's version when `with_xen` (a Xen
    environment was chosen) and the package is there, else null.  `passed` is what the
    command line passed to every environment (guest options, cpu, xen_args, smp,
    env_file), recorded as `passed` (of the first invocation; each invocation's own is in
    `invocations`).
    """
    return {
        "schema": MANIFEST_SCHEMA,
        "date_utc": runinfo.iso_utc(started),
        "host": runinfo.host_facts(),
        "qemu_version": runinfo.qemu_version(qemu.qemu_program()),
        "xen_version": runinfo.xen_version() if with_xen else None,
        "repeats": repeats,
        "smp": MATRIX_SMP,
        "passed": passed or {},
        "invocations": [invocation_entry(1, repeats, started, passed)],
        "environments": [],
    }


def folder_entries(out_dir):
    """What is in `out_dir` (sorted names), or [] when it does not exist."""
    try:
        return sorted(os.listdir(out_dir))
    except FileNotFoundError:
        return []
    except OSError as error:
        raise RunnerError(f"cannot read {out_dir}: {error.strerror}.") from None


def _earlier_manifest(out_dir):
    """The manifest of the matrix folder `out_dir` that runs are added to (--add), brought
    to MANIFEST_SCHEMA; RunnerError when there is none or it is not one."""
    path = os.path.join(out_dir, MANIFEST)
    if not os.path.isfile(path):
        raise RunnerError(f"--add: {out_dir} has no {MANIFEST}, so it is not a matrix folder "
                          f"to add to; choose an empty or new --out.")
    try:
        with open(path, encoding="utf-8") as text:
            manifest = json.load(text)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise RunnerError(f"--add: cannot read {path}: "
                          f"{getattr(error, 'strerror', None) or error}.") from None
    if not isinstance(manifest, dict) or manifest.get("schema") not in (MANIFEST_SCHEMA,
                                                                         MANIFEST_SCHEMA_0):
        raise RunnerError(f"--add: {path} is not a {MANIFEST_SCHEMA} manifest.")
    if not isinstance(manifest.get("environments"), list) or not all(
            isinstance(env, dict) and isinstance(env.get("runs"), list)
            for env in manifest["environments"]):
        raise RunnerError(f"--add: {path}: 'environments' is not a list of environments "
                          f"with their runs.")
    if manifest["schema"] == MANIFEST_SCHEMA_0:  # one invocation, host without its name
        old_host = manifest.get("host") or {}
        manifest["schema"] = MANIFEST_SCHEMA
        manifest["host"] = {"name": None,
                            "cpu": {"model": old_host.get("cpu"), "vendor": None},
                            "kernel": old_host.get("kernel")}
        manifest["invocations"] = [{"number": 1, "started_utc": manifest.get("date_utc"),
                                    "argv": None, "revision": None,
                                    "repeats": manifest.get("repeats"),
                                    "passed": manifest.get("passed") or {}}]
        for env in manifest["environments"]:
            for run in env["runs"]:
                if isinstance(run, dict):
                    run.setdefault("invocation", 1)
    return manifest


def _host_words(host):
    """A manifest's host as words: 'NAME (CPU MODEL)'."""
    cpu = (host.get("cpu") or {}).get("model") if isinstance(host.get("cpu"), dict) \
        else host.get("cpu")
    return f"{host.get('name') or 'an unnamed host'} ({cpu or 'CPU unknown'})"


def add_to_manifest(out_dir, repeats, started, passed):
    """The earlier manifest of `out_dir` with this invocation added (--add); RunnerError
    when its runs come from another host, whose results must not share a folder."""
    manifest = _earlier_manifest(out_dir)
    here = runinfo.host_facts()
    there = manifest.get("host") or {}
    if there.get("name") is not None and (there.get("name") != here["name"] or (
            there.get("cpu") or {}).get("model") != here["cpu"]["model"]):
        raise RunnerError(f"--add: {out_dir} holds runs of {_host_words(there)}, and this is "
                          f"{_host_words(here)}: one folder holds one host's runs, so choose "
                          f"another --out.")
    if there.get("name") is None:
        if (there.get("cpu") or {}).get("model") not in (None, here["cpu"]["model"]):
            raise RunnerError(f"--add: {out_dir} holds runs of a host with another CPU "
                              f"({there['cpu']['model']}; this one has "
                              f"{here['cpu']['model']}), so choose another --out.")
        manifest["host"] = here
    invocations = manifest.setdefault("invocations", [])
    number = max((inv.get("number", 0) for inv in invocations if isinstance(inv, dict)),
                 default=0) + 1
    invocations.append(invocation_entry(number, repeats, started, passed))
    return manifest


def setup_difference(earlier, entry):
    """How `entry` (this invocation's environment) is run differently from the `earlier`
    entry of the same name, in words, or None when it is run the same way."""
    for key in ENTRY_SETUP:
        if key in earlier and earlier[key] != entry[key]:
            return (f"{key} {json.dumps(earlier[key])} before, {json.dumps(entry[key])} "
                    f"now")
    return None


def write_manifest(out_dir, manifest):
    """(Re)write DIR/manifest.json, after every run so that an interrupted matrix keeps it."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as out:
            json.dump(manifest, out, indent=2)
            out.write("\n")
        os.replace(path + ".tmp", path)
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None


def run_once(env, number, out_dir, timeout_s, cpu="", cpu_choice=None, before=None,
             invocation=1):
    """Boot `env` once as run `number` with -cpu `cpu` (chosen because `cpu_choice`);
    returns the manifest entry of that run.  `before` is boot_once()'s (-v).  Every run
    leaves its record (report.SCHEMA, with the guest's report when it gave a valid one)
    in run-K.json; `report` in the entry says whether it holds the guest's report."""
    env_dir = os.path.join(out_dir, env.name)
    log_path = os.path.join(env_dir, f"run-{number}.log")
    json_path = os.path.join(env_dir, f"run-{number}.json")
    spec = env.spec(cpu)
    outcome = boot_once(spec, paths.ROOT, spec.timeout_s or timeout_s,
                        os.path.join(env_dir, "work"), log_path, before=before,
                        events=env.event_specs)
    outcome.cpu_choice = cpu_choice
    document = None
    if outcome.verdict in ("pass", "fail", "skip"):
        try:
            document = report.load_report(outcome.lines, log_path)
            document = dict(document, schema=report.SCHEMA)  # an older guest's clockbench/1
        except RunnerError as error:
            outcome.verdict, outcome.reason = "error", str(error)
    record = outcome.record(document)
    record["runner"]["environment"] = env.name
    try:
        with open(json_path, "w", encoding="utf-8") as out:
            out.write(histogram.dumps(record) + "\n")
    except OSError as error:
        raise RunnerError(f"cannot write {json_path}: {error.strerror}.") from None
    return {"run": number, "invocation": invocation, "verdict": outcome.verdict,
            "reason": record["reason"], "seconds": round(outcome.seconds, 3),
            "qemu_command": outcome.command, "log": os.path.relpath(log_path, out_dir),
            "json": os.path.relpath(json_path, out_dir), "report": document is not None,
            "xen": outcome.xen_facts.to_json() if outcome.xen_facts else None}


def xen_note(facts):
    """What a progress line says about Xen's platform timer ("" without Xen)."""
    if not facts:
        return ""
    if not facts["platform_timer"]:
        return "; Xen's platform timer: not in the log"
    asked = facts["clocksource"]
    kept = (f", asked for clocksource={asked}"
            if asked and xen.CLOCKSOURCE_NAMES.get(asked) != facts["platform_timer"] else "")
    return (f"; Xen's platform timer: {facts['platform_timer_mhz']:.3f} MHz "
            f"{facts['platform_timer']}{kept}")


def default_out_dir(now):
    """results/<UTC date-time> under the repository root, or for an installed runner
    under the current folder."""
    name = os.path.join(RESULTS_DIR, now.strftime("%Y%m%dT%H%M%SZ"))
    return os.path.abspath(name) if paths.installed() else paths.root_path(name)


def progress(message):
    """One progress line on the terminal, on stderr: stdout is left for what a caller
    pipes (nothing, today), as every runner message is."""
    print(f"clockbench matrix: {message}", file=sys.stderr, flush=True)


def choose_environments(names, env_file=None):
    """The environments named (all, built in and from `env_file`, when `names` is empty),
    in the built-in order and then the file's; RunnerError for a name that is neither."""
    known = list(ENVIRONMENTS) + (load_env_file(env_file) if env_file else [])
    unknown = [name for name in names or () if name not in {env.name for env in known}]
    if unknown:
        raise RunnerError(f"there is no environment named '{unknown[0]}' (known: "
                          f"{', '.join(env.name for env in known)}).")
    return [env for env in known if not names or env.name in names]


def check_guest_options(chosen, root, build):
    """Refuse (RunnerError, exit 2) before any boot an environment whose guest options
    the image would refuse, by the image's own table (guestopts); say so and go on when
    the table is missing."""
    if not any(env.args.strip() for env in chosen):
        return
    if build:
        build_images(root, [guestopts.OPTIONS_FILE])
    table = guestopts.load_table()
    if table is None:
        progress(guestopts.table_note())
        return
    for env in chosen:
        try:
            guestopts.check_cmdline(env.args, table)
        except RunnerError as error:
            raise RunnerError(f"environment {env.name}: {error}") from None


def _check_out_dir(out_dir, add):
    """Refuse a folder with files in it unless runs are to be added to it (--add), so
    that no earlier result is hidden or overwritten."""
    found = folder_entries(out_dir)
    if found and not add:
        shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
        raise RunnerError(f"{out_dir} is not empty ({shown}): --add adds this matrix's runs "
                          f"to the earlier ones there, or choose a new --out.")
    return bool(found)


def _environment_entry(manifest, entry, out_dir):
    """The manifest's entry for `entry`'s environment: the earlier one of that name (its
    runs kept), or `entry` appended.  RunnerError when the earlier one was run otherwise
    (runs of two setups must not share a name)."""
    earlier = next((env for env in manifest["environments"] if env.get("name") ==
                    entry["name"]), None)
    if earlier is None:
        manifest["environments"].append(entry)
        return entry
    if entry["skipped"]:
        return earlier
    if earlier["runs"] and (difference := setup_difference(earlier, entry)):
        raise RunnerError(f"--add: {entry['name']} in {out_dir} was run otherwise ("
                          f"{difference}); add to another --out so that they are not mixed.")
    runs = earlier["runs"]
    earlier.update(entry, runs=runs)
    return earlier


def cmd_matrix(args):
    """`clockbench matrix`: run every environment `args.repeats` times; see the module doc."""
    report.require_jsonschema()
    started = runinfo.utc_now()
    out_dir = os.path.abspath(args.out or default_out_dir(started))
    add = getattr(args, "add", False)
    if add and not args.out:
        raise RunnerError("--add adds runs to the matrix folder --out names: give --out DIR.")
    adding = _check_out_dir(out_dir, add)
    chosen = [with_command_line(env, " ".join(args.guest_options), args.xen_args, args.cpu,
                                args.smp)
              for env in choose_environments(args.env, args.env_file)]
    passed = {"guest_options": " ".join(args.guest_options), "cpu": args.cpu or None,
              "xen_args": args.xen_args, "smp": args.smp, "env_file": args.env_file}
    manifest = (add_to_manifest(out_dir, args.repeats, started, passed) if adding else
                new_manifest(out_dir, args.repeats, started,
                             with_xen=any(env.on_xen for env in chosen), passed=passed))
    invocation = manifest["invocations"][-1]["number"]
    check_guest_options(chosen, paths.ROOT, not args.no_build)
    kvm_choice = functools.lru_cache(maxsize=None)(lambda: cpumodel.choose_for(paths.work_root()))
    reasons = {env.name: skip_reason(env, kvm_choice=kvm_choice) for env in chosen}
    if any(reason is None for reason in reasons.values()):
        qemu.check_dependencies([qemu.qemu_program()])
        prepare_environments(chosen, reasons, paths.ROOT, not args.no_build)
    runnable = [env for env in chosen if reasons[env.name] is None]
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise RunnerError(f"cannot create {out_dir}: {error.strerror}.") from None
    if adding and manifest.get("xen_version") is None and any(env.on_xen for env in chosen):
        manifest["xen_version"] = runinfo.xen_version()
    progress(f"{len(runnable)} of {len(chosen)} environments can run here, "
             f"{args.repeats} run{'s' * (args.repeats != 1)} each, results in {out_dir}"
             + (f" (adding to its earlier runs, as invocation {invocation})" if adding
                else ""))
    failed = guest_failed = 0
    for env in chosen:
        runnable_kvm = env.accel == "kvm" and not env.cpu and reasons[env.name] is None
        cpu, cpu_choice = ((kvm_choice().model, kvm_choice().reason) if runnable_kvm
                           else ("", None))
        entry = _environment_entry(manifest, {
            "name": env.name, "description": env.description, "source": env.source,
            "accel": env.accel, "machine": env.machine, "boot": env.boot,
            "cpu": env.spec(cpu).cpu_option, "cpu_choice": cpu_choice,
            "smp": env.smp, "guest_options": env.args, "events": list(env.events),
            "xen_options": env.xen_options,
            "skipped": reasons[env.name] is not None, "reason": reasons[env.name],
            "runs": []}, out_dir)
        if reasons[env.name] is not None:
            progress(f"{env.name}: skipped: {reasons[env.name]}")
            manifest["invocations"][-1].setdefault("skipped", {})[env.name] = reasons[env.name]
            write_manifest(out_dir, manifest)
            continue
        os.makedirs(os.path.join(out_dir, env.name), exist_ok=True)
        timeout_s = qemu.default_timeout_s(env.accel, env.boot)
        first = max((run.get("run", 0) for run in entry["runs"] if isinstance(run, dict)),
                    default=0) + 1
        for number in range(first, first + args.repeats):
            shown = f"run {number}" + (f" ({number - first + 1}/{args.repeats})"
                                       if first > 1 else f"/{args.repeats}")
            progress(f"{env.name}: {shown} ...")
            run = run_once(env, number, out_dir, timeout_s, cpu, cpu_choice,
                           before=getattr(args, "announce", None), invocation=invocation)
            entry["runs"].append(run)
            write_manifest(out_dir, manifest)
            status = run["verdict"].upper() if run["report"] else "FAILED"
            reason = f": {run['reason']}" if run["reason"] and not run["report"] else ""
            progress(f"{env.name}: {shown} {status} "
                     f"({run['seconds']:.1f} s){reason}{xen_note(run['xen'])}")
            failed += not run["report"]
            guest_failed += bool(run["report"]) and run["verdict"] in GUEST_FAILED
    write_manifest(out_dir, manifest)
    progress(f"done: {out_dir} ({failed} run{'s' * (failed != 1)} without a report, "
             f"{guest_failed} the guest judged FAIL or ERROR); compare with "
             f"`tools/clockbench compare {os.path.relpath(out_dir)}`")
    return EXIT_FAIL if failed or guest_failed else EXIT_PASS
