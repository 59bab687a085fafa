#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds and runs tests/consumer against it
# with find_package(bpeforge), and runs the installed command.
set -euo pipefail
build=$1
source_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source_dir/tests/consumer" -B "$tmp/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
mkdir "$tmp/work"
"$tmp/build/consumer" "$tmp/work"
"$tmp/prefix/bin/bpeforge" --version
test -f "$tmp/prefix/include/bpeforge/bpeforge.h"
