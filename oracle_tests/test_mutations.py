"""Planted bugs of each kind make `bleu-compat crosscheck` exit 1 with the case shrunk.

Issue 10, item 8: a check that only a unit test can fail is not enough; the
harness itself must catch an adapter called with another option, an adapter
that drops a segment, a score off by 20 ULPs (in a library's adapter and in
ours), a toFixed that rounds half to even, a token comparison after
``str.strip()``, a limit off by one, and the schema checked after the limits.
Each test plants one bug in this process and runs the real command
(``bleu_compat.cli.main``) with one worker, so the plant is seen.
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest

from bleu_compat.cli import main

pytest.importorskip("sacrebleu")
pytest.importorskip("nltk")


def _crosscheck(tmp_path: Path, tool: str, cases: int, *extra: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "cc"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["crosscheck", "--tools", tool, "--cases", str(cases), "--no-real",
                     "--workers", "1", "--no-progress", "--out", str(out), *extra])
    return code, json.loads((out / "crosscheck.json").read_text(encoding="utf-8"))


def _size(request: dict[str, Any]) -> int:
    if "hypotheses" in request:
        return sum(len(h) for h in request["hypotheses"]) + sum(
            len(r) for refs in request["references"] for r in refs)
    if "segments" in request:
        return sum(1 + len(s["reference_lengths"]) for s in request["segments"])
    return len(request["matches"])


def _assert_caught(code: int, report: dict[str, Any], implementation: str,
                   field: str | None = None) -> dict[str, Any]:
    """Exit 1, an UNEXPECTED difference of ``implementation`` (in ``field``), with a shrunk reproducer."""
    assert code == 1, report["unexpected_count"]
    mine = [u for u in report["unexpected"] if u["implementation"] == implementation
            and (field is None or u["field"] == field)]
    assert mine, [u["implementation"] for u in report["unexpected"]]
    shrunk = [u for u in mine if u["reproducer"] is not None]
    assert shrunk, "no reproducer"
    u = shrunk[0]
    assert _size(u["reproducer"]) <= _size(u["request"])
    assert u["command"] and "bleu-compat run" in u["command"]
    return u


def test_nltk_called_with_auto_reweigh_is_unexpected(tmp_path, monkeypatch) -> None:
    """An adapter that calls corpus_bleu(..., auto_reweigh=True): its scores are no NLTK dialect."""
    import nltk.translate.bleu_score as bleu_score

    monkeypatch.setattr(bleu_score, "corpus_bleu",
                        functools.partial(bleu_score.corpus_bleu, auto_reweigh=True))
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 150)
    u = _assert_caught(code, report, "nltk/as_called", "bleu")
    assert u["nearest"] is not None and not u["nearest"]["reproduced"]


def test_the_issue_example_of_auto_reweigh(monkeypatch) -> None:
    """[["a","b"]] vs [["a","b"]]: NLTK's 1.49e-154 becomes 1.0 with auto_reweigh, which no
    set of NLTK entries reproduces (before, DENOMINATOR-FLOOR + ZERO-MATCH-TINY 'explained' it)."""
    import nltk.translate.bleu_score as bleu_score

    from bleu_compat.harness.classify import evaluate

    request = {"hypotheses": [["a", "b"]], "references": [[["a", "b"]]]}
    clean = evaluate("bleu-corpus-compute", "x", request, implementations=("nltk/as_called",))
    assert all(not d.unexpected for d in clean.discrepancies)
    monkeypatch.setattr(bleu_score, "corpus_bleu",
                        functools.partial(bleu_score.corpus_bleu, auto_reweigh=True))
    planted = evaluate("bleu-corpus-compute", "x", request, implementations=("nltk/as_called",))
    (d,) = [d for d in planted.discrepancies if d.field == "bleu"]
    assert d.library_value == 1.0 and d.unexpected


def _dropping_adapter(real: Any) -> Any:
    def run(library: str, mode: str, tool_id: str, request: dict[str, Any]) -> Any:
        if tool_id == "bleu-corpus-compute" and library == "sacrebleu" and len(request["hypotheses"]) > 1:
            request = dict(request, hypotheses=request["hypotheses"][:-1],
                           references=request["references"][:-1])
        return real(library, mode, tool_id, request)
    return run


def test_adapter_dropping_a_segment_is_unexpected(tmp_path, monkeypatch) -> None:
    """An adapter that loses the last segment: no sacreBLEU model recounts it away."""
    import bleu_compat.libraries as libraries

    monkeypatch.setattr(libraries, "run_adapter", _dropping_adapter(libraries.run_adapter))
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 100)
    u = _assert_caught(code, report, "sacrebleu/mapped")
    assert len(u["reproducer"]["hypotheses"]) >= 2  # it takes two segments to drop one


def _twenty_ulps_adapter(real: Any) -> Any:
    def run(library: str, mode: str, tool_id: str, request: dict[str, Any]) -> Any:
        result = real(library, mode, tool_id, request)
        out = result.output
        if out is not None and library == "nltk" and 0 < out["bleu"] < 1 and "decimals" not in request:
            value = out["bleu"]
            for _ in range(20):
                value = math.nextafter(value, 0.0)
            out = dict(out, bleu=value)
            result = type(result)(result.library, result.version, result.mode, result.tool_id,
                                  out, result.raw, result.not_representable, result.error)
        return result
    return run


@pytest.mark.parametrize("tool", ["bleu-corpus-compute", "bleu-smoothing-compute"])
def test_library_score_off_by_20_ulps_is_unexpected(tmp_path, monkeypatch, tool) -> None:
    """20 ULPs off NLTK's own double: no float-order model gives that double."""
    import bleu_compat.libraries as libraries

    monkeypatch.setattr(libraries, "run_adapter", _twenty_ulps_adapter(libraries.run_adapter))
    code, report = _crosscheck(tmp_path, tool, 60)
    _assert_caught(code, report, "nltk/mapped", "bleu")


def test_ours_score_off_by_20_ulps_is_unexpected(tmp_path, monkeypatch) -> None:
    """Ours' smoothed score 20 ULPs low is caught against the independent truth."""
    import bleu_compat.tools as tools

    real = tools._RUNNERS["bleu-smoothing-compute"]

    def off(request: dict[str, Any]) -> dict[str, Any]:
        out = real(request)
        if 0 < out["bleu"] < 1:
            value = out["bleu"]
            for _ in range(20):
                value = math.nextafter(value, 0.0)
            out["bleu"] = value
        return out

    monkeypatch.setitem(tools._RUNNERS, "bleu-smoothing-compute", off)
    code, report = _crosscheck(tmp_path, "bleu-smoothing-compute", 60)
    _assert_caught(code, report, "ours")
