# SPDX-License-Identifier: MIT
"""Unit tests for dom0/clockbench-domu, the dom0-side runner: its pure functions (options,
the xl configuration, the console's verdict, `xl list` states, the judgement, percent
decoding and encoding, the Linux PV domU's type) and whole runs against a fake `xl`, under both shells it must run in: dash and
busybox sh (Debian's busybox-static, from build/dom0/staging/ once `make dom0` ran; the
busybox tests are skipped, saying so, before that).

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from urllib.parse import quote

from tests.tools import ROOT
from clockbench_lib.base import paths

SCRIPT = os.path.join(ROOT, "dom0", "clockbench-domu")
BUSYBOX = os.path.join(ROOT, paths.BUILD_DIR, "dom0", "staging", "bin", "busybox")
DASH = shutil.which("dash")
LIST_HEADER = "Name                                        ID   Mem VCPUs\tState\tTime(s)"


def list_output(flags):
    """What `xl list NAME` prints for a domain whose state flags are `flags`."""
    return f"{LIST_HEADER}\nclockbench-pv                                1   128     1     {flags}       1.2\n"


class ShellCase(unittest.TestCase):
    """Runs snippets with the script's functions defined, in the shell `shell` names."""

    shell = None

    @classmethod
    def setUpClass(cls):
        if cls.shell is None:
            raise unittest.SkipTest("the base class runs no shell")

    def command(self):
        return [DASH] if self.shell == "dash" else [BUSYBOX, "sh"]

    def run_shell(self, snippet, *args, env=None, cwd=None, timeout=60):
        """(status, stdout, stderr) of `snippet` after sourcing the script; the snippet's
        positional parameters are `args`."""
        text = f'CLOCKBENCH_DOMU_LIB=1\n. "{SCRIPT}"\n{snippet}\n'
        result = subprocess.run([*self.command(), "-c", text, "snippet", *args],
                                capture_output=True, text=True, env=env, cwd=cwd,
                                timeout=timeout, check=False)
        return result.returncode, result.stdout, result.stderr

    def out(self, snippet, *args):
        """The stdout of a snippet that must succeed."""
        status, stdout, stderr = self.run_shell(snippet, *args)
        self.assertEqual(status, 0, stderr)
        return stdout


