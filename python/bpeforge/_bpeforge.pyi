# Type stubs of the C++ extension; the documented API is bpeforge/__init__.py.
from typing import Callable, Iterable, Optional, Sequence, Union

import numpy

# Called on the calling thread as report(phase, done, total, unit, documents).
Reporter = Optional[Callable[[str, int, int, str, int], object]]

def train(
    inputs: list[str],
    vocab_size: int,
    special_tokens: list[str],
    threads: int,
    pattern: str,
    layout: str,
    progress: Reporter,
    min_frequency: int,
    max_token_length: int,
    jsonl_field: str,
    skip_bad_records: bool,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]: ...
def train_documents(
    documents: Iterable[Union[str, Sequence[str]]],
    vocab_size: int,
    special_tokens: list[str],
    threads: int,
    pattern: str,
    layout: str,
    progress: Reporter,
    min_frequency: int,
    max_token_length: int,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]: ...
def count(
    inputs: list[str],
    output: str,
    special_tokens: list[str],
    threads: int,
    pattern: str,
    progress: Reporter,
    jsonl_field: str,
    skip_bad_records: bool,
) -> None: ...
def count_documents(
    documents: Iterable[Union[str, Sequence[str]]],
    output: str,
    special_tokens: list[str],
    threads: int,
    pattern: str,
    progress: Reporter,
) -> None: ...
def expand_inputs(inputs: list[str], include: list[str]) -> tuple[list[str], list[str]]: ...
def pattern_regex(name: str) -> str: ...

class CountFiles:
    @staticmethod
    def open(paths: list[str]) -> CountFiles: ...
    @property
    def pattern(self) -> str: ...
    @property
    def special_tokens(self) -> list[str]: ...
    @property
    def bytes(self) -> int: ...
    @property
    def pretokens(self) -> int: ...
    @property
    def distinct(self) -> int: ...
    def train(
        self,
        vocab_size: int,
        threads: int,
        layout: str,
        progress: Reporter,
        min_frequency: int,
        max_token_length: int,
    ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]: ...
    def save(self, path: str) -> None: ...

class Tokenizer:
    @staticmethod
    def create(
        vocab: dict[int, bytes],
        merges: Iterable[tuple[bytes, bytes]],
        special_tokens: list[str],
        pattern: str,
    ) -> Tokenizer: ...
    @staticmethod
    def load(
        path: str, special_tokens: list[str], pattern: Optional[str], special_ids: str
    ) -> Tokenizer: ...
    @staticmethod
    def load_gpt2(
        vocab: str, merges: str, special_tokens: list[str], pattern: Optional[str]
    ) -> Tokenizer: ...
    def save(self, directory: str) -> None: ...
    # allowed: the special tokens to match; None: all of them.
    def encode(self, text: str, allowed: Optional[list[str]] = None) -> list[int]: ...
    def encode_ordinary(self, text: str) -> list[int]: ...
    def encode_with_offsets(
        self, text: str, allowed: Optional[list[str]]
    ) -> tuple[list[int], list[tuple[int, int]]]: ...
    def encode_batch(self, texts: Sequence[str], threads: int) -> list[list[int]]: ...
    def encode_batch_to_numpy(
        self, texts: Sequence[str], dtype: str, threads: int
    ) -> tuple[numpy.ndarray, numpy.ndarray]: ...
    def encode_to_numpy(self, text: str, dtype: str) -> numpy.ndarray: ...
    def encode_file(
        self,
        inputs: list[str],
        output: str,
        dtype: str,
        threads: int,
        separator_token: str,
        jsonl_field: str,
        skip_bad_records: bool,
        progress: Reporter,
    ) -> int: ...
    def decode(self, ids: Iterable[int], skip_special: bool) -> str: ...
    def decode_bytes(self, ids: Iterable[int], skip_special: bool) -> bytes: ...
    def decode_batch(self, batch: Iterable[Iterable[int]], skip_special: bool) -> list[str]: ...
    def token_bytes(self, token_id: int) -> Optional[bytes]: ...
    def special_token_id(self, token: str) -> Optional[int]: ...
    def vocab(self) -> dict[int, bytes]: ...
    def merges(self) -> Optional[list[tuple[bytes, bytes]]]: ...
    @property
    def id_limit(self) -> int: ...
    @property
    def from_rank_file(self) -> bool: ...
    @property
    def pattern(self) -> str: ...
    @property
    def special_tokens(self) -> list[str]: ...

class StreamEncoder:
    def __init__(self, tokenizer: Tokenizer) -> None: ...
    def push(self, piece: str) -> list[int]: ...
    def finish(self) -> list[int]: ...

def report(
    tokenizers: list[tuple[str, str, Tokenizer]],
    inputs: list[str],
    sizes: list[int],
    jsonl_fields: list[str],
    group_by: str,
    max_groups: int,
    skip_bad_records: bool,
    threads: int,
    list_length: int,
    progress: Reporter,
) -> str: ...
def report_html(json: str) -> str: ...
def write_report(json: str, dir: str) -> None: ...
