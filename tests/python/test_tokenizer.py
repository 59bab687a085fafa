"""Tokenizer: round trips, special tokens, save/load, batch and numpy encoding, docstrings."""

import copy
import json
import multiprocessing
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

import bpeforge

EOT = "<|endoftext|>"
DOUBLE = EOT + EOT

TEXTS = [
    "",
    "a",
    " ",
    "\n",
    "é",
    "🙃",
    "Hello, how are you? 🙃👩‍👩‍👧‍👦🇫🇷",
    "你好，世界！日本語のテキスト。한국어",
    "e\u0301 a\u0300\u0316 n\u0303\u0323\u0304 ZA\u0307\u0327\u0361L",
    "Ωμέγα Привет мир עברית العربية हिन्दी",
    "  spaces\t\ttabs\r\n\r\nlines   \n",
    "<|endoftext|> <|endoftext|><|endoftext|>x<|endoftext",
    "\x00\x01\x7f\u200b\ufeff\U0010ffff",
]


def _corpus_text():
    """Deterministic text for a tokenizer that needs no fixtures."""
    rng = random.Random(0)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = range(26, 0, -1)
    words = ["".join(rng.choices(letters, weights, k=rng.randint(1, 8))) for _ in range(2000)]
    lines = [" ".join(rng.choices(words, k=12)) + rng.choice(".!?,") for _ in range(3000)]
    return "\n".join(lines[:1500]) + EOT + "\n".join(lines[1500:] + TEXTS)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("train") / "corpus.txt"
    path.write_bytes(_corpus_text().encode("utf-8"))
    return path


@pytest.fixture(scope="module")
def small(corpus):
    vocab, merges = bpeforge.train_bpe(corpus, 1000, [EOT])
    return bpeforge.Tokenizer(vocab, merges, [EOT])


def _check_round_trip(tokenizer, text):
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    assert tokenizer.decode_bytes(ids) == text.encode("utf-8")
    assert all(0 <= i < tokenizer.vocab_size for i in ids)


@pytest.mark.parametrize("text", TEXTS)
def test_round_trip(text, small):
    _check_round_trip(small, text)


@pytest.mark.parametrize("text", TEXTS)
def test_round_trip_gpt2(text, gpt2_tokenizer):
    _check_round_trip(gpt2_tokenizer, text)


def test_trained_tokenizer_compresses(small, corpus):
    text = corpus.read_bytes().decode("utf-8")
    ids = small.encode(text)
    assert len(ids) < 0.6 * len(text.encode("utf-8"))
    assert small.decode(ids) == text
    assert small.encode(EOT) == [256]  # layout "bytes-first": the bytes, then special tokens


def test_empty_and_single_character(gpt2_tokenizer):
    assert gpt2_tokenizer.encode("") == []
    assert gpt2_tokenizer.decode([]) == ""
    assert gpt2_tokenizer.encode("s") == [82]
    assert gpt2_tokenizer.encode("🙃") == [8582, 247, 225]
    assert gpt2_tokenizer.decode([8582]) == "\ufffd"  # a partial character


def test_overlapping_special_tokens(gpt2_tokenizer, cs336):
    from conftest import read_gpt2_merges, read_gpt2_vocab

    vocab = read_gpt2_vocab(cs336 / "gpt2_vocab.json")
    merges = read_gpt2_merges(cs336 / "gpt2_merges.txt")
    for specials in ([EOT, DOUBLE], [DOUBLE, EOT]):
        tokenizer = bpeforge.Tokenizer(vocab, merges, specials)
        single, double = tokenizer.encode(EOT), tokenizer.encode(DOUBLE)
        assert len(single) == 1 and len(double) == 1 and single != double
        assert single == [50256] and double == [50257]  # the missing one gets id len(vocab)
        text = "a" + DOUBLE + "b" + EOT
        ids = tokenizer.encode(text)
        assert ids == [64] + double + [65] + single
        assert tokenizer.decode(ids) == text
        assert [tokenizer.decode([i]) for i in ids] == ["a", DOUBLE, "b", EOT]
        assert tokenizer.encode(EOT * 3) == double + single
        assert tokenizer.encode_ordinary(DOUBLE) == gpt2_tokenizer.encode_ordinary(DOUBLE)
        assert 50256 not in tokenizer.encode_ordinary(DOUBLE)


def test_special_token_appended_when_missing(small):
    vocab, merges = small.vocab, small.merges
    assert len(vocab) == 1000
    tokenizer = bpeforge.Tokenizer(vocab, merges, [EOT, "<|pad|>"])
    assert tokenizer.encode("<|pad|>") == [1000]
    assert tokenizer.encode(EOT) == small.encode(EOT)
    assert tokenizer.vocab_size == 1001
    assert tokenizer.vocab[1000] == b"<|pad|>"
    assert tokenizer.decode(tokenizer.encode("x<|pad|>y")) == "x<|pad|>y"
    # Without the special token, the same text is ordinary bytes.
    assert small.encode("<|pad|>") == small.encode_ordinary("<|pad|>")


