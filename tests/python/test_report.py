"""bpeforge.report: the numbers against encoding, bad input, and the page rendered in a real
browser (Debian's chromium, headless), whose charts must draw."""

import json
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

import pytest

import bpeforge

TEXT = (
    "Once upon a time there was a little robot. It liked to count the stars, 12 of them, "
    "then 345. Привет, мир! 你好，世界。 العربية نص <|endoftext|>\n"
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    corpus = d / "corpus.txt"
    corpus.write_text(TEXT * 50 + "".join(f"word{i} " for i in range(500)), encoding="utf-8")
    vocab, merges = bpeforge.train_bpe(str(corpus), 400, ["<|endoftext|>"])
    tok = bpeforge.Tokenizer(vocab, merges, ["<|endoftext|>"])
    tok.save(str(d / "tok"))
    held = []
    for i, text in enumerate([TEXT * 3 + "something else entirely", "Zahlen 2024 und 7 Wörter"]):
        path = d / f"held-{i}.txt"
        path.write_text(text, encoding="utf-8")
        held.append(str(path))
    return d, tok, held


def test_tokens_are_those_encode_gives(trained):
    d, tok, held = trained
    r = bpeforge.report({"mine": tok, "saved": str(d / "tok")}, held, sizes=[300, 350])
    assert [t["name"] for t in r["tokenizers"]] == ["mine", "saved"]
    for t in r["tokenizers"]:
        total = 0
        for f, path in zip(t["files"], held):
            with open(path, encoding="utf-8") as fh:
                ids = tok.encode(fh.read())
            assert f["tokens"] == len(ids)
            assert f["bytes"] == os.path.getsize(path)
            total += len(ids)
        assert t["total"]["tokens"] == total
        assert [p["vocab_size"] for p in t["curve"]] == [300, 350, 400]
        assert t["curve"][-1]["tokens"] == total
    # A tokenizer made from vocab and merges has no record of how often each merge occurred.
    assert r["tokenizers"][1]["rarest_merges"] is None


def test_out_writes_both_files(trained):
    d, tok, held = trained
    out = d / "out"
    r = bpeforge.report(tok, held, out=str(out))
    with open(out / "report.json", encoding="utf-8") as f:
        assert json.load(f) == r
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page == bpeforge.report_html(r)
    assert "<svg" in page and "<script" not in page


def test_bad_input_raises_and_writes_nothing(trained):
    d, tok, held = trained
    out = d / "never"
    with pytest.raises(FileNotFoundError):
        bpeforge.report(tok, [str(d / "missing.txt")], out=str(out))
    with pytest.raises(FileNotFoundError):
        bpeforge.report(str(d / "no-tokenizer"), held, out=str(out))
    with pytest.raises(ValueError, match="99999"):
        bpeforge.report(tok, held, sizes=[300, 99999], out=str(out))
    with pytest.raises(ValueError):
        bpeforge.report(tok, held, sizes="some", out=str(out))
    assert not out.exists()


def test_peer_tokenizers_side_by_side_count_what_they_encode(trained, gpt2_tokenizer, fixtures):
    d, tok, held = trained
    cl100k = bpeforge.load(str(fixtures / "tiktoken_cl100k_base.tiktoken"))
    given = {"mine": tok, "gpt2": gpt2_tokenizer, "cl100k": cl100k}
    r = bpeforge.report(given, held, sizes=[300])
    assert [t["name"] for t in r["tokenizers"]] == list(given)
    for t, peer in zip(r["tokenizers"], given.values()):
        for f, path in zip(t["files"], held):
            with open(path, encoding="utf-8") as fh:
                assert f["tokens"] == len(peer.encode(fh.read())), (t["name"], path)


def test_json_lines_records_count_and_bad_ones_are_counted_as_skipped(trained, tmp_path):
    d, tok, held = trained
    texts = [TEXT, "Zahlen 2024 und 7 Wörter", "the end"]
    path = tmp_path / "docs.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"body": texts[0]}) + "\n")
        f.write(json.dumps({"body": 12}) + "\n")  # not a string: skipped
        for text in texts[1:]:
            f.write(json.dumps({"body": text}) + "\n")
    with pytest.raises(ValueError, match="docs.jsonl:2"):
        bpeforge.report(tok, [path], jsonl_field="body")
    r = bpeforge.report(tok, [path], jsonl_field="body", skip_bad_records=True)
    assert r["inputs"][0]["documents"] == len(texts)
    assert r["inputs"][0]["skipped_records"] == 1
    assert r["tokenizers"][0]["files"][0]["tokens"] == sum(len(tok.encode(t)) for t in texts)


# The page in a browser: chromium renders it headless; a copy with a measuring script added
# reports each chart's drawn shapes, and the screenshot's pixels in each chart must hold the
# series' colors (the page itself has no script).

MEASURE = """<script>
window.addEventListener('load', () => {
  const charts = [...document.querySelectorAll('svg.chart')].map(svg => {
    const box = svg.getBoundingClientRect();
    const shapes = [...svg.querySelectorAll('rect.bar, polyline.line')].filter(e => {
      const b = e.getBBox(); return b.width > 0 && b.height > 0; }).length;
    return {id: svg.id, x: box.x, y: box.y, width: box.width, height: box.height, shapes};
  });
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(charts);
  document.body.appendChild(pre);
});
</script>"""


def _chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _run_chromium(browser, args, home):
    common = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={home}", "--hide-scrollbars", "--force-device-scale-factor=1",
    ]
    return subprocess.run(
        common + args, capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": home},
    )


