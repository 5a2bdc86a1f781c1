#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A stand-in for qemu-system-x86_64, for testing the runner (set CLOCKBENCH_QEMU to it).

It prints a clockbench-like console, with ANSI escapes mixed in, reporting the -append
text as the command line, then exits like isa-debug-exit would.  Given -initrd (a Xen
boot: -kernel is Xen, -initrd dom0 and its options), it reports the boot protocol as
xen-pv and the command line as Xen hands it to dom0: the -initrd text after the file name,
with QEMU's doubled commas made single.  Environment:
  FAKE_QEMU_STATUS   exit status (default 3 = PASS)
  FAKE_QEMU_FINAL    final console line (default: derived from the status)
  FAKE_QEMU_HANG     if set, sleep forever after printing instead of exiting
  FAKE_QEMU_STALL    if set, report a KVM internal error on stderr, then sleep forever
  FAKE_QEMU_ARGV     if set, a file to which the argument vector is written as JSON
  FAKE_QEMU_REPORT   if set, a console log (tests/tools/fixtures/*.log) whose JSON report,
                     from 'clockbench-json begin' to its end marker or the end of the file,
                     is printed after the KTAP summary
  FAKE_QEMU_OS_REPORT  if set, a console log of a linux boot (tests/tools/fixtures/linux/)
                     whose clockbench-user document, 'clockbench-os-json begin' to its
                     end marker, is printed after the KTAP summary; the final line is then
                     clockbench-user's ("clockbench-user: PASS" for status 3)
  FAKE_QEMU_XEN      if set, a log of Xen's own lines (tests/tools/fixtures/xen/*.log),
                     printed before the guest's console, as Xen boots first
  FAKE_QEMU_XEN_END  if set, a log of Xen's lines printed after the final line, when
                     dom0 has ended; then it sleeps forever, as Xen halts the machine
  FAKE_QEMU_KVM_REFUSE  if set, under -accel kvm a -cpu model based on host or max aborts
                     at start, as a KVM host that refuses an MSR makes QEMU do, unless the
                     model turns the feature off: space-separated MSR=OPTION words, e.g.
                     "0x10a=-arch-capabilities" (QEMU: "error: failed to set MSR 0x10a to
                     0x69", then an assertion, then SIGABRT)
  FAKE_QEMU_KVM_REFUSE_ALL  if set, under -accel kvm every -cpu model aborts that way, for
                     an MSR nothing turns off (0x1d9)
  FAKE_QEMU_PID_FILE if set, a file to which its process id is written at start
  FAKE_QEMU_BURST    if set, a number of bytes of 'x' printed with no newline after the
                     KTAP summary, as a runaway guest would
  FAKE_QEMU_RANDOM   if set, a number of random bytes printed there (seeded: the same
                     bytes every time), then a line break
  FAKE_QEMU_KUT_STATUS  exit status of a kvm-unit-tests boot (-kernel NAME.flat: it prints
                     one line and exits; default 1, their pass)
`--version` alone prints a version line as QEMU does, and exits 0.
On SIGTERM it does what QEMU does: "qemu-system-x86_64: terminating on signal 15 from pid
N (NAME)" on stderr, N the sender, then exit status 0.
With -S it starts no guest: it reads the monitor's commands from stdin and exits 0 at
"quit", as QEMU does once the machine is made.
The guest option help=1 in -append makes it end as skipped (status 7), as the image does.
The guest option exit=halt, acpi or reset in -append makes it end as the image does: after
the final line it says how the run ends, then sleeps forever (halt) or exits with status
0 (a power-off, or a reset under -no-reboot); FAKE_QEMU_NO_END_LINE leaves that line out.
"""

import json
import os
import random
import signal
import sys
import threading
import time

VERSION_LINE = "QEMU emulator version 7.2.0 (fake_qemu.py, the runner's tests)"
FINALS = {3: "clockbench: PASS", 5: "clockbench: FAIL", 7: "clockbench: SKIP",
          9: "clockbench: ERROR"}
# What the image says after its verdict for each exit= that does not use isa-debug-exit
# (platform_end_words() in platform/*/platform.c).
END_LINES = {"halt": "clockbench: ending the run: halt (exit=halt); the machine stays on",
             "acpi": "clockbench: ending the run: ACPI power-off (exit=acpi)",
             "reset": "clockbench: ending the run: reset (exit=reset)"}