def test_save_and_load_trained(small, corpus, tmp_path):
    small.save(tmp_path / "tok")
    loaded = bpeforge.load(tmp_path / "tok")
    assert loaded.vocab == small.vocab
    assert loaded.merges == small.merges
    assert loaded.special_tokens == [EOT]
    assert loaded.pattern == small.pattern
    text = corpus.read_bytes().decode("utf-8")
    assert loaded.encode(text) == small.encode(text)
    assert loaded.encode(EOT) == small.encode(EOT)


def test_save_and_load_gpt2_id_order(gpt2_tokenizer, cs336, tmp_path):
    """GPT-2's ids are not in the trainer's layout; they must survive a save and load."""
    gpt2_tokenizer.save(tmp_path / "gpt2")
    assert sorted(p.name for p in (tmp_path / "gpt2").iterdir()) == [
        "bpeforge.json", "merges.txt", "tiktoken.json", "tokenizer.json",
        "tokenizer.tiktoken", "vocab.json",
    ]
    loaded = bpeforge.load(tmp_path / "gpt2")
    assert loaded.vocab == gpt2_tokenizer.vocab
    assert loaded.merges == gpt2_tokenizer.merges
    for name in ("address.txt", "german.txt", "tinystories_sample.txt"):
        text = (cs336 / name).read_bytes().decode("utf-8")
        assert loaded.encode(text) == gpt2_tokenizer.encode(text)
    assert loaded.encode(EOT) == [50256]
    again = bpeforge.Tokenizer.from_files(
        tmp_path / "gpt2" / "vocab.json", tmp_path / "gpt2" / "merges.txt", [EOT]
    )
    assert again.vocab == gpt2_tokenizer.vocab


def test_encode_to_numpy(small, corpus):
    text = corpus.read_bytes().decode("utf-8")
    array = small.encode_to_numpy(text)
    assert array.dtype == np.uint16
    assert array.tolist() == small.encode(text)
    wide = small.encode_to_numpy(text, dtype="uint32")
    assert wide.dtype == np.uint32 and wide.tolist() == array.tolist()
    assert small.encode_to_numpy("").tolist() == []
    assert small.decode(small.encode_to_numpy(text)) == text


# Run where numpy cannot be imported: only encode_to_numpy needs it.
_WITHOUT_NUMPY = """
import sys
sys.modules["numpy"] = None  # `import numpy` now fails, as where it is not installed
import bpeforge

corpus, folder = sys.argv[1:]
vocab, merges = bpeforge.train_bpe(corpus, 300, ["<|endoftext|>"])
tok = bpeforge.Tokenizer(vocab, merges, ["<|endoftext|>"])
text = "the newest lower<|endoftext|>low"
ids = tok.encode(text)
assert tok.decode(ids) == text
assert tok.decode_bytes(tuple(ids)) == text.encode()
assert list(tok.encode_iterable([text[:9], text[9:]])) == ids
tok.save(folder)
assert bpeforge.load(folder).decode(ids) == text
try:
    tok.encode_to_numpy(text)
except ImportError:
    pass
else:
    raise AssertionError("encode_to_numpy worked without numpy")
"""


def test_everything_but_encode_to_numpy_works_without_numpy(tmp_path, subprocess_env):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest<|endoftext|>new newer newest\n" * 50)
    child = subprocess.run(
        [sys.executable, "-c", _WITHOUT_NUMPY, str(corpus), str(tmp_path / "tok")],
        env=subprocess_env,
        capture_output=True,
        text=True,
    )
    assert child.returncode == 0, child.stderr[-2000:]


def test_encode_to_numpy_large_vocab_is_uint32(fixtures):
    cl100k = bpeforge.load(fixtures / "tiktoken_cl100k_base.tiktoken", pattern="cl100k")
    array = cl100k.encode_to_numpy("hello world " * 10)
    assert array.dtype == np.uint32
    assert array.tolist() == cl100k.encode("hello world " * 10)


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_encode_batch(threads, small, corpus):
    lines = corpus.read_bytes().decode("utf-8").splitlines(keepends=True)
    texts = TEXTS + ["".join(lines[i:i + 50]) for i in range(0, len(lines), 50)] + TEXTS
    expected = [small.encode(t) for t in texts]
    assert small.encode_batch(texts, threads=threads) == expected
    assert small.encode_batch(tuple(texts), threads) == expected
    assert small.encode_batch([], threads) == []


def test_encode_file_reads_back(gpt2_tokenizer, cs336, tmp_path):
    names = ["address.txt", "german.txt", "special_token_trailing_newlines.txt"]
    out = tmp_path / "ids.bin"
    count = gpt2_tokenizer.encode_file([cs336 / n for n in names], out, "uint16")
    expected = [i for n in names for i in gpt2_tokenizer.encode((cs336 / n).read_bytes().decode("utf-8"))]
    assert count == len(expected)
    assert np.memmap(out, dtype="uint16", mode="r").tolist() == expected
    # Beside the ids, the sidecar that lets decode check the id type, count and tokenizer.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.bin", "ids.bin.json"]
    sidecar = json.loads((tmp_path / "ids.bin.json").read_text())
    assert (sidecar["dtype"], sidecar["count"]) == ("uint16", count)


