# SPDX-License-Identifier: MIT
"""Where the runner works: the repository root, and the build folder under it.

Code reads paths.ROOT when it runs, never a copy taken at import, so that a test can point
every module at a scratch tree by patching this one name.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def root_path(*parts):
    """A path under the repository root."""
    return os.path.join(ROOT, *parts)
