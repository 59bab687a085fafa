#!/usr/bin/env bash
# Sets up what is missing, builds (the C++ library, command and Python module), installs the
# Python module into .venv, generates the built-in default corpus (100 MB of TinyStories-like
# text, seed 1) and trains a 10,000-token vocabulary on it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(realpath /usr/bin/python3)" >/dev/null
cmake --build build
python=$(scripts/python-env.sh)

mkdir -p data
corpus=data/stories-100M-seed1.txt
if [ ! -s "$corpus" ]; then
  build/bin/bpeforge-gen --flavor stories --size 100M --seed 1 --out "$corpus"
fi
build/bin/bpeforge train "$corpus" --vocab-size 10000 --special-token '<|endoftext|>' \
  --out out/stories-10k "$@"
"$python" -c 'import bpeforge; print(f"python      .venv/bin/python can import bpeforge {bpeforge.__version__}")'
