#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzz.cc, clang with ASan and UBSan) and runs each for
# SECONDS (default 60), starting from its seeds in fuzz/corpus/TARGET. New inputs go to
# build-fuzz/corpus/TARGET, findings to build-fuzz/findings/; a finding fails the script.
# Prints, per target, the executions, executions per second and coverage.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBPEFORGE_FUZZ=ON -DBPEFORGE_SANITIZE=address,undefined -DBPEFORGE_BUILD_TESTS=OFF \
  -DBPEFORGE_BUILD_BENCH=OFF -DBPEFORGE_BUILD_PYTHON=OFF -DBPEFORGE_MPI=OFF >/dev/null
cmake --build build-fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/*_fuzz.cc; do targets+=("$(basename "$src" .cc)"); done
fi
mkdir -p build-fuzz/findings
failed=0
for target in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$target"
  log="build-fuzz/$target.log"
  # A zstd frame may declare a window of 2 GiB (what `zstd -d --long=31` accepts), which its
  # decoder allocates (and touches as it fills): allocations up to that are allowed.
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=2200 -artifact_prefix="build-fuzz/findings/$target-" \
    "build-fuzz/corpus/$target" "fuzz/corpus/$target" >"$log" 2>&1; then
    status=ok
  else
    status=FINDING
    failed=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "$target: $status, ${execs:-0} executions, ${rate:-0}/s, $cov"
  if [ "$status" != ok ]; then tail -n 30 "$log"; fi
done
exit $failed
