"""What tokenizers make of text they were not trained on: ``bpeforge report`` from Python.

::

    import bpeforge

    r = bpeforge.report(["out/tok-32k", "gpt2/"], "held-out.txt", out="report")
    for t in r["tokenizers"]:
        print(t["name"], t["total"]["bytes_per_token"], len(t["unused"]))
    # r["tokenizers"][0]["curve"]: bytes per token at each vocabulary size, from one pass

The result is report.json as a dict (its fields are listed in docs/report.md); with ``out``
the folder gets report.json and report.html, both or neither.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Union

from . import _bpeforge

if TYPE_CHECKING:
    from . import StrPath, Tokenizer
    from ._progress import ProgressOption

__all__ = ["report", "report_html"]


def _tokenizer_list(tokenizers: Any) -> list[tuple[str, str, Any]]:
    from . import Tokenizer, _path, load

    if isinstance(tokenizers, Mapping):
        items = list(tokenizers.items())
    elif isinstance(tokenizers, (str, bytes, os.PathLike, Tokenizer)):
        items = [(None, tokenizers)]
    else:
        items = [(None, t) for t in tokenizers]
    if not items:
        raise ValueError("no tokenizer given")
    out = []
    for name, t in items:
        if name is not None and not isinstance(name, str):
            raise TypeError(f"tokenizer names must be str, not {type(name).__name__}")
        if isinstance(t, Tokenizer):
            out.append((name or "", name or f"tokenizer {len(out) + 1}", t._impl))
        else:
            path = _path(t, "tokenizer")
            out.append((name or "", path, load(path)._impl))
    return out


def _sizes(sizes: Union[str, Iterable[int]]) -> list[int]:
    if isinstance(sizes, str):
        if sizes != "auto":
            raise ValueError(f'sizes must be "auto" or a list of vocabulary sizes, not {sizes!r}')
        return []
    out = []
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"vocabulary sizes must be int, not {type(size).__name__}")
        if size < 1:
            raise ValueError(f"a vocabulary size must be positive, not {size}")
        out.append(size)
    return out


def _jsonl_fields(value: Union[str, Iterable[str], None]) -> list[str]:
    from . import _jsonl_field

    if value is None or isinstance(value, str):
        field = _jsonl_field(value)
        return [field] if field else []
    fields = [_jsonl_field(f) for f in value]
    if not fields:
        raise ValueError("jsonl_field must name at least one field")
    return fields


def report(
    tokenizers: Union["StrPath", "Tokenizer", Iterable[Any], Mapping[str, Any]],
    inputs: Union["StrPath", Iterable["StrPath"]],
    *,
    sizes: Union[str, Iterable[int]] = "auto",
    out: "StrPath | None" = None,
    include: Iterable[str] | None = None,
    jsonl_field: Union[str, Iterable[str], None] = None,
    group_by: str | None = None,
    max_groups: int = 20,
    skip_bad_records: bool = False,
    threads: int | None = None,
    list_length: int = 20,
    progress: "ProgressOption" = False,
) -> dict:
    """Reports what each tokenizer makes of the text files ``inputs`` (held-out text):
    bytes and tokens per file and in total, bytes per token per script, bytes per token at
    each vocabulary size (``sizes``: ``"auto"``, about 30 up to each tokenizer's size, or a
    list; computed in one pass, exactly what training to that size and encoding gives), and
    token use (unused, unreachable, not whole UTF-8, most and least used, longest, the tokens
    of the rarest merges). ``tokenizers``: a ``Tokenizer``, a path ``load`` takes, a list of
    them, or a dict of name to either. ``progress`` as for ``train_bpe``: with ``group_by``, first
    ``"grouping"`` (the JSON Lines read once for the values); then ``"pre-tokenizing"`` and
    ``"encoding"`` of the distinct pre-tokens, for each way of cutting text. Returns
    report.json as a dict; with ``out``, writes report.json and report.html (a self-contained
    page with the charts) into that folder.

    JSON Lines: ``jsonl_field`` names the field of each record to read, or a list of fields,
    each with numbers of its own (``r["tokenizers"][0]["sources"]``); ``group_by`` gives the
    records of each value of that field (``"source"``, or ``"meta.source"`` inside an object)
    numbers of their own, for the ``max_groups`` values of the most records, the others
    pooled as ``"(other)"``.

    A missing file is FileNotFoundError, a tokenizer that cannot load or a size outside every
    tokenizer's range ValueError; nothing is written then."""
    from . import _input_paths, _path, _threads
    from ._progress import reporting

    given = _tokenizer_list(tokenizers)
    files = _input_paths(inputs, include)
    if isinstance(list_length, bool) or not isinstance(list_length, int) or list_length < 1:
        raise ValueError(f"list_length must be a positive int, not {list_length!r}")
    fields = _jsonl_fields(jsonl_field)
    if group_by is not None and (not isinstance(group_by, str) or not group_by):
        raise ValueError(f"group_by must name a field, not {group_by!r}")
    if isinstance(max_groups, bool) or not isinstance(max_groups, int) or max_groups < 1:
        raise ValueError(f"max_groups must be a positive int, not {max_groups!r}")
    out_dir = None if out is None else _path(out, "out")
    with reporting(progress) as reporter:
        text = _bpeforge.report(
            given,
            files,
            _sizes(sizes),
            fields,
            group_by or "",
            max_groups,
            bool(skip_bad_records),
            _threads(threads),
            list_length,
            reporter,
        )
    if out_dir is not None:
        _bpeforge.write_report(text, out_dir)
    return json.loads(text)


def report_html(report: Union[Mapping[str, Any], str]) -> str:
    """The page of a report (the dict ``report`` returns, or report.json's text): one
    self-contained HTML file, its charts inline SVG."""
    text = report if isinstance(report, str) else json.dumps(report)
    return _bpeforge.report_html(text)
