"""bpeforge: fast, exact byte-level BPE training and tokenization.

A drop-in for the CS336 assignment 1 ``train_bpe`` and ``Tokenizer``, with the speed of the
C++ trainer and tokenizer underneath::

    import bpeforge

    vocab, merges = bpeforge.train_bpe("corpus.txt", 10_000, ["<|endoftext|>"])
    tok = bpeforge.Tokenizer(vocab, merges, ["<|endoftext|>"])
    ids = tok.encode("Once upon a time<|endoftext|>")
    assert tok.decode(ids) == "Once upon a time<|endoftext|>"
    tok.save("out/tok")                 # vocab.json, merges.txt, tokenizer.json, tiktoken files
    tok = bpeforge.load("out/tok")      # also a GPT-2 vocab.json/merges.txt folder, a Hugging
                                        # Face tokenizer.json or a tiktoken rank file

Documents from Python (a list, a generator, a ``datasets`` column in batches) train the same
way, counted by the worker threads while Python makes the next batch::

    vocab, merges = bpeforge.train_from_iterator(
        (row["text"] for row in rows), 10_000, ["<|endoftext|>"])

A vocabulary sweep counts the corpus once and trains each size from the counts::

    counts = bpeforge.count_pretokens("corpus.txt", "corpus.counts", ["<|endoftext|>"])
    for size in (10_000, 32_000, 50_000):
        vocab, merges = counts.train_bpe(size)  # = train_bpe("corpus.txt", size, ...)

The tokenizer answers to the names of tiktoken (``n_vocab``, ``eot_token``,
``encode_single_token``, ``decode_single_token_bytes``, ``allowed_special``, ...) and of Hugging
Face ``tokenizers`` (``token_to_id``, ``id_to_token``, ``get_vocab``, ``skip_special_tokens``,
``encode_with_offsets``), with their meanings.

Errors: a missing file is FileNotFoundError naming it, bad arguments and malformed tokenizer
files are ValueError (naming the file and line), Ctrl-C during training, counting or encoding
is KeyboardInterrupt, and nothing is left half-written. A training that stops before the
requested vocabulary size warns (UserWarning).
"""

from __future__ import annotations

import base64
import errno
import functools
import json
import os
import re
import sys
import tempfile
import types
import warnings
from typing import (
    TYPE_CHECKING,
    AbstractSet,
    Any,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Literal,
    Mapping,
    Sequence,
    Union,
)

from . import _bpeforge
from ._progress import Progress, ProgressOption, reporting as _reporting

if TYPE_CHECKING:
    import numpy

    IdArray = numpy.ndarray
else:
    # numpy is imported only when an array is made: at run time the arrays' type reads as Any,
    # so that typing.get_type_hints works without numpy installed.
    IdArray = Any

__all__ = [
    "CountFiles",
    "Progress",
    "Tokenizer",
    "count_pretokens",
    "count_pretokens_from_iterator",
    "load",
    "train_bpe",
    "train_from_iterator",
]
__version__ = "0.1.0"

StrPath = Union[str, "os.PathLike[str]"]
Documents = Iterable[Union[str, Sequence[str]]]
DType = Union[str, type, Any]  # a name ("uint16"), a numpy dtype or type object (numpy.uint16)
SpecialSet = Union[Literal["all"], AbstractSet[str], Collection[str]]


def _path(path: StrPath, what: str = "file") -> str:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        raise TypeError(f"{what} must be a str or os.PathLike, not {type(path).__name__}")
    return path


def _input_paths(
    input_path: StrPath | Iterable[StrPath],
    include: Iterable[str] | None = None,
    output: str | None = None,
) -> list[str]:
    """Files, folders (their files, recursively, sorted; ``include`` filters them by name)
    and globs, made into the list of files. What bpeforge wrote in a folder (tokenizer
    folders, ids files and their sidecars, count files) is left out, with a warning unless
    it is ``output`` (and its sidecar), which a run again would name each time."""
    if isinstance(input_path, (str, bytes, os.PathLike)):
        items = [input_path]
    else:
        items = list(input_path)
    if not items:
        raise ValueError("no input file given")
    paths = []
    for item in items:
        path = _path(item, "input_path")
        if not os.path.exists(path) and not any(c in path for c in "*?["):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        paths.append(path)
    if include is None:
        include = []
    elif isinstance(include, (str, bytes)):
        include = [include]
    files, left_out = _bpeforge.expand_inputs(paths, [str(p) for p in include])
    if output is not None:
        own = [output, output + ".json"]
        left_out = [p for p in left_out if not any(_same_file(p, o) for o in own)]
    if left_out:
        named = ", ".join(left_out[:4])
        if len(left_out) > 4:
            named += f" and {len(left_out) - 4} more"
        warnings.warn(
            "left out what bpeforge wrote in the input folders (tokenizers, ids, count files): "
            + named,
            stacklevel=3,
        )
    return files


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _jsonl_field(value: str | None) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"jsonl_field must be a str or None, not {type(value).__name__}")
    if not value:
        raise ValueError("jsonl_field must not be empty")
    return value


def _special_tokens(special_tokens: Iterable[str] | None) -> list[str]:
    if special_tokens is None:
        return []
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError("special_tokens must be a list of str, not a single string")
    tokens = list(special_tokens)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"special tokens must be str, not {type(token).__name__}")
        if not token:
            raise ValueError("a special token must not be empty")
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"special token {token!r} is not valid text: it holds a lone surrogate"
            ) from None
    return tokens


