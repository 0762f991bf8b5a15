"""The NLTK adapter on the card examples, variable and empty references, the
denominator floor and smoothing; it never mutates a request.

Expected values come from the cards' worked examples and from the card
implementation (bleu_compat.execute). The adapter's copy of corpus_bleu's
last step is checked against corpus_bleu itself.
"""

from __future__ import annotations

import copy
import warnings

import pytest

from bleu_compat import card, execute
from bleu_compat.libraries import run_adapter
from bleu_compat.catalog import entry

from _reproduce import assert_reproduced

pytest.importorskip("nltk")

TOOLS = ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty")
EXAMPLES = [(t, k, ex) for t in TOOLS for k, ex in enumerate(card(t).examples)]


def _run(mode, tool_id, request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_adapter("nltk", mode, tool_id, request)


@pytest.mark.parametrize("tool_id,k,example", EXAMPLES, ids=[f"{t}-{k}" for t, k, _ in EXAMPLES])
@pytest.mark.parametrize("mode", ["as_called", "mapped"])
def test_card_examples(tool_id, k, example, mode):
    """Every card example: equal to the card, or every difference explained by an entry."""
    request = copy.deepcopy(example["input"])
    result = _run(mode, tool_id, request)
    assert request == example["input"]
    assert result.library == "nltk" and result.version.startswith("3.")
    if result.not_representable is not None:
        assert mode == "mapped" and 0 in request["totals"], result
        return
    output = result.output if result.output is not None else {"error": result.error}
    if output != example["output"]:
        assert_reproduced("nltk", mode, tool_id, request, output)


def test_denominator_floor_as_called_and_mapped():
    """as_called totals include NLTK's floor; mapped totals and bleu equal the card."""
    e = entry("NLTK-DENOMINATOR-FLOOR")
    expected = execute("bleu-corpus-compute", e.reproducer)
    as_called = _run("as_called", "bleu-corpus-compute", e.reproducer).output
    mapped = _run("mapped", "bleu-corpus-compute", e.reproducer).output
    assert as_called["totals"] == [5, 4, 3, 2]
    assert mapped["totals"] == expected["totals"] == [5, 3, 2, 1]
    assert mapped["bleu"] == expected["bleu"] == 1.0
    assert as_called["bleu"] < 1.0


def test_final_step_copy_equals_corpus_bleu():
    """nltk_final_score on NLTK's own precisions equals corpus_bleu bit for bit."""
    import math

    from nltk.translate.bleu_score import (
        Fraction, brevity_penalty, closest_ref_length, corpus_bleu, modified_precision)

    from bleu_compat.libraries.nltk.adapter import nltk_final_score

    ex = card("bleu-corpus-compute").examples[1]["input"]
    hyps, refs = ex["hypotheses"], ex["references"]
    for n_max in (1, 2, 3, 4):
        nums, dens = [0] * n_max, [0] * n_max
        for r, h in zip(refs, hyps):
            for n in range(1, n_max + 1):
                p = modified_precision(r, h, n)
                nums[n - 1] += p.numerator
                dens[n - 1] += p.denominator
        c = sum(len(h) for h in hyps)
        rl = sum(closest_ref_length(r, len(h)) for r, h in zip(refs, hyps))
        w = (1 / n_max,) * n_max
        p_n = [Fraction(a, b, _normalize=False) for a, b in zip(nums, dens)]
        assert nltk_final_score(p_n, brevity_penalty(rl, c), w) == corpus_bleu(refs, hyps, weights=w)
        assert not math.isnan(corpus_bleu(refs, hyps, weights=w))


def test_variable_and_empty_references():
    """NLTK takes per-segment reference lists: variable counts and [] need no padding."""
    request = {"hypotheses": [["a", "b"], ["c"], []],
               "references": [[["a", "b"], ["a", "b", "x"]], [["c", "d", "e"]], [[], ["q"]]],
               "max_order": 1}
    expected = execute("bleu-corpus-compute", request)
    for mode in ("as_called", "mapped"):
        out = _run(mode, "bleu-corpus-compute", request).output
        assert out["reference_length"] == expected["reference_length"] == 5
        assert out["matches"] == expected["matches"]


def test_whitespace_tokens_survive():
    """NLTK compares token lists, so tokens with spaces are kept in both modes."""
    request = {"hypotheses": [["New York", "is", "big"]], "references": [[["New York", "is", "big"]]],
               "max_order": 3}
    expected = execute("bleu-corpus-compute", request)
    for mode in ("as_called", "mapped"):
        assert _run(mode, "bleu-corpus-compute", request).output == expected


@pytest.mark.parametrize("smoothing,extra", [
    ("method1", {}), ("method1", {"epsilon": 0.3}), ("method2", {}), ("method3", {}),
])
def test_smoothing_counts_equal_card(smoothing, extra):
    """Without zero totals, NLTK's smoothed counts equal the card's exactly."""
    request = {"matches": [7, 3, 0, 0], "totals": [9, 8, 7, 6], "candidate_length": 9,
               "reference_length": 10, "smoothing": smoothing, **extra}
    expected = execute("bleu-smoothing-compute", request)
    before = copy.deepcopy(request)
    out = _run("mapped", "bleu-smoothing-compute", request).output
    assert request == before
    assert out["smoothed_matches"] == expected["smoothed_matches"]
    assert out["smoothed_totals"] == expected["smoothed_totals"]
    if out["bleu"] != expected["bleu"]:
        assert_reproduced("nltk", "mapped", "bleu-smoothing-compute", request, out)


def test_zero_total_not_representable_in_mapped_mode():
    """mapped says why a zero total cannot be given to NLTK; as_called shows NLTK's error."""
    ex = card("bleu-smoothing-compute").examples[1]["input"]
    mapped = _run("mapped", "bleu-smoothing-compute", ex)
    as_called = _run("as_called", "bleu-smoothing-compute", ex)
    assert mapped.output is None and "Fraction" in mapped.not_representable
    assert as_called.output is None and as_called.error == "ZeroDivisionError: Fraction(0, 0)"


def test_brevity_examples_equal_card():
    """NLTK's closest_ref_length and brevity_penalty agree with all three brevity examples."""
    for ex in card("bleu-brevity-penalty").examples:
        for mode in ("as_called", "mapped"):
            assert _run(mode, "bleu-brevity-penalty", ex["input"]).output == ex["output"]


def test_brevity_tie_goes_to_shorter():
    """A closest-length tie (4 vs 6 around 5) goes to the shorter, as in the card."""
    request = {"segments": [{"candidate_length": 5, "reference_lengths": [6, 4]}]}
    expected = execute("bleu-brevity-penalty", request)
    assert _run("as_called", "bleu-brevity-penalty", request).output == expected
    assert expected["closest_reference_lengths"] == [4]
