"""JavaScript ``toFixed`` and ``Number::toString`` (bleu_compat.rounding), directly and through the tools.

Expected strings come from ECMA-262 (Number.prototype.toFixed, step 10.a: of two
equally near decimals "pick the larger n"; Number::toString) and from SPEC.md §2's
list: 0.625→0.63, 0.125→0.13, 0.5→1, 0.0625→0.063, 1.005→1.0 (1.005's binary value
lies below the tie). The exact binary value of each input is checked with
``fractions.Fraction`` so a "tie" really is a tie.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_compat import execute
from bleu_compat.rounding import js_number_str, to_fixed, to_fixed_str


def _js_to_fixed_reference(x: float, decimals: int) -> str:
    """An independent toFixed on the exact rational value (ECMA-262 step 10), for x >= 0."""
    exact = Fraction(x)
    scaled = exact * 10**decimals
    n = math.floor(scaled)
    if scaled - n >= Fraction(1, 2):  # tie: pick the larger n
        n += 1
    digits = str(n).rjust(decimals + 1, "0")
    return digits if decimals == 0 else digits[:-decimals] + "." + digits[-decimals:]


class TestToFixedStr:
    """``to_fixed_str(x, decimals)`` writes what JavaScript's ``x.toFixed(decimals)`` writes."""

    @pytest.mark.parametrize(
        ("x", "decimals", "expected"),
        [
            (0.625, 2, "0.63"),
            (0.125, 2, "0.13"),
            (0.5, 0, "1"),
            (1.5, 0, "2"),
            (2.5, 0, "3"),
            (0.0625, 3, "0.063"),
            (0.375, 2, "0.38"),
            (0.3125, 3, "0.313"),
            (1.005, 2, "1.00"),
            (1.45, 1, "1.4"),
            (0.0, 3, "0.000"),
            (1.0, 0, "1"),
            (123.456, 1, "123.5"),
            (1e-10, 5, "0.00000"),
        ],
    )
    def test_table(self, x: float, decimals: int, expected: str) -> None:
        """Known toFixed results, including exact binary ties that go to the larger magnitude."""
        assert to_fixed_str(x, decimals) == expected

    @pytest.mark.parametrize(("x", "decimals"), [(0.625, 2), (0.125, 2), (0.5, 0), (0.0625, 3)])
    def test_ties_are_exact_ties(self, x: float, decimals: int) -> None:
        """The SPEC's tie cases are exact binary ties, where Python's round goes to even instead."""
        scaled = Fraction(x) * 10**decimals
        assert scaled - math.floor(scaled) == Fraction(1, 2)
        assert round(x, decimals) < to_fixed(x, decimals)

    def test_1_005_lies_below_the_tie(self) -> None:
        """1.005's exact binary value is below 1.005, so toFixed(2) is 1.00."""
        assert Fraction(1.005) < Fraction(1005, 1000)
        assert to_fixed(1.005, 2) == 1.0

    def test_negative_zero_has_no_sign(self) -> None:
        """(-0).toFixed(2) is "0.00" in JavaScript: -0 is not < 0 (ECMA-262 step 9)."""
        assert to_fixed_str(-0.0, 2) == "0.00"

    def test_negative_values_keep_the_sign(self) -> None:
        """(-0.001).toFixed(2) is "-0.00" and (-0.625).toFixed(2) is "-0.63" (x < 0 sets the sign)."""
        assert to_fixed_str(-0.001, 2) == "-0.00"
        assert to_fixed_str(-0.625, 2) == "-0.63"

    def test_large_values_fall_back_to_tostring(self) -> None:
        """From 1e21 on, toFixed returns ToString(x) (ECMA-262 step 8)."""
        assert to_fixed_str(1e21, 2) == "1e+21"

    @pytest.mark.parametrize("bad", [-1, 101, 1.0, True, "2"])
    def test_bad_decimals(self, bad: object) -> None:
        """decimals outside 0–100 or not an int is a ValueError."""
        with pytest.raises(ValueError):
            to_fixed_str(0.5, bad)  # type: ignore[arg-type]

    @pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
    def test_non_finite(self, bad: float) -> None:
        """NaN and infinities are refused."""
        with pytest.raises(ValueError):
            to_fixed_str(bad, 2)

    def test_against_reference_on_dyadic_grid(self) -> None:
        """Every k/2^12 in [0, 1] at 0–6 places equals the independent Fraction-based toFixed."""
        for k in range(0, 4097, 7):
            x = k / 4096
            for decimals in range(0, 7):
                assert to_fixed_str(x, decimals) == _js_to_fixed_reference(x, decimals), (x, decimals)


class TestToFixed:
    """``to_fixed`` reads the toFixed string back as a double."""

    @pytest.mark.parametrize(
        ("x", "decimals", "expected"),
        [(0.625, 2, 0.63), (0.125, 2, 0.13), (0.5, 0, 1.0), (0.0625, 3, 0.063), (1.005, 2, 1.0)],
    )
    def test_spec_cases(self, x: float, decimals: int, expected: float) -> None:
        """SPEC.md §2's five cases."""
        assert to_fixed(x, decimals) == expected

    def test_card_example_value(self) -> None:
        """The corpus card's BP exp(1 - 18/17) (mpmath) to 6 places is 0.942873, as its example says."""
        with mpmath.workdps(50):
            truth = mpmath.exp(1 - mpmath.mpf(18) / 17)
        assert to_fixed(float(truth), 6) == 0.942873


