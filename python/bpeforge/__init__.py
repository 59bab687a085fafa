"""bpeforge: fast, exact byte-level BPE training and tokenization.

A drop-in for the CS336 assignment 1 ``train_bpe`` and ``Tokenizer``, with the speed of the
C++ trainer and tokenizer underneath::

    import bpeforge

    vocab, merges = bpeforge.train_bpe("corpus.txt", 10_000, ["<|endoftext|>"])
    tok = bpeforge.Tokenizer(vocab, merges, ["<|endoftext|>"])
    ids = tok.encode("Once upon a time<|endoftext|>")
    assert tok.decode(ids) == "Once upon a time<|endoftext|>"
    tok.save("out/tok")                 # vocab.json, merges.txt, bpeforge.json
    tok = bpeforge.load("out/tok")      # also a GPT-2 vocab.json/merges.txt folder or a
                                        # tiktoken rank file

A vocabulary sweep counts the corpus once and trains each size from the counts::

    counts = bpeforge.count_pretokens("corpus.txt", "corpus.counts", ["<|endoftext|>"])
    for size in (10_000, 32_000, 50_000):
        vocab, merges = counts.train_bpe(size)  # = train_bpe("corpus.txt", size, ...)

Errors: a missing file is FileNotFoundError naming it, bad arguments and malformed tokenizer
files are ValueError (naming the file and line), Ctrl-C during training or file encoding is
KeyboardInterrupt, and nothing is left half-written.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import tempfile
import warnings
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence, Union

from . import _bpeforge

if TYPE_CHECKING:
    import numpy

__all__ = ["CountFiles", "Tokenizer", "count_pretokens", "load", "train_bpe"]
__version__ = "0.1.0"

StrPath = Union[str, "os.PathLike[str]"]


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


def train_bpe(
    input_path: StrPath | Iterable[StrPath],
    vocab_size: int,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    layout: str = "hf",
    progress: bool = False,
    min_frequency: int = 0,
    max_token_length: int | None = None,
    include: Iterable[str] | None = None,
    jsonl_field: str | None = None,
    skip_bad_records: bool = False,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train a byte-level BPE tokenizer on UTF-8 text files (CS336 ``run_train_bpe``).

    The text is split on the special tokens (they never merge), each piece is pre-tokenized
    with ``pattern`` (``"gpt2"``, ``"cl100k"``, ``"o200k"``, or any regex as the ``regex``
    module reads it, run by a slower reference matcher), and the most frequent adjacent
    pair is merged (ties: the lexicographically greater pair of byte strings) until
    256 + len(special_tokens) + merges reaches ``vocab_size`` or no pair is left. Several
    input files are separate documents. The result does not depend on ``threads``.

    Inputs may be files, folders (their files, recursively, in sorted order; ``include=
    ["*.jsonl.zst"]`` keeps only matching names) and globs. gzip, xz and zstd files are
    decompressed as they are read. JSON Lines files (named ``*.jsonl``, ``*.ndjson``,
    ``*.json``, also compressed; or every input, with ``jsonl_field=``) give one document per
    record: its ``"text"`` field (or ``jsonl_field``). A bad record raises ValueError naming
    the file and line, unless ``skip_bad_records=True`` passes over it.

    Returns ``(vocab, merges)``: ``vocab`` maps id -> token bytes, ``merges`` lists the merged
    byte pairs in creation order. With ``layout="hf"`` (the default, CS336's reference layout)
    the ids are the special tokens, then the 256 bytes in GPT-2's byte-to-unicode order, then
    the merges; with ``"bytes-first"`` byte b is id b, then the special tokens, then merges.

    Hugging Face's trainer options: a pair merges only if it occurs at least ``min_frequency``
    times (training stops at the first that does not), and a pair whose token would be longer
    than ``max_token_length`` bytes is passed over.

    ``threads=None`` uses every core. ``progress=True`` prints progress lines on stderr.
    The GIL is released while it runs; Ctrl-C stops it with KeyboardInterrupt within a
    fraction of a second. Raises FileNotFoundError for a missing input, ValueError for
    invalid UTF-8 (naming the file and byte offset) or a vocab_size below 256 + specials.
    """
    paths = _input_paths(input_path, include)
    _check_training(vocab_size, min_frequency, max_token_length)
    return _bpeforge.train(
        paths,
        vocab_size,
        _special_tokens(special_tokens),
        _threads(threads),
        _pattern(pattern),
        _choice(layout, "layout", ("hf", "bytes-first")),
        bool(progress),
        min_frequency,
        max_token_length or 0,
        _jsonl_field(jsonl_field),
        bool(skip_bad_records),
    )


