"""encode_iterable: lazy, equal to encode() of the joined text, and within a tight memory cap."""

import inspect
import random
import subprocess
import sys
import textwrap

import pytest

EOT = "<|endoftext|>"


class RecordingIterable:
    """Yields pieces and records how many have been taken."""

    def __init__(self, pieces):
        self.pieces = pieces
        self.taken = 0

    def __iter__(self):
        for piece in self.pieces:
            self.taken += 1
            yield piece


def test_is_lazy(gpt2_tokenizer):
    source = RecordingIterable(["Once upon a time. "] * 1000)
    ids = gpt2_tokenizer.encode_iterable(source)
    assert inspect.isgenerator(ids)
    assert source.taken == 0
    first = next(ids)
    assert first == gpt2_tokenizer.encode("Once")[0]
    assert source.taken < 10
    rest = list(ids)
    assert source.taken == 1000
    assert [first] + rest == gpt2_tokenizer.encode("Once upon a time. " * 1000)


def test_lines_of_a_file(gpt2_tokenizer, cs336):
    path = cs336 / "tinystories_sample.txt"
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    with open(path, encoding="utf-8", newline="") as f:
        assert list(gpt2_tokenizer.encode_iterable(f)) == gpt2_tokenizer.encode(text)


def _random_pieces(text, rng, max_len):
    pieces, i = [], 0
    while i < len(text):
        n = rng.randint(0, max_len)  # empty pieces too
        pieces.append(text[i:i + n])
        i += n
    return pieces


@pytest.mark.parametrize("seed", range(6))
def test_random_cuts(seed, gpt2_tokenizer, cs336):
    rng = random.Random(seed)
    names = ["tinystories_sample.txt", "german.txt", "special_token_double_newlines_non_whitespace.txt"]
    text = EOT.join((cs336 / n).read_bytes().decode("utf-8") for n in names)
    text += "  🙃你好 \n\n" + EOT + EOT + " end   "
    expected = gpt2_tokenizer.encode(text)
    for max_len in (1, 3, 17, 200):
        pieces = _random_pieces(text, rng, max_len)
        assert "".join(pieces) == text
        assert list(gpt2_tokenizer.encode_iterable(pieces)) == expected, max_len


def test_cuts_inside_overlapping_special_tokens(cs336):
    import bpeforge
    from conftest import read_gpt2_merges, read_gpt2_vocab

    tokenizer = bpeforge.Tokenizer(
        read_gpt2_vocab(cs336 / "gpt2_vocab.json"), read_gpt2_merges(cs336 / "gpt2_merges.txt"),
        [EOT, EOT + EOT],
    )
    text = "a" + EOT + EOT + "b" + EOT + " <|endoftext <|endoftext|>" * 3 + EOT
    expected = tokenizer.encode(text)
    for cut in range(len(text) + 1):
        assert list(tokenizer.encode_iterable([text[:cut], text[cut:]])) == expected, cut
    for cut in range(0, len(text), 3):
        pieces = [text[:cut], text[cut:cut + 7], "", text[cut + 7:]]
        assert list(tokenizer.encode_iterable(iter(pieces))) == expected, cut


def test_empty_iterables(gpt2_tokenizer):
    assert list(gpt2_tokenizer.encode_iterable([])) == []
    assert list(gpt2_tokenizer.encode_iterable(["", "", ""])) == []


MEMORY_SCRIPT = textwrap.dedent(
    """
    import resource, sys
    import bpeforge

    vocab, merges, sample = sys.argv[1:4]
    tokenizer = bpeforge.Tokenizer.from_files(vocab, merges, ["<|endoftext|>"])
    with open(sample, encoding="utf-8") as f:
        expected = tokenizer.encode(f.read())
    want_count = len(expected)
    want_hash = 0
    for i in expected:
        want_hash = (want_hash * 1000003 + i) % 2305843009213693951
    del expected

    def vm(field):
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024

    f = open(sample, encoding="utf-8")
    rss = vm("VmRSS")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # As the CS336 harness does: the cap may be below the address space already in use.
    resource.setrlimit(resource.RLIMIT_AS, (rss + 1_000_000, hard))
    try:
        count = 0
        digest = 0
        for i in tokenizer.encode_iterable(f):
            count += 1
            digest = (digest * 1000003 + i) % 2305843009213693951
        try:  # the cap is in force
            bytearray(50_000_000)
            sys.exit("a 50 MB allocation succeeded under the cap")
        except MemoryError:
            pass
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    f.close()
    print(count, want_count, digest == want_hash, vm("VmSize") > rss + 1_000_000)
    assert count == want_count, (count, want_count)
    assert digest == want_hash
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and RLIMIT_AS")
def test_memory_capped(cs336, subprocess_env):
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, str(cs336 / "gpt2_vocab.json"),
         str(cs336 / "gpt2_merges.txt"), str(cs336 / "tinystories_sample.txt")],
        env=subprocess_env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split()[2] == "True"
