#!/usr/bin/env bash
# A vocabulary sweep from one count file against training each size from the text:
#
#   bench/sweep_counts.sh [-n RUNS] [INPUT] [VOCAB...]
#
# INPUT defaults to data/web-1G-seed1.txt (generated if missing), VOCAB to 10000 32000 50000.
# Prints whole-process wall seconds and peak RSS (/usr/bin/time) per run, the medians, and
# checks that both ways give byte-identical outputs. 2 threads everywhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs=3
while [ "${1:-}" = "-n" ]; do runs=$2; shift 2; done
input=${1:-data/web-1G-seed1.txt}
shift || true
vocabs=("$@")
[ ${#vocabs[@]} -gt 0 ] || vocabs=(10000 32000 50000)
if [ ! -s "$input" ]; then
  mkdir -p "$(dirname "$input")"
  build/bin/bpeforge-gen --flavor web --size 1G --seed 1 --out "$input"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timed() {  # prints "seconds peak-MB" of the command
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  awk '{printf "%.2f %.0f", $1, $2 / 1024}' "$tmp/t"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
b=build/bin/bpeforge
echo "count: $input"
: >"$tmp/count"
for ((i = 1; i <= runs; i++)); do
  r=$(timed $b count "$input" --threads 2 --quiet --out "$tmp/all.counts")
  echo "  run $i: ${r% *} s, ${r#* } MB peak"; echo "${r% *}" >>"$tmp/count"
done
echo "  median $(median <"$tmp/count") s; count file $(($(stat -c %s "$tmp/all.counts") / 1000000)) MB"
for v in "${vocabs[@]}"; do
  : >"$tmp/text"; : >"$tmp/counts"
  for ((i = 1; i <= runs; i++)); do
    t=$(timed $b train "$input" --vocab-size "$v" --threads 2 --quiet --out "$tmp/text-$v")
    c=$(timed $b train --counts "$tmp/all.counts" --vocab-size "$v" --threads 2 --quiet \
        --out "$tmp/counts-$v")
    echo "  vocab $v run $i: from text ${t% *} s (${t#* } MB), from counts ${c% *} s (${c#* } MB)"
    echo "${t% *}" >>"$tmp/text"; echo "${c% *}" >>"$tmp/counts"
  done
  diff -r "$tmp/text-$v" "$tmp/counts-$v" >/dev/null || { echo "outputs differ at vocab $v" >&2; exit 1; }
  echo "  vocab $v median: from text $(median <"$tmp/text") s, from counts $(median <"$tmp/counts") s, outputs identical"
done
