"""Chen & Cherry (2014) smoothing 1–3 (bleu_compat.smoothing) and BLEU from statistics (smoothed_bleu).

Smoothed counts are checked against the card's semantics 2 written out by hand;
scores against the card formula replayed with floats (``sum / orders_used``,
0 ULPs) and against mpmath truth within 16 ULPs (each of <= 8 terms errs by
about u + 2u|term| after division and log, the sum by u per partial, then exp
turns that absolute error into a relative one; the largest bound over these
cases, computed as in test_bleu._bound_ulps, is under 16).
"""

from __future__ import annotations

import math

import mpmath
import pytest

from bleu_compat import ConfigError, InvalidInputError
from bleu_compat.bleu import smoothed_bleu
from bleu_compat.smoothing import (
    DEFAULT_EPSILON,
    Smoothing,
    smooth,
    smooth_method1,
    smooth_method2,
    smooth_method3,
    smooth_none,
)
from bleu_compat.ulp import ulp_distance


def replay(sm, st, c, r, orders_used):
    """The smoothing card's formula with floats: BP * exp(sum of ln(sm/st), n = 1..used, / used)."""
    bp = 0.0 if c == 0 else 1.0 if c > r else math.exp(1 - r / c)
    s = 0.0
    for k in range(orders_used):
        s += math.log(sm[k] / st[k])
    return bp * math.exp(s / orders_used)


def truth(sm, st, c, r, orders_used):
    """The exact value from mpmath (50 digits), rounded once."""
    with mpmath.workdps(50):
        bp = mpmath.mpf(1) if c > r else mpmath.exp(1 - mpmath.mpf(r) / c)
        s = mpmath.fsum(mpmath.log(mpmath.mpf(sm[k]) / st[k]) for k in range(orders_used))
        return float(bp * mpmath.exp(s / orders_used))


class TestSmoothNone:
    """``smooth_none`` keeps the counts."""

    def test_identity(self) -> None:
        """Counts come back unchanged as tuples."""
        assert smooth_none([1, 0], [2, 1]) == ((1, 0), (2, 1))


class TestSmoothMethod1:
    """``smooth_method1`` replaces zero matches with epsilon."""

    def test_default_epsilon(self) -> None:
        """Zero matches become 0.1 by default; totals unchanged."""
        assert smooth_method1([3, 0, 1, 0], [4, 3, 2, 1]) == ((3, 0.1, 1, 0.1), (4, 3, 2, 1))
        assert DEFAULT_EPSILON == 0.1

    def test_given_epsilon(self) -> None:
        """A given epsilon is used as given (0 and 1 included)."""
        assert smooth_method1([0, 2], [1, 2], 0.01)[0] == (0.01, 2)
        assert smooth_method1([0], [1], 0)[0] == (0,)
        assert smooth_method1([0], [1], 1)[0] == (1,)

    @pytest.mark.parametrize("eps", [-0.1, 1.5, True, math.nan])
    def test_bad_epsilon(self, eps: float) -> None:
        """epsilon outside [0, 1] (or a bool, or NaN) is ConfigError."""
        with pytest.raises(ConfigError):
            smooth_method1([0], [1], eps)


class TestSmoothMethod2:
    """``smooth_method2`` adds one to matches and totals of orders n >= 2."""

    def test_add_one(self) -> None:
        """Order 1 is unchanged; 0/0 becomes 1/1 (card example 2)."""
        assert smooth_method2([1, 0, 0, 0], [1, 0, 0, 0]) == ((1, 1, 1, 1), (1, 1, 1, 1))
        assert smooth_method2([5, 3], [6, 4]) == ((5, 4), (6, 5))

    def test_does_not_mutate(self) -> None:
        """The caller's lists are untouched (sacreBLEU's add-k mutates them; we do not)."""
        m, t = [1, 0], [2, 1]
        smooth_method2(m, t)
        assert (m, t) == ([1, 0], [2, 1])


