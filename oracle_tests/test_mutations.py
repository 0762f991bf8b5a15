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


def test_to_fixed_rounding_half_to_even_is_unexpected(tmp_path, monkeypatch) -> None:
    """A toFixed that breaks exact ties to even (Python's format): 0.625 -> 0.62, not 0.63.
    The truth's own toFixed is independent, so crosscheck catches it in ours."""
    import bleu_compat.tools as tools

    monkeypatch.setattr(tools, "to_fixed", lambda x, d: float(format(x, f".{d}f")))
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 300, "--invalid", "0")
    _assert_caught(code, report, "ours")


def test_token_comparison_after_strip_is_unexpected(tmp_path, monkeypatch) -> None:
    """Ours comparing tokens after str.strip() ("a " equals "a"): the generator's whitespace twins
    make its counts differ from the definition."""
    import bleu_compat.tools as tools

    real = tools._RUNNERS["bleu-corpus-compute"]

    def stripped(request: dict[str, Any]) -> dict[str, Any]:
        strip = lambda tokens: [t.strip() for t in tokens]  # noqa: E731
        return real(dict(request, hypotheses=[strip(h) for h in request["hypotheses"]],
                         references=[[strip(r) for r in refs] for refs in request["references"]]))

    monkeypatch.setitem(tools._RUNNERS, "bleu-corpus-compute", stripped)
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 150, "--invalid", "0")
    _assert_caught(code, report, "ours")


def _limits_shifted(monkeypatch: pytest.MonkeyPatch, by: int) -> None:
    import bleu_compat.tools as tools

    known, check = tools._LIMIT_CHECKS["bleu-corpus-compute"]

    def shifted(request: dict[str, Any], limits: Any) -> None:
        check(request, {**limits, "max_total_tokens": limits["max_total_tokens"] + by})

    monkeypatch.setitem(tools._LIMIT_CHECKS, "bleu-corpus-compute", (known, shifted))


def test_limit_one_too_high_is_unexpected(tmp_path, monkeypatch) -> None:
    """max_total_tokens + 1 accepted: the invalid request of 50,001 tokens is accepted by ours,
    which the truth's own checks refuse. Reported, not a crash of the run."""
    _limits_shifted(monkeypatch, +1)
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 0, "--invalid", "60")
    assert code == 1
    bad = [u for u in report["unexpected"] if "!invalid#" in u["case_id"]]
    assert bad and all(u["implementation"] == "ours" and u["field"] == "error" for u in bad)
    assert any("accepted" in (u["library_value"] or {}) for u in bad)


def test_limit_one_too_low_is_unexpected(tmp_path, monkeypatch) -> None:
    """max_total_tokens - 1: a valid corpus of exactly 50,000 tokens is refused by ours. The generator
    checks validity with the truth's checks, so the run reports it instead of crashing.
    (Seed 0's first corpus of exactly 50,000 tokens is case 337.)"""
    _limits_shifted(monkeypatch, -1)
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 340, "--invalid", "0")
    u = _assert_caught(code, report, "ours", "error")
    assert "limit_exceeded" in str(u["library_value"])


def test_schema_checked_after_the_limits_is_unexpected(tmp_path, monkeypatch) -> None:
    """A product that checks the limits before the schema answers limit_exceeded on a request that
    breaks both (SPEC.md section 2 says invalid_input): the two-fault invalid requests catch it."""
    import bleu_compat.tools as tools

    real = tools.validate_request

    def limits_first(tool_id: str, request: Any) -> Any:
        if isinstance(request, dict) and tool_id == "bleu-corpus-compute":
            _known, check = tools._LIMIT_CHECKS[tool_id]
            try:
                check(request, tools.card(tool_id).limits)
            except tools.ToolError:
                raise
            except Exception:
                pass  # the schema would have refused what the limit check cannot read
        return real(tool_id, request)

    monkeypatch.setattr(tools, "validate_request", limits_first)
    code, report = _crosscheck(tmp_path, "bleu-corpus-compute", 0, "--invalid", "60")
    assert code == 1
    bad = [u for u in report["unexpected"] if "!invalid#" in u["case_id"]]
    assert any(u["card_value"]["code"] == "invalid_input" and u["library_value"].get("code") == "limit_exceeded"
               for u in bad), bad[:3]
