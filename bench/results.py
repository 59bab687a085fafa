#!/usr/bin/env python3
"""Runs the benchmarks behind bench/RESULTS.md and writes their tables.

    bench/results.py [--quick] [--runs N] [--areas A,B,...] [--baseline BUILD_DIR]
                     [--update bench/RESULTS.md | --out FILE]

Every row is one command run N times as a whole process under /usr/bin/time (wall seconds and
peak RSS), after one warm-up run, with the median and range of the runs. Where a row has
something to compare with (a peer library, the previous binary given by --baseline, the same
text in another form), the two run in turn and the ratio is the median of the pairs' ratios.
Each table row names the command, the corpus, the machine (nproc and CPU model) and the date.

Areas: training, encoding, peers, python, counts, scale, inputs, reports, targets (default:
all).

Corpora are generated with build/bin/bpeforge-gen into --data (default data/, gitignored) and
reused while their size matches, as bench/e2e.sh does. Rows that need what is missing are left
out with a note on stderr: the peers (../shared/peers with its npm packages, and node), the
reference data (../shared/fixtures: GPT-2's files), the Python module in .venv, mpirun, the
gzip/xz/zstd tools, or the disk for web 12 GB.

--quick runs the same commands on small corpora (a few MB) with small vocabularies, once
each, to check the script and the commands end to end; its figures are not results.
Without --update or --out the tables go to standard output; --update replaces, in the file
given, the tables between `<!-- results.py AREA -->` and `<!-- /results.py -->` of the areas
that ran, and leaves the rest of the file as it is.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EOT = "<|endoftext|>"
AREAS = ["training", "encoding", "peers", "python", "counts", "scale", "inputs", "reports",
         "targets"]
TITLES = {
    "training": "Training",
    "encoding": "Encoding and other commands",
    "peers": "Side by side with Hugging Face tokenizers and tiktoken",
    "python": "The Python module",
    "counts": "Count files and sweeps",
    "scale": "Scale",
    "inputs": "Inputs",
    "reports": "Reports",
    "targets": "The SIMD paths' targets",
}
# GPT-2's pattern written out, so that --pattern runs it as a custom regex (Boost.Regex).
GPT2_REGEX = r"'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def note(message: str) -> None:
    print(f"results.py: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Settings: corpus sizes and vocabularies of the full and the quick run.


@dataclass
class Sizes:
    stories: str  # the default corpus
    stories_big: str
    web: str
    web_small: str
    web_big: str
    cjk: str
    vocab_stories: int
    vocab_web: int
    vocab_web_big: int
    vocab_cjk: int
    sweep: tuple


FULL = Sizes("100M", "2G", "1G", "100M", "12G", "110M", 10000, 32000, 200000, 8000,
             (10000, 32000, 50000))
QUICK = Sizes("5M", "20M", "20M", "5M", "40M", "5M", 1000, 3000, 8000, 1000, (1000, 3000))


def size_bytes(size: str) -> int:
    units = {"K": 10**3, "M": 10**6, "G": 10**9}
    return int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)


# ---------------------------------------------------------------------------------------------
# Running and timing commands.


@dataclass
class Sample:
    seconds: float
    peak_mib: float


class CommandFailed(Exception):
    pass


def run(argv: list, env: Optional[dict] = None, stdout=subprocess.DEVNULL, cwd=None) -> str:
    """Runs argv; returns its standard output when asked for it; raises CommandFailed."""
    argv = [str(arg) for arg in argv]
    proc = subprocess.run(argv, env=env, stdout=stdout, stderr=subprocess.PIPE, cwd=cwd,
                          text=True)
    if proc.returncode != 0:
        raise CommandFailed(f"{shlex.join(argv)} exited {proc.returncode}: "
                            f"{proc.stderr.strip()[-2000:]}")
    return proc.stdout if stdout == subprocess.PIPE else ""


def timed(argv: list, env: Optional[dict] = None) -> tuple[Sample, str]:
    """Wall seconds and peak RSS of argv as one whole process, and its standard output."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.perf_counter()  # finer than /usr/bin/time's hundredths
        out = run(["/usr/bin/time", "-f", "%M", "-o", t.name, *argv], env=env,
                  stdout=subprocess.PIPE)
        wall = time.perf_counter() - start
        kib = t.read().split()[-1]
    return Sample(wall, int(kib) / 1024), out


Runner = Callable[[], Sample]


def whole(argv: list, env: Optional[dict] = None, before: Optional[Callable] = None) -> Runner:
    """A runner timing argv as a whole process (`before` runs first, untimed)."""
    def go() -> Sample:
        if before:
            before()
        return timed(argv, env)[0]
    return go


