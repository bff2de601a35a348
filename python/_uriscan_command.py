# SPDX-License-Identifier: MIT
"""The uriscan command of the Python package: runs the C++ command built
with it (uriscan/_bin/uriscan) in place of this process, with the same
arguments, so it behaves exactly as that command does.

A module of its own, beside the package, so that starting the command does
not import uriscan (NumPy and the extension)."""
import os
import sys

COMMAND = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "uriscan", "_bin", "uriscan")


def main():
    try:
        os.execv(COMMAND, ["uriscan"] + sys.argv[1:])
    except OSError as e:
        sys.exit("uriscan: cannot run %s: %s" % (COMMAND, e.strerror))