class TestJsNumberStr:
    """``js_number_str`` writes numbers as ECMAScript Number::toString does."""

    @pytest.mark.parametrize(
        ("x", "expected"),
        [
            (1.0, "1"),
            (1, "1"),
            (0.0, "0"),
            (-0.0, "0"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123.456, "123.456"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (2.0**53, "9007199254740992"),
            (0.8375922397, "0.8375922397"),
        ],
    )
    def test_table(self, x: float, expected: str) -> None:
        """Known JavaScript String(x) results."""
        assert js_number_str(x) == expected

    def test_round_trips(self) -> None:
        """The written digits read back as the same double."""
        for x in (0.1, 1 / 3, math.pi, 2.0**-1074, 1.7976931348623157e308, 0.4853081233710311):
            assert float(js_number_str(x)) == x

    @pytest.mark.parametrize("bad", [math.nan, math.inf, True])
    def test_refuses_non_numbers(self, bad: object) -> None:
        """NaN, infinity and bool cannot be written as a JSON number."""
        with pytest.raises(ValueError):
            js_number_str(bad)  # type: ignore[arg-type]


def _correctly_rounded_exp_of_log(p: float) -> float:
    """exp(fl(ln p)) rounded once to a double, with mpmath (what a correctly rounded libm gives)."""
    with mpmath.workdps(60):
        return float(mpmath.exp(mpmath.mpf(math.log(p))))


class TestTiesThroughTheTool:
    """The tools round ``bleu`` exactly like toFixed on requests whose exact result is a tie."""

    @pytest.mark.parametrize(
        ("m", "t", "decimals", "expected"),
        [(1, 2, 0, 1), (5, 8, 2, 0.63), (1, 16, 3, 0.063), (5, 16, 3, 0.313), (3, 8, 2, 0.38)],
    )
    def test_smoothing_tool_ties(self, m: int, t: int, decimals: int, expected: float) -> None:
        """bleu = exp(ln(m/t)) with one order equals m/t exactly here, and decimals rounds the tie up."""
        p = m / t
        if _correctly_rounded_exp_of_log(p) != p:
            pytest.skip(f"exp(ln({p})) is not exactly {p} even when correctly rounded")
        request = {"matches": [m], "totals": [t], "candidate_length": 5, "reference_length": 5,
                   "smoothing": "none"}
        assert execute("bleu-smoothing-compute", request)["bleu"] == p
        out = execute("bleu-smoothing-compute", {**request, "decimals": decimals})
        assert out["bleu"] == expected
        assert out["brevity_penalty"] == 1

    def test_corpus_tool_tie(self) -> None:
        """A max_order-1 corpus with 5 of 8 unigrams matched and c > r scores 0.625 → 0.63 at 2 places."""
        hyp = ["a", "b", "c", "d", "e", "x", "y", "z"]
        ref = ["a", "b", "c", "d", "e", "q", "r"]
        request = {"hypotheses": [hyp], "references": [[ref]], "max_order": 1}
        assert execute("bleu-corpus-compute", request)["bleu"] == 0.625
        out = execute("bleu-corpus-compute", {**request, "decimals": 2})
        assert out["bleu"] == 0.63 and out["matches"] == [5] and out["totals"] == [8]

    def test_half_at_zero_places(self) -> None:
        """A corpus scoring exactly 0.5 rounds to 1 at 0 places (Python's round gives 0)."""
        request = {"hypotheses": [["a", "x"]], "references": [[["a"]]], "max_order": 1}
        assert execute("bleu-corpus-compute", request)["bleu"] == 0.5
        out = execute("bleu-corpus-compute", {**request, "decimals": 0})
        assert out["bleu"] == 1 and round(0.5) == 0

    def test_brevity_penalty_rounding(self) -> None:
        """The brevity tool rounds exp(1 - 28/12) (mpmath) with toFixed at 3 places."""
        with mpmath.workdps(50):
            truth = mpmath.exp(1 - mpmath.mpf(28) / 12)
        expected = float(Decimal(str(truth)).quantize(Decimal("0.001")))
        out = execute("bleu-brevity-penalty",
                      {"segments": [{"candidate_length": 12, "reference_lengths": [28]}], "decimals": 3})
        assert out["brevity_penalty"] == expected == 0.264


# The shortcut for repr's fixed-notation range (1e-4 <= |x| < 1e16) must write exactly what the
# general path (exponent range analysis on repr's digits, ECMA-262 Number::toString) writes.
_FIXED_EDGES = [1e-4, 9.999999999999999e-05, 1.0000000000000002e-04, 1e16, 9999999999999998.0,
                1e15, 123.0, 0.5, 1.0, 100.0, 28.301225088283296, 0.1 + 0.2, 2.0**53, 2.0**53 - 1]


@pytest.mark.parametrize("x", _FIXED_EDGES + [-x for x in _FIXED_EDGES])
def test_js_number_fixed_shortcut_edges(x: float) -> None:
    from bleu_compat.rounding import _js_float_str

    assert js_number_str(x) == _js_float_str(x)
    assert float(js_number_str(x)) == x


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: v != 0))
def test_js_number_fixed_shortcut_equals_the_general_path(x: float) -> None:
    from bleu_compat.rounding import _js_float_str

    assert js_number_str(x) == _js_float_str(x)