class TestSmoothMethod3:
    """``smooth_method3`` gives the k-th zero-match order 1/2^k, k counted over all orders."""

    def test_card_example_3(self) -> None:
        """[2, 1, 0, 0] becomes [2, 1, 0.5, 0.25], zero totals included in the numbering."""
        assert smooth_method3([2, 1, 0, 0], [2, 1, 0, 0]) == ((2, 1, 0.5, 0.25), (2, 1, 0, 0))

    def test_interleaved(self) -> None:
        """Zero orders are numbered in order even with non-zero orders between them."""
        assert smooth_method3([4, 0, 2, 0, 0], [5, 4, 3, 2, 1])[0] == (4, 0.5, 2, 0.25, 0.125)

    def test_eight_orders_exact(self) -> None:
        """1/2^k for k up to 7 is exact in binary."""
        sm, _ = smooth_method3([1] + [0] * 7, [8, 7, 6, 5, 4, 3, 2, 1])
        assert sm[1:] == tuple(2.0**-k for k in range(1, 8))


class TestSmooth:
    """``smooth`` dispatches on the method and checks options."""

    @pytest.mark.parametrize("method", ["none", "method1", "method2", "method3", Smoothing.METHOD2])
    def test_dispatch(self, method: str) -> None:
        """Each method name (string or enum) dispatches to its function."""
        funcs = {"none": smooth_none, "method1": smooth_method1, "method2": smooth_method2,
                 "method3": smooth_method3}
        assert smooth([2, 0], [3, 2], method) == funcs[Smoothing(method).value]([2, 0], [3, 2])

    @pytest.mark.parametrize("method", ["method4", "floor", "", None])
    def test_unknown(self, method: object) -> None:
        """An unknown method is ConfigError naming it."""
        with pytest.raises(ConfigError, match="smoothing="):
            smooth([1], [1], method)  # type: ignore[arg-type]

    @pytest.mark.parametrize("method", ["none", "method2", "method3"])
    def test_epsilon_only_with_method1(self, method: str) -> None:
        """epsilon with another method is ConfigError."""
        with pytest.raises(ConfigError, match="epsilon"):
            smooth([1], [1], method, epsilon=0.1)


CASES = [
    # (matches, totals, c, r, smoothing, epsilon, effective_order, smoothed_matches, smoothed_totals, used)
    ([9, 7, 5, 3], [10, 8, 6, 4], 11, 11, "none", None, False, (9, 7, 5, 3), (10, 8, 6, 4), 4),
    ([3, 1, 0, 0], [4, 3, 2, 1], 4, 5, "method1", None, False, (3, 1, 0.1, 0.1), (4, 3, 2, 1), 4),
    ([3, 1, 0, 0], [4, 3, 2, 1], 4, 5, "method1", 0.01, False, (3, 1, 0.01, 0.01), (4, 3, 2, 1), 4),
    ([3, 1, 0, 0], [4, 3, 2, 1], 4, 3, "method2", None, False, (3, 2, 1, 1), (4, 4, 3, 2), 4),
    ([3, 1, 0, 0], [4, 3, 2, 1], 4, 4, "method3", None, False, (3, 1, 0.5, 0.25), (4, 3, 2, 1), 4),
    ([2, 1, 0, 0], [2, 1, 0, 0], 2, 3, "method3", None, True, (2, 1, 0.5, 0.25), (2, 1, 0, 0), 2),
    ([5, 2, 0], [6, 5, 0], 6, 9, "none", None, True, (5, 2, 0), (6, 5, 0), 2),
    ([7, 3], [9, 8], 9, 20, "method1", 0.5, True, (7, 3), (9, 8), 2),
]


