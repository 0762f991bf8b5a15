"""The truth module: independent statistics and mpmath values against hand calculations."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from bleu_compat.harness.generate import generate_case
from bleu_compat.harness.truth import to_double, truth
from bleu_compat.tools import TOOL_IDS, card, execute


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_card_examples(tool_id: str) -> None:
    """Truth reproduces every worked example of the card exactly."""
    for example in card(tool_id).examples:
        assert truth(tool_id, example["input"]).expected == example["output"]


def test_hand_computed_corpus() -> None:
    """Papineni's clipping: 'the the the the' vs 'the cat': m1 = 2 (clipped), l1 = 4."""
    t = truth("bleu-corpus-compute", {"hypotheses": [["the"] * 4], "references": [[["the", "cat", "the"]]],
                                      "max_order": 1})
    assert t.expected["matches"] == [2] and t.expected["totals"] == [4]
    # c = 4 > r = 3: BP = 1, bleu = exp(ln(1/2)) = 0.5 exactly in the real numbers.
    assert t.exact["bleu"] == 0.5


def test_exact_bp_is_correctly_rounded() -> None:
    """exp(1 - 28/12) from mpmath at 100 digits, rounded once, equals truth's exact BP."""
    with mpmath.workdps(100):
        want = float(mpmath.exp(1 - mpmath.mpf(28) / 12))
    got = truth("bleu-brevity-penalty",
                {"segments": [{"candidate_length": 12, "reference_lengths": [28]}]}).exact["brevity_penalty"]
    assert got == want


def test_to_double_subnormal_and_zero() -> None:
    """Subnormal values round at 2^-1074; 0 stays 0."""
    assert to_double(mpmath.mpf(0)) == 0.0
    with mpmath.workdps(60):
        assert to_double(mpmath.mpf(2) ** -1074 * 3) == 3 * 5e-324
        assert to_double(mpmath.mpf(2) ** -1074 * mpmath.mpf("0.75")) == 5e-324


def test_decimals_apply_to_card_double() -> None:
    """With decimals the expected field is toFixed of the card-order double (0.625 -> 0.63)."""
    t = truth("bleu-smoothing-compute", {"matches": [5], "totals": [8], "candidate_length": 8,
                                         "reference_length": 1, "smoothing": "none", "decimals": 2})
    assert t.unrounded["bleu"] == math.exp(math.log(5 / 8))
    assert t.exact["bleu"] == 0.625 and t.exact_rounded["bleu"] == 0.63


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_ours_matches_truth_bit_for_bit(tool_id: str) -> None:
    """On 150 generated cases, execute() equals the independent card-order evaluation."""
    for k in range(150):
        request = generate_case(3, tool_id, k).request
        assert execute(tool_id, request) == truth(tool_id, request).expected, request


def test_method3_counts_are_exact_powers_of_two() -> None:
    """method3's k-th zero order is 1/2^k (card example 3)."""
    t = truth("bleu-smoothing-compute", {"matches": [2, 0, 0], "totals": [2, 1, 0], "candidate_length": 2,
                                         "reference_length": 2, "smoothing": "method3"})
    assert [Fraction(x) for x in t.expected["smoothed_matches"]] == [2, Fraction(1, 2), Fraction(1, 4)]
