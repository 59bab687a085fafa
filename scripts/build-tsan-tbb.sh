#!/usr/bin/env bash
# Builds Debian's own oneTBB source with ThreadSanitizer into .cache/tsan-tbb and prints the
# directory of its CMake package. The TSan build of the tests links against it: Debian's
# libtbb.so is not instrumented, so TSan could not see how it hands work between threads and
# would report every parallel body as racing with the code that started it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.cache/tsan-tbb
prefix=$root/prefix
if [ -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ]; then
  echo "$prefix/lib/cmake/TBB"
  exit 0
fi
mkdir -p "$root/lists/partial" "$root/src"
# A private source list, so the machine's apt configuration stays as it was.
echo "deb-src http://deb.debian.org/debian bookworm main" >"$root/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$root/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$root/lists" -qq)
apt-get "${apt_opts[@]}" update >&2
(cd "$root/src" && apt-get "${apt_opts[@]}" source --download-only onetbb >&2 2>/dev/null)
tarball=$(ls "$root"/src/onetbb_*.orig.tar.xz | head -n 1)
rm -rf "$root/tree" && mkdir -p "$root/tree"
tar -xJf "$tarball" -C "$root/tree" --strip-components=1
cmake -S "$root/tree" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF \
  -DTBB_SANITIZE=thread -DCMAKE_INSTALL_PREFIX="$prefix" >&2
cmake --build "$root/build" >&2
cmake --install "$root/build" >&2
echo "$prefix/lib/cmake/TBB"
