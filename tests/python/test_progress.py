"""progress=: through Python, on sys.stderr as it is at the time (plain lines off a terminal,
with the rate and the time left), or to a callable that receives the figures."""

import contextlib
import io
import json

import pytest

import bpeforge

SPECIAL = ["<|endoftext|>"]


@pytest.fixture(scope="module")
def corpus(generate):
    """Long enough to count for a second or more (reports come twice a second)."""
    return generate("web", "100M")


@pytest.fixture(scope="module")
def small_corpus(generate):
    return generate("web", "2M")


def test_progress_lines_go_to_sys_stderr_as_it_is(corpus, tmp_path):
    captured = io.StringIO()
    with contextlib.redirect_stderr(captured):
        bpeforge.train_bpe(corpus, 3000, SPECIAL, progress=True, threads=2)
    lines = captured.getvalue().splitlines()
    assert lines, "nothing reached the redirected sys.stderr"
    assert "\r" not in captured.getvalue() and "\x1b" not in captured.getvalue()
    assert any(line.startswith("pre-tokenizing: ") and " MB/s" in line and " s left" in line
               for line in lines), lines
    assert any(line.startswith("merging: ") and " merges/s" in line for line in lines), lines


def test_a_callable_receives_the_figures(corpus, tmp_path):
    seen = []
    bpeforge.train_bpe(corpus, 3000, SPECIAL, progress=seen.append, threads=2)
    assert all(isinstance(p, bpeforge.Progress) for p in seen)
    phases = [p.phase for p in seen]
    assert "pre-tokenizing" in phases and "merging" in phases
    assert phases.index("merging") > phases.index("pre-tokenizing")
    counting = [p for p in seen if p.phase == "pre-tokenizing"]
    assert all(p.unit == "bytes" and p.total == corpus.stat().st_size for p in counting)
    assert all(0 <= p.done <= p.total and p.rate >= 0 for p in counting)
    merging = [p for p in seen if p.phase == "merging"]
    assert all(p.unit == "merges" and p.total == 3000 - 257 for p in merging)


def test_each_phase_reports_its_end_however_short(small_corpus):
    seen = []
    bpeforge.train_bpe(small_corpus, 1000, SPECIAL, progress=seen.append, threads=2)
    ends = {p.phase: p for p in seen}
    assert list(ends) == ["pre-tokenizing", "merging"], [p.phase for p in seen]
    size = small_corpus.stat().st_size
    assert (ends["pre-tokenizing"].done, ends["pre-tokenizing"].total) == (size, size)
    assert (ends["merging"].done, ends["merging"].total) == (1000 - 257, 1000 - 257)


def test_progress_of_iterators_and_file_encoding(small_corpus, tmp_path):
    seen = []
    docs = small_corpus.read_text(encoding="utf-8").split("\n\n")
    bpeforge.train_from_iterator(docs, 3000, SPECIAL, progress=seen.append)
    counted = [p for p in seen if p.phase == "counting"]
    assert counted and all(p.total is None and p.seconds_left is None for p in counted)
    assert counted[-1].documents > 100

    seen.clear()
    tok = bpeforge.Tokenizer(*bpeforge.train_bpe(small_corpus, 1000, SPECIAL), SPECIAL)
    tok.encode_file(small_corpus, tmp_path / "ids", progress=seen.append)
    assert seen and all(p.phase == "encoding" for p in seen)


def test_a_callable_that_raises_stops_the_work(corpus):
    def stop(progress):
        raise RuntimeError(f"stop at {progress.phase}")

    with pytest.raises(RuntimeError, match="stop at pre-tokenizing"):
        bpeforge.train_bpe(corpus, 3000, SPECIAL, progress=stop)
    with pytest.raises(TypeError, match="progress must be a bool or a callable"):
        bpeforge.train_bpe(corpus, 3000, SPECIAL, progress="yes")


def test_report_gives_pre_tokenizing_and_encoding_figures(corpus, small_corpus):
    tok = bpeforge.Tokenizer(*bpeforge.train_bpe(small_corpus, 1000, SPECIAL), SPECIAL)
    seen = []
    bpeforge.report(tok, [corpus], sizes=[500], threads=2, progress=seen.append)
    assert all(isinstance(p, bpeforge.Progress) for p in seen)
    phases = [p.phase for p in seen]
    assert "pre-tokenizing" in phases and "encoding" in phases, phases
    assert phases.index("encoding") > phases.index("pre-tokenizing")
    reading = [p for p in seen if p.phase == "pre-tokenizing"]
    assert all(p.unit == "bytes" and p.total == corpus.stat().st_size for p in reading)
    encoding = [p for p in seen if p.phase == "encoding"]
    assert all(p.unit == "pre-tokens" and 0 < p.done <= p.total for p in encoding)
    assert encoding[-1].done == encoding[-1].total


def test_report_groups_records_in_a_phase_of_its_own(small_corpus, tmp_path):
    """group_by= reads the JSON Lines once to find the groups before the tally: that pass
    reports as "grouping", its end too."""
    tok = bpeforge.Tokenizer(*bpeforge.train_bpe(small_corpus, 1000, SPECIAL), SPECIAL)
    path = tmp_path / "records.jsonl"
    lines = small_corpus.read_text(encoding="utf-8")[:200_000].split("\n")
    path.write_text("".join(json.dumps({"text": line, "source": f"s{i % 3}"}) + "\n"
                            for i, line in enumerate(lines)), encoding="utf-8")
    seen = []
    bpeforge.report(tok, [path], sizes=[500], group_by="source", progress=seen.append)
    phases = [p.phase for p in seen]
    assert "grouping" in phases and "encoding" in phases, phases
    assert phases.index("grouping") < phases.index("encoding")
    grouping = [p for p in seen if p.phase == "grouping"]
    assert all(p.unit == "bytes" for p in grouping)
    assert grouping[-1].done == grouping[-1].total == path.stat().st_size
