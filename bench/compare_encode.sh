#!/usr/bin/env bash
# bpeforge encode against tiktoken (npm, Rust core compiled to WASM) and Hugging Face
# tokenizers (npm, native Rust) on the same file with the GPT-2 vocabulary, side by side.
#
#   BUILD=build bench/compare_encode.sh [-n RUNS] [INPUT]
#
# INPUT defaults to $DATA/stories-100M-seed1.txt (generated if missing). Rounds alternate
# bpeforge, tiktoken, HF; each prints whole-process wall seconds, and the peers also their
# in-process encode time (the encode call alone, file already read). bpeforge runs with
# --threads 2; HF with RAYON_NUM_THREADS=2 and encodeBatch over 64 pieces; tiktoken's JS
# binding is single-threaded. Ids are compared by sha256 of the uint32 little-endian array:
# all three must agree. The peers and the GPT-2 files live in shared/ beside the repository
# and need `npm ci` in shared/peers once; without them the script says so and exits 0.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${BUILD:-build}"
data="${DATA:-data}"
runs=5
input=""
while (($#)); do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) input=$1; shift ;;
  esac
done
shared="$(dirname "$root")/shared"
peers="$shared/peers"
gpt2="$shared/fixtures/cs336"
if [ ! -d "$peers/node_modules" ] || [ ! -f "$gpt2/gpt2_vocab.json" ] || ! command -v node >/dev/null; then
  echo "peers or fixtures missing: need node, $gpt2/gpt2_vocab.json and \`(cd $peers && npm ci)\`"
  exit 0
fi
if [ -z "$input" ]; then
  input="$data/stories-100M-seed1.txt"
  [ -s "$input" ] || { mkdir -p "$data"; "$build/bin/bpeforge-gen" --flavor stories --size 100M --seed 1 --out "$input"; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A tokenizer.json for HF built from the same GPT-2 vocab.json and merges.txt.
python3 bench/gpt2_tokenizer_json.py "$gpt2" "$tmp/tokenizer.json"

now() { date +%s.%N; }
json_field() { python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['$1'])"; }
ours_w=(); tik_w=(); tik_e=(); hf_w=(); hf_e=()
for ((r = 1; r <= runs; r++)); do
  t0=$(now)
  "$build/bin/bpeforge" encode --vocab "$gpt2/gpt2_vocab.json" --merges "$gpt2/gpt2_merges.txt" \
    --special-token '<|endoftext|>' --threads 2 --quiet --output "$tmp/ours.u32" "$input" >/dev/null
  t1=$(now)
  ours_sha=$(sha256sum "$tmp/ours.u32" | cut -d' ' -f1)
  tik=$(node "$peers/tiktoken_encode.js" gpt2 "$input")
  t2=$(now)
  hf=$(RAYON_NUM_THREADS=2 node "$peers/hf_encode.js" "$input" "$tmp/tokenizer.json" --batch 64)
  t3=$(now)
  ours_w+=("$(awk "BEGIN {print $t1 - $t0}")")
  tik_w+=("$(awk "BEGIN {print $t2 - $t1}")")
  hf_w+=("$(awk "BEGIN {print $t3 - $t2}")")
  tik_e+=("$(echo "$tik" | json_field encode_ms)"); hf_e+=("$(echo "$hf" | json_field encode_ms)")
  same_t=$([ "$(echo "$tik" | json_field ids_sha256)" = "$ours_sha" ] && echo yes || echo NO)
  same_h=$([ "$(echo "$hf" | json_field ids_sha256)" = "$ours_sha" ] && echo yes || echo NO)
  printf 'run %d: bpeforge %.2fs | tiktoken %.2fs (encode %.0f ms, same ids: %s) | HF %.2fs (encode %.0f ms, same ids: %s)\n' \
    "$r" "${ours_w[-1]}" "${tik_w[-1]}" "${tik_e[-1]}" "$same_t" "${hf_w[-1]}" "${hf_e[-1]}" "$same_h"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mb=$(stat -c %s "$input" | awk '{print $1/1e6}')
o=$(median "${ours_w[@]}"); tw=$(median "${tik_w[@]}"); te=$(median "${tik_e[@]}")
hw=$(median "${hf_w[@]}"); he=$(median "${hf_e[@]}")
echo "input $input ($mb MB), $runs runs, nproc=$(nproc), medians:"
awk -v o="$o" -v tw="$tw" -v te="$te" -v hw="$hw" -v he="$he" -v mb="$mb" 'BEGIN {
  printf "  bpeforge  wall %.2f s (%.0f MB/s)\n", o, mb / o
  printf "  tiktoken  wall %.2f s, encode call %.2f s -> bpeforge is %.1fx (wall) / %.1fx (vs encode call)\n", tw, te / 1000, tw / o, te / 1000 / o
  printf "  HF        wall %.2f s, encode call %.2f s -> bpeforge is %.1fx (wall) / %.1fx (vs encode call)\n", hw, he / 1000, hw / o, he / 1000 / o
}'
