#!/usr/bin/env bash
# The Python module against the `bpeforge` command (and, for encoding, the npm tiktoken peer)
# on the same file, in alternating rounds, as whole processes timed by /usr/bin/time:
#
#   bench/compare_python.sh [-n RUNS] [INPUT]
#
#   train   bpeforge train INPUT --vocab-size 10000 vs python -c "bpeforge.train_bpe(...)"
#   encode  bpeforge encode (uint16) vs Tokenizer.encode_file, with the GPT-2 vocabulary
#   batch   Tokenizer.encode_batch over INPUT's documents, Tokenizer.encode and encode_to_numpy
#           of the whole text, timed in-process (the call alone, text already in memory)
#   peer    tiktoken (npm, gpt2): its in-process encode time; ids compared by sha256
#
# INPUT defaults to data/stories-100M-seed1.txt (generated if missing). Needs the module in
# .venv (scripts/python-env.sh) and, for encoding, the GPT-2 files in shared/ beside the
# repository; the peer also needs `npm ci` in shared/peers. Prints one line per run and the
# medians. Every process gets --threads 2 / threads=2.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs=5
input=""
while (($#)); do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) input=$1; shift ;;
  esac
done
if [ -z "$input" ]; then
  input=data/stories-100M-seed1.txt
  [ -s "$input" ] || { mkdir -p data; build/bin/bpeforge-gen --flavor stories --size 100M --seed 1 --out "$input"; }
fi
python=$(scripts/python-env.sh)
shared="$(dirname "$root")/shared"
gpt2="$shared/fixtures/cs336"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
secs() { /usr/bin/time -f "%e" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }; cat "$tmp/t"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "train: $input, vocab 10000, 2 threads (wall seconds, whole process)"
: >"$tmp/train_cli"; : >"$tmp/train_py"
for ((i = 1; i <= runs; i++)); do
  c=$(secs build/bin/bpeforge train "$input" --vocab-size 10000 --special-token '<|endoftext|>' \
      --threads 2 --quiet --out "$tmp/cli")
  p=$(secs "$python" -c "import bpeforge; bpeforge.train_bpe('$input', 10000, ['<|endoftext|>'], threads=2)")
  echo "  run $i: cli $c  python $p  ratio $(awk -v a="$p" -v b="$c" 'BEGIN {printf "%.3f", a / b}')"
  echo "$c" >>"$tmp/train_cli"; echo "$p" >>"$tmp/train_py"
done
echo "  median: cli $(median <"$tmp/train_cli")  python $(median <"$tmp/train_py")"

if [ ! -f "$gpt2/gpt2_vocab.json" ]; then echo "GPT-2 files missing in $gpt2: no encode figures"; exit 0; fi
mb=$(awk -v b="$(stat -c %s "$input")" 'BEGIN {print b / 1e6}')
echo "encode: $input ($mb MB), GPT-2 vocabulary, uint16, 2 threads (wall seconds, whole process)"
: >"$tmp/enc_cli"; : >"$tmp/enc_py"
for ((i = 1; i <= runs; i++)); do
  c=$(secs build/bin/bpeforge encode --vocab "$gpt2/gpt2_vocab.json" --merges "$gpt2/gpt2_merges.txt" \
      --special-token '<|endoftext|>' "$input" --output "$tmp/cli.u16" --dtype uint16 --threads 2 --quiet)
  p=$(secs "$python" -c "import bpeforge
t = bpeforge.Tokenizer.from_files('$gpt2/gpt2_vocab.json', '$gpt2/gpt2_merges.txt', ['<|endoftext|>'])
t.encode_file('$input', '$tmp/py.u16', 'uint16', threads=2)")
  cmp -s "$tmp/cli.u16" "$tmp/py.u16" || { echo "encode_file and bpeforge encode differ" >&2; exit 1; }
  echo "  run $i: cli $c  encode_file $p  ratio $(awk -v a="$p" -v b="$c" 'BEGIN {printf "%.3f", a / b}')"
  echo "$c" >>"$tmp/enc_cli"; echo "$p" >>"$tmp/enc_py"
done
echo "  median: cli $(median <"$tmp/enc_cli") s ($(awk -v m="$mb" -v s="$(median <"$tmp/enc_cli")" 'BEGIN {printf "%.0f", m / s}') MB/s)  encode_file $(median <"$tmp/enc_py") s ($(awk -v m="$mb" -v s="$(median <"$tmp/enc_py")" 'BEGIN {printf "%.0f", m / s}') MB/s)"

echo "in-process (seconds of the call alone; MB/s)"
"$python" - "$input" "$gpt2" "$runs" <<'PY'
import statistics, sys, time
import bpeforge
path, gpt2, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = bpeforge.Tokenizer.from_files(f"{gpt2}/gpt2_vocab.json", f"{gpt2}/gpt2_merges.txt", ["<|endoftext|>"])
text = open(path, encoding="utf-8").read()
mb = len(text.encode()) / 1e6
docs = text.split("<|endoftext|>")
for name, call in [("encode_batch(docs, threads=2)", lambda: t.encode_batch(docs, threads=2)),
                   ("encode(text)", lambda: t.encode(text)),
                   ("encode_to_numpy(text)", lambda: t.encode_to_numpy(text))]:
    times = []
    for _ in range(runs):
        start = time.perf_counter(); call(); times.append(time.perf_counter() - start)
    m = statistics.median(times)
    print(f"  {name}: runs {' '.join(f'{x:.2f}' for x in times)}  median {m:.2f} s ({mb / m:.0f} MB/s)")
PY
if [ -d "$shared/peers/node_modules" ] && command -v node >/dev/null; then
  build/bin/bpeforge encode --vocab "$gpt2/gpt2_vocab.json" --merges "$gpt2/gpt2_merges.txt" \
    --special-token '<|endoftext|>' "$input" --output "$tmp/cli.u32" --quiet
  ours=$(sha256sum "$tmp/cli.u32" | cut -d' ' -f1)
  for ((i = 1; i <= runs; i++)); do
    node "$shared/peers/tiktoken_encode.js" gpt2 "$input" >"$tmp/peer.json"
    ms=$(sed -n 's/.*"encode_ms":\([0-9.]*\).*/\1/p' "$tmp/peer.json")
    same=$(grep -q "\"ids_sha256\":\"$ours\"" "$tmp/peer.json" && echo "same ids" || echo "DIFFERENT ids")
    echo "  tiktoken (npm, 1 thread) run $i: encode $(awk -v m="$ms" 'BEGIN {printf "%.2f", m / 1000}') s ($(awk -v mb="$mb" -v m="$ms" 'BEGIN {printf "%.0f", mb / (m / 1000)}') MB/s), $same"
  done
fi
