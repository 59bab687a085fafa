#!/usr/bin/env bash
# Installs the Debian 12 packages bpeforge needs, only those that are missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config   # toolchain
  libtbb-dev                         # oneTBB: parallel pre-tokenization and encoding
  libboost-regex-dev libicu-dev      # Boost.Regex over ICU: the reference pre-tokenizer
  libabsl-dev                        # Abseil: Status, strings, flat_hash_map
  nlohmann-json3-dev                 # JSON: vocab.json, manifests, stats
  zlib1g-dev                         # zlib: CRC-32 of count files, gzip inputs
  liblzma-dev libzstd-dev            # xz and zstd inputs
  libsimdjson-dev                    # simdjson: JSON Lines inputs
  libcli11-dev                       # CLI11: the command line
  libgtest-dev libbenchmark-dev      # tests and micro-benchmarks
  pybind11-dev python3-dev           # the Python module
  python3-venv python3-pip python3-setuptools python3-wheel  # installing it offline
  python3-numpy python3-pytest       # encode_to_numpy; the Python tests
  libopenmpi-dev openmpi-bin         # Open MPI: training over many processes (mpirun)
  clang libclang-rt-14-dev           # libFuzzer for the fuzz targets (scripts/fuzz.sh)
  time                               # /usr/bin/time for the end-to-end benchmark
  xz-utils                           # unpacking oneTBB's source for the TSan build
  patchelf                           # run paths of the libraries bundled by build-dist.sh
  debootstrap                        # the bare Debian 12 root of tests/bare_debian_test.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
