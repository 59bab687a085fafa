#!/usr/bin/env python3
"""Writes a Hugging Face tokenizer.json for GPT-2 from its vocab.json and merges.txt, so that
Hugging Face `tokenizers` encodes with the vocabulary bpeforge and tiktoken use.

    bench/gpt2_tokenizer_json.py GPT2_DIR OUT.json

GPT2_DIR holds gpt2_vocab.json and gpt2_merges.txt (the reference data's cs336/ folder).
"""
import json
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    folder, out = sys.argv[1], sys.argv[2]
    with open(f"{folder}/gpt2_vocab.json", encoding="utf-8") as f:
        vocab = json.load(f)
    with open(f"{folder}/gpt2_merges.txt", encoding="utf-8") as f:
        merges = [line.rstrip("\n") for line in f
                  if line.strip() and not line.startswith("#version")]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                  "use_regex": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>",
                          "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}],
        "normalizer": None, "pre_tokenizer": byte_level, "post_processor": None,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(tokenizer, f)


if __name__ == "__main__":
    main()
