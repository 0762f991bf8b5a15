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
from bleu_compat.harness.html import OUTCOME_COLOURS, to_html
from bleu_compat.harness.report import build_report
from bleu_compat.harness.run import run_crosscheck

# pytest-xdist: one worker runs this module (its crosscheck, the report fixture, is computed once)
pytestmark = pytest.mark.xdist_group("test_html_report")

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


# --- score --compare --html ------------------------------------------------------------------

WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"


@pytest.fixture(scope="module")
def wmt17_page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """score REF -i SYS --compare on the bundled WMT17 uedin-nmt system, run twice: once with
    ``-f json --html`` (the JSON document and the page), once as text (what the page must say)."""
    tmp = tmp_path_factory.mktemp("wmt17-page")
    out = tmp / "compare.html"
    args = [sys.executable, "-m", "bleu_compat", "score", str(WMT17 / "ref.A.txt"), "-i",
            str(WMT17 / "sys.uedin-nmt.4722.txt"), "--compare"]
    as_json = subprocess.run(args + ["-f", "json", "--html", str(out)], capture_output=True,
                             text=True, timeout=300)
    assert as_json.returncode == 0, as_json.stderr
    as_text = subprocess.run(args + ["--html", str(tmp / "again.html")], capture_output=True,
                             text=True, timeout=300)
    assert as_text.returncode == 0, as_text.stderr
    return {"page": out.read_text(encoding="utf-8"), "json": json.loads(as_json.stdout),
            "text": as_text.stdout, "again": (tmp / "again.html").read_text(encoding="utf-8")}