class Functions:
    """The pure functions; mixed into one TestCase per shell."""

    def test_options_and_their_defaults(self):
        shown = ('echo "$opt_type|$opt_image|$opt_name|$opt_vcpus|$opt_memory|$opt_options|'
                 '$opt_timeout|$opt_log|$opt_cpuid|$opt_keep|$opt_quiet"')
        self.assertEqual(self.out(f'parse_options "$@" && {shown}', "--type", "pv"),
                         "pv|build/clockbench-xenpv.elf|clockbench-pv|1|128||300|"
                         "clockbench-pv.log||0|0\n")
        self.assertEqual(self.out(f'parse_options "$@" && {shown}', "-t", "hvm", "-i", "x.iso",
                                  "--name=b", "-c", "2", "--memory=256", "-o", "a=1 b=2",
                                  "-T", "9", "-l", "/l/x.log", "--cpuid", "host,rdtscp=0",
                                  "-k", "-q"),
                         "hvm|x.iso|b|2|256|a=1 b=2|9|/l/x.log|host,rdtscp=0|1|1\n")
        self.assertIn("clockbench.elf", self.out('parse_options -t pvh && echo "$opt_image"'))

    def test_bad_options_say_why(self):
        cases = {
            ("-t", "kvm"): "not pv, pvh, hvm or linux-pv",
            ("-t", "pv", "--ramdisk", "r.img"): "for --type linux-pv only",
            ("-t", "pvh", "--kernel-options", "x"): "for --type linux-pv only",
            ("-t", "linux-pv", "--kernel-options", "a\nb"): "line break",
            (): "--type pv|pvh|hvm|linux-pv is required",
            ("-t", "pv", "-c", "0"): "--vcpus is '0', not a whole number above 0",
            ("-t", "pv", "--memory=12x"): "--memory is '12x'",
            ("-t", "pv", "-n", "a b"): "may hold only letters",
            ("-t", "pv", "--bogus"): "unknown option '--bogus'",
            ("-t",): "-t needs a value",
            ("-t", "pv", "--keep=1"): "--keep takes no value",
            ("-t", "pv", "-o", "a\nb"): "line break",
            ("-t", "hvm", "-o", "a='1'"): "single quote",
        }
        for args, words in cases.items():
            with self.subTest(args=args):
                status, stdout, stderr = self.run_shell('parse_options "$@"', *args)
                self.assertEqual((status, stdout), (2, ""))
                self.assertIn(words, stderr)
                self.assertTrue(stderr.startswith("clockbench-domu: "), stderr)
                self.assertTrue(stderr.endswith(".\n") or stderr.endswith(").\n"), stderr)

    def test_events(self):
        self.assertEqual(self.out('for e in "$@"; do event_seconds "$e"; done', "pause",
                                  "pause:3s", "pause:0.5s", "pause:2", "pause:1500ms",
                                  "save", "save:2s"),
                         "1\n3\n0.5\n2\n1.500\n0\n2\n")
        self.assertEqual(self.out('parse_options "$@" && echo "$opt_events|$opt_options"',
                                  "-t", "pv", "-o", "verbose=1", "-e", "pause:3s",
                                  "--event=pause"),
                         "pause:3s pause|verbose=1 events=2 event_wait_ms=64000\n")
        cases = {("-t", "pv", "-e", "stop"): "none of pause, save and migrate",
                 ("-t", "pv", "-e", "pause:3 s"): "not a duration",
                 ("-t", "pv", "-e", "pause:.5s"): "not a duration",
                 ("-t", "pv", "-e", "pause:xms"): "not a duration",
                 ("-t", "pv", "-e", "migrate:1s"): "migrate takes no time",
                 ("-t", "pv", *["-e", "pause"] * 9): "at most 8 event points"}
        for args, words in cases.items():
            with self.subTest(args=args):
                status, _, stderr = self.run_shell('parse_options "$@"', *args)
                self.assertEqual(status, 2)
                self.assertIn(words, stderr)

    def test_host_clocks(self):
        first, second, real = self.out('mono_ns a; mono_ns b; real_ns c; echo "$a $b $c"'
                                       ).split()
        self.assertLessEqual(int(first), int(second))
        self.assertGreater(int(real), 1.6e18)  # ns since 1970, after 2020
        self.assertEqual(self.out("ms_text 1234567"), "1.2\n")

    def test_help(self):
        status, stdout, _ = self.run_shell('main "$@"', "--help")
        self.assertEqual(status, 0)
        self.assertIn("exit statuses: 0 PASS, 1 FAIL, 77 SKIP, 2 error, 3 timeout", stdout)

    def test_pv_and_pvh_configurations(self):
        config = self.out('parse_options "$@" && xl_config /i/k.elf /l/c.log ""', "-t", "pv",
                          "-c", "2", "-o", 'verbose=1 say="a\\b"', "--cpuid", "host")
        self.assertEqual(config, textwrap.dedent('''\
            # clockbench-domu: pv domU of /i/k.elf
            name = "clockbench-pv"
            type = "pv"
            vcpus = 2
            memory = 128
            kernel = "/i/k.elf"
            extra = "verbose=1 say=\\"a\\\\b\\""
            on_poweroff = "preserve"
            on_reboot = "preserve"
            on_crash = "preserve"
            '''))
        config = self.out('parse_options "$@" && xl_config /i/k.elf /l/c.log ""', "-t", "pvh",
                          "--cpuid", "host,rdtscp=0")
        self.assertIn('type = "pvh"\n', config)
        self.assertIn('cpuid = "host,rdtscp=0"\n', config)

    def test_linux_pv_options_and_configuration(self):
        shown = 'echo "$opt_type|$opt_image|$opt_ramdisk|$opt_name|$opt_kernel_options"'
        self.assertEqual(self.out(f'parse_options "$@" && {shown}', "-t", "linux-pv"),
                         "linux-pv|build/dom0/vmlinuz|build/dom0/domu-initrd.img|"
                         "clockbench-linux-pv|\n")
        config = self.out('parse_options "$@" && xl_config /c/vmlinuz /l/c.log "" /c/r.img',
                          "-t", "linux-pv", "-c", "2", "-m", "64", "-r", "r.img",
                          "--kernel-options", "tsc=reliable", "--cpuid", "host",
                          "-o", "--switch --console --budget-ms 600")
        self.assertEqual(config, textwrap.dedent('''\
            # clockbench-domu: linux-pv domU of /c/vmlinuz
            name = "clockbench-linux-pv"
            type = "pv"
            vcpus = 2
            memory = 64
            kernel = "/c/vmlinuz"
            ramdisk = "/c/r.img"
            extra = "console=hvc0 loglevel=1 tsc=reliable clockbench.user=--switch%20--console%20--budget-ms%20600"
            on_poweroff = "preserve"
            on_reboot = "preserve"
            on_crash = "preserve"
            '''))
        self.assertIn('extra = "console=hvc0 loglevel=1 clockbench.user="\n',
                      self.out('parse_options -t linux-pv && xl_config /k /l "" /r'))

    def test_hvm_configuration(self):
        config = self.out('parse_options "$@" && xl_config /i/c,d.iso /l/c.log /l/a.img', "-t",
                          "hvm", "-o", "budget_ms=800")
        self.assertIn('device_model_args_hvm = [ "-chardev", '
                      '"file,id=console,mux=on,append=on,path=/l/c.log", "-serial", '
                      '"chardev:console", '
                      '"-device", "virtio-serial-pci", "-device", "virtconsole,chardev=console", '
                      '"-drive", "file=/i/c,,d.iso,if=virtio,format=raw,readonly=on", '
                      '"-drive", "file=/l/a.img,if=virtio,format=raw" ]\n', config)
        for line in ('boot = "c"', 'vga = "none"', "vnc = 0"):
            self.assertIn(line + "\n", config)
        for word in ("extra", "\nkernel", "\ndisk", "\nserial"):
            self.assertNotIn(word, config)
        without = self.out('parse_options "$@" && xl_config /i/c.iso /l/c.log ""', "-t", "hvm")
        self.assertIn('"file=/i/c.iso,if=virtio,format=raw,readonly=on" ]\n', without)
        self.assertEqual(self.out('grub_args_text "a=1 b=2"'),
                         "set clockbench_args='a=1 b=2'\n")

    def test_config_only_prints_absolute_paths(self):
        with tempfile.TemporaryDirectory() as scratch:
            status, stdout, stderr = self.run_shell('main "$@"', "-t", "pv", "--config-only",
                                                    cwd=scratch)
        self.assertEqual(status, 0, stderr)
        self.assertIn(f'kernel = "{os.path.realpath(scratch)}/build/clockbench-xenpv.elf"',
                      stdout.replace(scratch, os.path.realpath(scratch)))

    def console(self, text):
        """A scratch console log holding `text`; removed after the test."""
        handle, path = tempfile.mkstemp()
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_console_verdict(self):
        cases = {
            "clockbench: PASS\r\n": "PASS",
            "x\nclockbench: FAIL\nclockbench: ending the run: halt\n": "FAIL",
            "clockbench: SKIP\nclockbench: ERROR\n": "ERROR",
            "say clockbench: PASS\nclockbench: PASSED\n": "",
            "": "",
        }
        for text, verdict in cases.items():
            with self.subTest(text=text):
                self.assertEqual(self.out('console_verdict "$1"', self.console(text)).strip(),
                                 verdict)

    def test_console_verdict_of_clockbench_user(self):
        cases = {
            "clockbench-user: PASS\r\n(domU) clockbench-user exited with 0\n": "PASS",
            "clockbench: PASS\nclockbench-user: FAIL\n": "FAIL",
            "clockbench: PASS\n": "",
            "clockbench-user: SKIPPED\n": "",
        }
        for text, verdict in cases.items():
            with self.subTest(text=text):
                self.assertEqual(self.out('console_verdict "$1" linux-pv',
                                          self.console(text)).strip(), verdict)
        self.assertEqual(self.out('console_verdict "$1" pv', self.console(
            "clockbench-user: PASS\n")), "")

    def test_console_halts_and_last_line(self):
        halts = self.console("clockbench: PASS\nclockbench: ending the run: ACPI power-off\n"
                             "clockbench: ending the run: halt (the machine could not be "
                             "left that way)\r\n")
        powers_off = self.console("clockbench: ending the run: ACPI power-off\n")
        self.assertEqual(self.run_shell('console_halts "$1"', halts)[0], 0)
        self.assertEqual(self.run_shell('console_halts "$1"', powers_off)[0], 1)
        self.assertEqual(self.out('console_last_line "$1"', self.console(
            "first\n\x1b[1;1H  Booting `clockbench'\r\n\n  \n")), "  Booting `clockbench'\n")
        self.assertEqual(self.out('console_last_line "$1"', self.console("")), "")

    def test_console_copied_a_whole_line_at_a_time(self):
        log = self.console("")
        copy = ('opt_quiet=0 run_log="$1" run_chunk="$1.chunk" console_copied=0\n'
                "printf 'one\\ntw' >>\"$1\"; copy_console; echo \"|$console_copied\"\n"
                "printf 'o\\nthr' >>\"$1\"; copy_console; echo \"|$console_copied\"\n"
                "copy_console; echo \"|$console_copied\"\n"
                "copy_console all; echo \"|$console_copied\"\n"
                'rm -f "$1.chunk"')
        self.assertEqual(self.out(copy, log), "one\n|4\ntwo\n|8\n|8\nthr|11\n")

    def test_list_states(self):
        cases = {"r-----": "running", "-b----": "running", "--p---": "running",
                 "---s--": "poweroff", "---sr-": "reboot", "---ss-": "suspend",
                 "---sc-": "crash", "---sw-": "watchdog", "---sS-": "soft_reset",
                 "-----d": "dying"}
        for flags, state in cases.items():
            with self.subTest(flags=flags):
                self.assertEqual(self.out('list_state "$1"', list_output(flags)), state + "\n")
        self.assertEqual(self.out('list_state ""'), "gone\n")
        self.assertEqual(self.out('list_state "$1"', LIST_HEADER), "gone\n")

    def test_judgement(self):
        judged = 'judge "$@"; echo "$judged_status $judged_reason"'
        cases = [
            (("pv", "PASS", "poweroff", "0", ""), "0 PASS (the domain ended: poweroff)."),
            (("pv", "FAIL", "crash", "0", ""), "1 FAIL (the domain ended: crash)."),
            (("pv", "SKIP", "poweroff", "0", ""), "77 SKIP"),
            (("pv", "ERROR", "crash", "0", ""), "2 the guest reported ERROR"),
            (("pv", "PASS", "crash", "0", ""), "2 the console said PASS but the domain crashed"),
            (("pv", "FAIL", "poweroff", "0", ""), "2 the console said FAIL but the domain "
                                                  "powered off"),
            (("hvm", "FAIL", "poweroff", "0", ""), "1 FAIL (the domain ended: poweroff)."),
            (("pvh", "PASS", "running", "0", ""), "0 PASS (the domain did not end (it halted))."),
            (("pv", "", "crash", "0", "FAULT: #PF"), "1 the domain crashed before a verdict; "
                                                     "the console's last line: 'FAULT: #PF'."),
            (("pv", "", "running", "1", "# ticks"), "3 timeout: no verdict after 300 s; the "
                                                    "console's last line: '# ticks'."),
            (("pv", "", "poweroff", "0", ""), "2 the domain ended (poweroff) without a verdict"),
            (("pv", "", "gone", "0", ""), "2 the domain disappeared before a verdict"),
            # The Linux PV domU's /init powers off after every verdict.
            (("linux-pv", "FAIL", "poweroff", "0", ""), "1 FAIL (the domain ended: poweroff)."),
            (("linux-pv", "ERROR", "poweroff", "0", ""), "2 clockbench-user reported ERROR"),
            (("linux-pv", "PASS", "crash", "0", ""), "2 the console said PASS but the "
                                                     "domain crashed"),
        ]
        for args, expected in cases:
            with self.subTest(args=args):
                self.assertTrue(self.out(f'opt_timeout=300; {judged}', *args).startswith(
                    expected), self.out(f'opt_timeout=300; {judged}', *args))

    def test_percent_decoding_undoes_the_host_encoding(self):
        # The host encodes as urllib's quote() with nothing safe (dom0.encode_value).
        for text in ("verbose=1 fault=pf", "a,b=%41 '\"\\ $x `y`", "é ümlaut", "", "%%"):
            with self.subTest(text=text):
                self.assertEqual(self.out('percent_decode "$1"', quote(text, safe="")),
                                 text + "\n")
        for text in ("--switch --console --budget-ms 600", "a,b=%41 '\"\\ $x `y`~._-",
                     "é ümlaut", "AZaz09"):
            with self.subTest(encoded=text):
                self.assertEqual(self.out('percent_encode "$1"', text),
                                 quote(text, safe="") + "\n")
        self.assertEqual(self.out('percent_encode ""'), "\n")
        for bad in ("%4", "%zz", "a%"):
            with self.subTest(bad=bad):
                self.assertNotEqual(self.run_shell('percent_decode "$1"', bad)[0], 0)

    def test_xl_error_line(self):
        log = self.console("Parsing config from x.cfg\nlibxl: error: libxl_create.c:1318: "
                           "Unable to set disk defaults\nlibxl: error: later\n")
        self.assertEqual(self.out('xl_error_line "$1"', log),
                         "libxl: error: libxl_create.c:1318: Unable to set disk defaults\n")
        self.assertEqual(self.out('xl_error_line "$1"', self.console("a\nlast\n\n")), "last\n")
        self.assertEqual(self.out('xl_error_line /nonexistent'), "(xl printed nothing)\n")


