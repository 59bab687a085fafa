#!/usr/bin/env bash
# The artifacts of scripts/build-dist.sh on a bare Debian 12: a root made by debootstrap
# (minbase, plus python3, python3-venv and python3-pip only), without network. There the wheel is
# installed offline into a venv and with --user by a plain user, and the tarball is unpacked
# where nothing expects it. Checked: `import bpeforge`, train_bpe giving the source build's
# merges, encode/decode, the `bpeforge` command of both (--help, train, encode), a C++ program
# built against the tarball with find_package(bpeforge) and no libabsl-dev, and ldd finding
# nothing outside the artifact but the C and C++ runtime. Prints sizes, the install time and the
# versions the artifacts need and were tried with.
#
# Usage: tests/bare_debian_test.sh [SOURCE_BUILD]   (default build/: the reference merges and
# the test corpus come from its bpeforge and bpeforge-gen). Skips, saying why, without root or
# debootstrap, or where the Debian mirror cannot be reached. The bare root is kept as a tarball
# in the dist build folder for the next run ($BPEFORGE_DEBIAN_MIRROR: another mirror).
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
reference=$(realpath "${1:-build}")
mirror=${BPEFORGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=python3,python3-venv,python3-pip

skip() {
  echo "SKIP bare Debian test: $*" >&2
  exit 0
}
[ "$(id -u)" -eq 0 ] || skip "debootstrap and chroot need root"
command -v debootstrap >/dev/null || skip "debootstrap is missing (scripts/install-deps.sh)"
[ -x "$reference/bin/bpeforge" ] || { echo "no source build in $reference" >&2; exit 1; }

scripts/build-dist.sh
wheel=$(ls -t dist/bpeforge-*-cp3*-linux_x86_64.whl | head -1)
tarball=$(ls -t dist/bpeforge-*-linux-x86_64.tar.gz | head -1)

# Everything happens in one temporary folder; what is mounted there is unmounted on every way
# out, before the folder goes (and rm stays on this file system whatever is left mounted).
tmp=$(mktemp -d /tmp/bpeforge-bare-debian.XXXXXX)
cleanup() {
  { grep -o " $tmp/[^ ]*" /proc/mounts || true; } | sort -r | while read -r mount; do
    umount -l "$mount"
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

root=$tmp/root
cache=${BPEFORGE_DIST_BUILD:-build-dist}/bare-debian/bookworm-minbase-${packages//,/-}.tar.gz
mkdir -p "$root"
if [ ! -s "$cache" ]; then
  echo "=== debootstrap bookworm from $mirror (kept in $cache)" >&2
  if ! debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" \
    >"$tmp/debootstrap.log" 2>&1; then
    tail -5 "$tmp/debootstrap.log" >&2
    skip "debootstrap could not make a Debian 12 root from $mirror (no network?)"
  fi
  mkdir -p "$(dirname "$cache")"
  tar -C "$root" -cf - . | gzip -1 >"$cache.part"
  mv "$cache.part" "$cache"
else
  tar -C "$root" -xzf "$cache"
fi

# The artifacts, the corpus and the source build's results go in; the C++ consumer is built
# here against the tarball unpacked at the path it will have inside the root.
consumer_prefix=/opt/consumer/bpeforge
mkdir -p "$root/dist" "$root/work" "$root$consumer_prefix" "$tmp/host"
cp "$wheel" "$root/dist/"
cp "$tarball" "$root/dist/bpeforge.tar.gz"
tar -C "$root$consumer_prefix" --strip-components=1 -xzf "$tarball"
cp tests/bare_debian_checks.sh "$root/work/"
"$reference/bin/bpeforge-gen" --flavor web --size 300K --seed 5 --out "$root/work/corpus.txt" \
  >/dev/null
"$reference/bin/bpeforge" train "$root/work/corpus.txt" --vocab-size 1000 --quiet \
  --special-token '<|endoftext|>' --out "$root/work/reference" >/dev/null
"$reference/bin/bpeforge" encode --tokenizer "$root/work/reference" "$root/work/corpus.txt" \
  --dtype uint16 --quiet --out "$root/work/reference.ids" >/dev/null
cmake -S tests/consumer -B "$tmp/host/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root$consumer_prefix" -DCMAKE_DISABLE_FIND_PACKAGE_absl=ON \
  --no-warn-unused-cli >/dev/null
cmake --build "$tmp/host/consumer" >/dev/null
# Its run path names the package as the host sees it; inside the root it is at consumer_prefix.
patchelf --set-rpath "$consumer_prefix/lib" "$tmp/host/consumer/consumer"
cp "$tmp/host/consumer/consumer" "$root/work/"

mount -t proc proc "$root/proc"
no_network=(unshare --net)
"${no_network[@]}" true 2>/dev/null || no_network=()
echo "=== checks in the bare root${no_network:+ (no network)}" >&2
"${no_network[@]}" chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root \
  LANG=C.UTF-8 /bin/bash /work/bare_debian_checks.sh

echo "=== figures" >&2
needs() {  # the newest version of $1 (GLIBC, GLIBCXX, CXXABI) the artifacts' symbols ask for
  find "$tmp/unpacked" -type f -exec objdump -T {} + 2>/dev/null | grep -o "($1_[0-9.]*)" |
    tr -d '()' | sort -V | tail -1 | cut -d_ -f2
}
size() {  # $1: the artifact, $2: the folder it was unpacked into
  awk -v bytes="$(stat -c %s "$1")" -v name="$(basename "$1")" \
    -v unpacked="$(du -sm "$2" | cut -f1)" \
    'BEGIN { printf "%-44s %5.1f MB (%s MB unpacked)\n", name, bytes / 1e6, unpacked }'
}
mkdir -p "$tmp/unpacked/wheel" "$tmp/unpacked/tarball"
tar -C "$tmp/unpacked/tarball" -xzf "$tarball"
python3 -m zipfile -e "$wheel" "$tmp/unpacked/wheel"
size "$wheel" "$tmp/unpacked/wheel"
size "$tarball" "$tmp/unpacked/tarball"
echo "they need glibc >= $(needs GLIBC), libstdc++ >= $(needs GLIBCXX) (CXXABI $(needs CXXABI))"
cat "$root/work/figures.txt"
