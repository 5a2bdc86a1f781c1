# SPDX-License-Identifier: MIT
"""`clockbench matrix`: boot the image in every environment this machine can run, N times.

Every run leaves DIR/ENV/run-K.log (the cleaned console) and, when the guest printed a valid
report, DIR/ENV/run-K.json; DIR/manifest.json says what ran where, with what, and why
anything did not.  A run that fails is recorded with its reason and the matrix goes on.
The xen-* environments boot the image as a Xen guest of each kind under TCG (docs/xen.md);
they are skipped, saying why, when Xen is not installed or their files cannot be built.
"""

import datetime
import functools
import json
import os
from dataclasses import dataclass

from . import cpumodel, hostinfo, paths, qemu, report, xen
from .boot import boot_once, build_images, check_image
from .outcome import EXIT_FAIL, EXIT_PASS, RunnerError

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "clockbench-matrix/0"
RESULTS_DIR = "results"
DEFAULT_REPEATS = 3
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

    def spec(self, cpu=""):
        """The BootSpec of one run in this environment, with -cpu `cpu` ("" for the
        accelerator's default)."""
        return qemu.BootSpec(boot=self.boot, machine=self.machine, accel=self.accel,
                             smp=MATRIX_SMP, memory_mib=qemu.default_memory_mib(self.boot),
                             xen_args=self.xen_args, cpu=cpu)

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
)
ENVIRONMENT_NAMES = tuple(env.name for env in ENVIRONMENTS)


def skip_reason(env, kvm_status=qemu.kvm_status, xen_gz=xen.XEN_GZ, kvm_choice=None):
    """Why `env` cannot run on this machine before anything is built, or None.

    Under KVM, `kvm_choice()` (cpumodel) says which CPU model starts; none is a reason.
    """
    if env.accel == "kvm":
        usable, reason = kvm_status()
        if not usable:
            return reason
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


def new_manifest(out_dir, repeats, started, with_xen=False):
    """The manifest before any run: host, versions, date, and no environments yet.

    `xen_version` is the installed Xen package's version when `with_xen` (a Xen
    environment was chosen) and the package is there, else null.
    """
    return {
        "schema": MANIFEST_SCHEMA,
        "date_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": {
            "cpu": hostinfo.host_cpu(),
            "kernel": hostinfo.kernel(),
        },
        "qemu_version": hostinfo.first_line([qemu.qemu_program(), "--version"]),
        "xen_version": xen.installed_version() if with_xen else None,
        "repeats": repeats,
        "smp": MATRIX_SMP,
        "environments": [],
    }


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


def run_once(env, number, out_dir, timeout_s, cpu="", cpu_choice=None, before=None):
    """Boot `env` once as run `number` with -cpu `cpu` (chosen because `cpu_choice`);
    returns the manifest entry of that run.  `before` is boot_once()'s (-v)."""
    env_dir = os.path.join(out_dir, env.name)
    log_path = os.path.join(env_dir, f"run-{number}.log")
    json_path = os.path.join(env_dir, f"run-{number}.json")
    outcome = boot_once(env.spec(cpu), paths.ROOT, timeout_s,
                        os.path.join(env_dir, "work"), log_path, before=before)
    outcome.cpu_choice = cpu_choice
    entry = {"run": number, "verdict": outcome.verdict, "reason": outcome.reason,
             "seconds": round(outcome.seconds, 3), "qemu_command": outcome.command,
             "log": os.path.relpath(log_path, out_dir), "json": None,
             "xen": outcome.xen_facts.to_json() if outcome.xen_facts else None}
    if outcome.verdict in ("pass", "fail", "skip"):
        try:
            document = report.load_report(outcome.lines, log_path)
        except RunnerError as error:
            entry["verdict"], entry["reason"] = "error", str(error)
        else:
            with open(json_path, "w", encoding="utf-8") as out:
                json.dump(dict(document, runner=outcome.runner_json()), out, indent=2)
                out.write("\n")
            entry["json"] = os.path.relpath(json_path, out_dir)
    return entry


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
    """results/<UTC date-time> under the repository root."""
    return paths.root_path(RESULTS_DIR, now.strftime("%Y%m%dT%H%M%SZ"))


def progress(message):
    """One progress line on the terminal."""
    print(f"clockbench matrix: {message}", flush=True)


def cmd_matrix(args):
    """`clockbench matrix`: run every environment `args.repeats` times; see the module doc."""
    report.require_jsonschema()
    started = datetime.datetime.now(datetime.timezone.utc)
    out_dir = os.path.abspath(args.out or default_out_dir(started))
    chosen = [env for env in ENVIRONMENTS if not args.env or env.name in args.env]
    kvm_choice = functools.lru_cache(maxsize=None)(lambda: cpumodel.choose_for(paths.ROOT))
    reasons = {env.name: skip_reason(env, kvm_choice=kvm_choice) for env in chosen}
    if any(reason is None for reason in reasons.values()):
        qemu.check_dependencies([qemu.qemu_program()])
        prepare_environments(chosen, reasons, paths.ROOT, not args.no_build)
    runnable = [env for env in chosen if reasons[env.name] is None]
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise RunnerError(f"cannot create {out_dir}: {error.strerror}.") from None
    manifest = new_manifest(out_dir, args.repeats, started,
                            with_xen=any(env.on_xen for env in chosen))
    progress(f"{len(runnable)} of {len(chosen)} environments can run here, "
             f"{args.repeats} run{'s' * (args.repeats != 1)} each, results in {out_dir}")
    failed = 0
    for env in chosen:
        runnable_kvm = env.accel == "kvm" and reasons[env.name] is None
        cpu, cpu_choice = ((kvm_choice().model, kvm_choice().reason) if runnable_kvm
                           else ("", None))
        entry = {"name": env.name, "description": env.description, "accel": env.accel,
                 "machine": env.machine, "boot": env.boot,
                 "cpu": env.spec(cpu).cpu_option, "cpu_choice": cpu_choice,
                 "xen_options": env.xen_options,
                 "skipped": reasons[env.name] is not None, "reason": reasons[env.name],
                 "runs": []}
        manifest["environments"].append(entry)
        if entry["skipped"]:
            progress(f"{env.name}: skipped: {entry['reason']}")
            write_manifest(out_dir, manifest)
            continue
        os.makedirs(os.path.join(out_dir, env.name), exist_ok=True)
        timeout_s = qemu.default_timeout_s(env.accel, env.boot)
        for number in range(1, args.repeats + 1):
            progress(f"{env.name}: run {number}/{args.repeats} ...")
            run = run_once(env, number, out_dir, timeout_s, cpu, cpu_choice,
                           before=getattr(args, "announce", None))
            entry["runs"].append(run)
            write_manifest(out_dir, manifest)
            status = run["verdict"].upper() if run["json"] else "FAILED"
            reason = f": {run['reason']}" if run["reason"] and not run["json"] else ""
            progress(f"{env.name}: run {number}/{args.repeats} {status} "
                     f"({run['seconds']:.1f} s){reason}{xen_note(run['xen'])}")
            failed += run["json"] is None
    progress(f"done: {out_dir} ({failed} run{'s' * (failed != 1)} without a report); "
             f"compare with `tools/clockbench compare {os.path.relpath(out_dir)}`")
    return EXIT_FAIL if failed else EXIT_PASS
