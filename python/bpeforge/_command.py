"""The `bpeforge` command of a wheel made by scripts/build-dist.sh: it runs the executable that
the wheel carries in bpeforge/bin, with the libraries it needs in bpeforge/lib."""

import os
import sys


def main() -> None:
    command = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "bpeforge")
    if not os.access(command, os.X_OK):
        sys.exit(f"bpeforge: {command} is missing: this bpeforge package was installed from a "
                 "source checkout, whose command is build/bin/bpeforge")
    os.execv(command, ["bpeforge"] + sys.argv[1:])
