"""The truth module: independent statistics and mpmath values against hand calculations."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from bleu_compat.harness.generate import generate_case
from bleu_compat.harness.truth import (
    closest_length, ngram_counts, segment_truth_stats, to_double, truth,
)
from bleu_compat.harness.truth import to_fixed as truth_to_fixed
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


# --- the truth's own toFixed (SPEC.md §2; ECMA-262 Number.prototype.toFixed) -----------

#: (x, decimals, Number(x.toFixed(decimals))) from SPEC.md §2's text and ECMA-262's rule
#: (exact binary value; a tie goes to the larger n, i.e. away from zero).
SPEC_TO_FIXED = [
    (0.625, 2, 0.63),      # SPEC §2: exact tie, larger magnitude (round() gives 0.62)
    (0.125, 2, 0.13),      # SPEC §2 (round() gives 0.12)
    (0.5, 0, 1.0),         # SPEC §2 (round() gives 0)
    (0.0625, 3, 0.063),    # SPEC §2 (round() gives 0.062)
    (1.005, 2, 1.0),       # SPEC §2: 1.00499999999999989... lies below the tie
    (2.5, 0, 3.0),         # tie, larger n (round() gives 2)
    (0.375, 2, 0.38),      # 3/8: a tie at 2 places
    (0.03125, 4, 0.0313),  # 1/32: a tie at 4 places (round() gives 0.0312)
    (0.1, 15, 0.1),        # 0.1000000000000000055... to 15 places
    (0.1, 0, 0.0),
    (1.0, 15, 1.0),
    (0.0, 15, 0.0),
    (5e-324, 15, 0.0),     # the smallest subnormal rounds to 0
    (0.9999999999999999, 15, 1.0),
]


@pytest.mark.parametrize(("x", "decimals", "want"), SPEC_TO_FIXED)
def test_truth_to_fixed_spec_cases(x: float, decimals: int, want: float) -> None:
    """The truth's toFixed gives SPEC §2's values, ties to the larger magnitude."""
    got = truth_to_fixed(x, decimals)
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_truth_to_fixed_signs_and_large_values() -> None:
    """(-0).toFixed(2) is "0.00" (+0); (-0.001).toFixed(2) is "-0.00" (-0); a negative tie goes
    away from zero; from 1e21 on toFixed is ToString, which reads back as x."""
    assert math.copysign(1.0, truth_to_fixed(-0.0, 2)) == 1.0
    assert math.copysign(1.0, truth_to_fixed(-0.001, 2)) == -1.0
    assert truth_to_fixed(-0.625, 2) == -0.63
    assert truth_to_fixed(1e21, 2) == 1e21 and truth_to_fixed(123456789.125, 2) == 123456789.13
    with pytest.raises(ValueError):
        truth_to_fixed(0.5, 101)


def test_truth_to_fixed_against_decimal_on_many_values() -> None:
    """On 2,000 doubles of [0, 1], to_fixed equals an independent ROUND_HALF_UP quantisation of
    Decimal(x) (Decimal(float) is exact) read back by float(str)."""
    import decimal
    import random

    rng = random.Random(11)
    ctx = decimal.Context(prec=1200, rounding=decimal.ROUND_HALF_UP)
    for _ in range(2000):
        x = rng.choice([rng.random(), rng.randrange(1 << 12) / (1 << rng.randrange(1, 13))])
        d = rng.randrange(16)
        want = float(decimal.Decimal(x).quantize(decimal.Decimal(1).scaleb(-d), context=ctx))
        assert truth_to_fixed(x, d) == want, (x, d)


# --- IEEE-754 as JavaScript evaluates the formula (SPEC.md §2) -------------------------

SMOOTH = {"candidate_length": 1, "reference_length": 1, "smoothing": "method1"}


def test_subnormal_epsilon_quotient_underflows_to_bleu_zero() -> None:
    """SPEC §2: 5e-324 / 2 is 0, ln(0) = -inf, bleu 0; the truth does not raise, exact agrees."""
    t = truth("bleu-smoothing-compute", {**SMOOTH, "matches": [1, 0], "totals": [1, 2], "epsilon": 5e-324})
    assert t.expected["bleu"] == 0.0 and t.exact["bleu"] == 0.0 and t.expected["brevity_penalty"] == 1.0
    assert t.expected["smoothed_matches"] == [1, 5e-324]


@pytest.mark.parametrize(("epsilon", "total", "underflows"), [
    (5e-324, 2, True),      # 2^-1075: the tie at half the smallest subnormal goes to even 0
    (5e-324, 1, False),     # the smallest subnormal itself
    (1.5e-323, 6, True),    # 3 * 2^-1074 / 6 = 2^-1075, again the tie
    (1.5e-323, 5, False),   # 0.6 units of 2^-1074: rounds up to 5e-324
    (1e-320, 10**5, True),  # about 0.02 units
    (1e-310, 10**12, False),  # 1e-322: subnormal, not 0
    (1e-300, 10**12, False),
    (1e-9, 10**12, False),
])
def test_underflow_branch_is_ieee_division(epsilon: float, total: int, underflows: bool) -> None:
    """The truth's bleu is 0 exactly when the IEEE double of epsilon/total is 0, on both sides."""
    assert (epsilon / total == 0.0) is underflows  # Python's float division is IEEE's
    request = {**SMOOTH, "matches": [1, 0], "totals": [1, total], "epsilon": epsilon}
    t = truth("bleu-smoothing-compute", request)
    assert (t.expected["bleu"] == 0.0) is underflows
    assert (t.exact["bleu"] == 0.0) is underflows
    if not underflows:
        # card order: ln(1/1) + ln(eps/total), mean, exp, times BP 1
        assert t.expected["bleu"] == math.exp((math.log(1 / 1) + math.log(epsilon / total)) / 2)
        with mpmath.workdps(80):
            want = mpmath.exp(mpmath.log(mpmath.mpf(Fraction(epsilon).numerator)
                                         / (Fraction(epsilon).denominator * total)) / 2)
        assert t.exact["bleu"] == to_double(want)


