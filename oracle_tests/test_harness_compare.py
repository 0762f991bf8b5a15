"""Comparison in ULPs, classification against the catalog, and shrinking of planted divergences."""

from __future__ import annotations

import math
from typing import Any

import pytest

from _planted import plant_brevity_penalty_one_ulp_low

from bleu_compat.libraries import AdapterResult
from bleu_compat.harness import classify
from bleu_compat.harness.classify import evaluate, shrink
from bleu_compat.harness.compare import compare_outputs
from bleu_compat.harness.generate import generate_case
from bleu_compat.tools import execute


class TestCompareOutputs:
    def test_equal_outputs_have_no_difference(self) -> None:
        """1 and 1.0 are the same JSON number."""
        assert compare_outputs({"a": 1, "b": [1, 2]}, {"a": 1.0, "b": [1, 2]}) == []

    def test_one_ulp_is_a_difference(self) -> None:
        """Floats one ULP apart differ, with ulps = 1."""
        x = 0.3
        (d,) = compare_outputs({"bleu": x}, {"bleu": math.nextafter(x, 1)})
        assert d.field == "bleu" and d.ulps == 1

    def test_integer_arrays_exactly(self) -> None:
        """An array differing in one count is reported without ULPs."""
        (d,) = compare_outputs({"totals": [3, 2]}, {"totals": [3, 3]})
        assert d.expected == [3, 2] and d.actual == [3, 3] and d.ulps is None

    def test_missing_and_extra_fields(self) -> None:
        """A missing field and an extra field are both differences."""
        diffs = compare_outputs({"a": 1}, {"b": 2})
        assert {(d.field, d.expected, d.actual) for d in diffs} == {("a", 1, None), ("b", None, 2)}


def _broken_adapter(library: str, mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """An adapter that returns ours with closest reference lengths tied to the longer length."""
    out = execute(tool_id, request)
    if tool_id == "bleu-brevity-penalty":
        out["closest_reference_lengths"] = [
            min(s["reference_lengths"], key=lambda v: (abs(v - s["candidate_length"]), -v))
            for s in request["segments"]
        ]
    return AdapterResult(library, "9.9", mode, tool_id, out)


def test_planted_adapter_bug_is_unexpected_and_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tie broken toward the longer reference is UNEXPECTED and shrinks to one segment."""
    monkeypatch.setattr("bleu_compat.libraries.run_adapter", _broken_adapter)
    request = {"segments": [{"candidate_length": 9, "reference_lengths": [1, 2]},
                            {"candidate_length": 4, "reference_lengths": [7, 3, 5]},
                            {"candidate_length": 2, "reference_lengths": [2]}]}
    result = evaluate("bleu-brevity-penalty", "planted", request, implementations=("sacrebleu/mapped",))
    (d,) = [d for d in result.discrepancies if d.field == "closest_reference_lengths"]
    assert d.unexpected and d.card_value == [2, 3, 2] and d.library_value == [2, 5, 2]
    small = shrink("bleu-brevity-penalty", request, lambda r: any(
        x.field == "closest_reference_lengths" and x.unexpected
        for x in evaluate("bleu-brevity-penalty", "s", r, implementations=("sacrebleu/mapped",)).discrepancies))
    assert len(small["segments"]) == 1
    (seg,) = small["segments"]
    assert len(seg["reference_lengths"]) == 2  # a tie needs two references


def test_planted_core_bug_in_ours_is_unexpected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ours' brevity penalty off by one ULP is caught against the independent truth."""
    plant_brevity_penalty_one_ulp_low(monkeypatch)
    request = {"segments": [{"candidate_length": 12, "reference_lengths": [28, 28]}]}
    result = evaluate("bleu-brevity-penalty", "planted", request, implementations=("ours",))
    (d,) = result.discrepancies
    assert d.implementation == "ours" and d.ulps == 1 and d.unexpected


def test_catalogued_divergence_is_not_unexpected() -> None:
    """NLTK's max(1, total) denominator on a 3-token hypothesis is explained by the catalog."""
    pytest.importorskip("nltk")
    request = {"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c"]]]}
    result = evaluate("bleu-corpus-compute", "known", request, implementations=("nltk/as_called",))
    assert result.discrepancies, "NLTK counts a 4-gram total of 1 here (card: 0)"
    assert all(not d.unexpected for d in result.discrepancies)


def test_generated_cases_have_no_unexpected_in_ours() -> None:
    """Ours never differs from the truth on generated cases."""
    for tool in ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"):
        for k in range(40):
            c = generate_case(11, tool, k)
            assert evaluate(tool, c.case_id, c.request, implementations=("ours",)).discrepancies == []


def test_ulp_histogram_leaves_out_semantic_divergences() -> None:
    """A library's ULP distance to the exact value is recorded only where it computes the card's quantity."""
    from bleu_compat.harness.classify import evaluate

    # "a" is shorter than 2..4 tokens: NLTK's floored totals give another score
    # (NLTK-DENOMINATOR-FLOOR), which is a semantic divergence, not a ULP gap.
    short = {"hypotheses": [["a", "b", "c", "d"], ["a"]],
             "references": [[["a", "b", "c", "d"]], [["a"]]]}
    result = evaluate("bleu-corpus-compute", "short", short,
                      implementations=("ours", "nltk/as_called", "nltk/mapped"))
    assert any(d.entries == ("NLTK-DENOMINATOR-FLOOR",) for d in result.discrepancies)
    assert "nltk/as_called" not in result.ulps_vs_exact
    assert "nltk/mapped" in result.ulps_vs_exact  # mapped computes the card's totals
    assert "ours" in result.ulps_vs_exact
