#!/usr/bin/env bash
# Makes .venv (Debian's python3, with the system's numpy and pytest visible) if it is missing
# and installs the bpeforge module into it from this checkout, offline. It reuses the CMake
# build in build/, so after a build it only relinks. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv >&2
fi
.venv/bin/python -m pip install --quiet --no-build-isolation --no-deps --no-index . >&2
echo "$PWD/.venv/bin/python"