def json_line(out: str) -> dict:
    """The last JSON object printed on a line of `out`."""
    for line in reversed(out.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise CommandFailed(f"no JSON line in: {out[-500:]}")


# ---------------------------------------------------------------------------------------------
# Rows and tables.


@dataclass
class Row:
    command: str
    corpus: str
    a: Runner
    b: Optional[Runner] = None
    against: str = ""
    ratio: str = "a/b"  # "a/b": A's time over B's; "b/a": how many times faster A is
    rate_bytes: int = 0  # corpus bytes, to add MB/s to the median
    check: Optional[Callable[[], str]] = None  # after the runs: "" or what differs


@dataclass
class Result:
    row: Row
    a: list = field(default_factory=list)
    b: list = field(default_factory=list)
    ratios: list = field(default_factory=list)
    problem: str = ""


def seconds(x: float) -> str:
    return f"{x:.3f} s" if x < 10 else f"{x:.2f} s"


def spread(values: list) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return seconds(med)
    return f"{seconds(med)} ({min(values):.3f}-{max(values):.3f})"


def measure(row: Row, runs: int, warmup: int) -> Result:
    result = Result(row)
    for i in range(warmup + runs):
        a = row.a()
        b = row.b() if row.b else None
        if i < warmup:
            continue
        result.a.append(a)
        if b:
            result.b.append(b)
            result.ratios.append(a.seconds / b.seconds if row.ratio == "a/b"
                                 else b.seconds / a.seconds)
    if row.check:
        result.problem = row.check()
    return result


def format_row(r: Result, machine: str, date: str) -> str:
    a_times = [s.seconds for s in r.a]
    median = spread(a_times)
    if r.row.rate_bytes:
        median += f" = {r.row.rate_bytes / 1e6 / statistics.median(a_times):.0f} MB/s"
    peak = f"{statistics.median(s.peak_mib for s in r.a):.1f} MiB"
    against = other = ratio = ""
    if r.b:
        against = r.row.against
        other = spread([s.seconds for s in r.b])
        med, lo, hi = statistics.median(r.ratios), min(r.ratios), max(r.ratios)
        if r.row.ratio == "a/b":
            ratio = f"{med:.2f}" + (f" ({lo:.2f}-{hi:.2f})" if len(r.ratios) > 1 else "")
        else:
            ratio = f"{med:.1f}x faster" + (f" ({lo:.1f}-{hi:.1f})" if len(r.ratios) > 1 else "")
    if r.problem:
        ratio = (ratio + "; " if ratio else "") + f"**{r.problem}**"
    cells = [r.row.command, r.row.corpus, machine, date, str(len(r.a)), median, peak, against,
             other, ratio]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


HEADER = ("| command | corpus | machine | date | runs | median (range) | peak | against | "
          "against: median (range) | ratio |\n|---|---|---|---|---|---|---|---|---|---|")


def machine_name() -> str:
    nproc = run(["nproc"], stdout=subprocess.PIPE).strip()
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
                break
    except OSError:
        pass
    return f"nproc {nproc}, {model}"


# ---------------------------------------------------------------------------------------------
# The benchmarks.


class Bench:
    def __init__(self, args):
        self.sizes = QUICK if args.quick else FULL
        self.quick = args.quick
        self.build = Path(args.build).resolve()
        self.baseline = Path(args.baseline).resolve() if args.baseline else None
        self.data = Path(args.data).resolve()
        self.data.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(prefix="results-", dir=self.data))
        self.bpeforge = self.build / "bin" / "bpeforge"
        self.gen = self.build / "bin" / "bpeforge-gen"
        self.scan = self.build / "bin" / "bpeforge-pretokenize-only"
        for exe in (self.bpeforge, self.gen, self.scan):
            if not exe.is_file():
                sys.exit(f"results.py: {exe} not found; build first: cmake --build {args.build}")
        if self.baseline and not (self.baseline / "bin" / "bpeforge").is_file():
            sys.exit(f"results.py: {self.baseline}/bin/bpeforge not found")
        self.peers = SHARED / "peers"
        self.fixtures = Path(os.environ.get("BPEFORGE_FIXTURES", SHARED / "fixtures"))
        self.python = ROOT / ".venv" / "bin" / "python"
        self.tokenizers = {}
        self.notes = {}  # area -> lines written below its table, between the marks

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)

    # -- inputs ---------------------------------------------------------------------------

    def corpus(self, flavor: str, size: str, seed: int = 1, fmt: str = "text") -> Path:
        """data/FLAVOR-SIZE-seedS.txt (or .jsonl), generated unless present with its size."""
        ext = "jsonl" if fmt == "jsonl" else "txt"
        path = self.data / f"{flavor}-{size}-seed{seed}.{ext}"
        want = size_bytes(size)
        if path.is_file() and (path.stat().st_size == want if fmt == "text"
                               else path.stat().st_size > 0):
            return path
        free = shutil.disk_usage(self.data).free
        if free < want * 1.1 + 2 * 10**9:
            raise Skip(f"not enough disk for {path.name} ({want} bytes + 2 GB)")
        note(f"generating {path} ...")
        argv = [self.gen, "--flavor", flavor, "--size", size, "--seed", seed, "--out", path,
                "--quiet"]
        if fmt == "jsonl":
            argv += ["--format", "jsonl"]
        run(argv)
        return path

    def derived(self, source: Path, suffix: str, make: Callable[[Path, Path], None]) -> Path:
        """source + suffix, made once by make(source, temporary) and renamed into place."""
        path = source.with_name(source.name + suffix)
        if path.is_file() and path.stat().st_mtime >= source.stat().st_mtime:
            return path
        tmp = path.with_name(path.name + ".tmp")
        make(source, tmp)
        tmp.rename(path)
        return path

    def compressed(self, source: Path, tool: str) -> Path:
        if not shutil.which(tool):
            raise Skip(f"{tool} is not installed")
        argv = {"zstd": ["zstd", "-q", "-c", "-T0"], "gzip": ["gzip", "-c"],
                "xz": ["xz", "-c", "-1", "-T0"]}[tool]
        suffix = {"zstd": ".zst", "gzip": ".gz", "xz": ".xz"}[tool]

        def make(src: Path, tmp: Path) -> None:
            with open(tmp, "wb") as out:
                subprocess.run([*argv, str(src)], stdout=out, check=True)
        return self.derived(source, suffix, make)

    def halves(self, source: Path) -> tuple:
        """The corpus cut in two at the line end nearest its middle."""
        def make_half(which: int) -> Callable[[Path, Path], None]:
            def make(src: Path, tmp: Path) -> None:
                with open(src, "rb") as f:
                    f.seek(src.stat().st_size // 2)
                    f.readline()
                    middle = f.tell()
                    f.seek(0 if which == 1 else middle)
                    left = middle if which == 1 else src.stat().st_size - middle
                    with open(tmp, "wb") as out:
                        while left > 0:
                            block = f.read(min(left, 1 << 24))
                            out.write(block)
                            left -= len(block)
            return make
        return (self.derived(source, ".half1", make_half(1)),
                self.derived(source, ".half2", make_half(2)))

    def without_special_tokens(self, source: Path) -> Path:
        """The corpus with its special-token lines left blank (plain-text dumps' form)."""
        def make(src: Path, tmp: Path) -> None:
            with open(src, encoding="utf-8", newline="") as f, \
                 open(tmp, "w", encoding="utf-8", newline="") as out:
                for line in f:
                    out.write(line.replace(EOT, ""))
        return self.derived(source, ".no-eot", make)

    def out(self, name: str) -> Path:
        return self.work / name

    def gpt2_ranks(self) -> Optional[Path]:
        ranks = self.fixtures / "tiktoken_gpt2.tiktoken"
        return ranks if ranks.is_file() else None

    def trained(self, corpus: Path, vocab: int) -> Path:
        """A tokenizer trained on corpus to vocab, made once per run of this script."""
        key = (corpus, vocab)
        if key not in self.tokenizers:
            path = self.out(f"tok-{corpus.name}-{vocab}")
            run([self.bpeforge, "train", corpus, "--vocab-size", vocab, "--special-token", EOT,
                 "--out", path, "--quiet"])
            self.tokenizers[key] = path
        return self.tokenizers[key]

    def encode_flags(self, fallback: Path) -> tuple:
        """GPT-2's rank file from the reference data, else a tokenizer trained on fallback."""
        ranks = self.gpt2_ranks()
        if ranks:
            return ["--ranks", ranks, "--special-token", EOT], "--ranks tiktoken_gpt2.tiktoken"
        tok = self.trained(fallback, self.sizes.vocab_web)
        note("no GPT-2 rank file in the reference data: encoding with a trained tokenizer")
        return ["--tokenizer", tok], f"--tokenizer {tok.name}"

    def bin(self, build: Optional[Path] = None) -> Path:
        return (build or self.build) / "bin" / "bpeforge"

    def against_baseline(self, row: Row, argv_of: Callable[[Path], list]) -> Row:
        """The row with the --baseline build's binary as its B, where one was given."""
        if self.baseline and row.b is None:
            row.b = whole(argv_of(self.bin(self.baseline)))
            row.against = "the previous binary"
        return row

    # -- areas ----------------------------------------------------------------------------

    def training(self) -> list:
        s = self.sizes
        rows = []
        stories = self.corpus("stories", s.stories)
        stories_big = self.corpus("stories", s.stories_big)
        web = self.corpus("web", s.web)

        def train(corpus: Path, vocab: int) -> Callable[[Path], list]:
            return lambda exe: [exe, "train", corpus, "--vocab-size", vocab, "--special-token",
                                EOT, "--out", self.out("train"), "--quiet"]

        argv = train(stories, s.vocab_stories)
        rows.append(self.against_baseline(Row(
            f"`train --vocab-size {s.vocab_stories}` (the default corpus)",
            f"stories {s.stories}", whole(argv(self.bin()))), argv))
        argv = train(stories_big, s.vocab_stories)
        rows.append(Row(
            f"`train --vocab-size {s.vocab_stories}`", f"stories {s.stories_big}",
            whole(argv(self.bin())),
            whole([self.scan, stories_big, "--special-token", EOT]),
            "`bpeforge-pretokenize-only` (the same pass counting nothing)"))
        for vocab in (s.vocab_web, s.vocab_web_big):
            argv = train(web, vocab)
            rows.append(self.against_baseline(Row(
                f"`train --vocab-size {vocab}`", f"web {s.web}", whole(argv(self.bin()))), argv))
        return rows

    def encoding(self) -> list:
        s = self.sizes
        rows = []
        stories_big = self.corpus("stories", s.stories_big)
        web = self.corpus("web", s.web)
        flags, shown = self.encode_flags(web)
        ids = self.out("ids.u16")
        for name, corpus in ((f"stories {s.stories_big}", stories_big), (f"web {s.web}", web)):
            def argv(exe: Path, corpus=corpus) -> list:
                return [exe, "encode", corpus, *flags, "--dtype", "uint16", "--quiet",
                        "--output", ids]
            rows.append(self.against_baseline(Row(
                f"`encode {shown} --dtype uint16`", name, whole(argv(self.bin())),
                rate_bytes=corpus.stat().st_size), argv))
        # `decode` of the web corpus's ids (written by the last row's runs).
        run([self.bpeforge, "encode", web, *flags, "--dtype", "uint16", "--quiet",
             "--output", ids])
        decoded = self.out("decoded.txt")

        def decode(exe: Path) -> list:
            return [exe, "decode", ids, *flags, "--output", decoded]

        def same_text() -> str:
            return "" if filecmp(decoded, web) else "decoded text differs from the corpus"
        rows.append(self.against_baseline(Row(
            f"`decode {shown} --output FILE` (the ids of the row above)", f"web {s.web}",
            whole(decode(self.bin())), rate_bytes=web.stat().st_size, check=same_text), decode))
        for vocab in (s.vocab_web, s.vocab_web_big):
            tok = self.trained(web, vocab)

            def export(exe: Path, tok=tok) -> list:
                return [exe, "export", "--tokenizer", tok, "--out", self.out("export")]
            rows.append(self.against_baseline(Row(
                f"`export --tokenizer DIR` (a tokenizer of {vocab} tokens)", f"web {s.web}",
                whole(export(self.bin()))), export))
        return rows

    def node_ready(self) -> None:
        if not shutil.which("node"):
            raise Skip("node is not installed")
        if not (self.peers / "node_modules" / "tokenizers").is_dir():
            raise Skip(f"no peers at {self.peers} (npm packages: cd {self.peers} && npm ci)")

    def peers_area(self) -> list:
        self.node_ready()
        s = self.sizes
        rows = []
        stories = self.corpus("stories", s.stories)
        env2 = dict(os.environ, RAYON_NUM_THREADS="2")
        stats = self.out("train.stats.json")

        def ours_train() -> Sample:
            sample, _ = timed([self.bpeforge, "train", stories, "--vocab-size", 30000,
                               "--special-token", EOT, "--threads", 2, "--out",
                               self.out("ours"), "--stats-json", stats, "--quiet"])
            return Sample(json.loads(stats.read_text())["total_seconds"], sample.peak_mib)

        def hf_train() -> Sample:
            sample, out = timed(["node", self.peers / "hf_train.js", stories, 30000,
                                 self.out("hf"), EOT], env=env2)
            return Sample(json_line(out)["train_ms"] / 1000, sample.peak_mib)
        rows.append(Row("`train --vocab-size 30000 --threads 2`, the training alone "
                        "(`total_seconds`)", f"stories {s.stories}", ours_train, hf_train,
                        "HF `tokenizers` (npm), `RAYON_NUM_THREADS=2`, `train_ms`", "b/a"))

        gpt2 = self.fixtures / "cs336"
        if (gpt2 / "gpt2_vocab.json").is_file():
            ours_ids = self.out("ours.u32")
            ours = whole([self.bpeforge, "encode", stories, "--vocab", gpt2 / "gpt2_vocab.json",
                          "--merges", gpt2 / "gpt2_merges.txt", "--special-token", EOT,
                          "--threads", 2, "--quiet", "--output", ours_ids])
            hf_json = self.out("gpt2-tokenizer.json")
            run([sys.executable, ROOT / "bench" / "gpt2_tokenizer_json.py", gpt2, hf_json])
            peer_sha = {}

            def peer(name: str, argv: list, env=None) -> Runner:
                def go() -> Sample:
                    sample, out = timed(argv, env)
                    peer_sha[name] = json_line(out)["ids_sha256"]
                    return sample
                return go

            def same(name: str) -> Callable[[], str]:
                def check() -> str:
                    ours_sha = hashlib.sha256(ours_ids.read_bytes()).hexdigest()
                    return "" if peer_sha.get(name) == ours_sha else f"{name}'s ids differ"
                return check
            rows.append(Row("`encode --vocab gpt2_vocab.json --merges gpt2_merges.txt "
                            "--threads 2`, whole process", f"stories {s.stories}", ours,
                            peer("tiktoken", ["node", self.peers / "tiktoken_encode.js", "gpt2",
                                              stories]),
                            "tiktoken (npm), whole process; ids identical", "b/a",
                            stories.stat().st_size, same("tiktoken")))
            rows.append(Row("the same", f"stories {s.stories}", ours,
                            peer("HF", ["node", self.peers / "hf_encode.js", stories, hf_json,
                                        "--batch", 64], env2),
                            "HF `tokenizers` (npm), `encodeBatch` of 64 pieces, "
                            "`RAYON_NUM_THREADS=2`, whole process; ids identical", "b/a",
                            stories.stat().st_size, same("HF")))
        else:
            note(f"no GPT-2 files in {gpt2}: the GPT-2 encoding rows are left out")

        web_small = self.corpus("web", s.web_small)
        held_out = self.corpus("web", s.web_small, seed=2)
        tok = self.trained(web_small, s.vocab_web)
        ids = self.out("web.u32")
        shas = {}

        def ours_json() -> Sample:
            sample = timed([self.bpeforge, "encode", held_out, "--tokenizer",
                            tok / "tokenizer.json", "--threads", 2, "--dtype", "uint32",
                            "--quiet", "--output", ids])[0]
            return sample

        def hf_json_run() -> Sample:
            sample, out = timed(["node", self.peers / "hf_encode.js", held_out,
                                 tok / "tokenizer.json", "--batch", 64], env2)
            shas["HF"] = json_line(out)["ids_sha256"]
            return sample

        def same_json() -> str:
            ours_sha = hashlib.sha256(ids.read_bytes()).hexdigest()
            return "" if shas.get("HF") == ours_sha else "HF's ids differ"
        rows.append(Row(f"`encode --tokenizer tokenizer.json --threads 2` (a tokenizer of "
                        f"{s.vocab_web} trained on web {s.web_small}, seed 1), whole process",
                        f"web {s.web_small}, seed 2", ours_json, hf_json_run,
                        "HF `tokenizers` (npm) on the same tokenizer.json, `encodeBatch` of 64 "
                        "pieces; ids identical", "b/a", held_out.stat().st_size, same_json))
        return rows

    def python_area(self) -> list:
        if not self.python.is_file() or subprocess.run(
                [self.python, "-c", "import bpeforge"], capture_output=True).returncode:
            raise Skip(f"no bpeforge module in {self.python} (scripts/python-env.sh installs it)")
        s = self.sizes
        rows = []
        stories = self.corpus("stories", s.stories)
        py = self.python
        rows.append(Row(
            f"`python -c \"bpeforge.train_bpe(CORPUS, {s.vocab_stories}, [EOT], threads=2)\"`",
            f"stories {s.stories}",
            whole([py, "-c", f"import bpeforge; bpeforge.train_bpe({str(stories)!r}, "
                   f"{s.vocab_stories}, [{EOT!r}], threads=2)"]),
            whole([self.bpeforge, "train", stories, "--vocab-size", s.vocab_stories,
                   "--special-token", EOT, "--threads", 2, "--quiet", "--out",
                   self.out("cli")]),
            "`bpeforge train`, the same options"))
        web = self.corpus("web", s.web)
        sizes = ", ".join(map(str, s.sweep))
        counts = str(self.out("py.counts"))
        rows.append(Row(
            f"`count_pretokens(CORPUS, ...)`, then its `train_bpe(v)` for v in {sizes}",
            f"web {s.web}",
            whole([py, "-c", f"import bpeforge\nc = bpeforge.count_pretokens({str(web)!r}, "
                   f"{counts!r}, [{EOT!r}])\nfor v in ({sizes},): c.train_bpe(v)"]),
            whole([py, "-c", f"import bpeforge\nfor v in ({sizes},): "
                   f"bpeforge.train_bpe({str(web)!r}, v, [{EOT!r}])"]),
            f"`train_bpe(CORPUS, v, ...)` for the same sizes"))
        # Documents from Python, read as the iterator asks for them (bench/python_bench.py).
        bench = ROOT / "bench" / "python_bench.py"
        for corpus, name, vocab in ((stories, f"stories {s.stories}", s.vocab_stories),
                                    (web, f"web {s.web}", s.vocab_web)):
            rows.append(Row(
                f"`train_from_iterator(documents(CORPUS), {vocab}, [EOT], threads=2)`, a "
                "generator reading the file's documents as they are asked for",
                name, whole([py, bench, "train-iterator", corpus, vocab]),
                whole([py, bench, "train-file", corpus, vocab]),
                "`train_bpe(CORPUS, ...)`, the same options (the same merges)"))
        gpt2 = self.fixtures / "cs336"
        if not (gpt2 / "gpt2_vocab.json").is_file():
            note(f"no GPT-2 files in {gpt2}: the Python encoding rows are left out")
            return rows
        rows.append(Row(
            "`Tokenizer.encode_batch_to_numpy(documents, threads=2)`, GPT-2, the documents read "
            "into a list first", f"stories {s.stories}",
            whole([py, bench, "encode-numpy", stories]),
            whole([py, bench, "encode-file", stories, self.out("py.u16")]),
            "`Tokenizer.encode_file(CORPUS, IDS, \"uint16\", threads=2)`",
            rate_bytes=stories.stat().st_size))
        vocab, merges = gpt2 / "gpt2_vocab.json", gpt2 / "gpt2_merges.txt"
        load = (f"import bpeforge; t = bpeforge.Tokenizer.from_files({str(vocab)!r}, "
                f"{str(merges)!r}, [{EOT!r}])")
        rows.append(Row(
            "`Tokenizer.encode_file(CORPUS, IDS, \"uint16\", threads=2)`, GPT-2",
            f"stories {s.stories}",
            whole([py, "-c", f"{load}; t.encode_file({str(stories)!r}, "
                   f"{str(self.out('py.u16'))!r}, 'uint16', threads=2)"]),
            whole([self.bpeforge, "encode", stories, "--vocab", vocab, "--merges", merges,
                   "--special-token", EOT, "--dtype", "uint16", "--threads", 2, "--quiet",
                   "--output", self.out("cli.u16")]),
            "`bpeforge encode`, the same options (the same ids)", rate_bytes=stories.stat().st_size,
            check=lambda: "" if filecmp(self.out("py.u16"), self.out("cli.u16"))
            else "the ids differ"))
        # The calls alone, the text already in memory: one process prints its times.
        script = self.out("calls.py")
        script.write_text(
            "import json, sys, time\n" + load + "\n"
            f"text = open({str(stories)!r}, encoding='utf-8').read()\n"
            f"docs = text.split({EOT!r})\n"
            "calls = {'encode_batch': lambda: t.encode_batch(docs, threads=2),\n"
            "         'encode': lambda: t.encode(text),\n"
            "         'encode_to_numpy': lambda: t.encode_to_numpy(text)}\n"
            "times = {}\n"
            "for name, call in calls.items():\n"
            "    start = time.perf_counter(); call(); times[name] = time.perf_counter() - start\n"
            "print(json.dumps(times))\n")
        last = {}

        def calls() -> Sample:
            sample, out = timed([py, script])
            last.update(json_line(out))
            return sample
        peer = None
        if shutil.which("node") and (self.peers / "node_modules" / "tiktoken").is_dir():
            def tiktoken_call() -> Sample:
                sample, out = timed(["node", self.peers / "tiktoken_encode.js", "gpt2", stories])
                return Sample(json_line(out)["encode_ms"] / 1000, sample.peak_mib)
            peer = tiktoken_call
        for name, shown in (("encode", "`Tokenizer.encode(text)`, the call alone"),
                            ("encode_to_numpy", "`Tokenizer.encode_to_numpy(text)`, the call "
                                                "alone"),
                            ("encode_batch", "`Tokenizer.encode_batch(documents, threads=2)`, "
                                             "the call alone")):
            def call(name=name) -> Sample:
                sample = calls()
                return Sample(last[name], sample.peak_mib)
            rows.append(Row(shown, f"stories {s.stories}", call,
                            peer if name != "encode_batch" else None,
                            "tiktoken (npm), its `encode` call alone, 1 thread" if peer else "",
                            "b/a", stories.stat().st_size))
        return rows

    def counts(self) -> list:
        s = self.sizes
        rows = []
        web = self.corpus("web", s.web)
        counts = self.out("web.counts")

        def count(exe: Path) -> list:
            return [exe, "count", web, "--special-token", EOT, "--quiet", "--out", counts]
        rows.append(self.against_baseline(Row(
            "`count --special-token '<|endoftext|>'`", f"web {s.web}", whole(count(self.bin()))),
            count))
        run(count(self.bpeforge))
        for vocab in s.sweep:
            from_counts, from_text = self.out(f"counts-{vocab}"), self.out(f"text-{vocab}")

            def same(a=from_counts, b=from_text) -> str:
                return "" if same_tree(a, b) else "outputs differ"
            rows.append(Row(
                f"`train --counts web.counts --vocab-size {vocab}`", f"web {s.web}",
                whole([self.bpeforge, "train", "--counts", counts, "--vocab-size", vocab,
                       "--out", from_counts, "--quiet"]),
                whole([self.bpeforge, "train", web, "--vocab-size", vocab, "--special-token",
                       EOT, "--out", from_text, "--quiet"]),
                "`train` of the text (the same files)", check=same))
        half1, half2 = self.halves(web)
        c1, c2 = self.out("h1.counts"), self.out("h2.counts")
        for half, c in ((half1, c1), (half2, c2)):
            run([self.bpeforge, "count", half, "--special-token", EOT, "--quiet", "--out", c])

        def merge(exe: Path) -> list:
            return [exe, "count", "--merge", c1, c2, "--quiet", "--out", self.out("m.counts")]
        rows.append(self.against_baseline(Row(
            "`count --merge h1.counts h2.counts` (the corpus's two halves)", f"web {s.web}",
            whole(merge(self.bin()))), merge))
        halves_out, text_out = self.out("halves-tok"), self.out("halves-text")

        def same_halves() -> str:
            return "" if same_tree(halves_out, text_out) else "outputs differ"
        rows.append(Row(
            f"`train --counts h1.counts h2.counts --vocab-size {s.vocab_web}`", f"web {s.web}",
            whole([self.bpeforge, "train", "--counts", c1, c2, "--vocab-size", s.vocab_web,
                   "--out", halves_out, "--quiet"]),
            whole([self.bpeforge, "train", half1, half2, "--vocab-size", s.vocab_web,
                   "--special-token", EOT, "--out", text_out, "--quiet"]),
            "`train h1 h2` of the text (the same files)", check=same_halves))
        return rows

    def local_text(self) -> Path:
        """Real text of many kinds from this machine: Debian's documentation and manual pages
        (gzip-decompressed), invalid UTF-8 dropped; made once into --data."""
        path = self.data / "local-text.txt"
        if path.is_file() and path.stat().st_size > 0:
            return path
        roots = [Path("/usr/share/doc"), Path("/usr/share/man"), Path("/usr/share/info")]
        files = sorted(f for r in roots if r.is_dir() for f in r.rglob("*")
                       if f.is_file() and not f.is_symlink())
        if not files:
            raise Skip("no documentation under /usr/share to make real text of")
        note(f"making {path} from {len(files)} files of /usr/share ...")
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as out:
            for f in files:
                if f.suffix in (".png", ".jpg", ".gif", ".pdf", ".svgz", ".xz", ".bz2"):
                    continue
                try:
                    data = f.read_bytes()
                    if f.suffix == ".gz":
                        data = gzip.decompress(data)
                except (OSError, EOFError, gzip.BadGzipFile):
                    continue
                out.write(data.decode("utf-8", "ignore").encode("utf-8"))
        tmp.rename(path)
        return path

    def targets(self) -> list:
        """The SIMD paths' targets: each command as the target names it, the goal in the row."""
        s = self.sizes
        stories_big = self.corpus("stories", s.stories_big)
        web = self.corpus("web", s.web)
        mixed = self.local_text()
        flags, shown = self.encode_flags(web)
        rows = []
        for name, corpus, goal in ((f"stories {s.stories_big}", stories_big, 2000),
                                   (f"web {s.web}", web, 1600)):
            rows.append(Row(
                f"`bpeforge-pretokenize-only --threads 1` (goal: >= {goal:,} MB/s)", name,
                whole([self.scan, corpus, "--threads", 1, "--special-token", EOT]),
                rate_bytes=corpus.stat().st_size))
        for name, corpus, vocab, goal in ((f"stories {s.stories_big}", stories_big,
                                           s.vocab_stories, "1.0 s"),
                                          (f"web {s.web}", web, s.vocab_web, "1.8 s")):
            rows.append(Row(
                f"`train --vocab-size {vocab}` (goal: <= {goal})", name,
                whole([self.bpeforge, "train", corpus, "--vocab-size", vocab, "--special-token",
                       EOT, "--out", self.out("train"), "--quiet"])))
        ids = self.out("ids.u16")
        for name, corpus, threads, goal in (
                (f"web {s.web}", web, 0, 600), (f"stories {s.stories_big}", stories_big, 0, 1400),
                (f"real text of this machine, {mixed.stat().st_size / 1e6:.0f} MB (Debian's "
                 "documentation and manual pages)", mixed, 1, 300)):
            shown_threads = " --threads 1" if threads else ""
            rows.append(Row(
                f"`encode {shown} --dtype uint16{shown_threads}` (goal: >= {goal:,} MB/s)", name,
                whole([self.bpeforge, "encode", corpus, *flags, "--dtype", "uint16",
                       "--threads", threads, "--quiet", "--output", ids]),
                rate_bytes=corpus.stat().st_size))
        return rows

    def scale(self) -> list:
        s = self.sizes
        rows = []
        web = self.corpus("web", s.web)

        def train(threads: int, out: str) -> list:
            return [self.bpeforge, "train", web, "--vocab-size", s.vocab_web, "--special-token",
                    EOT, "--threads", threads, "--out", self.out(out), "--quiet"]
        rows.append(Row(f"`train --vocab-size {s.vocab_web} --threads 1`", f"web {s.web}",
                        whole(train(1, "t1")), whole(train(2, "t2")), "`--threads 2`"))
        if shutil.which("mpirun") and links_mpi(self.bpeforge):
            env = dict(os.environ)
            if os.geteuid() == 0:
                env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            mpi_out, one_out = self.out("mpi"), self.out("t2")

            def same() -> str:
                return "" if same_tree(mpi_out, one_out) else "outputs differ"
            rows.append(Row(
                f"`mpirun --oversubscribe --bind-to none -np 2 bpeforge train --vocab-size "
                f"{s.vocab_web} --threads 1`", f"web {s.web}",
                whole(["mpirun", "--oversubscribe", "--bind-to", "none", "-np", 2,
                       self.bpeforge, "train", web, "--vocab-size", s.vocab_web,
                       "--special-token", EOT, "--threads", 1, "--out", mpi_out, "--quiet"],
                      env),
                whole(train(2, "t2")), "one process, `--threads 2` (the same files)",
                check=same))
        else:
            note("no mpirun, or bpeforge built without MPI: the mpirun row is left out")
        try:
            big = self.corpus("web", s.web_big)
        except Skip as skip:
            note(f"web {s.web_big} left out: {skip}")
            return rows
        argv = [self.bpeforge, "train", big, "--vocab-size", s.vocab_web, "--special-token",
                EOT, "--out", self.out("big"), "--quiet"]
        rows.append(Row(f"`train --vocab-size {s.vocab_web}`", f"web {s.web_big}", whole(argv)))
        return rows

    def reports(self) -> list:
        """`report` of a web tokenizer with GPT-2's and cl100k's beside it, on held-out text,
        in turn with one `encode` of that text; the report's headline numbers below."""
        s = self.sizes
        gpt2 = self.fixtures / "cs336"
        cl100k = self.fixtures / "tiktoken_cl100k_base.tiktoken"
        for need in (gpt2 / "gpt2_vocab.json", gpt2 / "gpt2_merges.txt", cl100k):
            if not need.is_file():
                raise Skip(f"no {need} (the reference data)")
        web = self.corpus("web", s.web)
        held_out = self.corpus("web", s.web_small, seed=2)
        tok = self.trained(web, s.vocab_web)
        name = f"web{s.vocab_web // 1000}k"
        out = self.out("report")
        specs = [f"{tok},name={name}",
                 f"{gpt2 / 'gpt2_vocab.json'},merges={gpt2 / 'gpt2_merges.txt'},"
                 f"special-token={EOT},name=gpt2",
                 f"{cl100k},pattern=cl100k,special-token={EOT},"
                 f"special-ids={cl100k.with_suffix('.json')},name=cl100k"]
        argv = [self.bpeforge, "report", *[a for spec in specs for a in ("--tokenizer", spec)],
                held_out, "--out", out, "--quiet"]
        encode = [self.bpeforge, "encode", held_out, "--tokenizer", tok, "--quiet",
                  "--output", self.out("held-out.ids")]
        corpus = f"web {s.web_small}, seed 2 (held out)"

        def headline() -> str:
            self.notes["reports"] = report_numbers(json.loads((out / "report.json").read_text()))
            return ""
        return [Row(f"`report --tokenizer {name} --tokenizer gpt2 --tokenizer cl100k "
                    "--out DIR --quiet` (trained on web " + s.web + ")", corpus, whole(argv),
                    whole(encode), f"one `encode --tokenizer {name} --output FILE` "
                    "(goal: at most 3)", rate_bytes=held_out.stat().st_size, check=headline)]

    def inputs(self) -> list:
        s = self.sizes
        rows = []
        web = self.corpus("web", s.web)
        stories = self.corpus("stories", s.stories)

        def train(corpus, vocab, out, *extra) -> list:
            return [self.bpeforge, "train", corpus, "--vocab-size", vocab, "--special-token",
                    EOT, "--out", self.out(out), "--quiet", *extra]
        plain_web = whole(train(web, s.vocab_web, "plain"))
        variants = []
        for tool in ("zstd", "gzip"):
            try:
                variants.append((self.compressed(web, tool), f"web {s.web}"))
            except Skip as skip:
                note(f"{skip}: its row is left out")
        jsonl = self.corpus("web", s.web, fmt="jsonl")
        variants.append((jsonl, f"web {s.web}"))
        try:
            variants.append((self.compressed(jsonl, "zstd"), f"web {s.web}"))
        except Skip:
            pass
        for path, name in variants:
            out = "v-" + path.name

            def same(out=out) -> str:
                return "" if same_tree(self.out(out), self.out("plain")) else "outputs differ"
            rows.append(Row(f"`train {path.name.split('-seed1', 1)[-1].lstrip('.') or 'txt'} "
                            f"--vocab-size {s.vocab_web}`", f"{name}, {mb(path)} stored",
                            whole(train(path, s.vocab_web, out)), plain_web,
                            "the plain text (the same files)", check=same))
        plain_stories = whole(train(stories, s.vocab_stories, "plain-s"))
        try:
            xz = self.compressed(stories, "xz")

            def same_xz() -> str:
                return "" if same_tree(self.out("xz"), self.out("plain-s")) else "outputs differ"
            rows.append(Row(f"`train txt.xz --vocab-size {s.vocab_stories}`",
                            f"stories {s.stories}, {mb(xz)} stored",
                            whole(train(xz, s.vocab_stories, "xz")), plain_stories,
                            "the plain text (the same files)", check=same_xz))
        except Skip as skip:
            note(f"{skip}: its row is left out")

        def same_regex() -> str:
            return "" if same_merges(self.out("regex"), self.out("plain-s")) else "merges differ"
        rows.append(Row(
            f"`train --pattern REGEX --vocab-size {s.vocab_stories}`, GPT-2's regex written out "
            "(run by Boost.Regex, cut only at special tokens)", f"stories {s.stories}",
            whole(train(stories, s.vocab_stories, "regex", "--pattern", GPT2_REGEX)),
            plain_stories, "the built-in `gpt2` matcher (the same merges)", check=same_regex))
        cjk = self.without_special_tokens(self.corpus("cjk", s.cjk))
        for pattern in ("gpt2", "cl100k"):
            rows.append(Row(
                f"`train --vocab-size {s.vocab_cjk} --pattern {pattern}` (no special token)",
                f"cjk {s.cjk}, blank lines between documents",
                whole([self.bpeforge, "train", cjk, "--vocab-size", s.vocab_cjk, "--pattern",
                       pattern, "--out", self.out(f"cjk-{pattern}"), "--quiet"])))
        return rows


class Skip(Exception):
    pass



def report_numbers(report: dict) -> list:
    """The headline numbers of a report.json, as lines of markdown."""
    lines = ["", "| tokenizer | vocab | bytes/token | tokens/word | unused | unreachable | "
             "not whole UTF-8 |", "|---|---|---|---|---|---|---|"]
    for t in report["tokenizers"]:
        total = t["total"]
        lines.append(f"| {t['name']} | {t['vocab_size']:,} | {total['bytes_per_token']:.3f} | "
                     f"{total['tokens_per_word']:.3f} | {len(t['unused']):,} | "
                     f"{len(t['unreachable']):,} | {len(t['partial_utf8']):,} |")
    first = report["tokenizers"][0]
    points = [p for p in first["curve"] if p["bytes_per_token"] is not None]
    picks = [points[int(round(i * (len(points) - 1) / 5))] for i in range(6)]
    curve = ", ".join(f"{p['bytes_per_token']:.2f} at {p['vocab_size']:,}" for p in picks)
    lines += ["", f"The curve of {first['name']}, from the same pass: bytes per token {curve}."]
    return lines


def mb(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


def filecmp(a: Path, b: Path) -> bool:
    return subprocess.run(["cmp", "-s", str(a), str(b)]).returncode == 0


def same_tree(a: Path, b: Path) -> bool:
    return subprocess.run(["diff", "-r", "-q", str(a), str(b)], capture_output=True
                          ).returncode == 0


def same_merges(a: Path, b: Path) -> bool:
    return filecmp(a / "merges.txt", b / "merges.txt") and filecmp(a / "vocab.json",
                                                                    b / "vocab.json")


def links_mpi(exe: Path) -> bool:
    out = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
    return "libmpi" in out


# ---------------------------------------------------------------------------------------------
# Markdown.


def table(area: str, lines: list, after: Optional[list] = None) -> str:
    return "\n".join([f"<!-- results.py {area} -->", HEADER, *lines, *(after or []),
                      "<!-- /results.py -->"])


def update(path: Path, tables: dict) -> None:
    text = path.read_text(encoding="utf-8")
    for area, block in tables.items():
        pattern = re.compile(rf"<!-- results.py {area} -->.*?<!-- /results.py -->", re.S)
        if not pattern.search(text):
            sys.exit(f"results.py: {path} has no table for {area} "
                     f"(<!-- results.py {area} --> ... <!-- /results.py -->)")
        text = pattern.sub(lambda _: block, text)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.rename(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--quick", action="store_true",
                        help="small corpora, one run each: checks the commands, not results")
    parser.add_argument("--runs", type=int, help="runs per row (default 5; 1 with --quick)")
    parser.add_argument("--areas", default=",".join(AREAS), help="comma-separated areas")
    parser.add_argument("--build", default=str(ROOT / "build"), help="build directory")
    parser.add_argument("--baseline", help="build directory of the previous binary, run in turn")
    parser.add_argument("--data", default=str(ROOT / "data"), help="corpus directory")
    dest = parser.add_mutually_exclusive_group()
    dest.add_argument("--update", help="replace the tables of the areas run in this file")
    dest.add_argument("--out", help="write the tables to this file")
    args = parser.parse_args()
    areas = [a.strip() for a in args.areas.split(",") if a.strip()]
    for area in areas:
        if area not in AREAS:
            parser.error(f"unknown area {area}; areas: {', '.join(AREAS)}")
    if args.quick and args.update:
        parser.error("--quick figures are not results; see them on standard output or --out")
    runs = args.runs or (1 if args.quick else 5)
    warmup = 0 if args.quick else 1
    if not Path("/usr/bin/time").is_file():
        sys.exit("results.py: /usr/bin/time not found (apt-get install time)")

    bench = Bench(args)
    machine = machine_name()
    date = datetime.date.today().isoformat()
    builders = {"training": bench.training, "encoding": bench.encoding,
                "peers": bench.peers_area, "python": bench.python_area,
                "counts": bench.counts, "scale": bench.scale, "inputs": bench.inputs,
                "reports": bench.reports, "targets": bench.targets}
    tables = {}
    failed = False
    try:
        for area in areas:
            note(f"{area} ...")
            try:
                rows = builders[area]()
            except Skip as skip:
                note(f"{area} left out: {skip}")
                continue
            lines = []
            for row in rows:
                result = measure(row, runs, warmup)
                lines.append(format_row(result, machine, date))
                if result.problem:
                    failed = True
                    note(f"{row.command} ({row.corpus}): {result.problem}")
                print(lines[-1], file=sys.stderr, flush=True)
            tables[area] = table(area, lines, bench.notes.get(area))
    except CommandFailed as error:
        sys.exit(f"results.py: {error}")
    finally:
        bench.close()
    text = "\n\n".join(f"### {TITLES[a]}\n\n{t}" for a, t in tables.items()) + "\n"
    if args.update:
        update(Path(args.update), tables)
    elif args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
