# SPDX-License-Identifier: MIT
"""The `lava` command: `lava job` writes a LAVA job of the image, `lava device` the device
configuration a lab renders for it (for `lava-run` without a server, or a lab's device
dictionary), `lava results` checks a job's log and rebuilds the run's record
(docs/lava.md)."""

import argparse
import sys

from ..base.outcome import INTERRUPTED_EXITS, RunnerError
from ..boot import guestopts, qemu
from ..boot.runner import say
from ..model.record import write_json
from . import jobs, results


def yaml_text(document):
    """`document` as block YAML, in the order it was built, with no anchors (a reader
    sees each timeout where it applies) and each pattern on one line."""
    import yaml  # pylint: disable=import-outside-toplevel  (only the lava command needs it)

    class Dumper(yaml.SafeDumper):  # pylint: disable=too-many-ancestors
        def ignore_aliases(self, data):
            return True

    return yaml.dump(document, Dumper=Dumper, sort_keys=False, default_flow_style=False,
                     width=4096)


def _write(path, text):
    if path in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        raise RunnerError(f"cannot write {path}: {error.strerror}.") from None


def _read_yaml(path, what):
    import yaml  # pylint: disable=import-outside-toplevel
    try:
        with open(path, encoding="utf-8") as source:
            return yaml.safe_load(source)
    except OSError as error:
        raise RunnerError(f"cannot read {path}: {error.strerror}.") from None
    except yaml.YAMLError as error:
        raise RunnerError(f"{path}: not YAML, so not {what} ({error}).".replace("\n", " ")) \
            from None


def cmd_lava_job(args):
    """`lava job`: the job's YAML on stdout or in --out."""
    cmdline = " ".join(([args.options] if args.options else []) + list(args.guest_options))
    spec = jobs.JobSpec(device=args.device, boot=args.boot, accel=args.accel, smp=args.smp,
                        memory_mib=args.memory, machine=args.machine,
                        image_url=args.image_url, cmdline=cmdline, name=args.name,
                        timeout_s=args.timeout, device_type=args.device_type,
                        tags=args.tag or [])
    spec.validate()
    table = guestopts.load_table()
    if cmdline and table is not None:
        guestopts.check_cmdline(cmdline, table)
    _write(args.out, yaml_text(jobs.job_definition(spec)))
    return 0


def cmd_lava_device(args):
    """`lava device`: the device configuration for a job (qemu), for the hardware jobs'
    validation, or a lab's device dictionary."""
    if args.dictionary:
        _write(args.out, jobs.device_dictionary(args.hostname))
    elif args.hardware:
        _write(args.out, yaml_text(jobs.hardware_device(jobs.check_hostname(args.hostname))))
    else:
        if not args.job:
            raise RunnerError("lava device needs a JOB (a qemu job this tool wrote), "
                              "--hardware or --dictionary.")
        job = _read_yaml(args.job, "a LAVA job")
        if not isinstance(job, dict):
            raise RunnerError(f"{args.job}: not a LAVA job (not a mapping).")
        device = jobs.qemu_device(job.get("context"))
        device["hostname"] = jobs.check_hostname(args.hostname)
        _write(args.out, yaml_text(device))
    return 0


def cmd_lava_results(args):
    """`lava results`: check a job log, print what it holds, write the record."""
    check = results.check_log(args.log, device=jobs.check_hostname(args.device),
                              job_id=args.job_id)
    if check.lab_error:
        say("lava results", check.lab_error)
        return check.status
    if args.json and check.record is not None:
        write_json(args.json, check.record)
    out = sys.stderr if args.json == "-" else sys.stdout
    print(f"lava results: {args.log}: {check.summary}.", file=out, flush=True)
    for failed in check.failed:
        print(f"  failed: {failed}", file=out)
    for problem in check.problems:
        print(f"  {problem}.", file=out)
    verdict = {results.EXIT_CLEAN: "PASS", results.EXIT_CASE_FAILED: "FAIL"}.get(
        check.status, "ERROR")
    print(f"lava results: {verdict} ({len(check.failed)} failed case(s), "
          f"{len(check.problems)} problem(s))", file=out, flush=True)
    return check.status


