"""The Python module's calls one at a time, each run a whole process to be timed from outside
(wall time and peak memory, e.g. with /usr/bin/time -v), except `lookups`, which times itself:

    python bench/python_bench.py train-file PATH VOCAB       train_bpe on the file
    python bench/python_bench.py train-iterator PATH VOCAB   train_from_iterator over the file's
                                                              documents, read as they are needed
    python bench/python_bench.py documents PATH              the same generator alone, run through
    python bench/python_bench.py list-vs-file PATH VOCAB N   train_from_iterator over the documents
                                                              held in a list (as a datasets column
                                                              is) against train_bpe on the file, the
                                                              calls alone, in turn N times: medians
    python bench/python_bench.py encode-file PATH OUT        Tokenizer.encode_file, uint16
    python bench/python_bench.py encode-numpy PATH           encode_batch_to_numpy of the documents
    python bench/python_bench.py lookups                     lookups per second, printed

Documents are the pieces between "<|endoftext|>" (or, in text without it, between blank lines);
every call uses 2 threads. Encoding uses GPT-2's vocabulary, from ../shared/fixtures/cs336
beside the repository or $BPEFORGE_FIXTURES. Needs the module (scripts/python-env.sh).
"""

import os
import pathlib
import sys
import time

import bpeforge

EOT = "<|endoftext|>"
ROOT = pathlib.Path(__file__).resolve().parents[1]


def documents(path, chunk=1 << 20):
    """The file's documents, read a chunk at a time: never the whole file in memory."""
    with open(path, encoding="utf-8") as f:
        first = f.read(chunk)
        separator = EOT if EOT in first else "\n\n"
        rest = first
        while True:
            pieces = rest.split(separator)
            yield from pieces[:-1]
            more = f.read(chunk)
            if not more:
                yield pieces[-1]
                return
            rest = pieces[-1] + more


def gpt2():
    fixtures = os.environ.get("BPEFORGE_FIXTURES") or ROOT.parent / "shared" / "fixtures"
    fixtures = pathlib.Path(fixtures)
    return bpeforge.Tokenizer.from_files(
        fixtures / "cs336" / "gpt2_vocab.json", fixtures / "cs336" / "gpt2_merges.txt", [EOT]
    )


def lookups():
    tok = gpt2()
    ids = list(range(tok.n_vocab - 1))
    spelled = [tok.id_to_token(i) for i in ids]
    raw = [tok.decode_single_token_bytes(i) for i in ids]
    vocab = tok.vocab
    for name, call, args in [
        ("vocab[id]", vocab.__getitem__, ids),
        ("token_to_id", tok.token_to_id, spelled),
        ("id_to_token", tok.id_to_token, ids),
        ("encode_single_token", tok.encode_single_token, raw),
        ("decode_single_token_bytes", tok.decode_single_token_bytes, ids),
    ]:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for a in args:
                call(a)
            best = min(best, time.perf_counter() - start)
        print(f"{name}: {len(args) / best / 1e6:.2f} million per second ({len(args)} lookups)")
    fresh = gpt2()  # its first lookup builds the tables
    built = time.perf_counter()
    fresh.token_to_id("Ġthe")
    print(f"first lookup of a fresh tokenizer (builds the tables): "
          f"{time.perf_counter() - built:.3f} s")


def list_vs_file(path, vocab_size, runs):
    docs = list(documents(path))
    times = {"list": [], "file": []}
    for _ in range(runs):
        for name, call in [
            ("list", lambda: bpeforge.train_from_iterator(docs, vocab_size, [EOT], threads=2)),
            ("file", lambda: bpeforge.train_bpe(path, vocab_size, [EOT], threads=2)),
        ]:
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    ratios = sorted(a / b for a, b in zip(times["list"], times["file"]))
    for name, t in times.items():
        t.sort()
        print(f"{name}: median {t[len(t) // 2]:.3f} s ({t[0]:.3f}-{t[-1]:.3f})")
    print(f"ratio: median {ratios[len(ratios) // 2]:.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})")


def main(argv):
    command, rest = argv[1], argv[2:]
    if command == "train-file":
        bpeforge.train_bpe(rest[0], int(rest[1]), [EOT], threads=2)
    elif command == "train-iterator":
        bpeforge.train_from_iterator(documents(rest[0]), int(rest[1]), [EOT], threads=2)
    elif command == "list-vs-file":
        list_vs_file(rest[0], int(rest[1]), int(rest[2]))
    elif command == "documents":
        for _ in documents(rest[0]):
            pass
    elif command == "encode-file":
        gpt2().encode_file(rest[0], rest[1], "uint16", threads=2)
    elif command == "encode-numpy":
        tok = gpt2()
        docs = list(documents(rest[0]))
        start = time.perf_counter()
        ids, starts = tok.encode_batch_to_numpy(docs, threads=2)
        print(f"encode_batch_to_numpy: {time.perf_counter() - start:.2f} s, {len(ids)} ids",
              file=sys.stderr)
    elif command == "lookups":
        lookups()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
