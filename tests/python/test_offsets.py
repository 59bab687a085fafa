"""encode_with_offsets: each token's span in characters, as Hugging Face `tokenizers` reports it
for the exported tokenizer.json (checked against the npm package when it is installed)."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

import bpeforge
from conftest import REPO

EOT = "<|endoftext|>"

TEXTS = [
    "",
    "Hello, world! It's 12:30.",
    "naïve café Ünïcödé e\u0301 a\u0300\u0316",
    "你好，世界！这是一个测试。日本語のテキスト、한국어 문장",
    "Привет, мир! Ωμέγα עברית العربية हिन्दी ภาษาไทย",
    "emoji 🙃👍🏽 👩‍👩‍👧‍👦 🇫🇷 done",
    f"{EOT}start{EOT}{EOT} middle <|pad|> end{EOT}",
    "  spaces\t\ttabs\r\n\r\nlines   \n\U0010ffff\x00",
    "😀" * 7 + "中" * 5,
]


@pytest.fixture(scope="module", params=["trained", "gpt2"])
def tokenizer(request, cs336):
    if request.param == "gpt2":
        return request.getfixturevalue("gpt2_tokenizer")
    vocab, merges = bpeforge.train_bpe(cs336 / "corpus.en", 600, [EOT, "<|pad|>"],
                                       pattern="cl100k")
    return bpeforge.Tokenizer(vocab, merges, [EOT, "<|pad|>"], pattern="cl100k")


@pytest.mark.parametrize("text", TEXTS)
def test_spans_cover_each_tokens_text(tokenizer, text):
    ids, offsets = tokenizer.encode_with_offsets(text)
    assert ids == tokenizer.encode(text)
    assert len(offsets) == len(ids)
    specials = set(tokenizer.special_tokens)
    covered = 0
    for token_id, (start, end) in zip(ids, offsets):
        assert 0 <= start < end <= len(text)
        span = text[start:end]
        token = tokenizer.decode_single_token_bytes(token_id)
        if span in specials:
            assert token == span.encode()
        else:
            assert token in span.encode("utf-8")  # the whole characters it is part of
        assert start <= covered  # no gap: neighbours may share a character
        covered = max(covered, end)
    assert covered == len(text)


def _peers():
    peers = pathlib.Path(os.environ.get("BPEFORGE_PEERS") or REPO.parent / "shared" / "peers")
    if shutil.which("node") is None or not (peers / "node_modules" / "tokenizers").is_dir():
        pytest.skip(f"node or the npm package tokenizers is not installed ({peers})")
    return peers


def test_offsets_are_those_of_hugging_face_tokenizers(tokenizer, tmp_path):
    peers = _peers()
    tokenizer.save(tmp_path / "tok")
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(TEXTS), encoding="utf-8")
    result = subprocess.run(
        ["node", str(REPO / "tests" / "peers" / "hf_offsets.js"),
         str(tmp_path / "tok" / "tokenizer.json"), str(texts)],
        env={**os.environ, "NODE_PATH": str(peers / "node_modules")},
        capture_output=True, text=True, timeout=120, check=True,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == len(TEXTS)
    for text, line in zip(TEXTS, lines):
        hf = json.loads(line)
        ids, offsets = tokenizer.encode_with_offsets(text)
        assert ids == hf["ids"], text
        assert [list(o) for o in offsets] == hf["offsets"], text
