"""Shared fixtures for the bpeforge Python tests.

Reference data: $BPEFORGE_FIXTURES, else <repo>/../shared/fixtures.
Command-line tools: $BPEFORGE_CLI and $BPEFORGE_GEN, else <repo>/build/bin/bpeforge[-gen].
Tests that need one of these skip when it is absent.
"""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def bytes_to_unicode():
    """GPT-2's byte -> printable character table."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


_UNICODE_TO_BYTE = {c: b for b, c in bytes_to_unicode().items()}


def gpt2_to_bytes(token: str) -> bytes:
    """A token in GPT-2 byte-to-unicode form as the bytes it stands for."""
    return bytes(_UNICODE_TO_BYTE[c] for c in token)


def read_gpt2_vocab(path) -> dict:
    """vocab.json (token string -> id) as CS336's dict[int, bytes]."""
    with open(path, encoding="utf-8") as f:
        return {i: gpt2_to_bytes(s) for s, i in json.load(f).items()}


def read_gpt2_merges(path) -> list:
    """merges.txt as CS336's list[tuple[bytes, bytes]]."""
    merges = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#version"):
                continue
            a, b = line.split(" ")
            merges.append((gpt2_to_bytes(a), gpt2_to_bytes(b)))
    return merges


def _tool(env_var, name):
    path = pathlib.Path(os.environ.get(env_var) or REPO / "build" / "bin" / name)
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{name} not found (set {env_var})")
    return path


@pytest.fixture(scope="session")
def fixtures():
    path = pathlib.Path(os.environ.get("BPEFORGE_FIXTURES") or REPO.parent / "shared" / "fixtures")
    if not (path / "cs336").is_dir():
        pytest.skip(f"reference fixtures not found at {path} (set BPEFORGE_FIXTURES)")
    return path


@pytest.fixture(scope="session")
def cs336(fixtures):
    return fixtures / "cs336"


@pytest.fixture(scope="session")
def expected_ids(fixtures):
    with open(fixtures / "expected_ids.json", encoding="utf-8") as f:
        return json.load(f)["encodings"]


@pytest.fixture(scope="session")
def cli():
    return _tool("BPEFORGE_CLI", "bpeforge")


@pytest.fixture(scope="session")
def gen():
    return _tool("BPEFORGE_GEN", "bpeforge-gen")


@pytest.fixture(scope="session")
def generate(gen, tmp_path_factory):
    """generate(flavor, size) -> path of a deterministic corpus, made once per session."""
    made = {}

    def make(flavor, size):
        if (flavor, size) not in made:
            out = tmp_path_factory.mktemp("corpus") / f"{flavor}-{size}.txt"
            subprocess.run(
                [str(gen), "--flavor", flavor, "--size", size, "--seed", "1", "--out", str(out),
                 "--quiet"],
                check=True,
            )
            made[flavor, size] = out
        return made[flavor, size]

    return make


@pytest.fixture(scope="session")
def gpt2_tokenizer(cs336):
    import bpeforge

    return bpeforge.Tokenizer.from_files(
        cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt", ["<|endoftext|>"]
    )


@pytest.fixture(scope="session")
def subprocess_env():
    """The environment for a child Python that imports bpeforge like this process does."""
    import bpeforge

    env = dict(os.environ)
    package_root = str(pathlib.Path(bpeforge.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    return env
