"""Ids equal to tiktoken's for GPT-2 (vocab.json/merges.txt and rank files), cl100k and o200k."""

import json

import pytest

import bpeforge
from conftest import read_gpt2_merges, read_gpt2_vocab

EOT = "<|endoftext|>"
PATTERNS = {"gpt2": "gpt2", "cl100k_base": "cl100k", "o200k_base": "o200k"}


def _cases(expected, encoding, cs336):
    for name, ids in expected[encoding]["files"].items():
        yield name, (cs336 / name).read_bytes().decode("utf-8"), ids
    for case in expected[encoding]["strings"]:
        yield repr(case["text"][:30]), case["text"], case["ids"]


def _check(tokenizer, expected, encoding, cs336):
    checked = 0
    for name, text, ids in _cases(expected, encoding, cs336):
        assert tokenizer.encode(text) == ids, name
        assert tokenizer.decode(ids) == text, name
        checked += 1
    assert checked >= 10


def test_gpt2_from_files(gpt2_tokenizer, expected_ids, cs336):
    assert gpt2_tokenizer.vocab_size == 50257
    _check(gpt2_tokenizer, expected_ids, "gpt2", cs336)


def test_gpt2_cs336_constructor(expected_ids, cs336):
    vocab = read_gpt2_vocab(cs336 / "gpt2_vocab.json")
    merges = read_gpt2_merges(cs336 / "gpt2_merges.txt")
    tokenizer = bpeforge.Tokenizer(vocab, merges, [EOT])
    assert tokenizer.encode(EOT) == [50256]  # the vocab's own entry, not a new id
    _check(tokenizer, expected_ids, "gpt2", cs336)
    assert tokenizer.vocab == vocab
    assert tokenizer.merges == merges


@pytest.mark.parametrize("encoding", ["gpt2", "cl100k_base", "o200k_base"])
def test_tiktoken_rank_files(encoding, fixtures, expected_ids, cs336):
    ids_file = fixtures / f"tiktoken_{encoding}.json"
    tokenizer = bpeforge.load(
        fixtures / f"tiktoken_{encoding}.tiktoken",
        special_tokens=[EOT],
        special_ids=ids_file,
        pattern=PATTERNS[encoding],
    )
    with open(ids_file, encoding="utf-8") as f:
        assert tokenizer.encode(EOT) == [json.load(f)["special_tokens"][EOT]]
    assert tokenizer.pattern == PATTERNS[encoding]
    _check(tokenizer, expected_ids, encoding, cs336)


def test_gpt2_rank_file_default_pattern(fixtures, expected_ids, cs336):
    tokenizer = bpeforge.load(
        fixtures / "tiktoken_gpt2.tiktoken", special_tokens=[EOT],
        special_ids=fixtures / "tiktoken_gpt2.json",
    )
    assert tokenizer.merges is None
    _check(tokenizer, expected_ids, "gpt2", cs336)


@pytest.mark.parametrize("encoding", ["gpt2", "cl100k_base", "o200k_base"])
def test_openai_rank_files_alone_get_their_pattern_and_special_tokens(
    encoding, fixtures, expected_ids, cs336
):
    """Nothing beside the file names its pattern: OpenAI's own are told by their contents."""
    tokenizer = bpeforge.load(fixtures / f"tiktoken_{encoding}.tiktoken")
    assert tokenizer.pattern == PATTERNS[encoding]
    with open(fixtures / f"tiktoken_{encoding}.json", encoding="utf-8") as f:
        want = json.load(f)["special_tokens"]
    assert {s: tokenizer.encode_single_token(s) for s in tokenizer.special_tokens} == want
    assert tokenizer.eot_token == want[EOT]
    _check(tokenizer, expected_ids, encoding, cs336)


def test_a_rank_file_nothing_names_a_pattern_for_is_refused(fixtures, tmp_path):
    cl100k = bpeforge.load(fixtures / "tiktoken_cl100k_base.tiktoken")
    assert cl100k.encode("HE'S HERE") == [1837, 13575, 19804]
    lines = (fixtures / "tiktoken_cl100k_base.tiktoken").read_bytes().splitlines(keepends=True)
    other = tmp_path / "other.tiktoken"
    other.write_bytes(b"".join(lines[:-1]))  # no longer OpenAI's file
    with pytest.raises(ValueError, match="does not say which pre-tokenizer pattern.*give the"):
        bpeforge.load(other)
    assert bpeforge.load(other, pattern="cl100k").encode("HE'S HERE") == [1837, 13575, 19804]
    with pytest.raises(ValueError, match="pattern gpt2 differs from the pattern cl100k"):
        bpeforge.load(fixtures / "tiktoken_cl100k_base.tiktoken", pattern="gpt2")