class TestSmoothedBleu:
    """``smoothed_bleu`` applies the smoothing card's semantics 2–5."""

    @pytest.mark.parametrize("case", CASES, ids=[f"{c[4]}-{i}" for i, c in enumerate(CASES)])
    def test_cases(self, case: tuple) -> None:
        """Smoothed counts are as specified; bleu equals the replayed formula and mpmath within 16 ULPs."""
        m, t, c, r, method, eps, eff, sm, st, used = case
        res = smoothed_bleu(m, t, c, r, smoothing=method, epsilon=eps, effective_order=eff)
        assert (res.smoothed_matches, res.smoothed_totals, res.orders_used) == (sm, st, used)
        assert res.bleu == replay(sm, st, c, r, used)
        assert ulp_distance(res.bleu, truth(sm, st, c, r, used)) <= 16

    def test_card_example_1(self) -> None:
        """The card's first example rounds to 0.8375922397 at 10 places (mpmath truth)."""
        assert round(truth((9, 7, 5, 3), (10, 8, 6, 4), 11, 11, 4), 10) == 0.8375922397

    def test_method2_perfect_unigram(self) -> None:
        """Card example 2: m = l = [1, 0, 0, 0] with method2 scores exactly 1 over 4 orders."""
        res = smoothed_bleu([1, 0, 0, 0], [1, 0, 0, 0], 1, 1, smoothing="method2")
        assert (res.bleu, res.orders_used) == (1.0, 4)

    def test_no_smoothing_zero_order(self) -> None:
        """Without smoothing a zero-match order gives 0.0."""
        assert smoothed_bleu([3, 0], [4, 3], 4, 4).bleu == 0.0

    @pytest.mark.parametrize("method", ["none", "method1", "method2", "method3"])
    def test_m1_zero_is_zero(self, method: str) -> None:
        """m_1 = 0 gives 0 before smoothing, for every method."""
        assert smoothed_bleu([0, 0], [3, 2], 3, 3, smoothing=method).bleu == 0.0

    def test_c_zero_is_zero(self) -> None:
        """c = 0 gives bleu 0 and BP 0."""
        res = smoothed_bleu([0], [0], 0, 0, smoothing="method2")
        assert (res.bleu, res.brevity_penalty) == (0.0, 0.0)

    def test_r_zero_c_positive(self) -> None:
        """r = 0 < c gives BP 1."""
        assert smoothed_bleu([1], [1], 1, 0).brevity_penalty == 1.0

    def test_effective_order_zero_orders(self) -> None:
        """Effective order with l_1 = 0 uses no order and scores 0."""
        res = smoothed_bleu([0, 0], [0, 0], 3, 3, effective_order=True)
        assert (res.orders_used, res.bleu) == (0, 0.0)

    def test_effective_order_counts_leading_orders_only(self) -> None:
        """Orders after the first zero total are not used even if a later total is > 0."""
        assert smoothed_bleu([2, 1, 0, 1], [3, 2, 0, 1], 3, 3, effective_order=True).orders_used == 2

    def test_method1_epsilon_zero(self) -> None:
        """method1 with epsilon 0 leaves a zero match, so the score is 0."""
        assert smoothed_bleu([2, 0], [2, 1], 2, 2, smoothing="method1", epsilon=0).bleu == 0.0

    def test_huge_counts(self) -> None:
        """Counts up to the card's 1e12 cap are exact ints and the score is finite."""
        big = 10**12
        res = smoothed_bleu([big - 1, big - 2], [big, big - 1], big, big)
        assert 0 < res.bleu < 1 and ulp_distance(res.bleu, truth((big - 1, big - 2), (big, big - 1), big, big, 2)) <= 16

    @pytest.mark.parametrize(
        ("m", "t"), [([2], [1]), ([0, 1], [2, 1]), ([1, 1], [1]), ([], []), ([-1], [1])]
    )
    def test_invalid_counts(self, m: list[int], t: list[int]) -> None:
        """m_n > l_n, m_1 = 0 with m_n > 0, unequal lengths, no orders or negatives: InvalidInputError."""
        with pytest.raises(InvalidInputError):
            smoothed_bleu(m, t, 1, 1)

    def test_arguments_untouched(self) -> None:
        """The caller's lists are not modified."""
        m, t = [1, 0, 0], [2, 1, 0]
        smoothed_bleu(m, t, 2, 2, smoothing="method2")
        assert (m, t) == ([1, 0, 0], [2, 1, 0])