def count_pretokens(
    input_path: StrPath | Iterable[StrPath],
    output: StrPath,
    special_tokens: Iterable[str] | None = None,
    *,
    threads: int | None = None,
    pattern: str = "gpt2",
    progress: bool = False,
    include: Iterable[str] | None = None,
    jsonl_field: str | None = None,
    skip_bad_records: bool = False,
) -> CountFiles:
    """Count the pre-tokens of text files as ``train_bpe`` does, and write them to ``output``,
    a count file (what ``bpeforge count`` writes; the format is in the README). Returns it
    opened, to train from: ``count_pretokens(...).train_bpe(size)`` gives what
    ``train_bpe(..., size, ...)`` gives, for every size, without reading the text again.

    Inputs and options are those of ``train_bpe``. Count files of parts of a corpus add up:
    ``CountFiles([a, b]).save(path)`` writes the count of the whole. The file is written
    whole or not at all; ``output`` may not be one of the inputs (ValueError). The result
    does not depend on ``threads``. ``output`` must be a file (it is read back), not a device
    or a pipe.
    """
    out = _path(output, "output")
    paths = _input_paths(input_path, include, output=out)
    if os.path.exists(out) and not os.path.isfile(out):
        if os.path.isdir(out):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), out)
        raise ValueError(f"the output {out} is not a regular file; the count file is read back")
    _bpeforge.count(
        paths,
        out,
        _special_tokens(special_tokens),
        _threads(threads),
        _pattern(pattern),
        bool(progress),
        _jsonl_field(jsonl_field),
        bool(skip_bad_records),
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
        layout: str = "hf",
        progress: bool = False,
        min_frequency: int = 0,
        max_token_length: int | None = None,
    ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
        """``train_bpe`` on the counted text: the same ``(vocab, merges)``, with the special
        tokens and pattern the files were counted with. Options as in ``train_bpe``."""
        _check_training(vocab_size, min_frequency, max_token_length)
        return self._impl.train(
            vocab_size,
            _threads(threads),
            _choice(layout, "layout", ("hf", "bytes-first")),
            bool(progress),
            min_frequency,
            max_token_length or 0,
        )

    def save(self, path: StrPath) -> CountFiles:
        """Writes their counts added up as one count file, whole or not at all, and returns it
        opened."""
        out = _path(path, "path")
        self._impl.save(out)
        return CountFiles(out)

    def __repr__(self) -> str:
        return (
            f"CountFiles({self._paths!r}, pattern={self.pattern!r}, "
            f"special_tokens={self.special_tokens!r}, pretokens={self.pretokens})"
        )


class Tokenizer:
    """A byte-level BPE tokenizer with tiktoken's semantics (and ids equal to tiktoken's).

    Special tokens are matched first (leftmost, then longest), the text between them is cut
    by the pre-tokenizer pattern, and inside each pre-token the pair with the lowest merge
    rank is joined until none is left. Thread-safe: one tokenizer may serve many threads.
    """

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | None = None,
        *,
        pattern: str = "gpt2",
    ) -> None:
        """The CS336 constructor: ``vocab`` maps ids 0..n-1 to token bytes (every single byte
        and every merge result must be in it), ``merges`` are byte pairs in rank order.
        Special tokens missing from the vocab get the next free ids."""
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
        """Reads a GPT-2 ``vocab.json`` (token string in byte-to-unicode form -> id) and
        ``merges.txt`` (one merge per line; a ``#version`` header is skipped)."""
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

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text``."""
        return self._impl.encode(text)

    def encode_ordinary(self, text: str) -> list[int]:
        """The token ids of ``text``, with special tokens treated as ordinary text."""
        return self._impl.encode_ordinary(text)

    def encode_iterable(self, iterable: Iterable[str]) -> Iterator[int]:
        """Lazily yields the ids of the concatenation of the strings of ``iterable`` (for
        example the lines of an open file): exactly ``encode("".join(iterable))``, in constant
        memory. It starts no threads and allocates little per string."""
        encoder = _bpeforge.StreamEncoder(self._impl)
        for piece in iterable:
            yield from encoder.push(piece)
        yield from encoder.finish()

    def encode_batch(self, texts: Sequence[str], threads: int | None = None) -> list[list[int]]:
        """The ids of each text, encoded in parallel without the GIL."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a list of str, not a single string")
        return self._impl.encode_batch(list(texts), _threads(threads))

    def encode_file(
        self,
        input_path: StrPath | Iterable[StrPath],
        output_path: StrPath,
        dtype: str = "uint16",
        *,
        threads: int | None = None,
        separator_token: str | None = None,
        include: Iterable[str] | None = None,
        jsonl_field: str | None = None,
        skip_bad_records: bool = False,
    ) -> int:
        """Encodes UTF-8 files (in parallel, in order; each file on its own) into one flat
        little-endian array of ``dtype`` (``"uint16"`` or ``"uint32"``) at ``output_path``,
        the same bytes as ``bpeforge encode``, written whole or not at all. Returns the number
        of ids; ``numpy.memmap(output_path, dtype=dtype)`` reads them.

        Inputs are read as by :func:`train_bpe` (folders, globs, compressed files, JSON Lines,
        each record encoded on its own). ``separator_token``, a special token of this
        tokenizer, puts its id between two documents (files and records)."""
        if separator_token is not None and not isinstance(separator_token, str):
            raise TypeError("separator_token must be a str or None")
        output = _path(output_path, "output_path")
        return self._impl.encode_file(
            _input_paths(input_path, include, output), output,
            _choice(dtype, "dtype", ("uint16", "uint32")), _threads(threads),
            separator_token or "", _jsonl_field(jsonl_field), bool(skip_bad_records),
        )

    def encode_to_numpy(self, text: str, dtype: str | None = None) -> numpy.ndarray:
        """The ids of ``text`` as a numpy array: uint16 when every id fits, else uint32
        (or the ``dtype`` given)."""
        if dtype is None:
            dtype = "uint16" if self._impl.id_limit <= 65536 else "uint32"
        return self._impl.encode_to_numpy(text, _choice(dtype, "dtype", ("uint16", "uint32")))

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD. An id that no
        token has is ValueError."""
        return self._impl.decode(ids)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The concatenated bytes of ``ids``."""
        return self._impl.decode_bytes(ids)

    def token_bytes(self, token_id: int) -> bytes | None:
        """The bytes of one id, or None where no token has it."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token_id must be an int, not {type(token_id).__name__}")
        if not 0 <= token_id <= 0xFFFFFFFF:
            return None
        return self._impl.token_bytes(token_id)

    @property
    def vocab(self) -> dict[int, bytes]:
        """id -> token bytes, special tokens included."""
        return self._impl.vocab()

    @property
    def merges(self) -> list[tuple[bytes, bytes]] | None:
        """The merges in rank order (None for a tokenizer loaded from a tiktoken rank file)."""
        return self._impl.merges()

    @property
    def special_tokens(self) -> list[str]:
        return self._impl.special_tokens

    @property
    def pattern(self) -> str:
        """The pattern's name (``"gpt2"``, ``"cl100k"``, ``"o200k"``), or a custom one's regex."""
        return self._impl.pattern

    @property
    def vocab_size(self) -> int:
        """One more than the largest id."""
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
        specials = {s: self._impl.special_token_id(s) for s in self.special_tokens}
        state = {"vocab": self.vocab, "merges": merges, "special_ids": specials,
                 "pattern": self.pattern}
        return (_unpickle, (state,))


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
    """Loads a tokenizer: a directory written by ``Tokenizer.save`` or ``bpeforge train``,
    any directory holding a GPT-2 ``vocab.json`` and ``merges.txt``, a Hugging Face
    ``tokenizer.json`` of a byte-level BPE (its added tokens are special tokens), or a tiktoken
    rank file (``<base64 token> <rank>`` lines; id = rank; its pattern and special tokens come
    from ``tiktoken.json`` beside it). ``special_tokens`` are added (for a rank file their ids
    come from ``special_ids``, a JSON file ``{"special_tokens": {token: id}}``, when given)."""
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