def _threads(threads: int | None) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int or None, not {type(threads).__name__}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    return threads


def _choice(value: str, name: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _pattern(value: str) -> str:
    """A pattern name or a regex; the C++ layer checks which (ValueError when neither)."""
    if not isinstance(value, str):
        raise TypeError(f"pattern must be a str, not {type(value).__name__}")
    return value


def _check_training(vocab_size: int, min_frequency: int, max_token_length: int | None) -> None:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
    if vocab_size < 1:
        raise ValueError(f"vocab_size must be positive, not {vocab_size}")
    for name, value in (("min_frequency", min_frequency), ("max_token_length", max_token_length)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        least = 1 if name == "max_token_length" else 0
        if value < least:
            raise ValueError(f"{name} must be at least {least}, not {value}")


_LAYOUTS = ("bytes-first", "hf")


Trained = tuple[dict[int, bytes], list[tuple[bytes, bytes]]]


def _warn_if_short(
    trained: Trained,
    vocab_size: int,
    min_frequency: int,
    max_token_length: int | None,
    stacklevel: int = 3,
) -> Trained:
    """Warns when training stopped before ``vocab_size``, saying where and why (the warning
    points ``stacklevel`` frames up: at the user's call)."""
    reached = len(trained[0])
    if reached < vocab_size:
        why = "no pair was left to merge"
        if min_frequency:
            why += f" {min_frequency} times or more"
        if max_token_length:
            why += f" (with tokens of at most {max_token_length} bytes)"
        warnings.warn(
            f"training stopped at {reached} tokens, before the requested {vocab_size}: {why}",
            UserWarning,
            stacklevel=stacklevel,
        )
    return trained


def _train(
    native: Callable[..., Trained],
    source: Any,
    vocab_size: int,
    special_tokens: Iterable[str] | None,
    threads: int | None,
    pattern: str,
    layout: str,
    progress: ProgressOption,
    min_frequency: int,
    max_token_length: int | None,
    *rest: Any,
) -> Trained:
    """Checks the training options, calls ``native(source, ..., *rest)`` and warns when it
    stopped early: train_bpe's and train_from_iterator's common part."""
    _check_training(vocab_size, min_frequency, max_token_length)
    specials = _special_tokens(special_tokens)
    with _reporting(progress) as report:
        trained = native(
            source, vocab_size, specials, _threads(threads), _pattern(pattern),
            _choice(layout, "layout", _LAYOUTS), report, min_frequency, max_token_length or 0,
            *rest,
        )
    return _warn_if_short(trained, vocab_size, min_frequency, max_token_length, stacklevel=4)


def train_bpe(
    input_path: StrPath | Iterable[StrPath],
    vocab_size: int,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    layout: str = "bytes-first",
    progress: ProgressOption = False,
    min_frequency: int = 0,
    max_token_length: int | None = None,
    include: Iterable[str] | None = None,
    jsonl_field: str | None = None,
    skip_bad_records: bool = False,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train a byte-level BPE tokenizer on UTF-8 text files (CS336 ``run_train_bpe``).

    The text of ``input_path`` is split on the ``special_tokens`` (they never merge), each piece
    is pre-tokenized with ``pattern`` (``"gpt2"``, ``"cl100k"``, ``"o200k"``, or any regex as
    the ``regex`` module reads it, run by a slower reference matcher), and the most frequent
    adjacent pair is merged (ties: the lexicographically greater pair of byte strings) until
    256 + len(special_tokens) + merges reaches ``vocab_size`` or no pair is left. Several input
    files are separate documents. The result does not depend on ``threads``.

    Inputs may be files, folders (their files, recursively, in sorted order; ``include=
    ["*.jsonl.zst"]`` keeps only matching names) and globs. gzip, xz and zstd files are
    decompressed as they are read. JSON Lines files (named ``*.jsonl``, ``*.ndjson``,
    ``*.json``, also compressed; or every input, with ``jsonl_field=``) give one document per
    record: its ``"text"`` field (or ``jsonl_field``). A bad record raises ValueError naming
    the file and line, unless ``skip_bad_records=True`` passes over it.

    Returns ``(vocab, merges)``: ``vocab`` maps id -> token bytes, ``merges`` lists the merged
    byte pairs in creation order. With ``layout="bytes-first"`` (the default, as the command
    line, rustbpe and minbpe number them) byte b is id b, then come the special tokens, then
    the merges; with ``"hf"`` (Hugging Face's trainer, and the CS336 reference's ids) the
    special tokens, then the 256 bytes in GPT-2's byte-to-unicode order, then the merges. The
    merges are the same either way; CS336's test compares the vocab's ids and bytes as sets.
    A training that stops before ``vocab_size`` (no pair left to merge) warns with a
    UserWarning naming the size reached; ``len(vocab)`` is that size.

    Hugging Face's trainer options: a pair merges only if it occurs at least ``min_frequency``
    times (training stops at the first that does not), and a pair whose token would be longer
    than ``max_token_length`` bytes is passed over.

    ``threads=None`` uses every core. ``progress=True`` writes progress lines with the rate and
    the time left to ``sys.stderr`` (in place on a terminal, plain lines elsewhere); a callable
    instead receives each report as a :class:`Progress`. The GIL is released while it runs;
    Ctrl-C stops it with KeyboardInterrupt within a fraction of a second. Raises
    FileNotFoundError for a missing input, ValueError for invalid UTF-8 (naming the file and
    byte offset) or a vocab_size below 256 + specials.
    """
    return _train(
        _bpeforge.train, _input_paths(input_path, include), vocab_size, special_tokens, threads,
        pattern, layout, progress, min_frequency, max_token_length, _jsonl_field(jsonl_field),
        bool(skip_bad_records),
    )


def _documents(iterator: Documents) -> Documents:
    if isinstance(iterator, (str, bytes, bytearray, os.PathLike)):
        raise TypeError(
            f"iterator must yield documents (str) or batches of them, not be a "
            f"{type(iterator).__name__} itself; a file goes to train_bpe, a single text in a list"
        )
    if not isinstance(iterator, Iterable):
        raise TypeError(f"iterator must be an iterable of str, not {type(iterator).__name__}")
    return iterator


def train_from_iterator(
    iterator: Documents,
    vocab_size: int,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    layout: str = "bytes-first",
    progress: ProgressOption = False,
    min_frequency: int = 0,
    max_token_length: int | None = None,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train on documents from Python: Hugging Face's and rustbpe's ``train_from_iterator``.

    ``iterator`` yields ``str`` (one document each) or sequences of ``str`` (batches of
    documents, as ``datasets`` yields them: ``(b["text"] for b in ds.iter(batch_size=1000))``).
    Documents never merge across items, as JSON Lines records do, and ``special_tokens``
    inside a document split it as in a file: the result equals ``train_bpe`` on a file holding
    the same documents joined by a special token, whatever ``threads``.

    The documents are copied in batches of about a megabyte and counted by the worker threads
    while Python makes the next batch (the GIL is held only to take the items), so memory holds
    the counts and a few batches, not the text: a generator over gigabytes of documents never
    holds them all. Ctrl-C (KeyboardInterrupt) and an exception raised by the iterator stop the
    counting and pass through.

    The keywords are ``train_bpe``'s: ``threads``, ``pattern``, ``layout``, ``progress``,
    ``min_frequency``, ``max_token_length`` (the progress has no total to give a share of).
    Returns ``(vocab, merges)`` as ``train_bpe`` does, and warns the same way when training
    stops before ``vocab_size``.
    """
    return _train(
        _bpeforge.train_documents, _documents(iterator), vocab_size, special_tokens, threads,
        pattern, layout, progress, min_frequency, max_token_length,
    )


def count_pretokens(
    input_path: StrPath | Iterable[StrPath],
    output: StrPath,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    progress: ProgressOption = False,
    include: Iterable[str] | None = None,
    jsonl_field: str | None = None,
    skip_bad_records: bool = False,
) -> CountFiles:
    """Count the pre-tokens of the text files of ``input_path`` as ``train_bpe`` does, and
    write them to ``output``,
    a count file (what ``bpeforge count`` writes; the format is in docs/formats.md). Returns it
    opened, to train from: ``count_pretokens(...).train_bpe(size)`` gives what
    ``train_bpe(..., size, ...)`` gives, for every size, without reading the text again.

    Inputs and options are those of ``train_bpe``: ``special_tokens``, ``threads``,
    ``pattern``, ``progress``, ``include``, ``jsonl_field``, ``skip_bad_records``. Count
    files of parts of a corpus add up:
    ``CountFiles([a, b]).save(path)`` writes the count of the whole. The file is written
    whole or not at all; ``output`` may not be one of the inputs (ValueError). The result
    does not depend on ``threads``. ``output`` must be a file (it is read back), not a device
    or a pipe.
    """
    out = _count_output(output)
    paths = _input_paths(input_path, include, output=out)
    specials = _special_tokens(special_tokens)
    with _reporting(progress) as report:
        _bpeforge.count(
            paths,
            out,
            specials,
            _threads(threads),
            _pattern(pattern),
            report,
            _jsonl_field(jsonl_field),
            bool(skip_bad_records),
        )
    return CountFiles(out)


def _count_output(output: StrPath) -> str:
    out = _path(output, "output")
    if os.path.exists(out) and not os.path.isfile(out):
        if os.path.isdir(out):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), out)
        raise ValueError(f"the output {out} is not a regular file; the count file is read back")
    return out


def count_pretokens_from_iterator(
    iterator: Documents,
    output: StrPath,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    progress: ProgressOption = False,
) -> CountFiles:
    """``count_pretokens`` for documents from Python, read as ``train_from_iterator`` reads
    them: writes the count file ``output`` (whole or not at all) and returns it opened, so that
    a vocabulary sweep over an iterator reads it once. ``CountFiles(...).train_bpe(size)``
    equals ``train_from_iterator(same documents, size, ...)``. ``special_tokens``,
    ``threads``, ``pattern`` and ``progress`` as in ``train_from_iterator``."""
    documents = _documents(iterator)
    out = _count_output(output)
    specials = _special_tokens(special_tokens)
    with _reporting(progress) as report:
        _bpeforge.count_documents(
            documents, out, specials, _threads(threads), _pattern(pattern), report
        )
    return CountFiles(out)


class CountFiles:
    """Pre-token count files (``count_pretokens``, ``bpeforge count``), opened and checked
    once (format, checksum, order; all counted with the same pattern and special tokens),
    then trained from as often as wanted: the counts of several files are added up. A file
    changed after it was opened raises OSError when next read. Calls on one object take
    turns; different objects train at once.

        counts = bpeforge.CountFiles(["part-0.counts", "part-1.counts"])
        vocab, merges = counts.train_bpe(32_000)
        counts.save("all.counts")   # the two added up, as one file
    """

    def __init__(self, paths: StrPath | Iterable[StrPath]) -> None:
        """Opens the count files ``paths`` (a path or several) and checks them whole."""
        if isinstance(paths, (str, bytes, os.PathLike)):
            items = [paths]
        else:
            items = list(paths)
        if not items:
            raise ValueError("no count file given")
        self._paths = [_path(p, "paths") for p in items]
        for path in self._paths:
            if not os.path.exists(path):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        self._impl = _bpeforge.CountFiles.open(self._paths)

    @property
    def paths(self) -> list[str]:
        """The files, as given."""
        return list(self._paths)

    @property
    def pattern(self) -> str:
        """The pattern they were counted with: a name (``"gpt2"``, ...) or a regex."""
        return self._impl.pattern

    @property
    def special_tokens(self) -> list[str]:
        """The special tokens they were counted with (the text was split on them)."""
        return self._impl.special_tokens

    @property
    def text_bytes(self) -> int:
        """Bytes of text counted, all files together."""
        return self._impl.bytes

    @property
    def pretokens(self) -> int:
        """Pre-tokens counted (occurrences), all files together."""
        return self._impl.pretokens

    @property
    def distinct(self) -> int | None:
        """Distinct pre-tokens of one file; None for several (known once they are added)."""
        return self._impl.distinct if len(self._paths) == 1 else None

    def train_bpe(
        self,
        vocab_size: int,
        *,
        threads: int | None = None,
        layout: str = "bytes-first",
        progress: ProgressOption = False,
        min_frequency: int = 0,
        max_token_length: int | None = None,
    ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
        """``train_bpe`` on the counted text: the same ``(vocab, merges)``, with the special
        tokens and pattern the files were counted with. ``threads``, ``layout``,
        ``progress`` (which reports the merging), ``min_frequency`` and ``max_token_length``
        as in ``train_bpe``, and the same warning when training stops before
        ``vocab_size``."""
        _check_training(vocab_size, min_frequency, max_token_length)
        with _reporting(progress) as report:
            trained = self._impl.train(
                vocab_size,
                _threads(threads),
                _choice(layout, "layout", _LAYOUTS),
                report,
                min_frequency,
                max_token_length or 0,
            )
        return _warn_if_short(trained, vocab_size, min_frequency, max_token_length)

    def save(self, path: StrPath) -> CountFiles:
        """Writes their counts added up as one count file at ``path``, whole or not at all, and
        returns it opened."""
        out = _path(path, "path")
        self._impl.save(out)
        return CountFiles(out)

    def __repr__(self) -> str:
        return (
            f"CountFiles({self._paths!r}, pattern={self.pattern!r}, "
            f"special_tokens={self.special_tokens!r}, pretokens={self.pretokens})"
        )


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (vocab.json's and tokenizer.json's spelling)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return table


_SPELLING = _bytes_to_unicode()


def _spell(token: bytes) -> str:
    """A token's bytes as Hugging Face writes them in vocab.json and tokenizer.json."""
    return token.decode("latin-1").translate(_SPELLING)  # byte b is character b in latin-1


class _Lookups:
    """A tokenizer's tables for lookups by bytes and by Hugging Face spelling, each built at its
    first use and then read in constant time (lookups by id ask the C++ tokenizer)."""

    def __init__(self, impl: _bpeforge.Tokenizer) -> None:
        self._impl = impl
        self.special_ids: dict[str, int] = {
            s: impl.special_token_id(s) for s in impl.special_tokens
        }
        self.special_texts: dict[int, str] = {i: s for s, i in self.special_ids.items()}

    @functools.cached_property
    def vocab(self) -> Mapping[int, bytes]:
        """id -> bytes, read-only."""
        return types.MappingProxyType(self._impl.vocab())

    @functools.cached_property
    def ids(self) -> dict[bytes, int]:
        """bytes -> id: a mergeable token before a special token with the same bytes (tiktoken's
        order), and of two ids with the same bytes the lower, which encoding produces."""
        ids: dict[bytes, int] = {}
        for token_id, token in self.vocab.items():
            if token_id not in self.special_texts:
                ids.setdefault(token, token_id)
        for text, token_id in self.special_ids.items():
            ids.setdefault(text.encode("utf-8"), token_id)
        return ids

    @functools.cached_property
    def hf_vocab(self) -> dict[str, int]:
        """tokenizer.json's vocab and added tokens: spelling -> id."""
        hf: dict[str, int] = {}
        for token_id, token in self.vocab.items():
            if token_id not in self.special_texts:
                hf.setdefault(_spell(token), token_id)
        hf.update(self.special_ids)
        return hf


@functools.lru_cache(maxsize=64)
def _special_regex(tokens: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))


def _token_set(value: SpecialSet, name: str) -> set[str] | None:
    """``"all"`` as None, else the set of str given."""
    if isinstance(value, str):
        if value != "all":
            raise TypeError(
                f"{name} must be 'all' or a set of str, not the str {value!r} (write {{{value!r}}})"
            )
        return None
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be 'all' or a set of str, not {type(value).__name__}")
    tokens = set(value)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"{name} must hold str, not {type(token).__name__}")
    return tokens


