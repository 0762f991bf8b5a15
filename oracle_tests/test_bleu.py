"""Brevity penalty and corpus BLEU (bleu_compat.bleu), against exact and high-precision arithmetic.

Method: counts are derived independently (by hand or by the Counter-based counter
in test_stats.py, re-written here); the expected double is (a) the card formula
replayed with plain floats from those counts — ``ln(m_n/l_n)`` division first,
summed left to right, ``(1/N) * sum``, ``exp``, times BP — which must agree to
0 ULPs, and (b) the mathematically exact value from mpmath at 50 digits, which
must lie within an error bound derived for that formula (see ``_bound_ulps``).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

from bleu_compat import InvalidInputError
from bleu_compat.bleu import (
    BleuResult,
    bleu_from_stats,
    brevity_penalty,
    corpus_bleu,
    corpus_brevity_penalty,
)
from bleu_compat.stats import SufficientStats
from bleu_compat.ulp import ulp_distance

U = 2.0**-53  # unit roundoff of IEEE-754 double


def independent_stats(hyps, refs, max_order):
    """Clipped matches, totals and lengths from the definition (Papineni 2002 §2.1, §2.2.2)."""
    m, t = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, rs in zip(hyps, refs):
        for n in range(1, max_order + 1):
            grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            for g, k in grams.items():
                m[n - 1] += min(k, max(sum(1 for i in range(len(x) - n + 1) if tuple(x[i : i + n]) == g)
                                       for x in rs))
            t[n - 1] += max(len(hyp) - n + 1, 0)
        c += len(hyp)
        r += min((len(x) for x in rs), key=lambda L: (abs(L - len(hyp)), L))
    return m, t, c, r


def card_formula(m, t, c, r):
    """The corpus card's formula replayed with plain floats in the card's order of operations."""
    if c == 0:
        bp = 0.0
    elif c > r:
        bp = 1.0
    else:
        bp = math.exp(1 - r / c)
    if bp == 0.0 or 0 in m:
        return 0.0, bp
    s = 0.0
    for mn, tn in zip(m, t):
        s += math.log(mn / tn)
    return bp * math.exp((1 / len(m)) * s), bp


def mp_truth(m, t, c, r):
    """The exact BLEU (rounded once to a double) from mpmath at 50 digits."""
    with mpmath.workdps(50):
        bp = mpmath.mpf(1) if c > r else mpmath.exp(1 - mpmath.mpf(r) / c)
        s = mpmath.fsum(mpmath.log(mpmath.mpf(mn) / tn) for mn, tn in zip(m, t))
        return float(bp * mpmath.exp(s / len(m))), float(bp)


def _bound_ulps(m, t, c, r) -> int:
    """A rigorous ULP bound for the card formula in doubles vs the exact value.

    Per term: fl(m/l) has relative error <= u, i.e. absolute error <= u in the log;
    glibc's log errs < 1 ulp <= 2u|term|. Each of the N-1 additions errs <= u|partial|.
    (1/N) and the product err <= 2u relative; exp errs < 1 ulp (2u relative) and turns
    the argument's absolute error into a relative error. BP: r/c (u), 1 - r/c
    (u |1 - r/c|), exp (2u) and the final product (u). A relative error E is at most
    E/u ULPs (ulp(y) >= u*y); one ULP more for the final rounding of the truth.
    """
    terms = [math.log(a / b) for a, b in zip(m, t)]
    err_sum = sum(U + 2 * U * abs(x) for x in terms)
    partials = [abs(sum(terms[: k + 1])) for k in range(1, len(terms))]
    err_sum += U * sum(partials)
    s = abs(sum(terms))
    err_arg = err_sum / len(m) + 2 * U * s / len(m)
    e = err_arg + 2 * U
    if c <= r:
        e += U * (r / c) + U * abs(1 - r / c) + 2 * U + U
    return math.ceil(e / U) + 1


PAPINENI_HYP1 = ("It is a guide to action which ensures that the military always obeys the commands "
                 "of the party").split()
PAPINENI_REFS1 = [
    "It is a guide to action that ensures that the military will forever heed Party commands".split(),
    ("It is the guiding principle which guarantees the military forces always being under the "
     "command of the Party").split(),
    "It is the practical guide for the army always to heed the directions of the party".split(),
]
NLTK_HYP2 = "he read the book because he was interested in world history".split()
NLTK_REF2 = "he was interested in world history because he read the book".split()

CORPORA = {
    "card-example-2": (
        ["The dog bit the man .".split(), "It wasn't surprising .".split(),
         "The man had just bitten him .".split()],
        [["The dog bit the man .".split(), "The dog had bit the man .".split()],
         ["It was not unexpected .".split(), "No one was surprised .".split()],
         ["The man bit him first .".split(), "The man had bitten the dog .".split()]],
        4,
    ),
    "nltk-corpus-bleu-docstring": ([PAPINENI_HYP1, NLTK_HYP2], [PAPINENI_REFS1, [NLTK_REF2]], 4),
    "short-hypothesis": ([["a", "b", "c", "d", "e"]], [[list("abcdefgh"), list("abxdefghijk")]], 4),
    "order-3-multi": (
        [list("aabbaabbcc"), list("abcabc"), list("cccaaa")],
        [[list("aabbccaabb")], [list("abcab"), list("cabcabc")], [list("aaaccc"), list("ccca")]],
        3,
    ),
    "order-1": ([["x", "y", "z"]], [[["x", "y", "q"]]], 1),
    "order-8-long": (
        [[f"w{i % 7}" for i in range(40)]],
        [[[f"w{i % 7}" for i in range(3, 45)], [f"w{(i * 3) % 7}" for i in range(41)]]],
        8,
    ),
}


class TestBrevityPenalty:
    """``brevity_penalty(c, r)``: 0 when c = 0, 1 when c > r, else exp(1 - r/c)."""

    @pytest.mark.parametrize(("c", "r", "expected"), [(0, 0, 0.0), (0, 5, 0.0), (5, 0, 1.0), (6, 5, 1.0),
                                                      (5, 5, 1.0)])
    def test_branches(self, c: int, r: int, expected: float) -> None:
        """The documented branches give exact values (exp(0) is exactly 1)."""
        assert brevity_penalty(c, r) == expected

    @pytest.mark.parametrize(("c", "r"), [(12, 28), (17, 18), (1, 2), (1989, 2000), (4, 5), (3, 1000000)])
    def test_against_mpmath(self, c: int, r: int) -> None:
        """exp(1 - r/c) is within 3 ULPs of the exact value (r/c: u, 1 - r/c: u|1-r/c|, exp: < 1 ulp)."""
        with mpmath.workdps(50):
            truth = float(mpmath.exp(1 - mpmath.mpf(r) / c))
        got = brevity_penalty(c, r)
        assert got == math.exp(1 - r / c)
        bound = math.ceil(r / c + abs(1 - r / c) + 2) + 1
        assert ulp_distance(got, truth) <= bound

    def test_card_example(self) -> None:
        """The brevity card's first example: c = 12, r = 28 gives 0.2635971381157267."""
        assert brevity_penalty(12, 28) == 0.2635971381157267

    def test_negative(self) -> None:
        """A negative length is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            brevity_penalty(-1, 3)


class TestCorpusBleu:
    """``corpus_bleu`` computes the card formula from summed statistics."""

    @pytest.mark.parametrize("name", sorted(CORPORA))
    def test_counts_and_score(self, name: str) -> None:
        """Counts equal the independent counter; the score equals the replayed card formula bit for bit
        and the mpmath truth within the derived ULP bound."""
        hyps, refs, max_order = CORPORA[name]
        m, t, c, r = independent_stats(hyps, refs, max_order)
        result = corpus_bleu(hyps, refs, max_order=max_order)
        assert result.stats == SufficientStats(tuple(m), tuple(t), c, r)
        expected, expected_bp = card_formula(m, t, c, r)
        assert result.bleu == expected
        assert result.brevity_penalty == expected_bp
        if expected:
            truth, truth_bp = mp_truth(m, t, c, r)
            bound = _bound_ulps(m, t, c, r)
            assert bound <= 32  # the bound itself is small: a few ULPs per term
            assert ulp_distance(result.bleu, truth) <= bound, (result.bleu, truth, bound)
            assert ulp_distance(result.brevity_penalty, truth_bp) <= bound

    def test_card_example_rounded(self) -> None:
        """Card example 2 rounds to bleu 0.485308 and BP 0.942873 at 6 places (mpmath truth, toFixed)."""
        hyps, refs, _ = CORPORA["card-example-2"]
        truth, truth_bp = mp_truth([14, 7, 5, 3], [17, 14, 11, 8], 17, 18)
        assert round(truth, 6) == 0.485308 and round(truth_bp, 6) == 0.942873
        result = corpus_bleu(hyps, refs)
        assert round(result.bleu, 6) == 0.485308

    def test_nltk_docstring_value(self) -> None:
        """NLTK 3.10.4's corpus_bleu docstring prints 0.5920... for this corpus."""
        hyps, refs, _ = CORPORA["nltk-corpus-bleu-docstring"]
        assert repr(corpus_bleu(hyps, refs).bleu).startswith("0.5920")

    def test_exact_precisions_from_fractions(self) -> None:
        """Each precision is m_n / l_n correctly rounded: within half an ULP of the exact Fraction."""
        hyps, refs, _ = CORPORA["nltk-corpus-bleu-docstring"]
        result = corpus_bleu(hyps, refs)
        m, t, _, _ = independent_stats(hyps, refs, 4)
        for got, mn, tn in zip(result.precisions, m, t):
            assert abs(Fraction(got) - Fraction(mn, tn)) <= Fraction(mn, tn) * Fraction(U)

    def test_identical_is_one(self) -> None:
        """A hypothesis equal to its reference with >= 4 tokens scores exactly 1.0 (card example 1)."""
        r = corpus_bleu([["this", "is", "a", "test"]], [[["this", "is", "a", "test"]]])
        assert r.bleu == 1.0 and r.brevity_penalty == 1.0

    def test_zero_match_order_is_zero(self) -> None:
        """Any m_n = 0 (l_n = 0 included) gives exactly 0.0 without a log floor."""
        assert corpus_bleu([["a", "b", "c"]], [[["a", "b", "c"]]]).bleu == 0.0
        assert corpus_bleu([["a", "b", "c", "d"]], [[["d", "c", "b", "a"]]]).bleu == 0.0

    def test_empty_hypothesis(self) -> None:
        """Card example 3: an empty hypothesis scores 0 with BP 0 and r = 2."""
        r = corpus_bleu([[]], [[["the", "cat"]]])
        assert (r.bleu, r.brevity_penalty, r.stats.ref_len) == (0.0, 0.0, 2)

    def test_length_mismatch(self) -> None:
        """Different numbers of hypotheses and references is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            corpus_bleu([["a"]], [])


class TestBleuFromStats:
    """``bleu_from_stats`` scores given statistics and checks them."""

    def test_card_counts(self) -> None:
        """The smoothing card's first counts (none smoothing) give 0.8375922397 at 10 places (mpmath)."""
        res = bleu_from_stats(SufficientStats((9, 7, 5, 3), (10, 8, 6, 4), 11, 11))
        truth, _ = mp_truth([9, 7, 5, 3], [10, 8, 6, 4], 11, 11)
        assert round(truth, 10) == 0.8375922397
        assert ulp_distance(res.bleu, truth) <= _bound_ulps([9, 7, 5, 3], [10, 8, 6, 4], 11, 11)

    @pytest.mark.parametrize(
        "stats",
        [SufficientStats((3,), (2,), 2, 2), SufficientStats((-1,), (2,), 2, 2),
         SufficientStats((1, 1), (1,), 1, 1), SufficientStats((), (), 0, 0)],
    )
    def test_bad_counts(self, stats: SufficientStats) -> None:
        """m_n > l_n, negative counts, unequal lengths or no order is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            bleu_from_stats(stats)

    def test_result_fields(self) -> None:
        """BleuResult exposes max_order and precisions (0.0 where l_n = 0)."""
        res = bleu_from_stats(SufficientStats((1, 0), (2, 0), 2, 2))
        assert isinstance(res, BleuResult)
        assert res.max_order == 2 and res.precisions == (0.5, 0.0) and res.bleu == 0.0


class TestCorpusBrevityPenalty:
    """``corpus_brevity_penalty`` sums candidate lengths and closest reference lengths."""

    def test_card_example_2(self) -> None:
        """The brevity card's second example: c 17, r 18, closest (6, 5, 7)."""
        res = corpus_brevity_penalty([6, 4, 7], [[6, 7], [5, 5], [6, 7]])
        assert (res.candidate_length, res.reference_length, res.closest_reference_lengths) == (17, 18, (6, 5, 7))
        assert res.brevity_penalty == math.exp(1 - 18 / 17)

    def test_zero(self) -> None:
        """c = 0 and r = 0 give BP 0 (card example 3)."""
        assert corpus_brevity_penalty([0], [[0]]).brevity_penalty == 0.0

    @pytest.mark.parametrize(("c", "refs"), [([1, 2], [[1]]), ([1], [[]]), ([-1], [[1]]), ([1], [[-2]])])
    def test_bad(self, c: list[int], refs: list[list[int]]) -> None:
        """Mismatched lengths, no reference or a negative length is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            corpus_brevity_penalty(c, refs)
