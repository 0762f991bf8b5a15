"""Real data: 100 newstest2015 en-ru segments, Google Translate output (nltk_data, fixtures/real/nltk-wmt15-100).

Source of the expected figures: fixtures/real/nltk-wmt15-100/README.nltk_data.txt, the
published multi-bleu.perl output for these files:
``BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)``.
The exact counts are recomputed here by a separate Counter-based count from the definition.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bleu_compat import corpus_bleu
from bleu_compat.cli import main

DATA = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "nltk-wmt15-100"
HYP = DATA / "sys.google.tok.txt"
REF = DATA / "ref.A.tok.txt"
PUBLISHED = "BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)"


def _lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text("utf-8").split("\n")[:-1]]


def _counts(hyps: list[list[str]], refs: list[list[str]]) -> tuple[list[int], list[int]]:
    """Clipped matches and totals per order 1..4, from the definition (one reference)."""
    matches, totals = [0] * 4, [0] * 4
    for hyp, ref in zip(hyps, refs):
        for n in range(1, 5):
            h = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            r = Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum((h & r).values())
            totals[n - 1] += sum(h.values())
    return matches, totals


@pytest.fixture(scope="module")
def corpus() -> tuple[list[list[str]], list[list[str]]]:
    """The tokenized hypotheses and references, 100 lines each."""
    hyps, refs = _lines(HYP), _lines(REF)
    assert len(hyps) == len(refs) == 100
    return hyps, refs


#: SPEC.md section 8's signature for one reference, pre-tokenized text, no smoothing
SIGNATURE = ("signature: nrefs:1|case:mixed|eff:no|tok:none|smooth:none|bleu-compat:"
             + __import__("bleu_compat").__version__)


def _roles() -> str:
    """The `HYP REF` form names each file's role under the line (its order is not multi-bleu's)."""
    return (f"hypothesis: {HYP}; reference: {REF} (card-score's HYP REF order; sacreBLEU's is "
            "REF -i HYP)")


def test_published_line_via_main(capsys: pytest.CaptureFixture[str]) -> None:
    """``bleu-compat card-score`` prints exactly the published multi-bleu.perl line."""
    assert main(["card-score", str(HYP), str(REF)]) == 0
    captured = capsys.readouterr()
    # the published line, the files' roles, then the signature (SPEC.md section 8): split
    assert captured.out.splitlines() == [PUBLISHED, _roles(), SIGNATURE]


def test_published_line_via_subprocess() -> None:
    """The installed entry point ``python -m bleu_compat card-score`` prints the same line."""
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "card-score", str(HYP), str(REF)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [PUBLISHED, _roles(), SIGNATURE]


def test_exact_counts(corpus) -> None:
    """matches/totals/lengths equal the separate count and the published lengths."""
    hyps, refs = corpus
    matches, totals = _counts(hyps, refs)
    result = corpus_bleu(hyps, [[r] for r in refs])
    assert list(result.stats.matches) == matches and list(result.stats.totals) == totals
    assert (result.stats.hyp_len, result.stats.ref_len) == (1989, 1852)
    assert totals[0] == 1989


def test_published_precisions(corpus) -> None:
    """The independent counts give the published 53.8/29.6/17.6/10.3 and BLEU 23.17."""
    hyps, refs = corpus
    matches, totals = _counts(hyps, refs)
    assert [f"{100 * m / t:.1f}" for m, t in zip(matches, totals)] == ["53.8", "29.6", "17.6", "10.3"]
    geo = math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4)
    assert f"{100 * geo:.2f}" == "23.17"
    assert f"{1989 / 1852:.3f}" == "1.074"


def test_readme_cites_the_line() -> None:
    """The fixture's README holds the published line (the expected value is not made up here)."""
    assert PUBLISHED in (DATA / "README.nltk_data.txt").read_text("utf-8")
