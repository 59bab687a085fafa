"""The tokenizer under the names users of tiktoken and Hugging Face already type, with their
meanings: lookups (KeyError or None where those libraries give them), per-call special tokens,
skip_special_tokens, decode_batch, batches to numpy, dtypes, and decode's checks of its ids."""

import json

import numpy as np
import pytest

import bpeforge

EOT = "<|endoftext|>"
PAD = "<|pad|>"


@pytest.fixture(scope="module")
def tok(cs336):
    vocab, merges = bpeforge.train_bpe(cs336 / "corpus.en", 1000, [EOT, PAD])
    return bpeforge.Tokenizer(vocab, merges, [EOT, PAD])


@pytest.fixture(scope="module")
def exported(tok, tmp_path_factory):
    folder = tmp_path_factory.mktemp("exported")
    tok.save(folder)
    return folder


def test_tiktoken_lookups(tok, gpt2_tokenizer, cs336):
    assert gpt2_tokenizer.n_vocab == 50257 and gpt2_tokenizer.max_token_value == 50256
    assert gpt2_tokenizer.eot_token == 50256
    assert gpt2_tokenizer.special_tokens_set == {EOT}
    assert gpt2_tokenizer.encode_single_token(b" the") == 262
    assert gpt2_tokenizer.encode_single_token(" the") == 262
    assert gpt2_tokenizer.encode_single_token(EOT) == 50256
    assert gpt2_tokenizer.decode_single_token_bytes(262) == b" the"
    assert gpt2_tokenizer.decode_single_token_bytes(np.int64(262)) == b" the"
    assert gpt2_tokenizer.decode_tokens_bytes([262, 50256]) == [b" the", EOT.encode()]
    with pytest.raises(KeyError):
        gpt2_tokenizer.encode_single_token(b" the cat")  # not one token
    with pytest.raises(KeyError):
        gpt2_tokenizer.decode_single_token_bytes(50257)
    with pytest.raises(KeyError):
        gpt2_tokenizer.decode_single_token_bytes(-1)
    assert tok.eot_token == 256 and tok.special_tokens_set == {EOT, PAD}
    without = bpeforge.Tokenizer.from_files(cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt")
    assert without.special_tokens_set == set()
    with pytest.raises(KeyError, match="endoftext"):
        without.eot_token


def test_hugging_face_lookups_match_the_exported_tokenizer_json(tok, exported):
    """get_vocab is tokenizer.json's model vocab and added tokens, as Hugging Face's is."""
    with open(exported / "tokenizer.json", encoding="utf-8") as f:
        spec = json.load(f)
    want = dict(spec["model"]["vocab"])
    want.update({t["content"]: t["id"] for t in spec["added_tokens"]})
    assert tok.get_vocab() == want
    assert tok.get_vocab_size() == len(want)
    assert tok.get_vocab_size(with_added_tokens=False) == len(want) - 2
    assert EOT not in tok.get_vocab(with_added_tokens=False)
    for token, token_id in list(want.items())[::37]:
        assert tok.token_to_id(token) == token_id
        assert tok.id_to_token(token_id) == token
    assert tok.token_to_id("Ġthe") == tok.encode(" the")[0]
    assert tok.token_to_id(" the") is None  # Hugging Face's spelling, not the bytes'
    assert tok.token_to_id("no such token") is None
    assert tok.id_to_token(10**6) is None
    assert tok.id_to_token(-1) is None
    tok.get_vocab()["Ġthe"] = -5  # a copy, as Hugging Face gives
    assert tok.token_to_id("Ġthe") != -5


def test_vocab_is_built_once_and_read_only(tok):
    vocab = tok.vocab
    assert vocab is tok.vocab
    assert vocab[256] == EOT.encode() and len(vocab) == 1000
    with pytest.raises(TypeError):
        vocab[5] = b"x"
    assert tok.vocab[5] == b"\x05"


def test_allowed_and_disallowed_special_mean_what_they_mean_in_tiktoken(tok):
    text = f"a{EOT}b{PAD}c"
    eot, pad = tok.eot_token, tok.encode_single_token(PAD)
    as_text = tok.encode_ordinary(text)
    assert tok.encode(text) == tok.encode(text, allowed_special="all")  # the CS336 default
    assert eot in tok.encode(text) and pad in tok.encode(text)
    with pytest.raises(ValueError, match="disallowed special token '<\\|endoftext\\|>'"):
        tok.encode(text, allowed_special=set())  # tiktoken's default
    assert tok.encode(text, allowed_special=set(), disallowed_special=()) == as_text
    only_eot = tok.encode(text, allowed_special={EOT}, disallowed_special=())
    assert eot in only_eot and pad not in only_eot
    assert tok.decode(only_eot) == text
    with pytest.raises(ValueError, match="disallowed special token '<\\|pad\\|>'"):
        tok.encode(text, allowed_special={EOT})
    assert tok.encode(text, allowed_special={EOT}, disallowed_special={"nothing"}) == only_eot
    with pytest.raises(ValueError, match="'b'"):
        tok.encode(text, disallowed_special={"b"})  # any text may be disallowed
    assert tok.encode(text, allowed_special={EOT, "not special"}, disallowed_special=()) == only_eot
    with pytest.raises(TypeError, match="write {'<|endoftext|>'}"):
        tok.encode(text, allowed_special=EOT)
    ids, offsets = tok.encode_with_offsets(text, allowed_special={PAD}, disallowed_special=())
    assert pad in ids and eot not in ids
    assert "allowed_special" in tok.encode.__doc__ and "tiktoken's" in tok.encode.__doc__


def test_encode_batch_takes_the_same_special_token_keywords(tok):
    texts = [f"a{EOT}b", f"c{PAD}d", "plain"]
    assert tok.encode_batch(texts, allowed_special={EOT}, disallowed_special=()) == [
        tok.encode(t, allowed_special={EOT}, disallowed_special=()) for t in texts
    ]
    assert tok.encode_batch(texts, allowed_special="all") == tok.encode_batch(texts)
    with pytest.raises(ValueError, match="disallowed special token '<\\|pad\\|>'"):
        tok.encode_batch(texts, allowed_special={EOT})


def test_skip_special_tokens_and_decode_batch(tok):
    ids = tok.encode(f"one{EOT}two{PAD}")
    assert tok.decode(ids, skip_special_tokens=True) == "onetwo"
    assert tok.decode_bytes(ids, skip_special_tokens=True) == b"onetwo"
    assert tok.decode(ids) == f"one{EOT}two{PAD}"
    batch = [tok.encode("first"), np.array(ids), (x for x in tok.encode("third"))]
    assert tok.decode_batch(batch) == ["first", f"one{EOT}two{PAD}", "third"]
    assert tok.decode_batch(batch[:2], skip_special_tokens=True) == ["first", "onetwo"]


def test_decode_refuses_what_is_not_an_id_and_takes_numpy_integers(tok):
    assert tok.decode([np.int64(104), np.uint16(105)]) == "hi"
    assert tok.decode(np.array([104, 105], dtype=np.int8)) == "hi"
    assert tok.decode(np.array([104, 105], dtype=object)) == "hi"
    assert tok.decode(np.array([], dtype=np.uint32)) == ""
    with pytest.raises(TypeError, match="integers, not an array of float64"):
        tok.decode(np.array([104.7, -0.5]))
    with pytest.raises(TypeError, match="integers, not float"):
        tok.decode([104.0])
    with pytest.raises(TypeError, match="integers, not str"):
        tok.decode(np.array([104, "x"], dtype=object))
    with pytest.raises(ValueError, match="token id -1 is negative"):
        tok.decode([104, -1])
    with pytest.raises(ValueError, match="token id -3 is negative"):
        tok.decode(np.array([-3]))
    with pytest.raises(ValueError, match="token id 9223372036854775813 is beyond 32 bits"):
        tok.decode(np.array([2**63 + 5], dtype=np.uint64))
    with pytest.raises(ValueError, match="token id 4294967296 is beyond 32 bits"):
        tok.decode([2**32])
    with pytest.raises(ValueError, match="one-dimensional"):
        tok.decode(np.array([[104, 105]]))
    with pytest.raises(TypeError, match="sequence of int, not str"):
        tok.decode("104")
    with pytest.raises(ValueError, match="1000"):
        tok.decode([1000])  # no token has it


def test_a_special_token_that_is_not_text_is_a_clear_error(tok):
    for make in (
        lambda: bpeforge.Tokenizer(dict(tok.vocab), tok.merges, ["\ud800"]),
        lambda: bpeforge.train_bpe(__file__, 300, ["ok", "\udfff"]),
        lambda: bpeforge.train_from_iterator(["x"], 300, ["\ud800"]),
    ):
        with pytest.raises(ValueError, match="lone surrogate") as caught:
            make()
        assert "incompatible function arguments" not in str(caught.value)


def test_batches_to_numpy_equal_the_documents_ids(tok, cs336):
    text = (cs336 / "corpus.en").read_text(encoding="utf-8")
    texts = [text[i:i + 997] for i in range(0, len(text), 997)] + ["", f"a{EOT}"]
    ids, starts = tok.encode_batch_to_numpy(texts, threads=2)
    assert ids.dtype == np.uint16 and starts.dtype == np.int64
    assert len(starts) == len(texts) + 1 and starts[0] == 0 and starts[-1] == len(ids)
    for i, t in enumerate(texts):
        assert ids[starts[i]:starts[i + 1]].tolist() == tok.encode(t)
    assert [p.tolist() for p in np.split(ids, starts[1:-1])] == tok.encode_batch(texts)
    empty_ids, empty_starts = tok.encode_batch_to_numpy([])
    assert len(empty_ids) == 0 and empty_starts.tolist() == [0]


@pytest.mark.parametrize("dtype", ["uint32", np.uint32, np.dtype("uint32"), "<u4", "u4"])
def test_every_dtype_argument_takes_numpy_dtypes_and_types(tok, dtype, tmp_path):
    assert tok.encode_to_numpy("hello", dtype).dtype == np.uint32
    assert tok.encode_batch_to_numpy(["hello"], dtype)[0].dtype == np.uint32
    count = tok.encode_file(__file__, tmp_path / "ids", dtype)
    assert len(np.fromfile(tmp_path / "ids", dtype=np.uint32)) == count


def test_dtypes_too_narrow_or_not_integers_are_refused(tok, tmp_path, fixtures):
    assert tok.encode_to_numpy("hi", np.int64).tolist() == tok.encode("hi")
    assert tok.encode_to_numpy("hi", "int32").dtype == np.int32
    with pytest.raises(ValueError, match="int8 cannot hold"):
        tok.encode_to_numpy("hi", np.int8)
    with pytest.raises(TypeError, match="float32"):
        tok.encode_batch_to_numpy(["hi"], np.float32)
    with pytest.raises(ValueError, match="big-endian"):
        tok.encode_to_numpy("hi", ">u4")
    with pytest.raises(ValueError, match="int64 cannot hold"):
        tok.encode_file(__file__, tmp_path / "ids", np.int64)  # files hold uint16 or uint32
    cl100k = bpeforge.load(fixtures / "tiktoken_cl100k_base.tiktoken")
    assert cl100k.encode_to_numpy("hi").dtype == np.uint32
    with pytest.raises(ValueError, match="uint16 is too narrow .* up to 100276"):
        cl100k.encode_to_numpy("hi", np.uint16)
    with pytest.raises(ValueError, match="uint16 is too narrow"):
        cl100k.encode_batch_to_numpy(["hi"], "uint16")
    with pytest.raises(ValueError, match="uint16"):
        cl100k.encode_file(__file__, tmp_path / "ids", np.uint16)
