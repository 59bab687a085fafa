"""train_bpe: the CS336 reference result, and the same bytes as the bpeforge CLI."""

import json
import pathlib
import subprocess
import threading
import time
import warnings

import numpy as np
import pytest

import bpeforge
from conftest import gpt2_to_bytes, read_gpt2_merges

SPECIAL = ["<|endoftext|>"]


@pytest.fixture(scope="module")
def reference(cs336):
    merges = read_gpt2_merges(cs336 / "train-bpe-reference-merges.txt")
    with open(cs336 / "train-bpe-reference-vocab.json", encoding="utf-8") as f:
        vocab = {i: gpt2_to_bytes(s) for s, i in json.load(f).items()}
    return vocab, merges


@pytest.fixture(scope="module")
def trained(cs336):
    return bpeforge.train_bpe(cs336 / "corpus.en", 500, SPECIAL)


def test_cs336_reference_merges_and_vocab(cs336, reference):
    """CS336's own test, as it is written: the merges in order, the vocab's ids and bytes as
    sets. In the "hf" layout the ids are the reference's, one by one."""
    vocab, merges = bpeforge.train_bpe(str(cs336 / "corpus.en"), 500, SPECIAL)
    ref_vocab, ref_merges = reference
    assert len(merges) == len(ref_merges)
    assert merges == ref_merges
    assert len(vocab) == 500
    assert set(vocab.keys()) == set(ref_vocab.keys())
    assert set(vocab.values()) == set(ref_vocab.values())
    assert all(isinstance(k, int) and isinstance(v, bytes) for k, v in vocab.items())
    assert all(type(a) is bytes and type(b) is bytes for a, b in merges)
    assert bpeforge.train_bpe(str(cs336 / "corpus.en"), 500, SPECIAL, layout="hf") == reference


def test_the_default_layout_is_bytes_first(cs336, cli, tmp_path):
    """Python and the command line number ids alike: byte b is id b, then the special tokens,
    then the merges; so their ids files can be mixed."""
    vocab, merges = bpeforge.train_bpe(cs336 / "corpus.en", 500, SPECIAL)
    assert all(vocab[b] == bytes([b]) for b in range(256))
    assert vocab[256] == SPECIAL[0].encode()
    assert vocab[257] == merges[0][0] + merges[0][1]
    _cli_train(cli, cs336 / "corpus.en", tmp_path / "cli", 500)
    from_cli = bpeforge.load(tmp_path / "cli")
    tok = bpeforge.Tokenizer(vocab, merges, SPECIAL)
    assert tok.encode("Hi!<|endoftext|>") == from_cli.encode("Hi!<|endoftext|>")
    assert tok.encode("Hi!<|endoftext|>")[-2:] == [33, 256]


def test_a_training_that_stops_early_warns(cs336, tmp_path):
    """A vocabulary sweep must not silently get the same tokenizer for two sizes."""
    small = tmp_path / "small.txt"
    small.write_text("the cat sat on the mat. " * 20)
    with pytest.warns(UserWarning, match=r"stopped at \d+ tokens, before the requested 30000: "
                      "no pair was left to merge"):
        vocab, merges = bpeforge.train_bpe(small, 30000, SPECIAL)
    assert len(vocab) == 257 + len(merges) < 30000
    with pytest.warns(UserWarning, match="no pair was left to merge 30 times or more"):
        bpeforge.train_bpe(cs336 / "corpus.en", 30000, SPECIAL, min_frequency=30)
    counts = bpeforge.count_pretokens(small, tmp_path / "small.counts", SPECIAL)
    with pytest.warns(UserWarning, match="before the requested 30000"):
        assert counts.train_bpe(30000) == (vocab, merges)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bpeforge.train_bpe(small, len(vocab), SPECIAL)  # reached exactly: no warning


def test_path_kinds_and_threads_agree(cs336, trained):
    corpus = cs336 / "corpus.en"
    assert bpeforge.train_bpe(pathlib.Path(corpus), 500, SPECIAL) == trained
    assert bpeforge.train_bpe([corpus], 500, SPECIAL) == trained
    assert bpeforge.train_bpe(corpus, 500, SPECIAL, threads=1) == trained
    assert bpeforge.train_bpe(corpus, 500, SPECIAL, threads=2) == trained