def _id_dtype(dtype: DType, *, files: bool = False) -> str:
    """A dtype for ids as its numpy name: a name, or a numpy dtype or type object."""
    names = ("uint16", "uint32") if files else ("uint16", "uint32", "int32", "int64", "uint64")
    if isinstance(dtype, str) and dtype in names:
        return dtype
    if isinstance(dtype, bool) or dtype is None:
        raise TypeError(f"dtype must be one of {', '.join(names)}, not {dtype!r}")
    try:
        import numpy
    except ImportError:
        raise TypeError(f"dtype must be one of {', '.join(names)}, not {dtype!r}") from None
    try:
        resolved = numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be one of {', '.join(names)}, not {dtype!r}") from None
    if resolved.kind in "iu" and resolved.byteorder == ">":
        raise ValueError(f"dtype {dtype!r} is big-endian; ids are little-endian")
    if resolved.name not in names:
        if resolved.kind in "iu":
            raise ValueError(
                f"dtype {resolved.name} cannot hold this vocabulary's ids; use "
                f"{' or '.join(names)}"
            )
        raise TypeError(f"dtype must be an integer type ({', '.join(names)}), not {resolved.name}")
    return resolved.name


class Tokenizer:
    """A byte-level BPE tokenizer with tiktoken's semantics (and ids equal to tiktoken's).

    Special tokens are matched first (leftmost, then longest), the text between them is cut
    by the pre-tokenizer pattern, and inside each pre-token the pair with the lowest merge
    rank is joined until none is left. Thread-safe: one tokenizer may serve many threads.

    Besides the CS336 methods it has tiktoken's names (``n_vocab``, ``max_token_value``,
    ``eot_token``, ``special_tokens_set``, ``encode_single_token``,
    ``decode_single_token_bytes``, ``decode_tokens_bytes``, ``decode_batch``,
    ``allowed_special``/``disallowed_special``) and Hugging Face's (``token_to_id``,
    ``id_to_token``, ``get_vocab``, ``get_vocab_size``, ``skip_special_tokens``, offsets),
    each with the meaning it has there. Lookups read tables built once, on first use.
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | None = None,
        *,
        pattern: str = "gpt2",
    ) -> None:
        """The CS336 constructor: ``vocab`` maps ids 0..n-1 to token bytes (every single byte
        and every merge result must be in it), ``merges`` are byte pairs in rank order.
        ``special_tokens`` missing from the vocab get the next free ids. ``pattern``: the
        pre-tokenizer's, ``"gpt2"``, ``"cl100k"``, ``"o200k"`` or a regex."""
        if not isinstance(vocab, dict):
            try:
                vocab = dict(vocab)
            except (TypeError, ValueError):
                raise TypeError(
                    f"vocab must be a dict of int id -> bytes, not {type(vocab).__name__}"
                ) from None
        self._impl = _bpeforge.Tokenizer.create(
            vocab, list(merges), _special_tokens(special_tokens), _pattern(pattern)
        )

    @classmethod
    def _wrap(cls, impl: _bpeforge.Tokenizer) -> Tokenizer:
        tokenizer = cls.__new__(cls)
        tokenizer._impl = impl
        return tokenizer

    @classmethod
    def from_files(
        cls,
        vocab_filepath: StrPath,
        merges_filepath: StrPath,
        special_tokens: Iterable[str] | None = None,
        *,
        pattern: str = "gpt2",
    ) -> Tokenizer:
        """Reads a GPT-2 ``vocab.json`` (``vocab_filepath``: token string in byte-to-unicode
        form -> id) and ``merges.txt`` (``merges_filepath``: one merge per line; a
        ``#version`` header is skipped). ``special_tokens`` and ``pattern`` as in the
        constructor."""
        vocab_path, merges_path = _path(vocab_filepath), _path(merges_filepath)
        for path in (vocab_path, merges_path):
            if not os.path.exists(path):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        return cls._wrap(
            _bpeforge.Tokenizer.load_gpt2(
                vocab_path, merges_path, _special_tokens(special_tokens),
                _pattern(pattern),
            )
        )

    def save(self, directory: StrPath) -> None:
        """Writes ``vocab.json`` + ``merges.txt`` (GPT-2), ``tokenizer.json`` (Hugging Face),
        ``tokenizer.tiktoken`` + ``tiktoken.json`` (tiktoken) and ``bpeforge.json`` into
        ``directory`` (created if needed), all or nothing; ``bpeforge.load`` and ``bpeforge
        encode --tokenizer`` read it back, and so do ``tokenizers`` and ``tiktoken``."""
        self._impl.save(_path(directory, "directory"))

    # -- encoding -------------------------------------------------------------------------

    def _allowed(
        self, text: str, allowed_special: SpecialSet, disallowed_special: SpecialSet
    ) -> list[str] | None:
        """The special tokens to match in ``text`` (None: all), after tiktoken's check for
        disallowed special text."""
        allowed = _token_set(allowed_special, "allowed_special")
        disallowed = _token_set(disallowed_special, "disallowed_special")
        specials = self._impl.special_tokens
        if disallowed is None:  # "all": every special token not allowed
            disallowed = set() if allowed is None else set(specials) - allowed
        if disallowed and isinstance(text, str):
            match = _special_regex(frozenset(disallowed)).search(text)
            if match:
                token = match.group()
                raise ValueError(
                    f"Encountered text corresponding to disallowed special token {token!r}.\n"
                    f"If you want this text to be encoded as a special token, pass it to "
                    f"`allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
                    f"If you want this text to be encoded as normal text, disable the check for "
                    f"this token by passing `disallowed_special=(enc.special_tokens_set - "
                    f"{{{token!r}}})`.\n"
                    f"To disable this check for all special tokens, pass `disallowed_special=()`."
                )
        if allowed is None:
            return None
        return [s for s in specials if s in allowed]

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = "all",
        disallowed_special: SpecialSet = "all",
    ) -> list[int]:
        """The token ids of ``text``.

        ``allowed_special`` and ``disallowed_special`` mean what they mean in tiktoken:
        special tokens in ``allowed_special`` (``"all"``, or a set of them) are matched in the
        text and become their ids; the text of any other special token is ordinary text; and
        text equal to a token in ``disallowed_special`` (``"all"``: every special token not
        allowed; ``()``: none) raises ValueError naming it.

        The default differs from tiktoken's: here every special token is matched (CS336's
        behaviour, ``allowed_special="all"``), where tiktoken allows none and so raises on
        special-token text. ``allowed_special=set()`` gives tiktoken's behaviour;
        ``allowed_special=set(), disallowed_special=()`` encodes such text as ordinary text
        (``encode_ordinary``).
        """
        if allowed_special == "all" and disallowed_special == "all":
            return self._impl.encode(text)
        return self._impl.encode(text, self._allowed(text, allowed_special, disallowed_special))

    def encode_ordinary(self, text: str) -> list[int]:
        """The token ids of ``text``, with special tokens treated as ordinary text (tiktoken's
        ``encode_ordinary``)."""
        return self._impl.encode_ordinary(text)

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = "all",
        disallowed_special: SpecialSet = "all",
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """``(ids, offsets)``: the ids of ``encode`` (``allowed_special`` and
        ``disallowed_special`` as there) and each token's span
        ``(start, end)`` in ``text``, in characters (code points: ``text[start:end]``).

        The spans are those Hugging Face ``tokenizers`` reports (``Encoding.offsets``) for this
        tokenizer's ``tokenizer.json``: a token that holds part of a multi-byte character (an
        emoji split in two tokens, a CJK character cut by a merge) spans that whole character,
        so neighbouring tokens may share it; a special token spans its text."""
        allowed = self._allowed(text, allowed_special, disallowed_special)
        return self._impl.encode_with_offsets(text, allowed)

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Lazily yields the ids of the concatenation of the strings of ``iterable`` (for
        example the lines of an open file): exactly ``encode("".join(iterable))``, in constant
        memory. It starts no threads and allocates little per string."""
        encoder = _bpeforge.StreamEncoder(self._impl)
        for piece in iterable:
            yield from encoder.push(piece)
        yield from encoder.finish()

    def encode_batch(
        self,
        texts: Sequence[str],
        threads: int | None = None,
        *,
        allowed_special: SpecialSet = "all",
        disallowed_special: SpecialSet = "all",
    ) -> list[list[int]]:
        """The ids of each of ``texts`` (as ``encode``, ``allowed_special`` and
        ``disallowed_special`` as there), encoded in parallel without the GIL on ``threads``
        threads (None: every core). Ctrl-C stops it within a fraction of a second
        (KeyboardInterrupt). With other than the default special tokens, the texts are encoded
        one after another."""
        if allowed_special == "all" and disallowed_special == "all":
            return self._impl.encode_batch(_texts(texts), _threads(threads))
        return [
            self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special)
            for t in _texts(texts)
        ]

    def encode_batch_to_numpy(
        self, texts: Sequence[str], dtype: DType | None = None, *, threads: int | None = None
    ) -> tuple[IdArray, IdArray]:
        """``(ids, starts)``: the ids of all texts (as ``encode``) in one flat numpy array, and
        the ``len(texts) + 1`` int64 offsets where each text's ids start, the last being
        ``len(ids)``: text i's ids are ``ids[starts[i]:starts[i + 1]]`` (``np.split(ids,
        starts[1:-1])`` gives them all). Encoded in parallel without the GIL, as
        ``encode_batch`` does on ``threads`` threads. ``dtype`` as in ``encode_to_numpy``."""
        name = self._default_dtype() if dtype is None else _id_dtype(dtype)
        return self._impl.encode_batch_to_numpy(_texts(texts), name, _threads(threads))

    def encode_to_numpy(self, text: str, dtype: DType | None = None) -> IdArray:
        """The ids of ``text`` (as ``encode``) as a numpy array: uint16 when every id fits,
        else uint32, or ``dtype``: ``"uint16"``, ``"uint32"``, ``"int32"``, ``"int64"`` or
        ``"uint64"``, as a name, a numpy dtype or a type (``numpy.uint16``). A dtype too narrow
        for the vocabulary's ids is ValueError."""
        name = self._default_dtype() if dtype is None else _id_dtype(dtype)
        return self._impl.encode_to_numpy(text, name)

    def _default_dtype(self) -> str:
        return "uint16" if self._impl.id_limit <= 65536 else "uint32"

    def encode_file(
        self,
        input_path: StrPath | Iterable[StrPath],
        output_path: StrPath,
        dtype: DType = "uint16",
        *,
        threads: int | None = None,
        separator_token: str | None = None,
        include: Iterable[str] | None = None,
        jsonl_field: str | None = None,
        skip_bad_records: bool = False,
        progress: ProgressOption = False,
    ) -> int:
        """Encodes the UTF-8 files of ``input_path`` (in parallel on ``threads`` threads, in
        order; each file on its own) into one flat little-endian array of ``dtype``
        (``"uint16"`` or ``"uint32"``, or their numpy dtype or type) at ``output_path``, the
        same bytes as ``bpeforge encode``, written whole or not at all. Returns the number of
        ids; ``numpy.memmap(output_path, dtype=dtype)`` reads them.

        Inputs are read as by :func:`train_bpe` (folders, globs, compressed files; JSON Lines,
        each record encoded on its own; ``include``, ``jsonl_field``, ``skip_bad_records``).
        ``separator_token``, a special token of this tokenizer, puts its id between two
        documents (files and records). ``progress`` as in :func:`train_bpe`. Ctrl-C stops it
        (KeyboardInterrupt), leaving no file."""
        if separator_token is not None and not isinstance(separator_token, str):
            raise TypeError("separator_token must be a str or None")
        output = _path(output_path, "output_path")
        paths = _input_paths(input_path, include, output)
        with _reporting(progress) as report:
            return self._impl.encode_file(
                paths, output, _id_dtype(dtype, files=True), _threads(threads),
                separator_token or "", _jsonl_field(jsonl_field), bool(skip_bad_records), report,
            )

    # -- decoding -------------------------------------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> str:
        """The text of ``ids`` (a list, any iterable, or a one-dimensional numpy array of
        integers; numpy integer scalars are ints); bytes that are not valid UTF-8 become
        U+FFFD. ``skip_special_tokens=True`` (Hugging Face's) leaves special tokens out. An id
        that no token has is ValueError, as is a negative one; a float, or an array of them,
        is TypeError."""
        return self._impl.decode(ids, bool(skip_special_tokens))

    def decode_bytes(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> bytes:
        """The concatenated bytes of ``ids`` (checked as in ``decode``; ``skip_special_tokens``
        as there)."""
        return self._impl.decode_bytes(ids, bool(skip_special_tokens))

    def decode_batch(
        self, batch: Iterable[Iterable[int]], *, skip_special_tokens: bool = False
    ) -> list[str]:
        """``decode`` of each sequence of ids in ``batch`` (tiktoken's and Hugging Face's
        ``decode_batch``), ``skip_special_tokens`` as there."""
        if isinstance(batch, (str, bytes)):
            raise TypeError("batch must be a sequence of sequences of ids")
        return self._impl.decode_batch(batch, bool(skip_special_tokens))

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each id (tiktoken's ``decode_tokens_bytes``); KeyError for an id that
        no token has."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def token_bytes(self, token_id: int) -> bytes | None:
        """The bytes of ``token_id``, or None where no token has it."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token_id must be an int, not {type(token_id).__name__}")
        if not 0 <= token_id <= 0xFFFFFFFF:
            return None
        return self._impl.token_bytes(token_id)

    # -- lookups, tiktoken's names --------------------------------------------------------

    def _lookups(self) -> _Lookups:
        try:
            return self._tables
        except AttributeError:
            self._tables = _Lookups(self._impl)
            return self._tables

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's ``n_vocab``)."""
        return self._impl.id_limit

    @property
    def max_token_value(self) -> int:
        """The largest id (tiktoken's ``max_token_value``)."""
        return self._impl.id_limit - 1

    @property
    def eot_token(self) -> int:
        """The id of the special token ``<|endoftext|>`` (tiktoken's ``eot_token``); KeyError
        when it is not a special token of this tokenizer."""
        token_id = self._lookups().special_ids.get("<|endoftext|>")
        if token_id is None:
            raise KeyError("<|endoftext|> is not a special token of this tokenizer")
        return token_id

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens, as a set (tiktoken's ``special_tokens_set``)."""
        return set(self._impl.special_tokens)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a whole token, ``text_or_bytes`` given as bytes or as text (tiktoken's
        ``encode_single_token``): a mergeable token's bytes, or a special token's text.
        KeyError when no single token has them."""
        if isinstance(text_or_bytes, str):
            key = text_or_bytes.encode("utf-8")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            key = bytes(text_or_bytes)
        else:
            raise TypeError(f"expected str or bytes, not {type(text_or_bytes).__name__}")
        token_id = self._lookups().ids.get(key)
        if token_id is None:
            raise KeyError(text_or_bytes)
        return token_id

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one id (tiktoken's ``decode_single_token_bytes``); KeyError for an id
        that no token has."""
        if isinstance(token, bool) or not isinstance(token, int):
            try:
                token = token.__index__()  # numpy's integer scalars
            except AttributeError:
                raise TypeError(f"token must be an int, not {type(token).__name__}") from None
        found = self._impl.token_bytes(token) if 0 <= token <= 0xFFFFFFFF else None
        if found is None:
            raise KeyError(token)
        return found

    # -- lookups, Hugging Face's names ----------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token`` in Hugging Face's spelling (GPT-2's byte-to-unicode characters,
        as in ``vocab.json`` and ``tokenizer.json``: ``"Ġthe"`` for ``b" the"``; a special
        token as its text), or None (Hugging Face's ``token_to_id``)."""
        if not isinstance(token, str):
            raise TypeError(f"token must be a str, not {type(token).__name__}")
        return self._lookups().hf_vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        """The token of ``token_id`` in Hugging Face's spelling (see ``token_to_id``), or None
        (Hugging Face's ``id_to_token``)."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token_id must be an int, not {type(token_id).__name__}")
        special = self._lookups().special_texts.get(token_id)
        if special is not None:
            return special
        token = self._impl.token_bytes(token_id) if 0 <= token_id <= 0xFFFFFFFF else None
        return None if token is None else _spell(token)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """Hugging Face's ``get_vocab``: a new dict of each token in Hugging Face's spelling
        (see ``token_to_id``) -> its id, the special tokens included unless
        ``with_added_tokens=False``. Two ids with the same bytes appear once, with the id that
        encoding produces, as in ``tokenizer.json``."""
        vocab = dict(self._lookups().hf_vocab)
        if not with_added_tokens:
            for token in self._impl.special_tokens:
                vocab.pop(token, None)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """Hugging Face's ``get_vocab_size``: ``len(get_vocab(with_added_tokens))``."""
        size = len(self._lookups().hf_vocab)
        return size if with_added_tokens else size - len(self._impl.special_tokens)

    # -- the CS336 view -------------------------------------------------------------------

    @property
    def vocab(self) -> Mapping[int, bytes]:
        """id -> token bytes, special tokens included: a read-only mapping, built once."""
        return self._lookups().vocab

    @property
    def merges(self) -> list[tuple[bytes, bytes]] | None:
        """The merges in rank order (None for a tokenizer loaded from a tiktoken rank file)."""
        return self._impl.merges()

    @property
    def special_tokens(self) -> list[str]:
        """The special tokens, in the order given."""
        return self._impl.special_tokens

    @property
    def pattern(self) -> str:
        """The pattern's name (``"gpt2"``, ``"cl100k"``, ``"o200k"``), or a custom one's regex."""
        return self._impl.pattern

    @property
    def vocab_size(self) -> int:
        """One more than the largest id (``n_vocab``)."""
        return self._impl.id_limit

    def __repr__(self) -> str:
        return (
            f"bpeforge.Tokenizer(vocab_size={self.vocab_size}, pattern={self.pattern!r}, "
            f"special_tokens={self.special_tokens!r})"
        )

    def __reduce__(self):
        """Pickling, for ``multiprocessing`` and ``datasets.map(num_proc=...)``: the tokenizer
        travels as its vocabulary, merges (or a rank file's ranks), special tokens with their ids
        and pattern, and is rebuilt from them on arrival, giving the same ids."""
        merges = self.merges
        if merges is None and not self._impl.from_rank_file:
            raise TypeError(
                "cannot pickle a tokenizer read from a tokenizer.json that leaves ids without a "
                "token: the order of its merges is not kept"
            )
        specials = dict(self._lookups().special_ids)
        state = {"vocab": self._impl.vocab(), "merges": merges, "special_ids": specials,
                 "pattern": self.pattern}
        return (_unpickle, (state,))


def _texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a list of str, not a single string")
    return texts if isinstance(texts, list) else list(texts)


def _unpickle(state: dict) -> Tokenizer:
    """Rebuilds what Tokenizer.__reduce__ packed."""
    specials = state["special_ids"]
    if state["merges"] is not None:
        return Tokenizer(state["vocab"], state["merges"], list(specials), pattern=state["pattern"])
    # A rank file's tokenizer (id = rank): its ranks written out as one again, and loaded.
    special_ids = set(specials.values())
    with tempfile.TemporaryDirectory() as folder:
        ranks = os.path.join(folder, "tokenizer.tiktoken")
        with open(ranks, "wb") as f:
            for token_id, token in sorted(state["vocab"].items()):
                if token_id not in special_ids:
                    f.write(base64.b64encode(token) + b" %d\n" % token_id)
        ids = os.path.join(folder, "special_ids.json")
        with open(ids, "w", encoding="utf-8") as f:
            json.dump({"special_tokens": specials}, f)
        return load(ranks, special_tokens=list(specials), pattern=state["pattern"], special_ids=ids)


def load(
    path: StrPath,
    *,
    special_tokens: Iterable[str] | None = None,
    pattern: str | None = None,
    special_ids: StrPath | None = None,
) -> Tokenizer:
    """Loads a tokenizer from ``path``: a directory written by ``Tokenizer.save`` or
    ``bpeforge train``,
    any directory holding a GPT-2 ``vocab.json`` and ``merges.txt``, a Hugging Face
    ``tokenizer.json`` of a byte-level BPE (its added tokens are special tokens), or a tiktoken
    rank file (``<base64 token> <rank>`` lines; id = rank).

    A rank file names neither its pattern nor its special tokens. They come from
    ``tiktoken.json`` beside it; else, for OpenAI's own rank files (``gpt2``/``r50k_base``,
    ``cl100k_base``, ``o200k_base``, told by their contents), from what tiktoken gives those
    encodings; else ``pattern`` must be given (ValueError), since the wrong pattern gives wrong
    ids. ``special_tokens`` are added (for a rank file their ids come from ``special_ids``, a
    JSON file ``{"special_tokens": {token: id}}``, which then replaces the special tokens and
    the pattern that ``tiktoken.json`` would give)."""
    path = _path(path, "path")
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if pattern is not None:
        _pattern(pattern)
    ids_path = "" if special_ids is None else _path(special_ids, "special_ids")
    return Tokenizer._wrap(
        _bpeforge.Tokenizer.load(path, _special_tokens(special_tokens), pattern, ids_path)
    )


from .report import report, report_html  # noqa: E402  (bpeforge report; see report.py)
