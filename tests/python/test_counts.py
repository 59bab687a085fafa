"""Count files from Python: count once, train many vocabulary sizes, add up parts; the same
results as training on the text, and the same file as the command line's ``count``."""

import subprocess
import threading

import pytest

import bpeforge

SPECIAL = ["<|endoftext|>"]


@pytest.fixture(scope="module")
def corpus(generate):
    return generate("web", "2M")


@pytest.fixture(scope="module")
def counted(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("counts") / "web.counts"
    return bpeforge.count_pretokens(corpus, path, SPECIAL)


def test_a_sweep_from_one_count_file_trains_as_the_text(corpus, counted):
    assert counted.pattern == "gpt2"
    assert counted.special_tokens == SPECIAL
    assert counted.text_bytes == corpus.stat().st_size
    assert counted.distinct is not None and 0 < counted.distinct < counted.pretokens
    for vocab_size in (300, 1000, 2000):
        assert counted.train_bpe(vocab_size) == bpeforge.train_bpe(corpus, vocab_size, SPECIAL)
    assert counted.train_bpe(1000, layout="bytes-first", threads=1) == bpeforge.train_bpe(
        corpus, 1000, SPECIAL, layout="bytes-first", threads=2
    )
    with pytest.warns(UserWarning, match="500 times or more .with tokens of at most 4 bytes"):
        assert counted.train_bpe(1000, min_frequency=500, max_token_length=4) == (
            bpeforge.train_bpe(corpus, 1000, SPECIAL, min_frequency=500, max_token_length=4)
        )


def test_the_count_file_does_not_depend_on_threads(corpus, counted, tmp_path):
    one = bpeforge.count_pretokens(corpus, tmp_path / "one.counts", SPECIAL, threads=1)
    assert (tmp_path / "one.counts").read_bytes() == open(counted.paths[0], "rb").read()
    assert one.pretokens == counted.pretokens


def test_the_count_file_is_the_command_lines(cli, corpus, counted, tmp_path):
    out = tmp_path / "cli.counts"
    subprocess.run(
        [str(cli), "count", str(corpus), "--special-token", SPECIAL[0], "--out", str(out),
         "--quiet"],
        check=True,
    )
    assert out.read_bytes() == open(counted.paths[0], "rb").read()


def test_parts_add_up_to_the_whole(corpus, tmp_path):
    text = corpus.read_text(encoding="utf-8")
    parts = [tmp_path / "a.txt", tmp_path / "b.txt"]
    cut = text.index(" ", len(text) // 2)
    parts[0].write_text(text[:cut], encoding="utf-8")
    parts[1].write_text(text[cut:], encoding="utf-8")
    shards = [bpeforge.count_pretokens(p, p.with_suffix(".counts"), SPECIAL) for p in parts]
    both = bpeforge.CountFiles([s.paths[0] for s in shards])
    assert both.distinct is None
    assert both.pretokens == sum(s.pretokens for s in shards)
    assert both.train_bpe(1500) == bpeforge.train_bpe(parts, 1500, SPECIAL)
    whole = both.save(tmp_path / "all.counts")
    bpeforge.count_pretokens(parts, tmp_path / "direct.counts", SPECIAL)
    assert (tmp_path / "all.counts").read_bytes() == (tmp_path / "direct.counts").read_bytes()
    assert whole.distinct is not None and whole.train_bpe(1500) == both.train_bpe(1500)


def test_a_custom_pattern_is_kept_in_the_file(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("Hello world, hello WORLD! 12345 abc-def " * 300, encoding="utf-8")
    regex = r"\p{L}+|\p{N}|[^\p{L}\p{N}]+"
    counts = bpeforge.count_pretokens(corpus, tmp_path / "c.counts", pattern=regex)
    assert counts.pattern == regex
    assert counts.special_tokens == []
    with pytest.warns(UserWarning, match="stopped at 275 tokens"):
        assert counts.train_bpe(300) == bpeforge.train_bpe(corpus, 300, pattern=regex)


def test_threads_share_one_object(counted):
    want = counted.train_bpe(800)
    got = [None] * 4

    def train(i):
        got[i] = counted.train_bpe(800)

    threads = [threading.Thread(target=train, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4


def test_bad_input(corpus, counted, tmp_path):
    # The output may not replace an input.
    kept = tmp_path / "kept.txt"
    kept.write_text("some text to keep", encoding="utf-8")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        bpeforge.count_pretokens([corpus, kept], kept)
    assert kept.read_text(encoding="utf-8") == "some text to keep"
    # The file is read back: a device or a folder is refused before counting.
    with pytest.raises(ValueError, match="not a regular file"):
        bpeforge.count_pretokens(corpus, "/dev/null")
    with pytest.raises(IsADirectoryError):
        bpeforge.count_pretokens(corpus, tmp_path)
    # Missing, empty-list and wrongly typed arguments.
    with pytest.raises(FileNotFoundError):
        bpeforge.CountFiles(tmp_path / "missing.counts")
    with pytest.raises(FileNotFoundError):
        bpeforge.count_pretokens(tmp_path / "missing.txt", tmp_path / "x.counts")
    with pytest.raises(ValueError, match="no count file"):
        bpeforge.CountFiles([])
    with pytest.raises(TypeError):
        counted.train_bpe("1000")
    with pytest.raises(ValueError, match="layout"):
        counted.train_bpe(1000, layout="gpt2")
    with pytest.raises(ValueError):
        counted.train_bpe(100)  # below 256 + the special token
    # Not a count file, a truncated one: ValueError naming the file; nothing written.
    with pytest.raises(ValueError, match="kept.txt"):
        bpeforge.CountFiles(kept)
    truncated = tmp_path / "truncated.counts"
    truncated.write_bytes(open(counted.paths[0], "rb").read()[:-100])
    with pytest.raises(ValueError, match="truncated.counts"):
        bpeforge.CountFiles(truncated)
    # Files counted differently do not add up.
    other = bpeforge.count_pretokens(corpus, tmp_path / "other.counts")
    with pytest.raises(ValueError, match="special tokens"):
        bpeforge.CountFiles([counted.paths[0], other.paths[0]])
    # Invalid UTF-8: ValueError with the byte offset, and no count file.
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine text \xff more")
    with pytest.raises(ValueError, match="offset 10"):
        bpeforge.count_pretokens(bad, tmp_path / "bad.counts")
    assert not (tmp_path / "bad.counts").exists()
