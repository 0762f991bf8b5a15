"""torchmetrics, torcheval, pycocoevalcap and fast-bleu (issue 21), against the real libraries.

These libraries are optional (``pip install 'bleu-compat[libraries]'``: torch 2.13.0,
torchmetrics 1.9.0, torcheval 0.0.7, pycocoevalcap 1.2, fast-bleu 0.0.90) and slow to
run on whole corpora, so this module runs only when ``BLEU_COMPAT_LIBRARY_TESTS=1``
(``.ci/run`` installs the extra and sets it in a step of its own); each test also skips
when its library is not installed. The catalog's own tests (``test_catalog.py``) check
every entry's reproducer and library code whenever the library is installed.

* On WMT17 en-de uedin-nmt, ``score REF -i SYS --compare torchmetrics
  torchmetrics-sacrebleu torcheval coco fast-bleu`` prints for each configuration the
  number the library gives when this test calls it directly (its own public API, written
  here independently of the adapters), bit for bit, and decomposes every gap (sacreBLEU
  is added as the reference): no pair UNEXPECTED, each chain of steps continuous from one
  library's number to the other's, and the steps adding up exactly.
* ``coco-ptb`` equals pycocoevalcap's captioning pipeline (PTBTokenizer, then Bleu(4)),
  where ``java`` is on the path.
* A crosscheck of the four libraries alone finds nothing UNEXPECTED.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("BLEU_COMPAT_LIBRARY_TESTS") != "1",
                                reason="set BLEU_COMPAT_LIBRARY_TESTS=1 (with the libraries extra "
                                       "installed; .ci/run does both)")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF, SYS = WMT17 / "ref.A.txt", WMT17 / "sys.uedin-nmt.4722.txt"


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _direct() -> dict[str, float]:
    """Each library called directly, as its users call it, on the raw WMT17 lines."""
    pytest.importorskip("torchmetrics")
    pytest.importorskip("torcheval")
    pytest.importorskip("pycocoevalcap")
    pytest.importorskip("fast_bleu")
    from fast_bleu import BLEU
    from pycocoevalcap.bleu.bleu import Bleu
    from torcheval.metrics.functional import bleu_score as te_bleu
    from torchmetrics.functional.text import bleu_score as tm_bleu
    from torchmetrics.functional.text import sacre_bleu_score

    hyps, refs = _lines(SYS), _lines(REF)
    out = {
        "torchmetrics": tm_bleu(hyps, [[r] for r in refs]).item(),
        "torchmetrics-sacrebleu": sacre_bleu_score(hyps, [[r] for r in refs]).item(),
        "torcheval": te_bleu(hyps, [[r] for r in refs], n_gram=4).item(),
    }
    with contextlib.redirect_stdout(io.StringIO()):
        score, _ = Bleu(4).compute_score({i: [r] for i, r in enumerate(refs)},
                                         {i: [h] for i, h in enumerate(hyps)})
    out["coco"] = score[3]
    per = BLEU([r.split() for r in refs]).get_score([h.split() for h in hyps])[4]
    out["fast-bleu"] = sum(per) / len(per)
    return out


def _score_json(*configs: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "score", str(REF), "-i", str(SYS),
                           "--compare", *configs, "-f", "json"], capture_output=True, text=True,
                          timeout=1200, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stderr == "", proc.stderr  # no library's printing reaches ours
    return json.loads(proc.stdout)["systems"][0]["compare"]


def test_wmt17_numbers_are_the_libraries_and_every_gap_decomposes() -> None:
    direct = _direct()
    doc = _score_json("torchmetrics", "torchmetrics-sacrebleu", "torcheval", "coco", "fast-bleu")
    runs = {c["name"]: c for c in doc["configurations"]}
    assert list(runs) == ["sacrebleu", "torchmetrics", "torchmetrics-sacrebleu", "torcheval",
                          "coco", "fast-bleu"], "sacreBLEU is added as the reference"
    for name, value in direct.items():
        assert runs[name]["bleu"] == value, (name, runs[name]["bleu"], value)
    pairs = {(d["from"], d["to"]): d for d in doc["decomposition"]}
    assert len(pairs) == 15
    for (a, b), d in pairs.items():
        assert not d["unexpected"] and not d["not_decomposable"], (a, b, d["unexpected"])
        assert d["start_bleu"] == runs[a]["bleu"] and d["end_bleu"] == runs[b]["bleu"]
        if not d["causes"]:
            assert d["start_bleu"] == d["end_bleu"], (a, b)
            continue
        chain = [d["start_bleu"]] + [c["bleu_after"] for c in d["causes"]]
        assert [c["bleu_before"] for c in d["causes"]] == chain[:-1], (a, b)
        assert chain[-1] == d["end_bleu"], (a, b)
        steps = sum((Fraction(c["bleu_after"]) - Fraction(c["bleu_before"]) for c in d["causes"]),
                    Fraction(0))
        assert steps == Fraction(d["end_bleu"]) - Fraction(d["start_bleu"]), (a, b)
    # the factors named after what differs, where they move the score
    causes = {(a, b): {c["cause"] for c in d["causes"]} for (a, b), d in pairs.items()}
    assert "pooled references" in causes["sacrebleu", "fast-bleu"]
    assert "SACREBLEU-FLOAT-ORDER-SMOOTHING / TORCHMETRICS-FLOAT32" in causes["sacrebleu",
                                                                              "torchmetrics-sacrebleu"]
    assert "tokenization" in causes["sacrebleu", "coco"]


@pytest.mark.skipif(shutil.which("java") is None, reason="pycocoevalcap's PTB tokenizer needs java")
def test_coco_ptb_is_the_captioning_pipeline() -> None:
    pytest.importorskip("pycocoevalcap")
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    hyps, refs = _lines(SYS), _lines(REF)
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({i: [{"caption": r}] for i, r in enumerate(refs)})
    res = tokenizer.tokenize({i: [{"caption": h}] for i, h in enumerate(hyps)})
    with contextlib.redirect_stdout(io.StringIO()):
        score, _ = Bleu(4).compute_score(gts, res)
    doc = _score_json("sacrebleu", "coco-ptb")
    runs = {c["name"]: c for c in doc["configurations"]}
    assert runs["coco-ptb"]["bleu"] == score[3]
    (d,) = doc["decomposition"]
    assert not d["unexpected"] and [c["cause"] for c in d["causes"]][0] == "tokenization"


def test_crosscheck_of_the_new_libraries_finds_nothing_unexpected(tmp_path: Path) -> None:
    for module in ("torchmetrics", "torcheval", "pycocoevalcap", "fast_bleu"):
        pytest.importorskip(module)
    env = dict(os.environ, BLEU_COMPAT_LIBRARIES="torchmetrics,torcheval,pycocoevalcap,fast-bleu")
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "crosscheck", "--cases", "120",
                           "--invalid", "0", "--no-real", "--no-progress", "--no-html",
                           "--out", str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=1200, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    report = json.loads((tmp_path / "crosscheck.json").read_text(encoding="utf-8"))
    assert report["unexpected_count"] == 0
    seen = set(report["entries"])
    for prefix in ("TORCHMETRICS-", "TORCHEVAL-", "PYCOCOEVALCAP-", "FAST-BLEU-"):
        assert any(e.startswith(prefix) for e in seen), prefix
