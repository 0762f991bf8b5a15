"""crosscheck.html and score --compare --html, opened in a real headless Chromium.

Each page is checked twice: statically (one self-contained file: no script,
stylesheet, font or image fetched from anywhere) and in the browser: Chromium
loads a copy with a probe script that records where each chart's SVG landed
(``--dump-dom``), takes a screenshot of the whole page, and the test checks
that every chart region has drawn pixels (bars in the report's colours), and
that the expected elements (charts, tables, every UNEXPECTED case with its
reproducer) are in the rendered DOM. `.ci/run` installs Debian's chromium when
it is missing; the browser tests skip only where no chromium can be found.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bleu_compat.harness.classify import IMPLEMENTATIONS
from bleu_compat.harness.html import OUTCOME_COLOURS, compare_to_html, to_html
from bleu_compat.harness.report import build_report
from bleu_compat.harness.run import run_crosscheck

ROOT = Path(__file__).resolve().parent.parent
FLAWED = "impl:examples/flawed_bleu.py:bleu"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium; .ci/run does it)")
WIDTH = 1280

PROBE = """<style>html{overflow:hidden}</style><script>
const boxes = [...document.querySelectorAll('figure.chart')].map(f => {
  const r = f.querySelector('svg').getBoundingClientRect();
  return {id: f.id, x: r.x, y: r.y + window.scrollY, w: r.width, h: r.height};
});
document.body.setAttribute('data-boxes', JSON.stringify(boxes));
document.body.setAttribute('data-height', String(document.documentElement.scrollHeight));
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small crosscheck of ours, the libraries and the flawed example (so there is an UNEXPECTED)."""
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        impls = IMPLEMENTATIONS + (FLAWED,)
        cases = {"bleu-corpus-compute": 30, "bleu-smoothing-compute": 15, "bleu-brevity-penalty": 15}
        tally = run_crosscheck(seed=0, cases=cases, implementations=impls, real_sets=(), workers=1)
    finally:
        os.chdir(cwd)
    return build_report(tally, seed=0, cases=cases, versions={"test": "1"}, implementations=impls)


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=180)


def _render(page: str, tmp: Path) -> tuple[str, list[dict[str, Any]], Any]:
    """(rendered DOM, chart boxes, screenshot as a PIL image) of ``page`` in Chromium."""
    from PIL import Image

    probe = tmp / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    url = probe.resolve().as_uri()
    first = _chromium(["--window-size=%d,1000" % WIDTH, "--dump-dom", url], tmp / "p1")
    assert first.returncode == 0, first.stderr[-2000:]
    height = int(re.search(r'data-height="(\d+)"', first.stdout).group(1))
    dom = _chromium([f"--window-size={WIDTH},{height}", "--dump-dom", url], tmp / "p2").stdout
    boxes = json.loads(htmllib.unescape(re.search(r'data-boxes="([^"]*)"', dom).group(1)))
    shot = tmp / "shot.png"
    proc = _chromium([f"--window-size={WIDTH},{height}", f"--screenshot={shot}", url], tmp / "p3")
    assert shot.exists(), proc.stderr[-2000:]
    return dom, boxes, Image.open(shot).convert("RGB")


def _near(pixel: tuple[int, int, int], hex_colour: str, slack: int = 6) -> bool:
    rgb = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= slack for a, b in zip(pixel, rgb))


def _region_stats(image: Any, box: dict[str, Any]) -> tuple[float, set[tuple[int, int, int]]]:
    crop = image.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["w"]), int(box["y"] + box["h"])))
    import numpy as np

    pixels = np.asarray(crop).reshape(-1, 3)
    drawn = int((pixels != 255).any(axis=1).sum())
    return drawn / max(1, len(pixels)), {tuple(int(v) for v in p) for p in np.unique(pixels, axis=0)}


def _self_contained(page: str) -> None:
    # url(#id) is an in-page SVG clip path; any other url(...) would be fetched
    assert not re.search(r"<script|<link|<img|<iframe|@import|url\((?!#)", page, re.I)
    # the only URLs are SVG namespace names, which browsers never fetch
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls


def test_crosscheck_html_self_contained(report: dict[str, Any]) -> None:
    """crosscheck.html fetches nothing: no script, link, image, import or URL but SVG namespaces."""
    page = to_html(report)
    _self_contained(page)
    assert page.count("<svg") == 2 + len({r["tool"] for r in report["ulps_vs_exact"]})


def test_crosscheck_html_deterministic(report: dict[str, Any]) -> None:
    """The same report renders to the same bytes (no dates, salted SVG ids)."""
    assert to_html(report) == to_html(report)


@needs_chromium
def test_crosscheck_html_renders_in_chromium(report: dict[str, Any], tmp_path: Path) -> None:
    """In headless Chromium every chart has drawn pixels, the summary shows agree (green) and
    UNEXPECTED (red) bars, and each UNEXPECTED case is on the page with its reproducer."""
    dom, boxes, image = _render(to_html(report), tmp_path)
    ids = [b["id"] for b in boxes]
    assert ids[:2] == ["chart-summary", "chart-entries"]
    assert [i for i in ids if i.startswith("chart-ulps-")] == ["chart-ulps-0", "chart-ulps-1", "chart-ulps-2"]
    for box in boxes:
        assert box["w"] > 300 and box["h"] > 100, box
        drawn, colours = _region_stats(image, box)
        assert drawn > 0.03 and len(colours) > 8, (box, drawn, len(colours))
    summary = next(b for b in boxes if b["id"] == "chart-summary")
    _, colours = _region_stats(image, summary)
    assert any(_near(c, OUTCOME_COLOURS["agree"]) for c in colours)
    assert any(_near(c, OUTCOME_COLOURS["unexpected"]) for c in colours)
    assert report["unexpected_count"] > 0
    for k, group in enumerate(report["reproducers"]):  # each reproducer once, with its count
        assert f'id="unexpected-{k}"' in dom
        if group["count"] > 1:
            assert f"{group['count']} cases (" in dom
    assert '{&quot;hypotheses&quot;:' not in dom  # reproducers are pretty-printed JSON, escaped once
    assert "&quot;hypotheses&quot;: [" in dom or '"hypotheses": [' in dom
    assert f"bleu-compat explain bleu-corpus-compute --impl {FLAWED[5:]}" in dom
    assert "UNEXPECTED differences: %d." % report["unexpected_count"] in dom
    for entry in report["entries"]:
        assert entry in dom


@needs_chromium
def test_compare_html_renders_in_chromium(tmp_path: Path) -> None:
    """score --compare --html on the bundled WMT17 uedin-nmt system writes a page whose score
    chart renders, with each library's row and the entries that reproduce its differences."""
    out = tmp_path / "compare.html"
    base = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(base / "sys.uedin-nmt.4722.txt"),
         str(base / "ref.A.txt"), "--compare", "--html", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    _self_contained(page)
    dom, boxes, image = _render(page, tmp_path)
    # the score chart, and one waterfall per pair of the default configurations
    # (sacrebleu -> nltk, sacrebleu -> card, nltk -> card)
    assert [b["id"] for b in boxes] == ["chart-scores-0", "chart-waterfall-0-0",
                                        "chart-waterfall-0-1", "chart-waterfall-0-2"]
    drawn, colours = _region_stats(image, boxes[0])
    assert drawn > 0.03 and len(colours) > 8
    assert "sacreBLEU" in dom and "NLTK" in dom and "NLTK-DENOMINATOR-FLOOR" in dom


