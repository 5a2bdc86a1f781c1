# SPDX-License-Identifier: MIT
"""Where the runner works: the repository root, and the build folder under it.

ROOT is where the runner's files are: a checkout, or for an installed runner
(`make install`) PREFIX/share/clockbench, which holds the same tree with no Makefile: the
runner beside its built images, the report schemas and the test list.  What the runner
writes (logs, caches, results) goes under the checkout, or for an installed runner under
the user's cache folder (work_root()).

Code reads paths.ROOT when it runs, never a copy taken at import, so that a test can point
every module at a scratch tree by patching this one name.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))  # tools/clockbench_lib/base/paths.py
# Relative to ROOT: the Makefile's BUILD, where make puts what it builds and the runner its
# logs and caches.
BUILD_DIR = "build"
MAKEFILE = "Makefile"
CACHE_NAME = "clockbench"  # the installed runner's folder in $XDG_CACHE_HOME


def root_path(*parts):
    """A path under the repository root."""
    return os.path.join(ROOT, *parts)


def installed(root=None):
    """True when the runner runs from an installation (no Makefile beside it, so nothing
    can be built), not from a checkout."""
    return not os.path.isfile(os.path.join(root or ROOT, MAKEFILE))


def work_root():
    """Where the runner writes: ROOT in a checkout; for an installed runner, which may not
    write to PREFIX, $XDG_CACHE_HOME/clockbench (default ~/.cache/clockbench)."""
    if not installed():
        return ROOT
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".cache")
    return os.path.join(cache, CACHE_NAME)


def work_path(*parts):
    """A path under work_root()."""
    return os.path.join(work_root(), *parts)
