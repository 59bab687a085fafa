#!/bin/bash
# Runs inside the bare Debian root that bare_debian_test.sh makes: /dist holds the wheel and
# bpeforge.tar.gz; /work the corpus, the source build's tokenizer (reference/) and its ids
# (reference.ids), and `consumer`, a C++ program built against the tarball. Writes the install
# time and the versions of this root to /work/figures.txt.
set -euo pipefail
cd /work
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
seconds_since() {
  awk -v start="$1" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f", end - start }'
}
same() {  # a file against the source build's
  cmp -s "$1" "$2" || fail "$1 differs from the source build's $2"
}

# Every ELF file under $1 loads only what $1 holds, the C and C++ runtime and the loader.
only_runtime_outside() {
  local dir=$1 file line name path
  while IFS= read -r -d '' file; do
    [ "$(head -c 4 "$file")" = $'\177ELF' ] || continue
    while IFS= read -r line; do
      [[ $line == *" => "* ]] || continue  # the vDSO and the loader itself
      name=$(echo "${line%% => *}" | tr -d '[:space:]')
      path=${line#* => }
      path=${path% (0x*}
      [ "$path" != "not found" ] || fail "ldd $file: $name not found"
      case $path in
        "$dir"/*) ;;
        *) case $name in
             libc.so.6 | libm.so.6 | libstdc++.so.6 | libgcc_s.so.1 | ld-linux-x86-64.so.2) ;;
             *) fail "ldd $file: $name resolved outside $dir, to $path" ;;
           esac ;;
      esac
    done < <(ldd "$file")
  done < <(find "$dir" -type f -print0)
}

# The command (of the wheel or the tarball) trains the source build's merges and encodes its ids.
command_works() {
  local bpeforge=$1 out=$2
  "$bpeforge" --help | grep -q "train" || fail "$bpeforge --help lists no train command"
  "$bpeforge" train corpus.txt --vocab-size 1000 --special-token '<|endoftext|>' --quiet \
    --out "$out" >/dev/null
  same "$out/merges.txt" reference/merges.txt
  same "$out/vocab.json" reference/vocab.json
  "$bpeforge" encode --tokenizer "$out" corpus.txt --dtype uint16 --quiet --out "$out.ids" \
    >/dev/null
  same "$out.ids" reference.ids
}

echo "-- the wheel into a venv, offline" >&2
start=$(date +%s.%N)
python3 -m venv /opt/venv
venv_s=$(seconds_since "$start")
start=$(date +%s.%N)
/opt/venv/bin/pip install --no-index --quiet /dist/bpeforge-*.whl
install_s=$(seconds_since "$start")
(cd / && /opt/venv/bin/python - <<'EOF'
import array

import bpeforge

specials = ["<|endoftext|>"]
vocab, merges = bpeforge.train_bpe("/work/corpus.txt", 1000, specials)
tok = bpeforge.Tokenizer(vocab, merges, specials)
tok.save("/work/python")  # its merges.txt is compared; its ids put the special tokens first
with open("/work/corpus.txt", encoding="utf-8") as f:
    text = f.read()
assert tok.decode(tok.encode(text)) == text, "decode(encode(text)) is not the text"
reference = array.array("H")
with open("/work/reference.ids", "rb") as f:
    reference.frombytes(f.read())
ids = bpeforge.load("/work/reference").encode(text)
assert ids == reference.tolist(), "encode gives other ids than the source build's"
EOF
)
same python/merges.txt reference/merges.txt
command_works /opt/venv/bin/bpeforge venv-command
only_runtime_outside /opt/venv/lib/python3*/site-packages/bpeforge

echo "-- the wheel with pip install --user, as a plain user" >&2
useradd --create-home student
su student -c 'python3 -m pip install --user --break-system-packages --no-index --quiet \
  --no-warn-script-location /dist/bpeforge-*.whl && ~/.local/bin/bpeforge --help >/dev/null &&
  cd / && python3 -c "import bpeforge; bpeforge.train_bpe(\"/work/corpus.txt\", 300, [])"' ||
  fail "the --user install gives no working bpeforge"

echo "-- the tarball, unpacked where nothing expects it" >&2
prefix="/srv/some place/bpeforge"
mkdir -p "$prefix"
tar -C "$prefix" --strip-components=1 -xzf /dist/bpeforge.tar.gz
command_works "$prefix/bin/bpeforge" tarball-command
only_runtime_outside "$prefix"
mkdir consumer-run
./consumer consumer-run >/dev/null || fail "the C++ program built against the tarball fails"
only_runtime_outside /opt/consumer/bpeforge

{
  echo "bare root: $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -1 |
    sed 's/.* //') glibc, Python $(python3 -c 'import platform; print(platform.python_version())')"
  echo "pip install of the wheel there: $install_s s (python3 -m venv before it: $venv_s s)"
} >/work/figures.txt
echo "bare Debian checks passed" >&2
