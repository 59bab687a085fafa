"""Bad inputs raise the exception a Python user expects, naming the file (and line) at fault."""

import errno
import os

import pytest

import bpeforge

EOT = "<|endoftext|>"


@pytest.fixture
def missing(tmp_path):
    return str(tmp_path / "no-such-file.txt")


@pytest.fixture(scope="module")
def cl100k(fixtures):
    return bpeforge.load(fixtures / "tiktoken_cl100k_base.tiktoken", pattern="cl100k")


def _assert_missing(excinfo, path):
    assert excinfo.value.errno == errno.ENOENT
    assert os.fspath(excinfo.value.filename) == os.fspath(path)


def test_missing_files(missing, cs336, gpt2_tokenizer, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.train_bpe(missing, 500)
    _assert_missing(e, missing)
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.train_bpe([cs336 / "corpus.en", missing], 500)
    _assert_missing(e, missing)
    with pytest.raises(FileNotFoundError) as e:
        gpt2_tokenizer.encode_file(missing, tmp_path / "ids.bin")
    _assert_missing(e, missing)
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.Tokenizer.from_files(missing, cs336 / "gpt2_merges.txt")
    _assert_missing(e, missing)
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.Tokenizer.from_files(cs336 / "gpt2_vocab.json", missing)
    _assert_missing(e, missing)
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.load(missing)
    _assert_missing(e, missing)
    assert not (tmp_path / "ids.bin").exists()


def test_load_directory_without_tokenizer_files(tmp_path):
    """A folder lacking vocab.json: FileNotFoundError for the file that is missing."""
    with pytest.raises(FileNotFoundError) as e:
        bpeforge.load(tmp_path)
    assert "vocab.json" in str(e.value)
    _assert_missing(e, tmp_path / "vocab.json")


def test_folder_without_files_and_glob_without_match(gpt2_tokenizer, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no input file"):
        bpeforge.train_bpe(tmp_path / "empty", 500)
    with pytest.raises(ValueError, match="holds no input file"):
        gpt2_tokenizer.encode_file(tmp_path / "empty", tmp_path / "ids.bin")
    with pytest.raises(FileNotFoundError, match="no file matches"):
        bpeforge.train_bpe(str(tmp_path / "*.txt"), 500)
    assert not (tmp_path / "ids.bin").exists()


def test_bad_json_lines_record(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text('{"text": "fine"}\n{"text": 5}\n')
    with pytest.raises(ValueError, match=r"docs\.jsonl:2: field \"text\" is not a string"):
        bpeforge.train_bpe(corpus, 300)
    with pytest.warns(UserWarning, match="stopped at 259 tokens"):
        bpeforge.train_bpe(corpus, 300, skip_bad_records=True)


def test_vocab_size_checks(cs336):
    corpus = cs336 / "corpus.en"
    for too_small in (0, -5, 100, 255):
        with pytest.raises(ValueError):
            bpeforge.train_bpe(corpus, too_small)
    with pytest.raises(ValueError, match="256"):
        bpeforge.train_bpe(corpus, 256, [EOT])  # 256 bytes + 1 special token
    for not_int in (500.0, "500", None, True):
        with pytest.raises(TypeError):
            bpeforge.train_bpe(corpus, not_int)


def test_special_tokens_type(cs336, gpt2_tokenizer):
    with pytest.raises(TypeError):
        bpeforge.train_bpe(cs336 / "corpus.en", 500, EOT)
    with pytest.raises(TypeError):
        bpeforge.train_bpe(cs336 / "corpus.en", 500, [EOT.encode()])
    vocab, merges = gpt2_tokenizer.vocab, gpt2_tokenizer.merges
    with pytest.raises(TypeError):
        bpeforge.Tokenizer(vocab, merges, EOT)


def test_invalid_utf8(tmp_path, gpt2_tokenizer):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("hello wörld ".encode() + b"\xff\xfe rest")
    with pytest.raises(ValueError) as e:
        bpeforge.train_bpe(bad, 300)
    assert str(bad) in str(e.value) and "byte offset" in str(e.value)
    assert "13" in str(e.value)  # where the bad byte is
    out = tmp_path / "ids.bin"
    with pytest.raises(ValueError) as e:
        gpt2_tokenizer.encode_file(bad, out)
    assert str(bad) in str(e.value) and "byte offset" in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


def test_malformed_merges(tmp_path, cs336):
    merges = tmp_path / "merges.txt"
    merges.write_text("#version: 0.2\nĠ t\nthis line is bad\n", encoding="utf-8")
    with pytest.raises(ValueError) as e:
        bpeforge.Tokenizer.from_files(cs336 / "gpt2_vocab.json", merges)
    assert f"{merges}:3" in str(e.value)


def test_malformed_vocab(tmp_path, cs336):
    vocab = tmp_path / "vocab.json"
    vocab.write_text('{"a": 0, "b": 1', encoding="utf-8")
    with pytest.raises(ValueError) as e:
        bpeforge.Tokenizer.from_files(vocab, cs336 / "gpt2_merges.txt")
    assert str(vocab) in str(e.value)
    vocab.write_text('{"a": 0, "b": 1}', encoding="utf-8")  # valid JSON, lacks most bytes
    with pytest.raises(ValueError) as e:
        bpeforge.Tokenizer.from_files(vocab, cs336 / "gpt2_merges.txt")
    assert str(vocab) in str(e.value)


def test_bad_cs336_vocab():
    with pytest.raises(ValueError):
        bpeforge.Tokenizer({0: b"a"}, [])  # not every byte
    byte_vocab = {i: bytes([i]) for i in range(256)}
    with pytest.raises(ValueError):
        bpeforge.Tokenizer(byte_vocab, [(b"a", b"b")])  # "ab" is not in the vocab
    with pytest.raises(ValueError):
        bpeforge.Tokenizer({**byte_vocab, 300: b"ab"}, [(b"a", b"b")])  # ids not dense
    with pytest.raises(ValueError):
        bpeforge.Tokenizer(byte_vocab, [], [""])


def test_vocab_that_is_no_mapping_is_a_type_error():
    with pytest.raises(TypeError, match="vocab must be a dict"):
        bpeforge.Tokenizer([bytes([b]) for b in range(256)], [])
    pairs = [(b, bytes([b])) for b in range(256)]  # pairs still make a dict
    assert bpeforge.Tokenizer(pairs, []).encode("hi") == [104, 105]


def test_decode_bad_ids(gpt2_tokenizer):
    for bad in ([50257], [10**6], [-1], [1, 2, -3], [2**40]):
        with pytest.raises(ValueError):
            gpt2_tokenizer.decode(bad)
        with pytest.raises(ValueError):
            gpt2_tokenizer.decode_bytes(bad)
    with pytest.raises(TypeError):
        gpt2_tokenizer.decode(["a"])


def test_encode_non_str(gpt2_tokenizer):
    for bad in (b"abc", None, 3, ["abc"]):
        with pytest.raises(TypeError):
            gpt2_tokenizer.encode(bad)
        with pytest.raises(TypeError):
            gpt2_tokenizer.encode_ordinary(bad)
    with pytest.raises(TypeError):
        list(gpt2_tokenizer.encode_iterable(["ok", b"bytes"]))
    with pytest.raises(TypeError):
        gpt2_tokenizer.encode_batch(["ok", 1])
    # The message names the type, and for bytes says what to do.
    with pytest.raises(TypeError, match="must be str, not NoneType"):
        gpt2_tokenizer.encode(None)
    with pytest.raises(TypeError, match="open the file in text mode"):
        list(gpt2_tokenizer.encode_iterable([b"bytes"]))
    with pytest.raises(TypeError, match="must be str, not int"):
        gpt2_tokenizer.encode_batch(["ok", 1])
    with pytest.raises(TypeError, match="must be str, not bytes"):
        gpt2_tokenizer.encode_to_numpy(b"abc")
    # A single string is not a batch of its characters.
    for single in ("hello", b"hello"):
        with pytest.raises(TypeError):
            gpt2_tokenizer.encode_batch(single)


def test_token_bytes_of_no_id(gpt2_tokenizer):
    for no_id in (-1, 50257, 2**32, 2**64):
        assert gpt2_tokenizer.token_bytes(no_id) is None
    for bad in ("1", 1.0, None, True):
        with pytest.raises(TypeError):
            gpt2_tokenizer.token_bytes(bad)


def test_uint16_for_a_large_vocab(cl100k, cs336, tmp_path):
    out = tmp_path / "ids.bin"
    with pytest.raises(ValueError):
        cl100k.encode_file(cs336 / "address.txt", out, "uint16")
    with pytest.raises(ValueError):
        cl100k.encode_to_numpy("hello", "uint16")
    assert list(tmp_path.iterdir()) == []
    assert cl100k.encode_file(cs336 / "address.txt", out, "uint32") > 0


def test_bad_choices(cs336, fixtures, gpt2_tokenizer, tmp_path):
    with pytest.raises(ValueError):
        bpeforge.train_bpe(cs336 / "corpus.en", 500, pattern="nope")
    with pytest.raises(ValueError):
        bpeforge.train_bpe(cs336 / "corpus.en", 500, layout="nope")
    with pytest.raises(ValueError):
        bpeforge.load(fixtures / "tiktoken_gpt2.tiktoken", pattern="nope")
    with pytest.raises(ValueError):
        bpeforge.Tokenizer.from_files(
            cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt", pattern="nope"
        )
    with pytest.raises(ValueError):
        bpeforge.Tokenizer(gpt2_tokenizer.vocab, gpt2_tokenizer.merges, pattern="nope")
    with pytest.raises(ValueError):
        gpt2_tokenizer.encode_file(cs336 / "address.txt", tmp_path / "ids.bin", "int8")
    with pytest.raises(ValueError):
        bpeforge.train_bpe(cs336 / "corpus.en", 500, threads=0)
    with pytest.raises(ValueError):
        bpeforge.train_bpe([], 500)