def test_list_of_paths_are_separate_documents(cs336, tmp_path):
    """Several files train like one text with a special token at each file boundary."""
    text = (cs336 / "corpus.en").read_bytes().decode("utf-8")
    cuts = [0] + [text.index(" ", len(text) * k // 5) + 3 for k in range(1, 5)] + [len(text)]
    parts = [text[a:b] for a, b in zip(cuts, cuts[1:])]  # cut inside words
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"part{i}.txt")
        paths[-1].write_bytes(part.encode("utf-8"))
    joined = tmp_path / "joined.txt"
    joined.write_bytes("<|endoftext|>".join(parts).encode("utf-8"))
    result = bpeforge.train_bpe(paths, 500, SPECIAL, threads=1)
    assert bpeforge.train_bpe(paths, 500, SPECIAL, threads=2) == result
    assert bpeforge.train_bpe(joined, 500, SPECIAL) == result


def test_generated_corpus_threads_agree(generate):
    corpus = generate("web", "2M")
    one = bpeforge.train_bpe(corpus, 2000, SPECIAL, threads=1)
    two = bpeforge.train_bpe(corpus, 2000, SPECIAL, threads=2)
    assert len(one[0]) == 2000
    assert one == two


def _cli_train(cli, corpus, out, vocab_size):
    subprocess.run(
        [str(cli), "train", str(corpus), "--vocab-size", str(vocab_size), "--special-token",
         "<|endoftext|>", "--out", str(out), "--quiet"],
        check=True,
    )


def _cli_encode(cli, tokenizer_dir, corpus, out, dtype):
    subprocess.run(
        [str(cli), "encode", "--tokenizer", str(tokenizer_dir), str(corpus), "--output", str(out),
         "--dtype", dtype, "--quiet"],
        check=True,
    )


@pytest.mark.parametrize("corpus_kind", ["corpus.en", "generated"])
def test_python_matches_cli_byte_for_byte(corpus_kind, cli, cs336, request, tmp_path):
    if corpus_kind == "corpus.en":
        corpus, vocab_size = cs336 / "corpus.en", 500
    else:
        corpus, vocab_size = request.getfixturevalue("generate")("stories", "2M"), 3000
    cli_dir, py_dir = tmp_path / "cli", tmp_path / "py"
    _cli_train(cli, corpus, cli_dir, vocab_size)

    vocab, merges = bpeforge.train_bpe(corpus, vocab_size, SPECIAL)
    tokenizer = bpeforge.Tokenizer(vocab, merges, SPECIAL)
    tokenizer.save(py_dir)
    for name in ("vocab.json", "merges.txt", "bpeforge.json"):
        assert (py_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name

    for dtype in ("uint16", "uint32"):
        cli_ids, py_ids = tmp_path / f"cli.{dtype}", tmp_path / f"py.{dtype}"
        _cli_encode(cli, cli_dir, corpus, cli_ids, dtype)
        count = tokenizer.encode_file(corpus, py_ids, dtype)
        assert py_ids.read_bytes() == cli_ids.read_bytes()
        assert count == len(np.memmap(py_ids, dtype=dtype, mode="r")) > 0
    text = pathlib.Path(corpus).read_bytes().decode("utf-8")
    assert np.fromfile(py_ids, dtype="<u4").tolist() == tokenizer.encode(text)


def test_training_releases_the_gil(generate):
    corpus = generate("web", "30M")
    ticks = 0
    stop = threading.Event()

    def tick():
        nonlocal ticks
        while not stop.is_set():
            time.sleep(0.002)  # needs the GIL to wake up and count
            ticks += 1

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        time.sleep(0.05)
        before = ticks
        vocab, _ = bpeforge.train_bpe(corpus, 3000, SPECIAL)
        during = ticks - before
    finally:
        stop.set()
        ticker.join()
    assert len(vocab) == 3000
    assert during > 10, f"the other thread ran only {during} times while training"


def test_min_frequency_and_max_token_length(cs336):
    """Hugging Face's options: no token longer than the limit, no merge below the minimum."""
    corpus = cs336 / "corpus.en"
    with pytest.warns(UserWarning, match="stopped at 650 tokens"):
        _, merges = bpeforge.train_bpe(corpus, 3000, SPECIAL, min_frequency=30,
                                       max_token_length=4)
    _, unlimited = bpeforge.train_bpe(corpus, 3000, SPECIAL)
    assert 0 < len(merges) < len(unlimited)
    assert all(len(a) + len(b) <= 4 for a, b in merges)
    assert any(len(a) + len(b) > 4 for a, b in unlimited)
    with pytest.raises(ValueError, match="max_token_length must be at least 1"):
        bpeforge.train_bpe(corpus, 300, max_token_length=0)
    with pytest.raises(TypeError):
        bpeforge.train_bpe(corpus, 300, min_frequency="3")


def test_custom_pattern(cs336, tmp_path):
    """Any regex as a pattern: recorded, saved, loaded back, and refused when it cannot work."""
    regex = r"\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+"
    vocab, merges = bpeforge.train_bpe(cs336 / "corpus.en", 400, SPECIAL, pattern=regex)
    assert len(merges) == 400 - 257
    assert all(b" " not in a + b or (a + b).isspace() for a, b in merges)  # no " word" tokens
    tok = bpeforge.Tokenizer(vocab, merges, SPECIAL, pattern=regex)
    assert tok.pattern == regex
    tok.save(tmp_path / "tok")
    for path in ("tok", "tok/tokenizer.json", "tok/tokenizer.tiktoken"):
        loaded = bpeforge.load(tmp_path / path)
        assert loaded.pattern == regex
        assert loaded.encode("Hello, world 42!") == tok.encode("Hello, world 42!")
    text = (cs336 / "tinystories_sample.txt").read_text(encoding="utf-8")
    assert list(tok.encode_iterable(text.splitlines(keepends=True))) == tok.encode(text)
    assert tok.decode(tok.encode(text)) == text
    with pytest.raises(ValueError, match="does not compile"):
        bpeforge.train_bpe(cs336 / "corpus.en", 300, pattern="(unclosed")
    with pytest.raises(ValueError, match="or a regex"):
        bpeforge.train_bpe(cs336 / "corpus.en", 300, pattern="gtp2")


def test_what_bpeforge_wrote_in_a_folder_is_left_out(tmp_path):
    """A tokenizer saved into the corpus folder, and ids encoded there, are not read as text
    when the folder is trained on again: the same merges, and a warning that names them."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_text("the cat sat on the mat. " * 200 + "<|endoftext|>" + "hi " * 50)
    first = bpeforge.train_bpe(data, 270, SPECIAL)
    tok = bpeforge.Tokenizer(*first, SPECIAL)
    tok.save(data / "tok")
    with pytest.warns(UserWarning, match="left out .*tok"):
        tok.encode_file(data, data / "ids.bin")
    # Run again, it does not name its own ids, which it writes anew.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tok.encode_file(data, data / "ids.bin", include=["*.txt", "*.bin"])
    assert [w for w in caught if "ids.bin" in str(w.message)] == []
    assert len(caught) == 1  # data/tok
    with pytest.warns(UserWarning, match="left out .*ids.bin.*tok"):
        again = bpeforge.train_bpe(data, 270, SPECIAL, include=["*.txt", "*.bin"])
    assert again == first
    with pytest.raises(ValueError, match="a tokenizer folder written by bpeforge"):
        bpeforge.train_bpe(data / "tok", 300, SPECIAL)


def test_json_lines_folders_and_separator(tmp_path):
    """A folder of compressed JSON Lines trains as the plain text of its documents joined by
    the special token, and encodes to its ids with the separator between records."""
    import gzip

    docs = [f"document {i} says hello world, again and again {i * 7}" for i in range(200)]
    docs[5] = ""
    shards = tmp_path / "shards"
    (shards / "b").mkdir(parents=True)
    with gzip.open(shards / "a.jsonl.gz", "wt") as f:
        for d in docs[:120]:
            f.write(json.dumps({"text": d, "url": "x"}) + "\n")
    with open(shards / "b" / "c.jsonl", "w") as f:
        for d in docs[120:]:
            f.write(json.dumps({"text": d}) + "\n")
    (shards / "notes.txt").write_text("not a shard")
    plain = tmp_path / "plain.txt"
    plain.write_text("<|endoftext|>".join(docs))
    eot = ["<|endoftext|>"]
    want = bpeforge.train_bpe(plain, 400, eot)
    got = bpeforge.train_bpe(shards, 400, eot, include=["*.jsonl*"])
    assert got == want
    assert bpeforge.train_bpe(shards, 400, eot) != want  # notes.txt is a document too
    tok = bpeforge.Tokenizer(*want, eot)
    tok.encode_file(plain, tmp_path / "plain.ids", "uint16")
    tok.encode_file(shards, tmp_path / "docs.ids", "uint16", include=["*.jsonl*"],
                    separator_token="<|endoftext|>")
    assert (tmp_path / "docs.ids").read_bytes() == (tmp_path / "plain.ids").read_bytes()
    with pytest.raises(ValueError, match="not a special token"):
        tok.encode_file(plain, tmp_path / "x.ids", separator_token="<pad>")