# A fake xl: `create` records the domain, `console` prints CONSOLE_FILE (the domain then
# ends in END_STATE, xl list's flags), `list` prints the state, `destroy` forgets it.
FAKE_XL = """\
#!/bin/sh
state=$FAKE_XL_DIR/state
case $1 in
create)
	[ -z "$FAKE_XL_CREATE_ERROR" ] || { echo "Parsing config from $3"; \
echo "libxl: error: $FAKE_XL_CREATE_ERROR" >&2; exit 3; }
	cp "$3" "$FAKE_XL_DIR/config"
	echo "--p---" >"$state" ;;
unpause)
	echo "unpause $2" >>"$FAKE_XL_DIR/actions"
	[ "$(cat "$state")" != "--p---" ] || echo "-b----" >"$state" ;;
pause)
	[ -z "$FAKE_XL_PAUSE_ERROR" ] || { echo "libxl: error: $FAKE_XL_PAUSE_ERROR" >&2; exit 1; }
	echo "pause $2" >>"$FAKE_XL_DIR/actions" ;;
domid) echo 7 ;;
save)
	echo "Saving to $3 new xl format (info 0x3/0x0/1203)"
	echo "libxl: error: $FAKE_XL_SAVE_ERROR" >&2
	exit 1 ;;
console)
	cat "$CONSOLE_FILE"
	[ -z "$END_STATE" ] || echo "$END_STATE" >"$state"
	while [ -f "$state" ]; do sleep 1; done ;;
list)
	[ "$2" != 0 ] || { printf 'Name   ID   Mem VCPUs\\tState\\tTime(s)\\nDomain-0 0 512 %s r----- 9.1\\n' \
"$FAKE_DOM0_VCPUS"; exit 0; }
	[ -f "$state" ] || { echo "Error: Domain '$2' does not exist." >&2; exit 1; }
	printf 'Name   ID   Mem VCPUs\\tState\\tTime(s)\\n%s 1 128 1 %s 0.1\\n' "$2" "$(cat "$state")" ;;
destroy) rm -f "$state" ;;
info) printf 'host                   : fake\\nnr_cpus                : 2\\n' ;;
vcpu-pin)
	[ -z "$FAKE_XL_PIN_ERROR" ] || { echo "libxl: error: $FAKE_XL_PIN_ERROR" >&2; exit 1; }
	echo "$2 $3 $4" >>"$FAKE_XL_DIR/pinned" ;;
esac
"""