def _visible_text(fragment: str) -> str:
    """A fragment's text as a reader sees it: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _table_rows(page: str, table_id: str) -> list[list[str]]:
    """The rows (header first) of the table in ``<div id=table_id>``, each cell's text."""
    match = re.search(rf'<div id="{re.escape(table_id)}">(.*?)</table>', page, re.S)
    assert match, f"no table {table_id}"
    return [[_visible_text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", match.group(1), re.S)]


def _figure_svg_text(page: str, figure_id: str) -> list[str]:
    """The text elements of the chart in ``<figure id=figure_id>``."""
    match = re.search(rf'<figure class="chart" id="{re.escape(figure_id)}">(.*?)</figure>', page, re.S)
    assert match, f"no chart {figure_id}"
    return [htmllib.unescape(t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", match.group(1))]


def _points_as_text(d: float) -> str:
    """The text's spelling of a step in points (docs/score.md: 6 decimals, 2 significant
    digits below 1e-6, "+0" for zero), written here from the description, not the code."""
    if d == 0:
        return "+0"
    return "%+.6f" % d if abs(d) >= 1e-6 else "%+.1e" % d


def test_compare_html_numbers_are_the_json_numbers(wmt17_page: dict[str, Any]) -> None:
    """Every configuration's number and every library's BLEU on the page is the one
    ``-f json`` reports (no "-" in a number cell: issue 23's empty BLEU column), and the
    number to report is sacreBLEU's, as in the JSON."""
    page, system = wmt17_page["page"], wmt17_page["json"]["systems"][0]
    configurations = system["compare"]["configurations"]
    rows = _table_rows(page, "configurations-table-0")
    assert [r[0] for r in rows[1:]] == [c["name"] for c in configurations]
    for row, c in zip(rows[1:], configurations):
        assert abs(float(row[1]) - c["BLEU"]) <= 5e-7, (row, c["BLEU"])
    bars = _figure_svg_text(page, "chart-configurations-0")
    assert all(row[1] in bars for row in rows[1:])  # each bar labelled with its number
    parity = _table_rows(page, "parity-table-0")
    libraries = system["compare"]["libraries"]
    assert len(parity) == 2 + len(libraries) and len(libraries) >= 2
    assert float(parity[1][1]) == 100 * system["compare"]["card"]["bleu"]
    for row, lib in zip(parity[2:], libraries):
        assert lib["library"].lower() in row[0].lower().replace("-", "")
        assert row[1] != "-" and float(row[1]) == lib["BLEU"], (row, lib["BLEU"])
    report = system["compare"]["to_report"]
    assert f"BLEU = {report['BLEU']} {report['signature']}" in _visible_text(page)


def test_compare_html_causes_ranked_and_folded_as_the_json(wmt17_page: dict[str, Any]) -> None:
    """Each pair's causes table lists the causes of ``-f json`` whose step or Shapley value
    reaches 1e-9 points, in the order of the size of their Shapley value; the others are
    named in the folded line, not in the table."""
    page = wmt17_page["page"]
    pairs = wmt17_page["json"]["systems"][0]["compare"]["decomposition"]
    tables = 0
    for j, pair in enumerate(pairs):
        causes = pair["causes"]
        big = [c for c in causes if abs(c["contribution"]) >= 1e-9
               or (c["shapley"] is not None and abs(c["shapley"]) >= 1e-9)]
        small = [c for c in causes if c not in big]
        expected = [c["cause"] for c in sorted(big, key=lambda c: -abs(c["shapley"]))]
        if not big:
            assert f'id="causes-0-{j}"' not in page
            continue
        tables += 1
        index = re.search(rf'<li><a href="#pair-0-{j}">(.*?)</li>', page)
        assert index and f"largest cause: {expected[0]} (" in _visible_text(index.group(1))
        rows = _table_rows(page, f"causes-0-{j}")
        assert [r[0] for r in rows[1:]] == expected
        for row in rows[1:]:
            c = next(x for x in big if x["cause"] == row[0])
            assert abs(float(row[2]) - c["shapley"]) <= 5e-7 and abs(float(row[3]) - c["contribution"]) <= 5e-7
        section = page[page.index(f'id="pair-0-{j}"'):]
        section = section[:section.index("<h3", 5)]
        folded = re.search(r'<ul class="folded">(.*?)</ul>', section, re.S)
        for c in small:
            assert folded and c["cause"] in _visible_text(folded.group(1)), c["cause"]
        for name in pair["inert"]:
            assert folded and name in _visible_text(folded.group(1)), name
    assert tables == 2  # sacrebleu -> nltk and nltk -> card; sacrebleu -> card is the same number


def test_compare_html_says_what_the_text_says(wmt17_page: dict[str, Any]) -> None:
    """Every sentence of the text output's decomposition and parity sections (the folded
    causes, the chain, the lines behind each cause ranked by effect, the notes) is on the
    page, word for word, and every number of its tables."""
    page_text = _visible_text(wmt17_page["page"])
    text = wmt17_page["text"]
    body = text[text.index("The configurations compared"):]
    checked = 0
    for line in body.splitlines():
        words = " ".join(line.split())
        if not words or words.startswith(("cause ", "configuration ", "BLEU diff")):
            continue  # table headers; the cells are checked below
        if re.match(r"^\S+ +[-+\d]", words) and "|" in words or re.match(r"^[\w.-]+ \d", words):
            cells = words.split()
            assert all(c in page_text for c in cells if re.match(r"^[-+]?\d", c)), words
        else:
            assert words in page_text, words
        checked += 1
    assert checked > 20


def test_compare_html_waterfall_labels_every_step(wmt17_page: dict[str, Any]) -> None:
    """Each waterfall carries a label for every step of the chain, the sub-point ones too
    (NLTK-DENOMINATOR-FLOOR's -0.003491, the float order's +5.6e-15): the steps' values
    as ``-f json`` gives them, spelled as docs/score.md says."""
    page = wmt17_page["page"]
    pairs = wmt17_page["json"]["systems"][0]["compare"]["decomposition"]
    seen_tiny = 0
    for j, pair in enumerate(pairs):
        if not pair["causes"]:
            assert f'id="chart-waterfall-0-{j}"' not in page
            continue
        texts = _figure_svg_text(page, f"chart-waterfall-0-{j}")
        for c in pair["causes"]:
            assert _points_as_text(c["contribution"]) in texts, (c["cause"], texts)
            seen_tiny += abs(c["contribution"]) < 0.01 * abs(pair["end"] - pair["start"])
        assert "%.6f" % pair["start"] in texts and "%.6f" % pair["end"] in texts
    assert seen_tiny >= 3


def test_compare_html_segments_chart_of_the_largest_cause(wmt17_page: dict[str, Any]) -> None:
    """Each decomposed pair has a chart of every line's effect on its largest cause, and the
    ranked panel names the lines ``-f json`` ranks first (line_effects)."""
    page = wmt17_page["page"]
    pairs = wmt17_page["json"]["systems"][0]["compare"]["decomposition"]
    for j, pair in enumerate(pairs):
        if not pair["causes"]:
            continue
        largest = max(pair["causes"], key=lambda c: abs(c["shapley"]))
        texts = _figure_svg_text(page, f"chart-segments-0-{j}-0")
        assert any(largest["cause"] in t for t in texts)
        top = [line for line, _ in largest["line_effects"][:20]]
        assert [t for t in texts if t.startswith("line ")] == [f"line {n}" for n in top]


def test_compare_html_gap_chart_draws_the_gaps(wmt17_page: dict[str, Any]) -> None:
    """The gap chart (issue 23: empty, an axis from -3.00e-17 to -2.55e-17) labels each
    library's gap to the card with the JSON's difference, its axis spanning the largest."""
    page = wmt17_page["page"]
    c = wmt17_page["json"]["systems"][0]["compare"]
    card = 100 * c["card"]["bleu"]
    texts = _figure_svg_text(page, "chart-gaps-0")
    gaps = [lib["BLEU"] - card for lib in c["libraries"]]
    for gap in gaps:
        assert _points_as_text(gap) in texts, (gap, texts)
    ticks = [float(t.replace("\u2212", "-")) for t in texts if re.fullmatch(r"[\u2212-]?\d+\.\d+", t)]
    assert min(ticks) <= min(gaps) and max(ticks) >= 0


def test_compare_html_self_contained_and_deterministic(wmt17_page: dict[str, Any]) -> None:
    """The page fetches nothing, and two runs (one with -f json, one with the text) write
    the same bytes."""
    _self_contained(wmt17_page["page"])
    assert wmt17_page["again"] == wmt17_page["page"]


def test_compare_html_two_systems_and_a_sentence_average(tmp_path: Path) -> None:
    """Two systems get a section each whose configurations are their own (``-f json``'s),
    and a pair that has no decomposition (a sentence average against a corpus BLEU) says so
    as the text does, with no waterfall."""
    base = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
    out = tmp_path / "two.html"
    args = [sys.executable, "-m", "bleu_compat", "score", str(base / "ref.A.tok.txt"), "-i",
            str(base / "sys.google.tok.txt"), str(base / "ref.A.txt"), "--compare", "sacrebleu",
            "sacrebleu-sentence-avg", "card"]
    as_json = subprocess.run(args + ["-f", "json", "--html", str(out)], capture_output=True,
                             text=True, timeout=300)
    assert as_json.returncode == 0, as_json.stderr
    as_text = subprocess.run(args, capture_output=True, text=True, timeout=300)
    page, doc = out.read_text(encoding="utf-8"), json.loads(as_json.stdout)
    page_text = _visible_text(page)
    assert len(doc["systems"]) == 2
    for k, system in enumerate(doc["systems"]):
        assert f'id="system-{k}"' in page
        rows = _table_rows(page, f"configurations-table-{k}")
        assert [(r[0], round(float(r[1]), 6)) for r in rows[1:]] == [
            (c["name"], round(c["BLEU"], 6)) for c in system["compare"]["configurations"]]
        for j, pair in enumerate(system["compare"]["decomposition"]):
            if pair["not_decomposable"]:
                assert f'id="chart-waterfall-{k}-{j}"' not in page
    sentences = [" ".join(line.split()) for line in as_text.stdout.splitlines()
                 if "not decomposable" in line]
    assert len(sentences) == 4 and all(x in page_text for x in sentences)


def test_compare_html_interaction_sentence_and_a_zero_step(tmp_path: Path) -> None:
    """nltk -> sacrebleu on two lines whose 4-grams all miss on str.split() tokens (the corpus
    of test_score_compare_options, where sacreBLEU gives the numbers): smoothing's step is +0
    and its Shapley value is not; the page carries the text's sentence saying why, and the
    waterfall labels the +0 step (a dot, not a missing bar)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat, on the mat.\nthe dog ran, to the park.\n", encoding="utf-8")
    ref.write_text("the cat sat , on the mat .\nthe dog ran , to the park .\n", encoding="utf-8")
    out = tmp_path / "page.html"
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "score", str(ref), "-i", str(hyp),
                           "--compare", "nltk", "sacrebleu", "--html", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    sentence = next(" ".join(line.split()) for line in proc.stdout.splitlines()
                    if "smoothing: its step (+0) and its Shapley value" in line)
    notes = re.search(r'<ul class="notes">(.*?)</ul>', page, re.S)
    assert notes and sentence in _visible_text(notes.group(1))
    assert re.search(r'id="pair-0-0">nltk → sacrebleu<', page)
    assert "+0" in _figure_svg_text(page, "chart-waterfall-0-0")


@needs_chromium
def test_compare_html_renders_in_chromium(wmt17_page: dict[str, Any], tmp_path: Path) -> None:
    """In headless Chromium the WMT17 page renders every chart with drawn pixels (the probe
    script runs: no script error stopped it), the rendered DOM holds every configuration's
    number, and the sacrebleu -> nltk waterfall shows its sub-point steps: the
    +5.6e-15 float-order step is the only green in that chart (a marker, not an invisible
    sliver) and the tiny steps' yellow value boxes are drawn."""
    page = wmt17_page["page"]
    dom, boxes, image = _render(page, tmp_path)
    ids = [b["id"] for b in boxes]
    assert ids[0] == "chart-configurations-0" and ids[-1] == "chart-gaps-0"
    assert "chart-waterfall-0-0" in ids and "chart-waterfall-0-2" in ids
    assert "chart-segments-0-0-0" in ids and "chart-segments-0-2-0" in ids
    for box in boxes:
        assert box["w"] > 300 and box["h"] > 100, box
        drawn, colours = _region_stats(image, box)
        assert drawn > 0.02 and len(colours) > 8, (box, drawn, len(colours))
    for c in wmt17_page["json"]["systems"][0]["compare"]["configurations"]:
        assert "%.6f" % c["BLEU"] in dom
    waterfall = next(b for b in boxes if b["id"] == "chart-waterfall-0-0")
    _, colours = _region_stats(image, waterfall)
    assert any(_near(c, "#4c9a2a", 10) for c in colours)  # the +5.6e-15 step's triangle
    assert any(_near(c, "#fff6cc", 4) for c in colours)   # the tiny steps' value boxes
    assert any(_near(c, "#d62728", 10) for c in colours)  # tokenization's -4.91


def test_score_html_needs_compare(tmp_path: Path) -> None:
    """score --html without --compare is a usage error (exit 2), and nothing is written."""
    base = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
    out = tmp_path / "x.html"
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(base / "ref.A.tok.txt"), "-i",
         str(base / "sys.google.tok.txt"), "--html", str(out)], capture_output=True, text=True,
        timeout=120)
    assert proc.returncode == 2 and "--compare" in proc.stderr and not out.exists()


def test_score_html_unwritable(tmp_path: Path) -> None:
    """An --html path in a missing directory: exit 2 with the reason, no traceback."""
    base = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(base / "ref.A.tok.txt"), "-i",
         str(base / "sys.google.tok.txt"), "--compare", "--html", str(tmp_path / "no" / "x.html")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr


def test_crosscheck_html_shows_decompositions_and_the_exact_side(report: dict[str, Any]) -> None:
    """The page carries the report's decomposition and exact-side sections as the Markdown does:
    the counts from the JSON, and each failure (a report with one planted failure of each)."""
    import copy

    page = to_html(report)
    dec, exact = report.get("decompositions") or {}, report.get("exact_side") or {}
    assert f"Checked: {dec.get('checked', 0)}; failed checks: 0" in page
    assert f"Cases: {exact.get('checked', 0)};" in page and "differing: 0." in page
    planted = copy.deepcopy(report)
    planted["decompositions"] = {"checked": 3, "failures": [
        {"check": "Shapley", "pair": "sacrebleu -> nltk", "corpus": "generated-2",
         "detail": "the Shapley values sum to 1/3, the gap is 1/4"}]}
    planted["exact_side"] = {"checked": 5, "regimes": {"r/c in (80, 709.39)": 2}, "findings": [
        {"case_id": "bleu-corpus-compute#7", "field": "brevity_penalty", "truth": 0.0,
         "direct": 5e-324, "candidate_length": 1, "reference_length": 745}]}
    page = to_html(planted)
    assert 'id="decompositions-verdict" class="unexpected"' in page
    assert "Shapley" in page and "sacrebleu -&gt; nltk" in page and "generated-2" in page
    assert 'id="exact-side-verdict" class="unexpected"' in page
    assert "bleu-corpus-compute#7" in page and "5e-324" in page and "r/c in (80, 709.39) 2" in page