def option(name, default=""):
    """The value after `name` in argv, or `default`."""
    argv = sys.argv[1:]
    return argv[argv.index(name) + 1] if name in argv else default


def report_lines(path, begin="clockbench-json begin", end="clockbench-json end"):
    """The lines of the log at `path` from its report's begin marker on, through the end
    marker (or to the end of the file when there is none)."""
    with open(path, encoding="utf-8") as log:
        lines = log.read().splitlines()
    if begin not in lines:
        return []
    lines = lines[lines.index(begin):]
    if end in lines:
        lines = lines[:lines.index(end) + 1]
    return lines


def print_file(path):
    """Print the lines of the file at `path` as a serial console would (CR LF)."""
    with open(path, encoding="utf-8") as lines:
        for line in lines.read().splitlines():
            sys.stdout.write(line + "\r\n")


def dom0_command_line(initrd):
    """What Xen hands dom0: the module text after its file name, commas undoubled."""
    module = initrd.replace(",,", "\0").replace(",", "\n").split("\n")[0]
    return module.replace("\0", ",").partition(" ")[2]


def exit_option():
    """The exit= guest option in -append ("auto" when there is none)."""
    for word in option("-append").split():
        key, _, value = word.partition("=")
        if key == "exit":
            return value
    return "auto"


def end_as_asked(final):
    """After the final line, end the way the exit= option says, if not through isa-debug-exit."""
    method = exit_option()
    if method not in END_LINES:
        return
    if final and not os.environ.get("FAKE_QEMU_NO_END_LINE"):
        print(END_LINES[method])
    sys.stdout.flush()
    if method == "halt":
        time.sleep(3600)
    sys.exit(0)


def refuse_msr(msr, value):
    """Abort as QEMU 7.2 does when KVM refuses to set an MSR at start."""
    sys.stderr.write(f"qemu-system-x86_64: error: failed to set MSR {msr} to {value}\n"
                     "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: "
                     "kvm_buf_set_msrs: Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.\n")
    sys.stderr.flush()
    os.abort()


def start_kvm():
    """Under -accel kvm, refuse MSRs as FAKE_QEMU_KVM_REFUSE(_ALL) say."""
    if option("-accel") != "kvm":
        return
    if os.environ.get("FAKE_QEMU_KVM_REFUSE_ALL"):
        refuse_msr("0x1d9", "0x0")
    model = option("-cpu").split(",")
    if model[0] not in ("host", "max"):
        return
    for word in os.environ.get("FAKE_QEMU_KVM_REFUSE", "").split():
        msr, _, turned_off = word.partition("=")
        if turned_off not in model[1:]:
            refuse_msr(msr, "0x69")


def wait_for_quit():
    """With -S: no guest runs; answer the monitor on stdin until it says quit."""
    for line in sys.stdin:
        if line.strip() == "quit":
            sys.exit(0)
    sys.exit(0)


