#!/usr/bin/env bash
# `mpirun -np 1..4 bpeforge train|count` on one machine gives the files of one process, for
# several files (text, gzip-compressed JSON Lines, an empty one, odd sizes), special tokens,
# thread counts and chunk sizes; a bad input on one rank, an unwritable output and a command
# that does not run on ranks stop the whole job with one error on rank 0 and nothing written.
# Skipped (exit 77) when mpirun is missing.
#
#   tests/mpi/mpi_test.sh BUILD_DIR
set -uo pipefail
build=$1
bpeforge=$build/bin/bpeforge
gen=$build/bin/bpeforge-gen
if ! command -v mpirun >/dev/null; then
  echo "skipped: no mpirun (Debian: openmpi-bin)"
  exit 77
fi
# Open MPI refuses root unless told (containers and CI run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One machine, no network interfaces to probe.
export OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$gen" --flavor web --size 3000001 --seed 7 --out "$work/web.txt" --quiet
"$gen" --flavor stories --size 1000003 --seed 8 --out "$work/stories.txt" --quiet
"$gen" --flavor web --size 2000000 --seed 9 --format jsonl --out "$work/docs.jsonl" --quiet
gzip -c "$work/docs.jsonl" >"$work/docs.jsonl.gz"
"$gen" --flavor stories --size 500000 --seed 10 --format jsonl --out "$work/more.jsonl" --quiet
: >"$work/empty.txt"
inputs=("$work/web.txt" "$work/docs.jsonl.gz" "$work/empty.txt" "$work/stories.txt"
  "$work/more.jsonl")
flags=(--vocab-size 1500 --special-token '<|endoftext|>' --special-token '<pad>' --quiet)

"$bpeforge" train "${inputs[@]}" "${flags[@]}" --out "$work/one" >/dev/null || fail "one process"
"$bpeforge" count "${inputs[@]}" --special-token '<|endoftext|>' --special-token '<pad>' \
  --quiet --out "$work/one.counts" >/dev/null || fail "one process count"
files=(vocab.json merges.txt tokenizer.json tokenizer.tiktoken tiktoken.json bpeforge.json)
for np in 1 2 3 4; do
  for setting in "--threads 1 --chunk-bytes 4194304" "--threads 2 --chunk-bytes 65537"; do
    out="$work/np$np"
    rm -rf "$out"
    # shellcheck disable=SC2086
    if ! mpirun -np "$np" "$bpeforge" train "${inputs[@]}" "${flags[@]}" $setting \
      --out "$out" >"$work/log" 2>&1; then
      fail "train -np $np $setting: $(tail -n 3 "$work/log")"
      continue
    fi
    for f in "${files[@]}"; do
      cmp -s "$work/one/$f" "$out/$f" || fail "train -np $np $setting: $f differs"
    done
  done
  mpirun -np "$np" "$bpeforge" count "${inputs[@]}" --special-token '<|endoftext|>' \
    --special-token '<pad>' --quiet --out "$work/np$np.counts" >"$work/log" 2>&1 ||
    fail "count -np $np: $(tail -n 3 "$work/log")"
  cmp -s "$work/one.counts" "$work/np$np.counts" || fail "count -np $np: the count file differs"
done

# A bad record in the second streamed (compressed) file, which rank 1 reads: rank 0 names rank
# 1 and the line; every rank exits non-zero; nothing is written.
printf '{"text": "fine"}\n{"text": 42}\n' | gzip >"$work/bad.jsonl.gz"
mpirun -np 3 "$bpeforge" train "$work/docs.jsonl.gz" "$work/bad.jsonl.gz" "${flags[@]}" \
  --out "$work/bad" >"$work/log" 2>&1 && fail "a bad record on rank 1 succeeded"
grep -q "error: rank 1: $work/bad.jsonl.gz:2: field \"text\" is not a string" "$work/log" ||
  fail "the bad record's error: $(head -n 2 "$work/log")"
[ "$(grep -c 'error:' "$work/log")" = 1 ] || fail "more than one rank reported the error"
[ ! -e "$work/bad" ] || fail "a failed job wrote its output directory"
# A plain one is mapped and split by bytes with the text: after 3 MB of text, of 3 ranks, rank 2
# holds it.
printf '{"text": "fine"}\n{"text": 42}\n' >"$work/bad.jsonl"
mpirun -np 3 "$bpeforge" train "$work/web.txt" "$work/bad.jsonl" "${flags[@]}" \
  --out "$work/bad" >"$work/log" 2>&1 && fail "a bad mapped record on rank 2 succeeded"
grep -q "error: rank 2: $work/bad.jsonl:2: field \"text\" is not a string" "$work/log" ||
  fail "the bad mapped record's error: $(head -n 2 "$work/log")"
[ ! -e "$work/bad" ] || fail "a failed job wrote its output directory"

mpirun -np 2 "$bpeforge" train "${inputs[@]}" "${flags[@]}" --out /proc/bpeforge-out \
  >"$work/log" 2>&1 && fail "an unwritable --out succeeded"
grep -q "error: --out /proc/bpeforge-out: cannot create /proc/bpeforge-out" "$work/log" ||
  fail "the unwritable --out's error: $(head -n 2 "$work/log")"
grep -q "pre-tokenizing" "$work/log" && fail "the unwritable --out was found after the work"

# A folder of thousands of shards under a limit of 256 open files: each rank holds a bounded
# number of them open at once, and the count is that of one process.
mkdir "$work/shards"
for i in $(seq 0 2999); do
  printf 'shard %d of the corpus: words %d and %d.\n' "$i" $((i * 7 % 1000)) $((i * 13 % 1000)) \
    >"$work/shards/part-$(printf %05d "$i").txt"
done
"$bpeforge" count "$work/shards" --quiet --out "$work/shards-one.counts" >/dev/null ||
  fail "one process count of the shards"
(ulimit -n 256 && mpirun -np 2 "$bpeforge" count "$work/shards" --quiet \
  --out "$work/shards-np2.counts" >"$work/log" 2>&1) ||
  fail "count -np 2 of 3000 shards under ulimit -n 256: $(tail -n 3 "$work/log")"
cmp -s "$work/shards-one.counts" "$work/shards-np2.counts" ||
  fail "count -np 2 of the shards: the count file differs"

mpirun -np 2 "$bpeforge" encode --tokenizer "$work/one" "$work/web.txt" --output "$work/ids" \
  >"$work/log" 2>&1 && fail "encode under mpirun ran"
grep -q "under mpirun only train and count" "$work/log" || fail "encode's refusal"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "mpirun -np 1..4: train and count identical to one process; faults stop the job"