def add_lava_parser(subparsers):
    """The `lava` subcommand and its three commands."""
    parser = subparsers.add_parser(
        "lava", help="LAVA: write a job of the image, a device configuration, or check a "
                     "job's results",
        description="Run clockbench in a LAVA lab (docs/lava.md): `lava job` writes a job,\n"
                    "`lava device` the device configuration for it, `lava results` checks\n"
                    "a job's log and rebuilds the run's record for `compare`.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="lava_command", metavar="{job,device,results}")
    commands.required = True

    job = commands.add_parser(
        "job", help="write a LAVA job (YAML) of the image",
        description="Write a LAVA job that boots the image and turns its console into test\n"
                    "cases: every KTAP check a case, the verdict a case, each clock's\n"
                    "read cost (median, ns) a measurement.  A qemu device boots the\n"
                    f"image itself ({', '.join(jobs.QEMU_BOOTS)}); x86 hardware loads it\n"
                    f"by network ({', '.join(jobs.HARDWARE_BOOTS)}: iPXE loads the multiboot1\n"
                    "ELF, GRUB the multiboot2 one), the guest options on its command line.",
        epilog="exit statuses:\n  0   the job was written\n"
               "  2   a bad option (a boot the device cannot do, guest options the image\n"
               "      refuses or a job cannot carry): one sentence says which\n"
               f"{INTERRUPTED_EXITS}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    job.add_argument("--device", choices=tuple(jobs.BOOT_KINDS), default="qemu",
                     help="what the job runs on (default: qemu)")
    job.add_argument("--boot", default="multiboot1",
                     choices=jobs.QEMU_BOOTS + jobs.HARDWARE_BOOTS,
                     help="how the image boots (default: multiboot1; hardware: ipxe or grub)")
    job.add_argument("--accel", choices=qemu.ACCELS, default="tcg",
                     help="qemu: tcg, or kvm (LAVA's qemu template then adds -cpu host "
                          "-enable-kvm; the worker needs KVM) (default: tcg)")
    job.add_argument("--smp", type=int, default=1, metavar="N", help="qemu: vCPUs (default: 1)")
    job.add_argument("--memory", type=int, metavar="MiB",
                     help=f"qemu: guest RAM (default: {jobs.DEFAULT_MEMORY_MIB['multiboot1']} "
                          f"for multiboot1, {jobs.DEFAULT_MEMORY_MIB['iso-bios']} for the ISO)")
    job.add_argument("--machine", choices=qemu.MACHINES, default="pc",
                     help="qemu: machine (default: pc)")
    job.add_argument("--image-url", metavar="URL",
                     help="where the lab fetches the image (default: this checkout's "
                          "image as a file:// URL, which only a worker on this machine "
                          "can read)")
    job.add_argument("--name", help="the job's name (default: says device and boot)")
    job.add_argument("--device-type", metavar="TYPE",
                     help="the lab's device type (default: qemu, or x86 for hardware)")
    job.add_argument("--tag", action="append", metavar="TAG",
                     help="a device tag the job asks for (repeatable)")
    job.add_argument("--timeout", type=float, metavar="S",
                     help="seconds each action may take (default: "
                          f"{jobs.DEFAULT_TIMEOUT_S['tcg']} tcg, "
                          f"{jobs.DEFAULT_TIMEOUT_S['kvm']} kvm, "
                          f"{jobs.DEFAULT_TIMEOUT_S['hardware']} hardware)")
    job.add_argument("--out", metavar="FILE", help="write the job to FILE (default: stdout)")
    job.add_argument("--options", metavar="TEXT", help="guest options as one argument")
    job.add_argument("guest_options", nargs="*", metavar="-- guest options",
                     help="the image's options, e.g. -- tick_rates= budget_ms=200")
    job.set_defaults(handler=cmd_lava_job)

    device = commands.add_parser(
        "device", help="write a device configuration (or a lab's device dictionary)",
        description="Write the device configuration a LAVA server renders for a qemu\n"
                    "device from JOB's context (what `lava-run --device` takes, without a\n"
                    "server); with --hardware one for an x86 machine that boots by iPXE\n"
                    "and GRUB (for `lava-run --validate` of the hardware jobs); with\n"
                    "--dictionary a lab's device dictionary of a qemu device.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    device.add_argument("job", nargs="?", metavar="JOB", help="a qemu job `lava job` wrote")
    device.add_argument("--hardware", action="store_true",
                        help="an x86 hardware device (iPXE and GRUB)")
    device.add_argument("--dictionary", action="store_true",
                        help="a lab's device dictionary (jinja2) of a qemu device")
    device.add_argument("--hostname", default="qemu01",
                        help="the device's name (default: qemu01)")
    device.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")
    device.set_defaults(handler=cmd_lava_device)

    result = commands.add_parser(
        "results", help="check a LAVA job's log and rebuild the run's record",
        description="Read a LAVA job log (lava-run's stderr, or `lavacli jobs logs --raw`),\n"
                    "check that LAVA's cases are the console's KTAP checks one for one\n"
                    "(and its verdict case the verdict, its read costs the report's), and\n"
                    "rebuild the run's record: the guest's JSON report from the console,\n"
                    "the lab's device as the host (its name and an id made from it, so\n"
                    "`compare` keeps it apart from local hosts).  LAVA's own exit status\n"
                    "does not say whether a case failed; this one does.",
        epilog=f"{results.EXIT_HELP}\n{INTERRUPTED_EXITS}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("log", metavar="LOG", help="the job's log")
    result.add_argument("--device", default=results.DEFAULT_DEVICE, metavar="NAME",
                        help="the lab device that ran the job, as the server names it "
                             f"(`lavacli jobs show` says it; default: {results.DEFAULT_DEVICE})")
    result.add_argument("--job-id", metavar="ID", help="the job's id in the lab, recorded")
    result.add_argument("--json", metavar="FILE",
                        help="write the run's record (clockbench/2) to FILE ('-': stdout), "
                             "for `compare`")
    result.set_defaults(handler=cmd_lava_results)