@needs_chromium
def test_compare_html_waterfall(tmp_path: Path) -> None:
    """A comparison carrying a gap decomposition gets a waterfall chart and each cause's lines."""
    doc = {
        "versions": {"sacrebleu": "2.6.0", "nltk": "3.10.4"},
        "systems": [{"name": "sys.txt", "compare": {
            "card": {"bleu": 0.25}, "unexpected": False,
            "libraries": [{"library": "nltk", "version": "3.10.4", "score": 24.0, "differences": []}],
            "decomposition": [{"from": "bleu-compat", "to": "NLTK", "start": 25.0, "causes": [
                {"cause": "tokenization", "contribution": -1.5, "lines": [3, 17]},
                {"cause": "NLTK-DENOMINATOR-FLOOR", "contribution": 0.5, "lines": [8]},
            ]}],
        }}],
    }
    page = compare_to_html(doc)
    _self_contained(page)
    dom, boxes, image = _render(page, tmp_path)
    assert [b["id"] for b in boxes] == ["chart-scores-0", "chart-waterfall-0-0"]
    waterfall = boxes[1]
    drawn, colours = _region_stats(image, waterfall)
    assert drawn > 0.03
    assert any(_near(c, "#d62728") for c in colours) and any(_near(c, "#4c9a2a") for c in colours)
    assert "tokenization" in dom and "3, 17" in dom and "-1.500000" in dom


def test_score_html_needs_compare(tmp_path: Path) -> None:
    """score --html without --compare is a usage error (exit 2), and nothing is written."""
    base = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
    out = tmp_path / "x.html"
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(base / "sys.google.tok.txt"),
         str(base / "ref.A.tok.txt"), "--html", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--compare" in proc.stderr and not out.exists()


def test_score_html_unwritable(tmp_path: Path) -> None:
    """An --html path in a missing directory: exit 2 with the reason, no traceback."""
    base = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(base / "sys.google.tok.txt"),
         str(base / "ref.A.tok.txt"), "--compare", "--html", str(tmp_path / "no" / "x.html")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr
