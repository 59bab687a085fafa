#!/usr/bin/env bash
# Sets up what is missing, builds, generates the built-in default corpus (100 MB of
# TinyStories-like text, seed 1) and trains a 10,000-token vocabulary on it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build

mkdir -p data
corpus=data/stories-100M-seed1.txt
if [ ! -s "$corpus" ]; then
  build/bin/bpeforge-gen --flavor stories --size 100M --seed 1 --out "$corpus"
fi
build/bin/bpeforge train "$corpus" --vocab-size 10000 --special-token '<|endoftext|>' \
  --out out/stories-10k "$@"