def test_huge_lengths_bp_zero_without_raising() -> None:
    """r / c overflowing (lengths beyond any card, which the truth does not check) gives BP 0;
    exp(1 - r/c) underflowing (c = 1, r = 1e6) gives BP 0 on both sides."""
    t = truth("bleu-brevity-penalty", {"segments": [{"candidate_length": 1, "reference_lengths": [10**400]}]})
    assert t.expected["brevity_penalty"] == 0.0 and t.exact["brevity_penalty"] == 0.0
    t = truth("bleu-smoothing-compute", {"matches": [1], "totals": [1], "candidate_length": 1,
                                         "reference_length": 10**12, "smoothing": "none"})
    assert t.expected == {"orders_used": 1, "smoothed_matches": [1], "smoothed_totals": [1],
                          "bleu": 0.0, "brevity_penalty": 0.0}
    assert t.exact["brevity_penalty"] == 0.0


def test_exact_bp_near_the_subnormal_range() -> None:
    """exp(1 - 745) is subnormal (about 5e-324 * 2.2): exact is the correctly rounded double."""
    t = truth("bleu-brevity-penalty", {"segments": [{"candidate_length": 1, "reference_lengths": [745]}]})
    with mpmath.workdps(80):
        want = to_double(mpmath.exp(1 - mpmath.mpf(745)))
    assert t.exact["brevity_penalty"] == want and want > 0
    assert t.expected["brevity_penalty"] == math.exp(1 - 745)


# --- the public per-segment primitives ---------------------------------------------------


def test_ngram_counts_and_closest_length() -> None:
    """Counts by exact equality; ties in closest length go to the shorter."""
    assert ngram_counts(["a", "b", "a", "b"], 2) == {("a", "b"): 2, ("b", "a"): 1}
    assert ngram_counts(["a"], 2) == {}
    assert ngram_counts(["a", "a ", "A", "e\u0301", "\u00e9"], 1) == {(t,): 1 for t in
                                                                    ["a", "a ", "A", "e\u0301", "\u00e9"]}
    assert closest_length(4, [5, 3]) == 3 and closest_length(4, [3, 5]) == 3
    assert closest_length(4, [6, 2, 5]) == 5 and closest_length(0, [0]) == 0


def test_segment_truth_stats_clips_per_reference() -> None:
    """Papineni 2002 §2.1: 'the' x7 vs refs with 2 and 1 'the': clipped to the max single count, 2."""
    m, t, c, r = segment_truth_stats(["the"] * 7, [["the", "cat", "the", "mat"], ["the", "cat"]], 2)
    assert (m, t, c, r) == ([2, 0], [7, 6], 7, 4)
    assert segment_truth_stats([], [[]], 4) == ([0] * 4, [0] * 4, 0, 0)


def test_planted_half_even_to_fixed_in_the_core_does_not_move_the_truth(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core toFixed that breaks ties to even (Python's round) changes execute(), not the truth:
    the truth has its own toFixed, so the difference is visible to the harness."""
    import bleu_compat.rounding
    import bleu_compat.tools

    def half_even(x: float, decimals: int) -> float:
        return round(x, decimals)

    monkeypatch.setattr(bleu_compat.rounding, "to_fixed", half_even)
    monkeypatch.setattr(bleu_compat.tools, "to_fixed", half_even)
    request = {"matches": [5], "totals": [8], "candidate_length": 8, "reference_length": 1,
               "smoothing": "none", "decimals": 2}
    assert truth("bleu-smoothing-compute", request).expected["bleu"] == 0.63
    assert execute("bleu-smoothing-compute", request)["bleu"] == 0.62