def _png_rgb(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG (what chromium writes)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and color in (2, 6), (depth, color)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(
            line[i] for i in range(stride) if i % 4 != 3))
        prev = line
    return width, height, rows


def test_page_renders_its_charts_in_a_browser(trained):
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (scripts/install-deps.sh installs it)")
    d, tok, held = trained
    out = d / "page"
    bpeforge.report({"mine": tok, "saved": str(d / "tok")}, held, out=str(out))
    page = (out / "report.html").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as home:
        measured_page = os.path.join(home, "measured.html")
        with open(measured_page, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", MEASURE + "</body>"))
        dom = _run_chromium(browser, ["--dump-dom", "file://" + measured_page], home)
        assert dom.returncode == 0, dom.stderr
        start = dom.stdout.index('<pre id="measured">') + len('<pre id="measured">')
        charts = json.loads(dom.stdout[start:dom.stdout.index("</pre>", start)].replace(
            "&quot;", '"').replace("&amp;", "&"))
        assert [c["id"] for c in charts] == [
            "chart-curve", "chart-files", "chart-scripts", "chart-lengths"]
        for c in charts:
            assert c["width"] > 300 and c["height"] > 200, c
            assert c["shapes"] >= 2, c  # a line or bars for each of the two tokenizers
        height = int(max(c["y"] + c["height"] for c in charts)) + 10
        shot = os.path.join(home, "shot.png")
        run = _run_chromium(
            browser, [f"--screenshot={shot}", f"--window-size=900,{height}",
                      "file://" + str(out / "report.html")], home)
        assert run.returncode == 0, run.stderr
        width, _, rows = _png_rgb(shot)
    series = {bytes.fromhex(h) for h in ("1f77b4", "d62728")}  # the first two colors
    for c in charts:
        seen = set()
        for y in range(int(c["y"]) + 2, int(c["y"] + c["height"]) - 2):
            row = rows[y]
            for x in range(int(c["x"]) + 2, min(int(c["x"] + c["width"]) - 2, width)):
                seen.add(row[3 * x:3 * x + 3])
        assert series <= seen, f"{c['id']} drew no line or bar of both tokenizers"


def test_jsonl_fields_and_sources_have_numbers_of_their_own(trained):
    d, tok, held = trained
    path = d / "records.jsonl"
    records = [{"text": TEXT * (i % 3 + 1), "title": f"Story {i}",
                "source": ["web", "web", "books", "code"][i % 4]} for i in range(24)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    r = bpeforge.report(tok, str(path), jsonl_field=["text", "title"], group_by="source",
                        max_groups=1)
    rows = r["tokenizers"][0]["sources"]
    # text: web, (other); title: web, (other)
    assert [(s["field"], s["group"]) for s in rows] == [
        ("text", "web"), ("text", "(other)"), ("title", "web"), ("title", "(other)")]
    assert r["sources"][1]["other_values"] == 2
    for row in rows:
        texts = [rec[row["field"]] for rec in records
                 if (rec["source"] == "web") == (row["group"] == "web")]
        assert row["tokens"] == sum(len(tok.encode(t)) for t in texts)
        assert row["bytes"] == sum(len(t.encode()) for t in texts)
    assert sum(s["tokens"] for s in rows) == r["tokenizers"][0]["total"]["tokens"]
    # One field and no groups: nothing to split.
    assert bpeforge.report(tok, str(path))["sources"] == []
    with pytest.raises(ValueError, match="max_groups"):
        bpeforge.report(tok, str(path), group_by="source", max_groups=0)
    with pytest.raises(ValueError, match="no input is JSON Lines"):
        bpeforge.report(tok, held, group_by="source")