# A fake console client for --event: once the domain is unpaused, the guest's event point, the host's lines read from
# its input and kept in host-lines (each ping answered with a pong, unless FAKE_NO_PONG),
# then the verdict; the domain then powers off.
FAKE_XENCONSOLE = """\
#!/bin/sh
echo "$*" >"$FAKE_XL_DIR/xenconsole-args"
while [ "$(cat "$FAKE_XL_DIR/state")" = "--p---" ]; do sleep 0.1; done
echo "clockbench-event 1 sync"
read -r line && echo "$line" >>"$FAKE_XL_DIR/host-lines"
echo "clockbench-event 1 ready"
while read -r line; do
	echo "$line" >>"$FAKE_XL_DIR/host-lines"
	case $line in
	*" ping "*) [ -n "$FAKE_NO_PONG" ] || echo "clockbench-event 1 pong" ;;
	*) break ;;
	esac
done
echo "clockbench: PASS"
echo "---s--" >"$FAKE_XL_DIR/state"
while [ -f "$FAKE_XL_DIR/state" ]; do sleep 1; done
"""


class Runs:
    """Whole runs of main() against FAKE_XL; mixed into one TestCase per shell."""

    def run_main(self, console, end_state, *args, create_error="", pin_error="",
                 pause_error="", save_error="no space left", dom0_vcpus=1, pong=True):
        """(status, stdout, stderr, scratch folder) of clockbench-domu -t pv ARGS, in a
        dom0 of `dom0_vcpus` vCPUs."""
        scratch = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, scratch)
        bin_dir = os.path.join(scratch, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "xl"), "w", encoding="utf-8") as out:
            out.write(FAKE_XL)
        os.chmod(os.path.join(bin_dir, "xl"), 0o755)
        with open(os.path.join(bin_dir, "xenconsole"), "w", encoding="utf-8") as out:
            out.write(FAKE_XENCONSOLE)
        os.chmod(os.path.join(bin_dir, "xenconsole"), 0o755)
        with open(os.path.join(scratch, "console.txt"), "w", encoding="utf-8") as out:
            out.write(console)
        with open(os.path.join(scratch, "image.elf"), "wb") as out:
            out.write(b"\x7fELF")
        env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", FAKE_XL_DIR=scratch,
                   CONSOLE_FILE=os.path.join(scratch, "console.txt"), END_STATE=end_state,
                   FAKE_XL_CREATE_ERROR=create_error, FAKE_XL_PIN_ERROR=pin_error,
                   FAKE_XL_PAUSE_ERROR=pause_error, FAKE_XL_SAVE_ERROR=save_error,
                   FAKE_DOM0_VCPUS=str(dom0_vcpus), CLOCKBENCH_DOMU_POLL_S="0.1",
                   FAKE_NO_PONG="" if pong else "1", CLOCKBENCH_DOMU_PING_WAIT_S="1")
        status, stdout, stderr = self.run_shell(
            'main "$@"', "-t", "pv", "-i", "image.elf", "--prefix", "(dom0) ", *args,
            env=env, cwd=scratch)
        return status, stdout, stderr, scratch

    def test_pass(self):
        status, stdout, stderr, scratch = self.run_main(
            "clockbench 0.1.0\nclockbench: PASS", "---s--", "-o", "verbose=1")
        self.assertEqual(status, 0, stderr)
        self.assertEqual(stdout, "clockbench 0.1.0\nclockbench: PASS\n")
        self.assertIn("(dom0) clockbench-domu: PASS (the domain ended: poweroff).\n", stderr)
        with open(os.path.join(scratch, "config"), encoding="utf-8") as config:
            self.assertIn('extra = "verbose=1"', config.read())
        self.assertFalse(os.path.exists(os.path.join(scratch, "state")), "not destroyed")

    def test_a_pause_event_is_answered_on_the_console_input(self):
        status, stdout, stderr, scratch = self.run_main("", "", "-e", "pause:0.2s")
        self.assertEqual(status, 0, stderr)
        self.assertIn("clockbench-event 1 ready\nclockbench-event 1 pong\n"
                      "clockbench-event 1 pong\nclockbench: PASS\n", stdout)
        with open(os.path.join(scratch, "actions"), encoding="utf-8") as actions:
            self.assertEqual(actions.read(), "unpause clockbench-pv\npause clockbench-pv\n"
                             "unpause clockbench-pv\n")
        with open(os.path.join(scratch, "xenconsole-args"), encoding="utf-8") as args:
            self.assertEqual(args.read(), "--interactive --type pv 7\n")
        with open(os.path.join(scratch, "host-lines"), encoding="utf-8") as lines:
            sync, ping1, ping2, done = lines.read().splitlines()
        self.assertRegex(sync, r"^clockbench-host 1 sync ready_ns=\d+ sent_ns=\d+$")
        # Two pings after the event: the first waits for the way back, the second times it.
        self.assertRegex(ping1, r"^clockbench-host 1 ping sent_ns=\d+$")
        self.assertRegex(ping2, r"^clockbench-host 1 ping sent_ns=\d+$")
        self.assertRegex(done, r"^clockbench-host 1 done event=pause ready_ns=\d+ start_ns=\d+ "
                               r"end_ns=\d+ start_real_ns=\d+ end_real_ns=\d+ "
                               r"xl_pause_us=\d+ xl_unpause_us=\d+ ping_ns=\d+ pong_ns=\d+ "
                               r"sent_ns=\d+$")
        times = dict(word.split("=") for word in done.split()[4:])
        order = [int(times[k]) for k in ("ready_ns", "start_ns", "end_ns", "ping_ns",
                                         "pong_ns", "sent_ns")]
        self.assertEqual(order, sorted(order))
        self.assertEqual(times["ping_ns"], ping2.split("=")[1], "the second ping's times")
        self.assertGreaterEqual(order[2] - order[1], 0.2e9)  # the pause's own time
        self.assertRegex(stderr, r"\(dom0\) clockbench-domu: event 1 \(pause:0.2s\): .*; a "
                                 r"ping after it came back in \d+\.\d ms, the next in "
                                 r"\d+\.\d\.\n")
        self.assertIn("event_wait_ms=", open(os.path.join(scratch, "config"),
                                             encoding="utf-8").read())

    def test_a_guest_that_never_pongs_still_gets_its_done_line(self):
        status, _, stderr, scratch = self.run_main("", "", "-e", "pause:0.1s", pong=False)
        self.assertEqual(status, 0, stderr)
        with open(os.path.join(scratch, "host-lines"), encoding="utf-8") as lines:
            _, ping, done = lines.read().splitlines()
        self.assertRegex(ping, r"^clockbench-host 1 ping sent_ns=\d+$")
        self.assertRegex(done, r"^clockbench-host 1 done event=pause .*xl_unpause_us=\d+ "
                               r"sent_ns=\d+$")
        self.assertIn("(dom0) clockbench-domu: event 1: no pong from the guest within 1 s of "
                      "the host's ping; \"done\" goes without the round trip after the "
                      "event.\n", stderr)

    def test_a_pause_xl_refuses_is_aborted_with_its_sentence(self):
        status, _, stderr, scratch = self.run_main("", "", "-e", "pause", pause_error="nope")
        self.assertEqual(status, 0, stderr)  # the fake guest passes whatever it is told
        with open(os.path.join(scratch, "host-lines"), encoding="utf-8") as lines:
            self.assertEqual(lines.read().splitlines()[1],
                             "clockbench-host 1 abort event=pause")
        self.assertIn("(dom0) clockbench-domu: event 1 (pause) failed: xl pause failed: "
                      "libxl: error: nope.\n", stderr)

    def test_a_save_that_fails_is_aborted_with_xls_line(self):
        status, _, stderr, scratch = self.run_main(
            "", "", "-e", "save", save_error="xc: error: Cannot write to disk: No space left")
        self.assertEqual(status, 0, stderr)  # the fake guest passes whatever it is told
        with open(os.path.join(scratch, "host-lines"), encoding="utf-8") as lines:
            self.assertEqual(lines.read().splitlines()[1], "clockbench-host 1 abort event=save")
        self.assertIn("(dom0) clockbench-domu: event 1 (save) failed: xl save failed: libxl: "
                      "error: xc: error: Cannot write to disk: No space left.\n", stderr)
        self.assertFalse(os.path.exists(os.path.join(scratch, "clockbench-pv.save")))

    def test_crash_before_a_verdict(self):
        status, _, stderr, _ = self.run_main("FAULT: #PF page fault\n", "---sc-")
        self.assertEqual(status, 1, stderr)
        self.assertIn("the domain crashed before a verdict; the console's last line: "
                      "'FAULT: #PF page fault'.", stderr)

    def test_timeout_keeps_the_domain_when_asked(self):
        status, _, stderr, scratch = self.run_main("# measuring\n", "", "-T", "2", "--keep")
        self.assertEqual(status, 3, stderr)
        self.assertIn("timeout: no verdict after 2 s; the console's last line: "
                      "'# measuring'.", stderr)
        self.assertTrue(os.path.exists(os.path.join(scratch, "state")), "destroyed")

    def test_xl_create_failure_is_quoted(self):
        status, _, stderr, _ = self.run_main("", "", create_error="no such thing")
        self.assertEqual(status, 2)
        self.assertIn("xl create failed: libxl: error: no such thing (the configuration: ",
                      stderr)

    def test_linux_pv_pass(self):
        status, stdout, stderr, scratch = self.run_main(
            "clockbench-user: PASS\n(domU) clockbench-user exited with 0: powering off\n",
            "---s--", "-t", "linux-pv", "-r", "image.elf", "-o", "--switch --console")
        self.assertEqual(status, 0, stderr)
        self.assertIn("(dom0) clockbench-domu: PASS (the domain ended: poweroff).\n", stderr)
        self.assertIn("initramfs ", stderr)
        with open(os.path.join(scratch, "config"), encoding="utf-8") as config:
            text = config.read()
        self.assertIn('extra = "console=hvc0 loglevel=1 clockbench.user=--switch%20--console"',
                      text)
        self.assertIn(f'ramdisk = "{scratch}/image.elf"', text)

    def test_contended(self):
        status, _, stderr, scratch = self.run_main("clockbench: PASS\n", "---s--", "-c", "2",
                                                   "--contend", dom0_vcpus=2)
        self.assertEqual(status, 0, stderr)
        with open(os.path.join(scratch, "config"), encoding="utf-8") as config:
            # vCPU N on pCPU N, of xl info's 2
            self.assertIn('cpus = ["0", "1"]\n', config.read())
        with open(os.path.join(scratch, "pinned"), encoding="utf-8") as pinned:
            self.assertEqual(pinned.read(), "0 0 0\n0 1 1\n")  # dom0's vCPUs beside them
        self.assertIn("(dom0) clockbench-domu: --contend: 2 busy loops in dom0 (its shell "
                      "spinning), one on each dom0 vCPU, beside the domU's 2 vCPU(s) "
                      "(pCPU 0: dom0 vCPU 0, domU vCPU 0; pCPU 1: dom0 vCPU 1, domU vCPU 1), "
                      "so a fair scheduler leaves each domU vCPU 50 % of its pCPU; from "
                      "before the domU runs to its end, bounded to 330 s.\n", stderr)
        self.assertRegex(stderr, r"--contend: the busy loops ran \d+ s\.\n")
        self.assertLess(stderr.index("--contend: 2 busy loops"), stderr.index("PASS"))

    def test_contended_unevenly(self):
        """Three vCPUs on two physical CPUs beside one dom0 vCPU: the shares differ."""
        status, _, stderr, scratch = self.run_main("clockbench: PASS\n", "---s--", "-c", "3",
                                                   "--contend", dom0_vcpus=1)
        self.assertEqual(status, 0, stderr)
        with open(os.path.join(scratch, "config"), encoding="utf-8") as config:
            self.assertIn('cpus = ["0", "1", "0"]\n', config.read())
        self.assertIn("--contend: 1 busy loop in dom0 (its shell spinning), one on each dom0 "
                      "vCPU, beside the domU's 3 vCPU(s) (pCPU 0: dom0 vCPU 0, domU vCPU 0, "
                      "domU vCPU 2; pCPU 1: domU vCPU 1), so a fair scheduler leaves each "
                      "domU vCPU between 33 and 100 % of its pCPU;", stderr)
        self.assertRegex(stderr, r"--contend: the busy loop ran \d+ s\.\n")

    def test_contend_refused_by_xl(self):
        status, _, stderr, scratch = self.run_main("clockbench: PASS\n", "---s--",
                                                   "--contend", pin_error="no such CPU")
        self.assertEqual(status, 2)
        self.assertIn("--contend: xl vcpu-pin of dom0's vCPU 0 to pCPU 0 failed: libxl: "
                      "error: no such CPU.", stderr)
        self.assertFalse(os.path.exists(os.path.join(scratch, "state")), "not destroyed")

    def test_linux_pv_missing_ramdisk(self):
        status, _, stderr, _ = self.run_main("", "", "-t", "linux-pv", "-r", "none.img")
        self.assertEqual(status, 2)
        self.assertIn("cannot read the initramfs", stderr)

    def test_missing_image(self):
        status, _, stderr, _ = self.run_main("", "", "-i", "nothing.elf")
        self.assertEqual(status, 2)
        self.assertIn("cannot read the image", stderr)


@unittest.skipUnless(DASH, "needs dash (Debian's /bin/sh)")
class DashTest(Functions, Runs, ShellCase):
    shell = "dash"


@unittest.skipUnless(os.access(BUSYBOX, os.X_OK),
                     f"needs Debian's busybox-static in {os.path.relpath(BUSYBOX, ROOT)} "
                     f"(make dom0)")
class BusyboxTest(Functions, Runs, ShellCase):
    shell = "busybox"


if __name__ == "__main__":
    unittest.main()
