#!/usr/bin/env bash
# End-to-end training benchmark: generate corpora (once), run `bpeforge train` on them under
# /usr/bin/time -v, print one table row per case.
#
#   BUILD=build bench/e2e.sh [--threads N] [--compare-threads] [CASE...]
#
# Cases (default: stories-100M web-100M):
#   stories-100M  TinyStories-like 100 MB, vocab 10,000
#   stories-2G    TinyStories-like 2 GB,   vocab 10,000
#   web-100M      OpenWebText-like 100 MB, vocab 32,000
#   web-1G        OpenWebText-like 1 GB,   vocab 32,000
#   web-12G       OpenWebText-like 12 GB,  vocab 32,000 (needs 12 GB of disk)
# Options:
#   --threads N         training threads (default 2)
#   --compare-threads   also run every case with --threads 1 to show the pre-tokenize speedup
#   --keep              keep the trained outputs under $OUT (default: removed after each run)
#   --page-cache STATE  before each run: cold (drop the corpus from the page cache), warm (read
#                       it once with cat) or as-is (default). Peak RSS counts the mapped corpus
#                       pages, so it is measured both ways.
#   --pretokenize-only  also time bpeforge-pretokenize-only (the same pass counting nothing)
#                       on each case, and print it beside the training run
# Environment:
#   BUILD  build directory holding bin/bpeforge and bin/bpeforge-gen (default: build); this
#          script builds nothing.
#   DATA   corpus directory (default: data/, gitignored). A corpus is reused when a file of
#          the right name and size exists; names carry flavour, size and seed.
#   SEED   generator seed (default 1).
#   OUT    scratch directory for outputs (default: $DATA/e2e-out).
# Disk: corpora take exactly their nominal size (100 MB, 1 GB, 2 GB, 12 GB); a case is refused
# when the free space beside DATA would drop below 2 GB.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${BUILD:-build}"
data="${DATA:-data}"
seed="${SEED:-1}"
out="${OUT:-$data/e2e-out}"
threads=2
compare=0
keep=0
page_cache=as-is
scan=0
cases=()

while (($#)); do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --compare-threads) compare=1; shift ;;
    --keep) keep=1; shift ;;
    --page-cache) page_cache="$2"; shift 2 ;;
    --pretokenize-only) scan=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "e2e.sh: unknown option $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
((${#cases[@]})) || cases=(stories-100M web-100M)
case "$page_cache" in cold|warm|as-is) ;; *) echo "e2e.sh: --page-cache cold|warm|as-is" >&2; exit 2 ;; esac

bpeforge="$build/bin/bpeforge"
gen="$build/bin/bpeforge-gen"
for exe in "$bpeforge" "$gen"; do
  if [[ ! -x "$exe" ]]; then
    echo "e2e.sh: $exe not found; build it first, e.g." >&2
    echo "  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build $build --target bpeforge bpeforge-gen" >&2
    exit 1
  fi
done
if [[ ! -x /usr/bin/time ]]; then
  echo "e2e.sh: /usr/bin/time not found (peak RSS comes from it): apt-get install time" >&2
  exit 1
fi
mkdir -p "$data" "$out"

# case name -> "flavor size vocab"
case_spec() {
  case "$1" in
    stories-100M) echo "stories 100M 10000" ;;
    stories-2G) echo "stories 2G 10000" ;;
    web-100M) echo "web 100M 32000" ;;
    web-1G) echo "web 1G 32000" ;;
    web-12G) echo "web 12G 32000" ;;
    *) return 1 ;;
  esac
}

bytes_of() {  # 100M -> 100000000 (powers of 1000, as bpeforge-gen)
  local n="${1%[KMG]}"
  case "$1" in
    *K) echo $((n * 1000)) ;;
    *M) echo $((n * 1000000)) ;;
    *G) echo $((n * 1000000000)) ;;
    *) echo "$n" ;;
  esac
}

free_bytes() { df -P -B1 "$1" | awk 'NR == 2 { print $4 }'; }

ensure_corpus() {  # flavor size -> path (generated unless present with the right size)
  local flavor="$1" size="$2"
  local path="$data/$flavor-$size-seed$seed.txt"
  local want
  want="$(bytes_of "$size")"
  if [[ -f "$path" && "$(stat -c %s "$path")" == "$want" ]]; then
    echo "$path"
    return
  fi
  local reserve=$((2 * 1000 * 1000 * 1000))
  if (($(free_bytes "$data") < want + reserve)); then
    echo "e2e.sh: not enough disk for $path ($want bytes + 2 GB reserve)" >&2
    return 1
  fi
  echo "generating $path ..." >&2
  "$gen" --flavor "$flavor" --size "$size" --seed "$seed" --out "$path" >&2
  echo "$path"
}

json_field() {  # file key -> value of a top-level number field
  sed -n "s/^ *\"$2\": *\([0-9.eE+-]*\).*/\1/p" "$1"
}

set_page_cache() {  # corpus
  case "$page_cache" in
    cold) dd if="$1" iflag=nocache count=0 status=none ;;  # drops the file's cached pages
    warm) cat "$1" >/dev/null ;;
  esac
}

printf '%-14s %9s %6s %7s %8s %10s %8s %9s %8s %10s %7s\n' \
  corpus size vocab threads wall_s pretok_s merge_s peak_MB MB/s distinct merges
run_case() {  # name threads
  local name="$1" nthreads="$2" spec flavor size vocab corpus
  if ! spec="$(case_spec "$name")"; then
    echo "e2e.sh: unknown case $name" >&2
    return 1
  fi
  read -r flavor size vocab <<<"$spec"
  corpus="$(ensure_corpus "$flavor" "$size")"
  local dir="$out/$name-t$nthreads"
  local stats="$dir.stats.json" timelog="$dir.time.log"
  rm -rf "$dir"
  set_page_cache "$corpus"
  /usr/bin/time -v -o "$timelog" "$bpeforge" train "$corpus" --vocab-size "$vocab" \
    --special-token '<|endoftext|>' --threads "$nthreads" --out "$dir" --stats-json "$stats" \
    --quiet >/dev/null
  local wall peak_kb bytes pre merge distinct merges
  # "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.34" -> seconds
  wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {
    n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$timelog")"
  peak_kb="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timelog")"
  bytes="$(json_field "$stats" bytes)"
  pre="$(json_field "$stats" pretokenize_seconds)"
  merge="$(json_field "$stats" merge_seconds)"
  distinct="$(json_field "$stats" distinct_pretokens)"
  merges="$(json_field "$stats" merges)"
  awk -v n="$name" -v sz="$size" -v v="$vocab" -v t="$nthreads" -v w="$wall" -v p="$pre" \
    -v m="$merge" -v kb="$peak_kb" -v b="$bytes" -v d="$distinct" -v mg="$merges" 'BEGIN {
      printf "%-14s %9s %6d %7d %8.2f %10.2f %8.2f %9.0f %8.1f %10d %7d\n",
        n, sz, v, t, w, p, m, kb / 1024, (w > 0 ? b / 1e6 / w : 0), d, mg }'
  ((keep)) || rm -rf "$dir"
  if ((scan)); then
    set_page_cache "$corpus"
    echo "  pre-tokenize only: $("$build/bin/bpeforge-pretokenize-only" "$corpus" \
      --special-token '<|endoftext|>' --threads "$nthreads")"
  fi
}

for name in "${cases[@]}"; do
  run_case "$name" "$threads"
  if ((compare)) && [[ "$threads" != 1 ]]; then
    run_case "$name" 1
  fi
done
echo "(MB/s = corpus bytes / whole-process wall time; nproc=$(nproc); stats and time logs in $out)"
