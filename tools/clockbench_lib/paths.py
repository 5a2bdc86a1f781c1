# SPDX-License-Identifier: MIT
"""Where the runner works: the repository root, and the build folder under it.

Code reads paths.ROOT when it runs, never a copy taken at import, so that a test can point
every module at a scratch tree by patching this one name.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Relative to ROOT: the Makefile's BUILD, where make puts what it builds and the runner its
# logs and caches.
BUILD_DIR = "build"


def root_path(*parts):
    """A path under the repository root."""
    return os.path.join(ROOT, *parts)
