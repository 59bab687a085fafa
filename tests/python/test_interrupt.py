"""Ctrl-C stops training (from files and from an iterator), counting, file and batch encoding
promptly with KeyboardInterrupt, leaving no files.

Each run is a child process that gets SIGINT (from itself after 0.5 s, or from the parent
once training reports that merging has begun) during a call that takes several seconds. The one
latency bound (3 s) checks documented behaviour: it stops "within a fraction of a second".
The bpeforge CLI, interrupted the same way, must leave nothing in its output folder.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")

CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, threading, time
    import bpeforge

    mode, corpus, vocab, merges = sys.argv[1:5]
    # A runner started in the background may have inherited an ignored SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if mode == "merges":  # the parent interrupts once progress says the merging has begun
        try:
            bpeforge.train_bpe(corpus, 50000, ["<|endoftext|>"], progress=True)
        except KeyboardInterrupt:
            print(json.dumps({"interrupted": True}))
        else:
            print(json.dumps({"interrupted": False}))
        sys.exit(0)
    if mode in ("encode", "encode-batch"):
        tokenizer = bpeforge.Tokenizer.from_files(vocab, merges, ["<|endoftext|>"])
    if mode == "train-counts":  # counted first, outside the folder checked for leftovers
        counts = bpeforge.count_pretokens(corpus, "../web.counts", ["<|endoftext|>"])
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    if mode == "encode-batch":  # many texts of 100 KB: each is encoded whole
        with open(corpus, encoding="utf-8") as f:
            text = f.read()
        texts = [text[i:i + 100_000] for i in range(0, len(text), 100_000)] * 3  # 10 s or more
        del text

    def documents():
        with open(corpus, encoding="utf-8") as f:
            for line in f:
                yield line

    threading.Timer(0.5, interrupt).start()
    try:
        if mode == "encode-batch":
            tokenizer.encode_batch(texts)
        elif mode == "iterator":
            bpeforge.train_from_iterator(documents(), 50000, ["<|endoftext|>"])
        elif mode == "train":
            bpeforge.train_bpe(corpus, 50000, ["<|endoftext|>"])
        elif mode == "count":
            bpeforge.count_pretokens([corpus] * 4, "web.counts", ["<|endoftext|>"])
        elif mode == "train-counts":
            counts.train_bpe(50000)
        else:
            tokenizer.encode_file([corpus] * 4, "ids.bin", "uint32")
    except KeyboardInterrupt:
        print(json.dumps({"interrupted": True, "latency": time.monotonic() - sent[0]}))
    else:
        print(json.dumps({"interrupted": False, "sent": bool(sent)}))
    """
)


@pytest.fixture(scope="module")
def big_corpus(generate):
    return generate("web", "100M")


@pytest.mark.parametrize(
    "mode", ["train", "encode", "count", "train-counts", "encode-batch", "iterator"]
)
def test_ctrl_c(mode, big_corpus, cs336, subprocess_env, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(big_corpus), str(cs336 / "gpt2_vocab.json"),
         str(cs336 / "gpt2_merges.txt")],
        cwd=work, env=subprocess_env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["interrupted"], f"{mode} finished before the interrupt: {report}"
    assert report["latency"] < 3.0, f"{mode} took {report['latency']:.2f} s to stop"
    assert sorted(p.name for p in work.iterdir()) == []  # no ids.bin, no ids.bin.tmp-*, ...


def test_ctrl_c_while_merging(big_corpus, subprocess_env, tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, "merges", str(big_corpus), "", ""],
        cwd=tmp_path, env=subprocess_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        seen = b""
        while b"merging" not in seen:
            chunk = os.read(child.stderr.fileno(), 4096)
            assert chunk, f"training ended before it reported merging: {seen[-500:]!r}"
            seen += chunk
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        latency = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err.decode(errors="replace")[-2000:]
    assert json.loads(out) == {"interrupted": True}
    assert latency < 3.0, f"training took {latency:.2f} s to stop while merging"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", ["train", "encode", "count", "train-counts"])
def test_cli_ctrl_c_leaves_no_files(mode, cli, big_corpus, cs336, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    if mode == "train":
        args = ["train", str(big_corpus), "--vocab-size", "50000", "--out", str(out / "tok")]
    else:
        args = ["encode", "--vocab", str(cs336 / "gpt2_vocab.json"), "--merges",
                str(cs336 / "gpt2_merges.txt"), str(big_corpus), str(big_corpus),
                "--output", str(out / "ids.bin")]
    child = subprocess.Popen(
        [str(cli), *args, "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(0.5)
        assert child.poll() is None, f"bpeforge {mode} finished before the interrupt"
        child.send_signal(signal.SIGINT)
        returncode = child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert returncode != 0
    leftovers = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert leftovers in ([], ["tok"]), f"bpeforge {mode} left {leftovers} after Ctrl-C"