def stop_on_sigterm():
    """Answer SIGTERM as QEMU does, naming the sender (a thread waits for the signal, so
    that its sender's pid is known)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})

    def wait():
        info = signal.sigwaitinfo({signal.SIGTERM})
        try:
            with open(f"/proc/{info.si_pid}/comm", encoding="utf-8") as comm:
                name = comm.read().strip()
        except OSError:
            name = "?"
        sys.stdout.flush()
        sys.stderr.write(f"qemu-system-x86_64: terminating on signal {info.si_signo} "
                         f"from pid {info.si_pid} ({name})\n")
        sys.stderr.flush()
        os._exit(0)

    threading.Thread(target=wait, daemon=True).start()


def print_burst():
    """FAKE_QEMU_BURST's line without a newline, then FAKE_QEMU_RANDOM's bytes."""
    out = sys.stdout.buffer
    sys.stdout.flush()
    for variable, piece in (("FAKE_QEMU_BURST", lambda size: b"x" * size),
                            ("FAKE_QEMU_RANDOM", random.Random(19).randbytes)):
        left = int(os.environ.get(variable, "0"))
        while left > 0:
            size = min(left, 1 << 20)
            out.write(piece(size))
            left -= size
    if os.environ.get("FAKE_QEMU_RANDOM"):
        out.write(b"\r\n")  # so that the final line is a line of its own
    out.flush()


def main():
    """Print the fake console and exit."""
    if sys.argv[1:] == ["--version"]:  # as QEMU answers it: the runner records it
        print(VERSION_LINE)
        sys.exit(0)
    stop_on_sigterm()
    if os.environ.get("FAKE_QEMU_PID_FILE"):
        with open(os.environ["FAKE_QEMU_PID_FILE"], "w", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
    if os.environ.get("FAKE_QEMU_ARGV"):
        with open(os.environ["FAKE_QEMU_ARGV"], "w", encoding="utf-8") as out:
            json.dump(sys.argv, out)
    start_kvm()
    if "-S" in sys.argv:
        wait_for_quit()
    if option("-kernel", "").endswith(".flat"):
        print(f"kvm-unit-tests stand-in: {os.path.basename(option('-kernel'))}")
        sys.exit(int(os.environ.get("FAKE_QEMU_KUT_STATUS", "1")))
    status = 7 if "help=1" in option("-append").split() else int(
        os.environ.get("FAKE_QEMU_STATUS", "3"))
    os_report = os.environ.get("FAKE_QEMU_OS_REPORT")
    final = FINALS.get(status, "")
    final = os.environ.get("FAKE_QEMU_FINAL", final.replace("clockbench:", "clockbench-user:")
                           if os_report else final)
    print("\x1b[2J\x1b[01;01HSeaBIOS (fake)\r")
    if os.environ.get("FAKE_QEMU_XEN"):
        print_file(os.environ["FAKE_QEMU_XEN"])
    print("clockbench 0.1.0")
    print("# environment")
    if "-initrd" in sys.argv:
        print("  boot protocol    xen-pv")
        print(f'  command line     "{dom0_command_line(option("-initrd"))}"')
    else:
        print("  boot protocol    multiboot1")
        print(f'  command line     "{option("-append")}"')
    print("  hypervisor       \x1b[1mTCG\x1b[0m (\"TCGTCGTCGTCG\") max leaf 0x40000001")
    print("  cpus (firmware)  1 (ACPI MADT)")
    print("KTAP version 1")
    print("1..1")
    print("ok 1 fake check")
    sys.stdout.write("# 1 passed, 0 failed, 0 skipped, 0 errors\n")
    if os.environ.get("FAKE_QEMU_REPORT"):
        for line in report_lines(os.environ["FAKE_QEMU_REPORT"]):
            sys.stdout.write(line + "\r\n")
    if os_report:
        for line in report_lines(os_report, "clockbench-os-json begin",
                                 "clockbench-os-json end"):
            sys.stdout.write(line + "\r\n")
    print_burst()
    if os.environ.get("FAKE_QEMU_STALL"):
        sys.stdout.flush()
        sys.stderr.write("KVM internal error. Suberror: 1\nemulation failure\nRIP=0\n")
        sys.stderr.flush()
        time.sleep(3600)
    if os.environ.get("FAKE_QEMU_HANG"):
        sys.stdout.write("waiting forever")
        sys.stdout.flush()
        time.sleep(3600)
    if final:
        print(final)
    end_as_asked(final)
    if os.environ.get("FAKE_QEMU_XEN_END"):
        print_file(os.environ["FAKE_QEMU_XEN_END"])
        sys.stdout.flush()
        time.sleep(3600)
    # The console first, as QEMU's unbuffered serial output would come.
    sys.stdout.flush()
    print("fake qemu: exiting", file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    main()
