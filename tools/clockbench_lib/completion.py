# SPDX-License-Identifier: MIT
"""What bash completion offers beyond the options argparse knows: the guest options (from
the image's option table, build/guest-options.json, as `name=` or `name=value` for a
choice), the environments of `matrix` (the built-in ones and those of --env-file), and
the boot tests of `test` (tests/tests.cfg or --config).  Debian's python3-argcomplete
calls each as an action's completer; a file that cannot be read offers nothing rather
than break the shell's completion."""

import os

from .base import paths
from .base.outcome import RunnerError
from .boot import guestopts
from .testing import testlist


def guest_option_words(prefix="", **_):
    """`name=value` for each value of a choice or bool option, `name=` for the others."""
    try:
        table = guestopts.load_table() or {}
    except RunnerError:
        return []
    words = []
    for option in table.values():
        if option.kind in ("choice", "bool"):
            words += [f"{option.name}={value}" for value in option.values]
        else:
            words.append(f"{option.name}=")
    return [word for word in words if word.startswith(prefix)]


def environment_names(prefix="", parsed_args=None, **_):
    """The built-in environments, then those of the --env-file already typed."""
    from .compare import matrix  # pylint: disable=import-outside-toplevel  (cli's lazy load)
    names = list(matrix.ENVIRONMENT_NAMES)
    env_file = getattr(parsed_args, "env_file", None)
    if env_file and os.path.isfile(env_file):
        try:
            names += [env.name for env in matrix.load_env_file(env_file)]
        except RunnerError:
            pass
    return [name for name in names if name.startswith(prefix)]


def test_names(prefix="", parsed_args=None, **_):
    """The boot tests of the test list (--config when typed, else tests/tests.cfg)."""
    path = getattr(parsed_args, "config", None) or paths.root_path(testlist.TESTS_CFG)
    try:
        tests = testlist.load_tests_cfg(path)
    except RunnerError:
        return []
    return [test.name for test in tests
            if isinstance(test, testlist.BootTest) and test.name.startswith(prefix)]
