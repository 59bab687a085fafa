#!/usr/bin/env bash
# Makes, from this checkout, the two ways to install bpeforge without root or a compiler
# (docs/install.md), in dist/:
#   bpeforge-VERSION-cp311-cp311-linux_x86_64.whl   the Python module and the `bpeforge` command
#   bpeforge-VERSION-linux-x86_64.tar.gz            bin/, lib/, include/, lib/cmake/bpeforge
# Both carry every library they load but the C and C++ runtime, and run on any x86-64 Linux
# with a glibc at least as new as the one they need. The build folder is build-dist/, or
# $BPEFORGE_DIST_BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
build=${BPEFORGE_DIST_BUILD:-build-dist}
python=$(realpath /usr/bin/python3)
# No Open MPI (mpirun training needs the cluster's own MPI: the source build), no tests.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBPEFORGE_RELOCATABLE=ON \
  -DBPEFORGE_BUILD_TESTS=OFF -DBPEFORGE_BUILD_BENCH=OFF -DBPEFORGE_MPI=OFF \
  -DBPEFORGE_BUILD_PYTHON=ON -DPython_EXECUTABLE="$python" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
cmake --build "$build"

stage=$PWD/$build/stage
rm -rf "$stage" "$build/cpack"
cmake --install "$build" --prefix "$stage" --strip >/dev/null
cmake --install "$build" --prefix "$stage" --component python --strip >/dev/null
mkdir -p dist
(cd "$build" && cpack -B cpack >/dev/null)
tarball=$(find "$build/cpack" -maxdepth 1 -name 'bpeforge-*-linux-x86_64.tar.gz')
mv "$tarball" dist/
tarball=dist/$(basename "$tarball")

version=$(basename "$tarball" | sed 's/^bpeforge-\(.*\)-linux-x86_64.tar.gz$/\1/')
rm -f dist/bpeforge-"$version"-*.whl
BPEFORGE_DIST_STAGE=$stage "$python" -m pip wheel --quiet --no-build-isolation --no-deps \
  --no-index --wheel-dir dist . >&2
wheel=$(find dist -maxdepth 1 -name "bpeforge-$version-*.whl")
if [ -z "$wheel" ]; then
  echo "build-dist: no wheel of version $version (pyproject.toml and CMakeLists.txt differ?)" >&2
  exit 1
fi
ls -l "$wheel" "$tarball" >&2
