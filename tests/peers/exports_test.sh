#!/bin/bash
# The files `bpeforge train` exports, loaded by the libraries that own the formats (the npm
# packages `tokenizers`, `tiktoken` and `js-tiktoken`), give the ids of `bpeforge encode` and
# decode back to the text: for each pattern (the three built-in ones and a custom regex) and
# id layout, on generated text in several scripts with special tokens inside, and on the
# reference texts when they are there.
# Skipped (exit 77) without node or without the npm packages.
#
# usage: exports_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
peers=${BPEFORGE_PEERS:-$src/../shared/peers}
fixtures=${BPEFORGE_FIXTURES:-$src/../shared/fixtures}
if ! command -v node >/dev/null || [ ! -d "$peers/node_modules/tokenizers" ]; then
  echo "skipped: node or the npm peers ($peers/node_modules) are not installed"
  exit 77
fi
export NODE_PATH=$peers/node_modules
bpeforge=$build/bin/bpeforge
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/bin/bpeforge-gen" --flavor web --size 4M --seed 11 --out "$work/train.txt" --quiet
"$build/bin/bpeforge-gen" --flavor web --size 2M --seed 12 --out "$work/web.txt" --quiet
printf "It's 'ſ 'S DON'T we'LL\r\n\r\n  tabs\t\tend 12345 ６７８ 你好世界，这是一个测试。 Привет, мир! \
Ünïcödé naïve café 😀👍🏽 <|endoftext|>next<|pad|> <|endoftext|><|endoftext|>\n  \n" >"$work/mixed.txt"
texts=("$work/web.txt" "$work/mixed.txt")
for f in corpus.en tinystories_sample.txt address.txt german.txt \
  special_token_trailing_newlines.txt special_token_double_newlines_non_whitespace.txt; do
  [ -f "$fixtures/cs336/$f" ] && texts+=("$fixtures/cs336/$f")
done

failures=0
checks=0
patterns=(gpt2 cl100k o200k '\p{L}+|\p{N}{1,2}|[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+')
for pattern in "${patterns[@]}"; do
  for layout in bytes-first hf; do
    name=$pattern
    [ ${#name} -gt 8 ] && name=custom
    dir=$work/tok-$name-$layout
    "$bpeforge" train "$work/train.txt" --vocab-size 3000 --pattern "$pattern" \
      --layout "$layout" --special-token '<|endoftext|>' --special-token '<|pad|>' \
      --out "$dir" --quiet >/dev/null
    for text in "${texts[@]}"; do
      "$bpeforge" encode --tokenizer "$dir" "$text" --output "$work/ids.bin" --dtype uint32 \
        --quiet >/dev/null
      want=$(sha256sum <"$work/ids.bin" | cut -d' ' -f1)
      while read -r line; do
        got=$(echo "$line" | sed -n 's/.*"ids_sha256":"\([0-9a-f]*\)".*/\1/p')
        lib=$(echo "$line" | sed -n 's/.*"lib":"\([^"]*\)".*/\1/p')
        verdict=ok
        [ "$got" = "$want" ] || verdict="DIFFERENT IDS"
        echo "$line" | grep -q '"roundtrip":true' || verdict="$verdict, DECODES DIFFERENTLY"
        echo "$name $layout $(basename "$text") $lib: $verdict"
        checks=$((checks + 1))
        [ "$verdict" = ok ] || failures=$((failures + 1))
      done < <(node "$src/tests/peers/encode_exported.js" "$dir" "$text")
    done
    # Imported back, each exported file gives bpeforge the same ids.
    for file in tokenizer.json tokenizer.tiktoken; do
      "$bpeforge" encode --tokenizer "$dir/$file" "$work/mixed.txt" --output "$work/back.bin" \
        --dtype uint32 --quiet >/dev/null
      "$bpeforge" encode --tokenizer "$dir" "$work/mixed.txt" --output "$work/ids.bin" \
        --dtype uint32 --quiet >/dev/null
      if cmp -s "$work/back.bin" "$work/ids.bin"; then
        echo "$name $layout $file imported: ok"
      else
        echo "$name $layout $file imported: DIFFERENT IDS"
        failures=$((failures + 1))
      fi
    done
  done
done
# Three libraries per text, or a library did not report.
expected=$((2 * ${#patterns[@]} * ${#texts[@]} * 3))
echo "$checks library checks ($expected expected), $failures failure(s)"
[ "$failures" -eq 0 ] && [ "$checks" -eq "$expected" ]