def test_properties_and_token_bytes(gpt2_tokenizer):
    assert gpt2_tokenizer.special_tokens == [EOT]
    assert gpt2_tokenizer.pattern == "gpt2"
    assert gpt2_tokenizer.token_bytes(50256) == EOT.encode()
    assert gpt2_tokenizer.token_bytes(31373) == b"hello"
    assert gpt2_tokenizer.token_bytes(10**6) is None
    assert "50257" in repr(gpt2_tokenizer)


def test_docstrings():
    train_doc = bpeforge.train_bpe.__doc__
    assert train_doc and "vocab_size" in train_doc and "merges" in train_doc
    assert "special" in train_doc and "GIL" in train_doc and "KeyboardInterrupt" in train_doc
    iterable_doc = bpeforge.Tokenizer.encode_iterable.__doc__
    assert iterable_doc and "Lazily" in iterable_doc and "memory" in iterable_doc
    assert 'encode("".join(iterable))' in iterable_doc
    for name in ("encode", "decode", "encode_file", "save", "from_files"):
        assert getattr(bpeforge.Tokenizer, name).__doc__, name
    assert bpeforge.load.__doc__ and bpeforge.__doc__


@pytest.mark.parametrize("name", ["tokenizer.json", "tokenizer.tiktoken"])
def test_exported_files_load_back(small, tmp_path, name):
    """Hugging Face's and tiktoken's files, written by save, give the same ids."""
    small.save(tmp_path / "tok")
    loaded = bpeforge.load(tmp_path / "tok" / name)
    text = f"Once upon a time{EOT} there was a cat. It's 'S 你好 😀"
    assert loaded.encode(text) == small.encode(text)
    assert loaded.decode(small.encode(text)) == text
    assert loaded.special_tokens == [EOT]


def test_unsupported_tokenizer_json_is_a_value_error(small, tmp_path):
    small.save(tmp_path / "tok")
    doc = json.loads((tmp_path / "tok" / "tokenizer.json").read_text())
    doc["model"]["type"] = "Unigram"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="model Unigram is not supported"):
        bpeforge.load(tmp_path / "bad.json")


def _same_tokenizer(a, b, text):
    assert a.encode(text) == b.encode(text)
    assert (a.vocab, a.merges, a.special_tokens, a.pattern) == (
        b.vocab, b.merges, b.special_tokens, b.pattern)


def test_pickle_round_trip(small, corpus, tmp_path):
    """Every kind of tokenizer pickles (for multiprocessing, datasets.map) and comes back the
    same: trained, loaded from a directory, its tokenizer.json or its rank file, custom pattern."""
    text = corpus.read_text(encoding="utf-8")[:20000] + DOUBLE + " ok"
    small.save(tmp_path / "tok")
    vocab, merges = small.vocab, small.merges
    for tokenizer in (
        small,
        bpeforge.load(tmp_path / "tok"),
        bpeforge.load(tmp_path / "tok" / "tokenizer.json"),
        bpeforge.load(tmp_path / "tok" / "tokenizer.tiktoken"),
        bpeforge.Tokenizer(vocab, merges, [EOT, "<pad>"], pattern=r"\S+|\s+"),
    ):
        back = pickle.loads(pickle.dumps(tokenizer))
        assert type(back) is bpeforge.Tokenizer
        _same_tokenizer(back, tokenizer, text)
        _same_tokenizer(copy.deepcopy(tokenizer), tokenizer, text)


def test_pickle_round_trip_of_a_rank_file_with_special_ids(fixtures):
    cl100k = bpeforge.load(
        fixtures / "tiktoken_cl100k_base.tiktoken", pattern="cl100k",
        special_tokens=["<|endoftext|>", "<|endofprompt|>"],
        special_ids=fixtures / "tiktoken_cl100k_base.json")
    back = pickle.loads(pickle.dumps(cl100k))
    _same_tokenizer(back, cl100k, "hello world<|endofprompt|> 12345 Привет<|endoftext|>")


def test_tokenizer_in_worker_processes(small, corpus):
    texts = corpus.read_text(encoding="utf-8").split("\n")[:200]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.map(small.encode, texts, chunksize=20) == [small.encode(t) for t in texts]


def test_pickling_a_tokenizer_json_with_gaps_is_refused(tmp_path):
    """Its ids need not follow its merges' order, so a rank file could not rebuild it."""
    vocab = {b: bytes([b]) for b in range(256)}
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc"), (b"c", b"a")]
    for i, (left, right) in enumerate(merges):
        vocab[256 + i] = left + right  # "abc" at 258 and 259: tokenizer.json leaves 259 out
    bpeforge.Tokenizer(vocab, merges).save(tmp_path)
    gapped = bpeforge.load(tmp_path / "tokenizer.json")
    assert gapped.merges is None
    with pytest.raises(TypeError, match="leaves ids without a token"):
        pickle.dumps(gapped)
