"""train_from_iterator and count_pretokens_from_iterator: documents from Python train as a file
of the same documents joined by a special token, whatever the batching and threads; bad items
and exceptions pass through; memory holds the counts, not the text."""

import json
import subprocess
import sys
import textwrap

import pytest

import bpeforge

SPECIAL = ["<|endoftext|>"]


@pytest.fixture(scope="module")
def documents(cs336):
    """corpus.en cut into documents inside words, a special token inside one, an empty one."""
    text = (cs336 / "corpus.en").read_bytes().decode("utf-8")
    cuts = [0] + [text.index(" ", len(text) * k // 9) + 2 for k in range(1, 9)] + [len(text)]
    docs = [text[a:b] for a, b in zip(cuts, cuts[1:])]
    docs[2] = docs[2][:100] + "<|endoftext|>" + docs[2][100:]
    docs.insert(4, "")
    return docs


@pytest.fixture(scope="module")
def joined(documents, tmp_path_factory):
    path = tmp_path_factory.mktemp("joined") / "joined.txt"
    path.write_bytes("<|endoftext|>".join(documents).encode("utf-8"))
    return path


@pytest.mark.parametrize("threads", [1, 2])
def test_documents_train_as_the_file_of_them_joined_by_a_special_token(documents, joined, threads):
    want = bpeforge.train_bpe(joined, 700, SPECIAL, threads=threads)
    assert bpeforge.train_from_iterator(documents, 700, SPECIAL, threads=threads) == want
    assert bpeforge.train_from_iterator(iter(documents), 700, SPECIAL, threads=threads) == want
    batches = [documents[i:i + 3] for i in range(0, len(documents), 3)]  # as datasets yields
    assert bpeforge.train_from_iterator(batches, 700, SPECIAL, threads=threads) == want
    mixed = (d if i % 2 else (d,) for i, d in enumerate(documents))
    assert bpeforge.train_from_iterator(mixed, 700, SPECIAL, threads=threads) == want
    hf = bpeforge.train_bpe(joined, 700, SPECIAL, threads=threads, layout="hf")
    assert bpeforge.train_from_iterator(documents, 700, SPECIAL, layout="hf") == hf


def test_documents_never_merge_across_items():
    """Two documents never make one pre-token: "ab" + "c" is not "abc"."""
    with pytest.warns(UserWarning, match="no pair was left to merge"):
        vocab, merges = bpeforge.train_from_iterator(["ab", "c"] * 50, 300)
    assert merges == [(b"a", b"b")]
    with pytest.warns(UserWarning, match="no pair was left to merge"):
        vocab, merges = bpeforge.train_from_iterator(["abc"] * 50, 300)
    assert merges == [(b"b", b"c"), (b"a", b"bc")]


def test_many_small_documents_in_big_batches_train_as_the_file(generate, tmp_path):
    """More than a batch's megabyte, in batches of many documents each."""
    text = generate("web", "4M").read_text(encoding="utf-8")
    docs = text.split("\n\n")
    joined = tmp_path / "joined.txt"
    joined.write_text("<|endoftext|>".join(docs), encoding="utf-8")
    want = bpeforge.train_bpe(joined, 1000, SPECIAL, pattern="cl100k")
    batches = (docs[i:i + 5000] for i in range(0, len(docs), 5000))
    assert bpeforge.train_from_iterator(batches, 1000, SPECIAL, pattern="cl100k") == want


def test_counts_from_an_iterator_train_as_the_iterator(documents, tmp_path):
    counts = bpeforge.count_pretokens_from_iterator(
        iter(documents), tmp_path / "docs.counts", SPECIAL, threads=2
    )
    assert counts.special_tokens == SPECIAL
    assert counts.pattern == "gpt2"
    assert counts.text_bytes == sum(len(d.encode("utf-8")) for d in documents)
    for size in (400, 700):
        assert counts.train_bpe(size) == bpeforge.train_from_iterator(documents, size, SPECIAL)


class Broken(Exception):
    pass


def test_an_iterator_that_raises_stops_it_and_the_exception_passes_through(documents, tmp_path):
    def failing():
        yield from documents[:5]
        raise Broken("from the iterator")

    with pytest.raises(Broken, match="from the iterator"):
        bpeforge.train_from_iterator(failing(), 700, SPECIAL)
    with pytest.raises(Broken):
        bpeforge.count_pretokens_from_iterator(failing(), tmp_path / "c.counts", SPECIAL)
    assert not (tmp_path / "c.counts").exists()
    assert list(tmp_path.iterdir()) == []
    # Nothing is left running or locked: the next training works.
    assert len(bpeforge.train_from_iterator(documents, 300, SPECIAL)[0]) == 300


def test_bad_items_are_type_errors_naming_them():
    with pytest.raises(TypeError, match="not bytes .*decode the bytes"):
        bpeforge.train_from_iterator(["fine", b"raw"], 300)
    with pytest.raises(TypeError, match=r"not dict \(item 0\); pass the column"):
        bpeforge.train_from_iterator([{"text": ["a", "b"]}], 300)
    with pytest.raises(TypeError, match="each document of a batch must be str, not int"):
        bpeforge.train_from_iterator([["a", 3]], 300)
    with pytest.raises(TypeError, match=r"not int \(item 1\)"):
        bpeforge.train_from_iterator(["a", 7], 300)
    with pytest.raises(TypeError, match="a file goes to train_bpe"):
        bpeforge.train_from_iterator("just one string", 300)
    with pytest.raises(UnicodeEncodeError):
        bpeforge.train_from_iterator(["lone \ud800 surrogate"], 300)
    with pytest.raises(ValueError, match="vocab"):
        bpeforge.train_from_iterator(["text"], 100, SPECIAL)


def test_an_empty_iterator_trains_the_bytes_alone():
    with pytest.warns(UserWarning, match="stopped at 257 tokens, before the requested 300"):
        vocab, merges = bpeforge.train_from_iterator(iter([]), 300, SPECIAL)
    assert len(vocab) == 257 and merges == []


MEMORY_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    import bpeforge

    size = int(sys.argv[1])
    # Documents of about 10 KB, each different, made as they are asked for.
    words = [f"w{i}x" for i in range(5000)]

    def documents():
        made = 0
        k = 0
        while made < size:
            doc = " ".join(words[(k * 7 + j) % 5000] for j in range(1500))
            made += len(doc)
            k += 1
            yield doc

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    vocab, _ = bpeforge.train_from_iterator(documents(), 300, threads=2)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"grew_mb": (after - before) / 1024, "vocab": len(vocab)}))
    """
)


def test_a_generator_of_many_megabytes_is_not_held(subprocess_env):
    """200 MB of documents from a generator: the peak memory grows by far less."""
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(200 << 20)],
        env=subprocess_env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["vocab"] == 300
    assert report["grew_mb"] < 60, report
