"""Corpora as they really come, from Python: thousands of shards under a low limit of open
files, count files that would be overwritten by their own sum, and a custom pattern over a long
text stopped with Ctrl-C.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import bpeforge

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX limits")

SHARDS = textwrap.dedent(
    """
    import json, resource, sys
    import bpeforge

    folder, out = sys.argv[1:3]
    # Far below the usual soft limit of 1,024 that thousands of shards ran into.
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    vocab, merges = bpeforge.train_bpe(folder, 320)
    counts = bpeforge.count_pretokens(folder, out + ".counts")
    tokenizer = bpeforge.Tokenizer(vocab, merges)
    tokenizer.encode_file(folder, out + ".ids", "uint32")
    print(json.dumps({"merges": [[a.hex(), b.hex()] for a, b in merges],
                      "from_counts": [[a.hex(), b.hex()] for a, b in counts.train_bpe(320)[1]]}))
    """
)


def test_thousands_of_shards_are_read_under_a_low_descriptor_limit(tmp_path, subprocess_env):
    folder = tmp_path / "shards"
    folder.mkdir()
    paths = []
    for i in range(5000):
        path = folder / f"part-{i:05d}.txt"
        path.write_text(f"shard {i} of the corpus: words {i * 7 % 1000} and {i * 13 % 1000}.\n")
        paths.append(path)
    result = subprocess.run(
        [sys.executable, "-c", SHARDS, str(folder), str(tmp_path / "out")],
        env=subprocess_env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    # The same merges as the files named one by one, without the limit, and as their counts.
    _, merges = bpeforge.train_bpe(paths, 320)
    assert report["merges"] == [[a.hex(), b.hex()] for a, b in merges]
    assert report["from_counts"] == report["merges"]
    assert (tmp_path / "out.ids").stat().st_size > 0


def test_count_files_refuse_their_own_input_as_output(tmp_path):
    for name, text in (("a.txt", "one text, " * 50), ("b.txt", "another text, " * 50)):
        (tmp_path / name).write_text(text)
    a = bpeforge.count_pretokens(tmp_path / "a.txt", tmp_path / "a.counts")
    bpeforge.count_pretokens(tmp_path / "b.txt", tmp_path / "b.counts")
    before = (tmp_path / "a.counts").read_bytes()
    os.symlink(tmp_path / "a.counts", tmp_path / "link.counts")
    both = bpeforge.CountFiles([tmp_path / "a.counts", tmp_path / "b.counts"])
    for output in (tmp_path / "a.counts", tmp_path / "link.counts"):
        with pytest.raises(ValueError, match="refusing to overwrite"):
            both.save(output)
        assert (tmp_path / "a.counts").read_bytes() == before
    assert a.pretokens > 0


STOP = textwrap.dedent(
    """
    import json, os, signal, sys, threading, time
    import bpeforge

    corpus, out = sys.argv[1:3]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(1.0, interrupt).start()
    try:
        bpeforge.count_pretokens(corpus, out, pattern=r"\\p{L}+| ?[^\\s\\p{L}]+|\\s+")
    except KeyboardInterrupt:
        print(json.dumps({"interrupted": True, "latency": time.monotonic() - sent[0]}))
    else:
        print(json.dumps({"interrupted": False}))
    """
)


def test_count_pretokens_with_a_custom_pattern_stops_within_a_second(tmp_path, subprocess_env):
    # Without special tokens, a custom pattern's text is one piece, which one thread takes whole:
    # about ten seconds of work.
    corpus = tmp_path / "text.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog. " * 1_500_000)
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", STOP, str(corpus), str(work / "text.counts")],
        env=subprocess_env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["interrupted"], "counting finished before the interrupt"
    # Within a second; a loaded machine gets three.
    assert report["latency"] < 3.0, f"counting took {report['latency']:.2f} s to stop"
    assert list(work.iterdir()) == []
