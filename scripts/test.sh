#!/usr/bin/env bash
# Builds and runs the whole test suite: a Release build with -Werror (C++ tests, then the
# Python tests against the module installed into .venv by pip), then the relocatable wheel and
# tarball on a bare Debian 12, then the C++ tests under ASan+UBSan and under TSan, then each
# fuzz target for 10 seconds. `scripts/test.sh --quick` runs the Release build only.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

run_suite() {  # build dir, extra cmake args...
  local dir=$1
  shift
  echo "=== $dir" >&2
  cmake -S . -B "$dir" -G Ninja -DBPEFORGE_WERROR=ON "$@" >/dev/null
  cmake --build "$dir"
  (cd "$dir" && ctest --output-on-failure -j "$(nproc)")
}

run_suite build -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(realpath /usr/bin/python3)"
echo "=== python" >&2
python=$(scripts/python-env.sh)
(cd tests/python && "$python" -m pytest -q -p no:cacheprovider .)
if [ "${1:-}" != "--quick" ]; then
  # The wheel and tarball of scripts/build-dist.sh on a bare Debian 12 (skipped, saying why,
  # without root, debootstrap or the Debian mirror).
  echo "=== bare Debian" >&2
  tests/bare_debian_test.sh build
  # Sanitizer builds skip the benchmarks, the Python module and MPI (whose own allocations the
  # sanitizers would report); the C++ tests are what they check.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_suite build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBPEFORGE_SANITIZE=address,undefined -DBPEFORGE_BUILD_BENCH=OFF -DBPEFORGE_BUILD_PYTHON=OFF \
    -DBPEFORGE_MPI=OFF
  # TSan needs a oneTBB built with TSan too, or it cannot see the library's synchronization.
  tbb_dir=$(scripts/build-tsan-tbb.sh)
  TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" \
    run_suite build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBPEFORGE_SANITIZE=thread -DBPEFORGE_BUILD_BENCH=OFF -DBPEFORGE_BUILD_PYTHON=OFF -DBPEFORGE_MPI=OFF \
    -DTBB_DIR="$tbb_dir"
  # Every libFuzzer target, briefly, from its seeds (scripts/fuzz.sh 600 for a long run).
  echo "=== fuzz" >&2
  scripts/fuzz.sh 10
fi
