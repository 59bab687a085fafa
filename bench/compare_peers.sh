#!/usr/bin/env bash
# bpeforge train against Hugging Face tokenizers' BPE trainer on the same input, side by side.
#
#   BUILD=build bench/compare_peers.sh [-n RUNS] [INPUT]
#
# INPUT defaults to a 100 MB TinyStories-like corpus ($DATA/stories-100M-seed1.txt, generated
# with bpeforge-gen if missing). Both train to vocab 30,000 with <|endoftext|> as the special
# token, 2 threads each (bpeforge --threads 2; HF with RAYON_NUM_THREADS=2), alternating
# bpeforge, HF, bpeforge, HF, ... for RUNS pairs (default 5) so that drift in machine load hits
# both alike. Printed per run: bpeforge's own total_seconds (--stats-json) and HF's train_ms
# (the Tokenizer.train call alone), plus whole-process wall time of each; then the medians and
# the median of the per-pair ratios HF / bpeforge. Finally the merge lists of the last pair are
# compared: they must agree up to the first count tie (HF breaks ties by token id, bpeforge by
# the greater byte pair, as CS336 specifies).
#
# The peers live in shared/peers beside the repository (../shared/peers from the repository
# root) and need `cd ../shared/peers && npm ci` once. Without them this script says so and
# exits 0.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${BUILD:-build}"
data="${DATA:-data}"
runs=5
input=""
vocab=30000

while (($#)); do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare_peers.sh: unknown option $1" >&2; exit 2 ;;
    *) input="$1"; shift ;;
  esac
done

peers="$(dirname "$root")/shared/peers"
if [[ ! -f "$peers/hf_train.js" ]]; then
  echo "compare_peers.sh: no peers at $peers (shared/peers beside the repository); skipping."
  exit 0
fi
if ! command -v node >/dev/null; then
  echo "compare_peers.sh: node is not installed; skipping."
  exit 0
fi
if [[ ! -d "$peers/node_modules/tokenizers" ]]; then
  echo "compare_peers.sh: the peers' npm packages are missing; install them once with:"
  echo "  (cd $peers && npm ci)"
  exit 0
fi
bpeforge="$build/bin/bpeforge"
if [[ ! -x "$bpeforge" ]]; then
  echo "compare_peers.sh: $bpeforge not found; build it first (cmake --build $build --target bpeforge bpeforge-gen)" >&2
  exit 1
fi

if [[ -z "$input" ]]; then
  mkdir -p "$data"
  input="$data/stories-100M-seed1.txt"
  if [[ ! -f "$input" || "$(stat -c %s "$input")" != 100000000 ]]; then
    if [[ ! -x "$build/bin/bpeforge-gen" ]]; then
      echo "compare_peers.sh: $build/bin/bpeforge-gen not found (needed to make $input)" >&2
      exit 1
    fi
    "$build/bin/bpeforge-gen" --flavor stories --size 100M --seed 1 --out "$input"
  fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/compare-peers.XXXXXX")"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
json_num() {  # text key -> number (flat JSON, one line or pretty-printed)
  sed -n "s/.*\"$2\": *\([0-9.eE+-]*\).*/\1/p" <<<"$1" | head -n 1
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "input: $input ($(stat -c %s "$input") bytes), vocab $vocab, 2 threads each, $runs pairs, nproc=$(nproc)"
printf '%-4s %14s %14s %14s %14s %10s\n' run ours_total_s ours_wall_s hf_train_s hf_wall_s hf/ours
ours_total=() ours_wall=() hf_train=() hf_wall=() ratios=()
for ((i = 1; i <= runs; i++)); do
  t0="$(now)"
  "$bpeforge" train "$input" --vocab-size "$vocab" --special-token '<|endoftext|>' --threads 2 \
    --out "$work/ours" --stats-json "$work/ours.json" --quiet >/dev/null
  t1="$(now)"
  hf_json="$(RAYON_NUM_THREADS=2 node "$peers/hf_train.js" "$input" "$vocab" "$work/hf" \
    '<|endoftext|>' 2>/dev/null | tail -n 1)"
  t2="$(now)"
  o_total="$(json_num "$(cat "$work/ours.json")" total_seconds)"
  o_wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
  h_train="$(awk -v ms="$(json_num "$hf_json" train_ms)" 'BEGIN { printf "%.3f", ms / 1000 }')"
  h_wall="$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')"
  ratio="$(awk -v h="$h_train" -v o="$o_total" 'BEGIN { printf "%.2f", h / o }')"
  ours_total+=("$o_total") ours_wall+=("$o_wall") hf_train+=("$h_train") hf_wall+=("$h_wall")
  ratios+=("$ratio")
  printf '%-4s %14.3f %14.3f %14.3f %14.3f %10s\n' "$i" "$o_total" "$o_wall" "$h_train" \
    "$h_wall" "$ratio"
done
printf '%-4s %14.3f %14.3f %14.3f %14.3f %10s\n' median \
  "$(printf '%s\n' "${ours_total[@]}" | median)" "$(printf '%s\n' "${ours_wall[@]}" | median)" \
  "$(printf '%s\n' "${hf_train[@]}" | median)" "$(printf '%s\n' "${hf_wall[@]}" | median)" \
  "$(printf '%s\n' "${ratios[@]}" | median)"
echo "(hf/ours = HF train_ms / bpeforge total_seconds per pair, median over pairs;" \
  "HF's wall includes its untimed copy of the input that splits on the special token)"

echo "merges, bpeforge vs HF (common prefix = agreement up to the first tie):"
node "$peers/compare_merges.js" "$work/ours/merges.txt" "$work/hf/merges.txt" --show 3
