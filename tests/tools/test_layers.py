# SPDX-License-Identifier: MIT
"""Unit tests for tools/layers, the layering check: small synthetic trees in temporary
folders, one for each kind of finding (an edge the table does not allow, an include of a
file in no folder of the table or of no file, a folder the table lacks, a cycle among
folders, a table that allows one, a Python import cycle, a Python import from one
subpackage into another that the package's table does not allow, however it is written)
and the clean case; --graph; bad configs and unreadable trees; and the repository's own
config and package, whose subpackages keep their table.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import tempfile
import textwrap
import unittest

from tests.tools import PYTHON, ROOT

# Reads only the sources and tests/tools/fixtures (tests/tools/run runs it beside the build).
NEEDS_BUILD = False

LAYERS = os.path.join(ROOT, "tools", "layers")
CONFIG = "layers.cfg"

# The shape of the repository's table, small: a nested platform, a generated header and
# a Python package.
TABLE = """\
    # a comment, and a blank line

    nested = platform
    generated = clockbench/*
    python = tools/pkg
    boot:
    lib: boot            # pure C
    base: lib boot
    platform/hvm64: base lib boot
    platform/pv64: base lib boot
    kernel: base lib boot
    tests: *
    """

# Every include here is allowed: its own folder, lower layers, a relative include, a
# system header, a generated one, an assembly file, a nested folder, `tests: *`.
CLEAN = {
    "boot/boot.h": "#define BOOT_STACK 4096\n",
    "boot/head.S": '#include "boot/boot.h"\n',
    "lib/stats.h": '#include <stdint.h>\n#include "boot/boot.h"\n',
    "lib/stats.c": '#include "stats.h"\n#include "lib/stats.h"\n',
    "base/cpu.h": '#include "lib/stats.h"\n',
    "platform/hvm64/ring0.c": '#include "base/cpu.h"\n#include "ring0.h"\n',
    "platform/hvm64/ring0.h": "",
    "kernel/main.c": '#  include "base/cpu.h"\n#include "clockbench/version.h"\n',
    "tests/unit/test_stats.c": '#include "lib/stats.h"\n#include "kernel/main.c"\n',
    "tools/pkg/__init__.py": '"""A package."""\n',
    "tools/pkg/low.py": "VALUE = 1\n",
    "tools/pkg/high.py": "from . import low\nfrom .low import VALUE\n\n\n"
                         "def f():\n    from . import low as again\n    return again\n",
}


def load_layers():
    """tools/layers as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("layers", LAYERS)
    spec = importlib.util.spec_from_loader("layers", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


layers = load_layers()


class Tree(unittest.TestCase):
    """A scratch tree per test, and tools/layers run on it."""

    def setUp(self):
        self._directory = tempfile.TemporaryDirectory()
        self.root = self._directory.name
        self.addCleanup(self._directory.cleanup)

    def write(self, files, table=TABLE):
        """Write `files` ({root-relative path: text}) and the config under the root."""
        for path, text in {**files, CONFIG: textwrap.dedent(table)}.items():
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as out:
                out.write(text)

    def run_layers(self, *args):
        """tools/layers on the scratch tree with its config: (exit status, stdout lines,
        stderr)."""
        result = subprocess.run([PYTHON, LAYERS, "--root", self.root, "--config",
                                 os.path.join(self.root, CONFIG), *args],
                                capture_output=True, text=True, check=False)
        return result.returncode, result.stdout.splitlines(), result.stderr

    def findings(self, files, table=TABLE, base=None):
        """The finding lines (the summary left out) for a tree of `base` (default: CLEAN)
        plus `files`."""
        self.write({**(CLEAN if base is None else base), **files}, table)
        status, lines, stderr = self.run_layers()
        self.assertEqual((status, stderr), (layers.EXIT_FINDINGS, ""))
        return lines[:-1]


class CleanTree(Tree):
    def test_clean(self):
        self.write(CLEAN)
        status, lines, stderr = self.run_layers()
        self.assertEqual(stderr, "")
        self.assertEqual(lines, ["layers: no findings (9 files and 11 includes read, 1 of a "
                                 "generated header; 3 Python modules and 3 imports among "
                                 "them)"])
        self.assertEqual(status, layers.EXIT_CLEAN)

    def test_folders_given(self):
        self.write(CLEAN)
        for folders in (("lib", "boot"), ("lib", "boot", "lib/.")):
            status, lines, _ = self.run_layers(*folders)
            self.assertEqual(status, layers.EXIT_CLEAN)
            self.assertEqual(lines, ["layers: no findings (4 files and 4 includes read; 3 Python "
                                     "modules and 3 imports among them)"])


class IncludeFindings(Tree):
    def test_edge_not_allowed(self):
        self.assertEqual(self.findings({"lib/json.c": '#include "boot/boot.h"\n\n'
                                                      '#include "kernel/main.h"\n'},
                                       table="boot:\nlib: boot\nkernel: lib boot\n",
                                       base={"boot/boot.h": "", "kernel/main.h": ""}),
                         ['lib/json.c:3: includes "kernel/main.h" (folder lib -> folder kernel '
                          'is not allowed)'])

    def test_nested_folders_are_folders_of_their_own(self):
        self.assertEqual(self.findings({
            "platform/pv64/entry.c": '#include "platform/hvm64/ring0.h"\n',
            "kernel/smp.c": '#include "platform/hvm64/ring0.h"\n'}), [
            'kernel/smp.c:1: includes "platform/hvm64/ring0.h" (folder kernel -> folder '
            'platform/hvm64 is not allowed)',
            'platform/pv64/entry.c:1: includes "platform/hvm64/ring0.h" (folder '
            'platform/pv64 -> folder platform/hvm64 is not allowed)'])

    def test_file_in_no_known_folder(self):
        self.assertEqual(self.findings({
            "docs/notes.h": "", "top.h": "",
            "kernel/a.c": '#include "docs/notes.h"\n#include "top.h"\n'
                          '#include "kernel/gone.h"\n#include "clockbench/other.h"\n'}), [
            'kernel/a.c:1: includes "docs/notes.h" (docs/notes.h is in no folder of the '
            'table)',
            'kernel/a.c:2: includes "top.h" (top.h is in no folder of the table)',
            'kernel/a.c:3: includes "kernel/gone.h" (no such file in the tree, and not a '
            'generated header)'])

    def test_folder_the_table_lacks(self):
        self.write({**CLEAN, "scripts/gen.c": '#include "kernel/main.c"\n'})
        status, lines, _ = self.run_layers("kernel", "scripts")
        self.assertEqual(status, layers.EXIT_FINDINGS)
        self.assertEqual(lines[0], f"scripts/gen.c: folder scripts is not in the table of "
                                   f"{os.path.join(self.root, CONFIG)}, so the includes of "
                                   f"its 1 file are not checked")


class Cycles(Tree):
    def test_cycle_among_folders(self):
        found = self.findings({"base/clock.h": '#include "kernel/ticks.h"\n',
                               "kernel/ticks.h": '#include "base/cpu.h"\n'})
        self.assertEqual(found, [
            'base/clock.h:1: includes "kernel/ticks.h" (folder base -> folder kernel is '
            'not allowed)',
            'cycle among folders: base -> kernel -> base (base/clock.h:1 includes '
            '"kernel/ticks.h"; kernel/main.c:1 includes "base/cpu.h")'])

    def test_table_that_allows_a_cycle(self):
        table = "engine: report\nreport: engine\n"
        found = self.findings({"engine/e.c": '#include "report/r.h"\n',
                               "report/r.h": '#include "engine/e.h"\n', "engine/e.h": ""},
                              table)
        self.assertEqual(found, [
            f"{os.path.join(self.root, CONFIG)}: the table allows a cycle: engine -> "
            f"report -> engine",
            'cycle among folders: engine -> report -> engine (engine/e.c:1 includes '
            '"report/r.h"; report/r.h:1 includes "engine/e.h"); the table allows every '
            'edge of it'])

    def test_find_cycles(self):
        graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"a", "c"}, "d": {"a"}}
        self.assertEqual(layers.find_cycles(graph),
                         ([["a", "b", "a"], ["a", "b", "c", "a"]], True))
        self.assertEqual(layers.find_cycles({"a": {"b"}, "b": set()}), ([], True))

    def test_find_cycles_is_bounded(self):
        dense = {node: set(range(10)) for node in range(10)}
        cycles, complete = layers.find_cycles(dense)
        self.assertFalse(complete)
        self.assertEqual(len(cycles), layers.MAX_CYCLES)


class PythonImports(Tree):
    def test_import_cycle_at_module_and_function_level(self):
        found = self.findings({
            "tools/pkg/low.py": "import os\n\n\ndef late():\n    from . import high\n"
                                "    return high, os\n",
            "tools/pkg/c.py": "import pkg.d\n",
            "tools/pkg/d.py": "from pkg import e\n",
            "tools/pkg/e.py": "from pkg.c import X\n"})
        self.assertEqual(found, [
            "tools/pkg: import cycle: c -> d -> e -> c (tools/pkg/c.py:1 imports d; "
            "tools/pkg/d.py:1 imports e; tools/pkg/e.py:1 imports c)",
            "tools/pkg: import cycle: high -> low -> high (tools/pkg/high.py:1 imports low; "
            "tools/pkg/low.py:5 imports high in a function)"])

    def test_import_of_the_package_itself(self):
        self.assertEqual(self.findings({"tools/pkg/__init__.py": "from . import low\n",
                                        "tools/pkg/low.py": "from . import NAME\n"}),
                         ["tools/pkg: import cycle: __init__ -> low -> __init__ "
                          "(tools/pkg/__init__.py:1 imports low; tools/pkg/low.py:1 imports "
                          "__init__)"])

    def test_clockbench_lib_has_no_import_cycle(self):
        self.assertEqual(layers.import_cycle_findings(ROOT, "tools/clockbench_lib"), [])

    def test_clockbench_lib_keeps_its_table(self):
        """The host tool's subpackages import one another only as tools/layers.cfg says,
        and every subpackage has its line there."""
        config = layers.read_config(os.path.join(ROOT, layers.DEFAULT_CONFIG))
        self.assertIn("tools/clockbench_lib", config.python_rules)
        findings, modules, imports = layers.import_rule_findings(ROOT, "tools/clockbench_lib",
                                                                 config)
        self.assertEqual(findings, [])
        self.assertGreater((modules, imports), (30, 100))


# A package with subpackages and a table for them, as tools/clockbench_lib has: base at
# the bottom, model on it, boot on both, the top level (cli.py) on all.
RULES_TABLE = TABLE + """\
    tools/pkg/base:
    tools/pkg/model: base
    tools/pkg/boot: model base
    tools/pkg: *
    """
RULES_TREE = {
    **{path: text for path, text in CLEAN.items() if not path.startswith("tools/")},
    "tools/pkg/__init__.py": '"""A package."""\n',
    "tools/pkg/cli.py": "from .boot import qemu\nfrom . import version\n\n\n"
                        "def main():\n    from .model import report\n    return qemu, report\n",
    "tools/pkg/version.py": "import pkg.base.paths\n",
    "tools/pkg/base/__init__.py": "",
    "tools/pkg/base/paths.py": "ROOT = '/'\n",
    "tools/pkg/base/outcome.py": "from . import paths\n",
    "tools/pkg/model/__init__.py": "",
    "tools/pkg/model/report.py": "from ..base import paths\nfrom ..base.outcome import X\n",
    "tools/pkg/boot/__init__.py": "from . import qemu\n",
    "tools/pkg/boot/qemu.py": "import os\nfrom ..model import report\n"
                              "from pkg.base import outcome\n",
}


class PythonRules(Tree):
    """Which subpackage of a Python package may import which (PACKAGE/SUB: ...)."""

    def rule_findings(self, files):
        """The finding lines for RULES_TREE plus `files` under RULES_TABLE."""
        return self.findings(files, RULES_TABLE, RULES_TREE)

    def test_clean(self):
        self.write(RULES_TREE, RULES_TABLE)
        status, lines, stderr = self.run_layers()
        self.assertEqual((status, stderr), (layers.EXIT_CLEAN, ""))
        self.assertEqual(lines, ["layers: no findings (9 files and 11 includes read, 1 of a "
                                 "generated header; 10 Python modules and 10 imports among "
                                 "them)"])

    def test_an_import_the_table_does_not_allow(self):
        """One sentence: the file, the line, the import, and the rule it breaks."""
        config = os.path.join(self.root, CONFIG)
        self.assertEqual(self.rule_findings({
            "tools/pkg/model/report.py": "from ..base import paths\nfrom ..boot import qemu\n"}),
            [f'tools/pkg/model/report.py:2: "from ..boot import qemu" imports boot.qemu, but '
             f'model may import only base ({config}:14: "tools/pkg/model: base")',
             "tools/pkg: import cycle: boot.qemu -> model.report -> boot.qemu "
             "(tools/pkg/boot/qemu.py:2 imports model.report; tools/pkg/model/report.py:2 "
             "imports boot.qemu)"])

    def test_every_way_of_writing_an_import_is_resolved(self):
        config = os.path.join(self.root, CONFIG)
        rule = f'base may import no other subpackage ({config}:13: "tools/pkg/base:")'
        self.assertEqual(self.rule_findings({"tools/pkg/base/outcome.py": (
            "import json\n"
            "import pkg.model.report\n"
            "from pkg.model import report\n"
            "from pkg.model.report import VALUE\n"
            "from .. import cli\n"
            "\n\n"
            "def late():\n"
            "    from ..boot import qemu as emulator\n"
            "    from ..model.report import OTHER\n"
            "    return emulator, OTHER\n")})[:6], [
            f'tools/pkg/base/outcome.py:2: "import pkg.model.report" imports model.report, but '
            f'{rule}',
            f'tools/pkg/base/outcome.py:3: "from pkg.model import report" imports '
            f'model.report, but {rule}',
            f'tools/pkg/base/outcome.py:4: "from pkg.model.report import VALUE" imports '
            f'model.report, but {rule}',
            f'tools/pkg/base/outcome.py:5: "from .. import cli" imports the top-level module '
            f'cli, but {rule}',
            f'tools/pkg/base/outcome.py:9: "from ..boot import qemu as emulator" imports '
            f'boot.qemu in a function, but {rule}',
            f'tools/pkg/base/outcome.py:10: "from ..model.report import OTHER" imports '
            f'model.report in a function, but {rule}'])

    def test_a_subpackage_the_table_lacks(self):
        self.assertEqual(self.rule_findings({"tools/pkg/extra/__init__.py": "",
                                             "tools/pkg/extra/more.py": "from ..boot import qemu\n"}),
                         [f"tools/pkg/extra/__init__.py: subpackage extra of tools/pkg has no "
                          f"line in {os.path.join(self.root, CONFIG)}, so the imports of its 2 "
                          f"files are not checked"])

    def test_a_table_that_allows_a_cycle(self):
        table = RULES_TABLE.replace("tools/pkg/base:", "tools/pkg/base: boot")
        self.assertEqual(self.findings({}, table, RULES_TREE),
                         [f"{os.path.join(self.root, CONFIG)}: the table of tools/pkg allows a "
                          f"cycle: base -> boot -> base",
                          f"{os.path.join(self.root, CONFIG)}: the table of tools/pkg allows a "
                          f"cycle: base -> boot -> model -> base"])

    def test_bad_rules(self):
        config = os.path.join(self.root, CONFIG)
        cases = {
            "tools/pkg/base: lower\n": f"{config}:13: tools/pkg/base may import lower, which "
                                        f"is not a subpackage with a line of its own "
                                        f"(tools/pkg/lower: ...).",
            "tools/pkg/boot/deep: base\n": f"{config}:13: tools/pkg/boot/deep is neither the "
                                           f"Python package tools/pkg nor one of its "
                                           f"subpackages.",
        }
        for line, sentence in cases.items():
            with self.subTest(line=line):
                self.write(RULES_TREE, TABLE + "    " + line)
                status, lines, stderr = self.run_layers()
                self.assertEqual((status, lines), (layers.EXIT_ERROR, []))
                self.assertEqual(stderr.strip(), f"layers: {sentence}")

    def test_graph(self):
        self.write(RULES_TREE, RULES_TABLE)
        status, lines, _ = self.run_layers("--graph")
        self.assertEqual(status, layers.EXIT_CLEAN)
        self.assertEqual(lines[-7:], [
            "tools/pkg (Python modules): (top level) (3), base (3), boot (2), model (2)",
            "(top level) -> base      1 import",
            "(top level) -> boot      1 import",
            "(top level) -> model     1 import",
            "boot -> base             1 import",
            "boot -> model            1 import",
            "model -> base            2 imports"])


class Graph(Tree):
    def test_graph(self):
        self.write({**CLEAN, "lib/json.c": '#include "kernel/main.c"\n'})
        status, lines, _ = self.run_layers("--graph")
        self.assertEqual(status, layers.EXIT_CLEAN)
        self.assertEqual(lines, [
            "folders (C files): base (1), boot (2), kernel (1), lib (3), platform/hvm64 (2), "
            "tests (1)",
            "base -> lib                1 include",
            "kernel -> base             1 include",
            "lib -> boot                1 include",
            "lib -> kernel              1 include  not allowed",
            "platform/hvm64 -> base     1 include",
            "tests -> kernel            1 include",
            "tests -> lib               1 include"])


class Errors(Tree):
    """A bad config or an unreadable tree: exit 2, one sentence, nothing on stdout."""

    def error(self, *args, table=TABLE, files=None):
        self.write(CLEAN if files is None else files, table)
        status, lines, stderr = self.run_layers(*args)
        self.assertEqual((status, lines), (layers.EXIT_ERROR, []))
        self.assertEqual(len(stderr.splitlines()), 1, stderr)
        self.assertTrue(stderr.startswith("layers: "), stderr)
        return stderr.strip()

    def test_bad_configs(self):
        config = os.path.join(self.root, CONFIG)
        cases = {
            "kernel base\n": f"{config}:1: expected 'FOLDER: ALLOWED-FOLDER ...' or "
                             f"'SETTING = VALUE ...', not 'kernel base'.",
            "colour = red\n": f"{config}:1: unknown setting 'colour' (the settings are "
                              f"nested, generated, python).",
            "kernel: base\n": f"{config}:1: kernel may include base, which has no line of "
                              f"its own.",
            "base:\nplatform/hvm64: base\n": f"{config}:2: platform/hvm64 has two levels, "
                                             f"but platform is not listed as nested.",
            "base:\nbase: lib\n": f"{config}:2: base has a line already (line 1).",
            "# nothing\n": f"{config}: the table is empty (no 'FOLDER: ...' line).",
        }
        for table, sentence in cases.items():
            with self.subTest(table=table):
                self.assertEqual(self.error(table=table), f"layers: {sentence}")

    def test_missing_config(self):
        """Without --config, the tree's own tools/layers.cfg, which this tree lacks."""
        result = subprocess.run([PYTHON, LAYERS, "--root", self.root], capture_output=True,
                                text=True, check=False)
        self.assertEqual((result.returncode, result.stdout), (layers.EXIT_ERROR, ""))
        config = os.path.join(self.root, layers.DEFAULT_CONFIG)
        self.assertEqual(result.stderr, f"layers: cannot read the config {config}: No such "
                                        f"file or directory.\n")

    def test_folder_given_that_is_not_there(self):
        self.assertEqual(self.error("nowhere"), f"layers: nowhere: no such folder under "
                                                f"{self.root}.")
        self.assertEqual(self.error(".."), f"layers: ..: not a folder under {self.root} "
                                           f"(name it relative to the root).")

    def test_tree_without_the_tables_folders(self):
        self.assertEqual(self.error(files={"docs/x.c": ""}),
                         f"layers: {self.root}: none of the table's folders (boot, lib, base, "
                         f"platform, kernel, tests) is here.")

    def test_python_that_does_not_parse(self):
        self.assertIn("layers: cannot read tools/pkg/bad.py: ",
                      self.error(files={**CLEAN, "tools/pkg/bad.py": "def (:\n"}))

    def test_missing_python_package(self):
        files = {path: text for path, text in CLEAN.items() if not path.startswith("tools/")}
        self.assertEqual(self.error(files=files), "layers: cannot read the Python package "
                                                  "tools/pkg: No such file or directory.")


class Repository(unittest.TestCase):
    def test_the_repository_config_reads_and_the_tree_too(self):
        result = subprocess.run([PYTHON, LAYERS, "--graph"], capture_output=True, text=True,
                                check=False)
        self.assertEqual((result.returncode, result.stderr), (layers.EXIT_CLEAN, ""))
        self.assertTrue(result.stdout.startswith("folders (C files): "), result.stdout)


if __name__ == "__main__":
    unittest.main()
