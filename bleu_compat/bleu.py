"""Brevity penalty, corpus BLEU and BLEU from sufficient statistics.

Formulas follow the cards literally, including the order of floating-point
operations (SPEC.md §2): ``ln(m_n / l_n)`` with the division first, terms
summed left to right for n = 1..N, ``(1/N) * sum`` for corpus BLEU and
``sum / orders_used`` for smoothed BLEU, then ``exp``, then the product with
the brevity penalty. Scores are fractions on the 0–1 scale. Standard library
only.

References:
    Papineni, Roukos, Ward, Zhu (2002), "BLEU: a Method for Automatic
    Evaluation of Machine Translation", ACL, sections 2.1–2.3.
    Chen and Cherry (2014), "A Systematic Comparison of Smoothing Techniques
    for Sentence-Level BLEU", WMT, section 2.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .errors import InvalidInputError
from .ngrams import Tokens
from .smoothing import Count, Smoothing, smooth
from .stats import SufficientStats, closest_ref_len, corpus_stats

__all__ = [
    "brevity_penalty",
    "BleuResult",
    "bleu_from_stats",
    "corpus_bleu",
    "SmoothedBleuResult",
    "smoothed_bleu",
    "bleu_of_smoothed",
    "BrevityPenaltyResult",
    "corpus_brevity_penalty",
]


def brevity_penalty(candidate_length: int, reference_length: int) -> float:
    """The corpus brevity penalty BP (Papineni 2002, section 2.2.2).

    Args:
        candidate_length: c, total hypothesis tokens (>= 0).
        reference_length: r, summed closest reference lengths (>= 0).

    Returns:
        0.0 when c = 0 (even if r = 0: the cards' rule, as NLTK); 1.0 when
        c > r; otherwise ``exp(1 - r/c)`` (1.0 when c = r). 0–1 scale.
        Any size of int is accepted: where ``r/c`` overflows a double the
        penalty is 0.0, as IEEE-754 gives (``brevity_penalty(1, 10**400)``).

    Raises:
        InvalidInputError: a length is negative.
    """
    if candidate_length < 0 or reference_length < 0:
        raise InvalidInputError(
            f"lengths must be >= 0, got candidate_length={candidate_length}, "
            f"reference_length={reference_length}"
        )
    if candidate_length == 0:
        return 0.0
    if candidate_length > reference_length:
        return 1.0
    return math.exp(1 - _div(reference_length, candidate_length))


def _div(a: float, b: float) -> float:
    """``a / b`` as IEEE-754 doubles divide, for a >= 0 and b > 0, never raising.

    Python raises ``OverflowError`` where a double division overflows (an
    int quotient beyond the double range, or an int operand too large to
    convert); IEEE-754, as JavaScript evaluates the cards' formulas, gives
    +Infinity for the quotient and for such an operand (SPEC.md §2). An
    int/int quotient within range is correctly rounded, as before.
    """
    try:
        return a / b
    except OverflowError:
        if isinstance(a, int) and isinstance(b, int):
            return math.inf  # the exact quotient exceeds the largest double
        return _double(a) / _double(b)  # exactly one operand is a huge int


def _double(x: float) -> float:
    try:
        return float(x)
    except OverflowError:  # an int beyond the double range rounds to +Infinity
        return math.inf


def _ln(x: float) -> float:
    """Natural logarithm with IEEE-754 semantics at zero: ``ln(0) = -Infinity``
    (JavaScript ``Math.log(0)``), for x >= 0; ``math.log`` raises there."""
    return math.log(x) if x > 0 else -math.inf


@dataclass(frozen=True, slots=True)
class BleuResult:
    """Corpus BLEU and the statistics it came from.

    Attributes:
        bleu: the score, a fraction in [0, 1] (multiply by 100 for sacreBLEU's scale).
        brevity_penalty: BP in [0, 1].
        stats: the exact SufficientStats (matches, totals, hyp_len, ref_len).
    """

    bleu: float
    brevity_penalty: float
    stats: SufficientStats

    @property
    def max_order(self) -> int:
        """N, the number of n-gram orders."""
        return self.stats.max_order

    @property
    def precisions(self) -> tuple[float, ...]:
        """m_n / l_n per order (0.0 where l_n = 0), fractions in [0, 1]."""
        return tuple(
            m / t if t else 0.0 for m, t in zip(self.stats.matches, self.stats.totals)
        )


def bleu_from_stats(stats: SufficientStats) -> BleuResult:
    """Unsmoothed BLEU from corpus statistics (bleu-corpus-compute card, semantics 4–5).

    ``bleu = BP * exp((1/N) * sum_{n=1..N} ln(m_n / l_n))``, exactly 0.0
    when BP = 0 or any m_n = 0 (l_n = 0 included): a documented branch,
    never a log floor.

    Raises:
        InvalidInputError: a count is negative or m_n > l_n.
    """
    _check_counts(stats.matches, stats.totals)
    bp = brevity_penalty(stats.hyp_len, stats.ref_len)
    if bp == 0.0 or any(m == 0 for m in stats.matches):
        return BleuResult(0.0, bp, stats)
    log_sum = 0.0
    for m, t in zip(stats.matches, stats.totals):
        log_sum += _ln(_div(m, t))  # a quotient may underflow to 0: ln = -inf, bleu 0
    n_orders = len(stats.matches)
    return BleuResult(bp * math.exp((1 / n_orders) * log_sum), bp, stats)


def corpus_bleu(
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_order: int = 4,
) -> BleuResult:
    """Corpus BLEU (Papineni et al., 2002) from summed sufficient statistics.

    Args:
        hypotheses: hypotheses[i] is the token list of segment i (may be empty).
        references: references[i] holds every reference token list for
            segment i (one or more, each may be empty).
        max_order: N, the largest n-gram order (default 4).

    Returns:
        Score as a fraction in [0, 1], plus the exact SufficientStats.
        Tokens compare by exact string equality.

    Raises:
        InvalidInputError: lengths differ, a segment has no reference, or a
            hypothesis, a segment's references or a reference is a ``str`` (tokens
            are lists of strings; a string would be read as its characters).
        ConfigError: max_order < 1.
    """
    return bleu_from_stats(corpus_stats(hypotheses, references, max_order=max_order))


@dataclass(frozen=True, slots=True)
class SmoothedBleuResult:
    """BLEU from statistics with smoothing (bleu-smoothing-compute card).

    Attributes:
        bleu: the score in [0, 1].
        brevity_penalty: BP in [0, 1].
        orders_used: N, or with effective order the leading orders whose
            smoothed total is > 0.
        smoothed_matches: per order, int, epsilon as given, or 1/2^k.
        smoothed_totals: per order, ints.
    """

    bleu: float
    brevity_penalty: float
    orders_used: int
    smoothed_matches: tuple[Count, ...]
    smoothed_totals: tuple[Count, ...]


def smoothed_bleu(
    matches: Sequence[int],
    totals: Sequence[int],
    candidate_length: int,
    reference_length: int,
    *,
    smoothing: Smoothing | str = Smoothing.NONE,
    epsilon: Count | None = None,
    effective_order: bool = False,
) -> SmoothedBleuResult:
    """BLEU from sufficient statistics with Chen & Cherry smoothing 1–3.

    bleu-smoothing-compute card, semantics 2–5: the counts are smoothed
    (Chen & Cherry 2014, section 2.2); ``orders_used`` is N or the leading
    orders whose smoothed total is > 0; bleu is 0.0 when c = 0, m_1 = 0
    (before smoothing), orders_used = 0 or a used order has a smoothed total
    or match of 0; otherwise ``BP * exp(sum_{n<=orders_used} ln(sm_n/st_n) / orders_used)``.

    Args:
        matches: m_n, ints, one per order (1–8 orders in the card).
        totals: l_n, ints, same length.
        candidate_length: c; reference_length: r (may be corpus sums).
        smoothing: ``none``, ``method1``, ``method2`` or ``method3``.
        epsilon: method1's floor in [0, 1] (default 0.1), only with method1.
        effective_order: use sacreBLEU's effective order.

    Raises:
        InvalidInputError: lengths differ, m_n > l_n, a negative count, or
            m_1 = 0 with some m_n > 0.
        ConfigError: unknown smoothing, epsilon with another method, or
            epsilon outside [0, 1].
    """
    _check_counts(matches, totals)
    if matches[0] == 0 and any(matches):
        raise InvalidInputError("m_1 = 0 requires every m_n to be 0")
    sm, st = smooth(matches, totals, smoothing, epsilon=epsilon)
    bleu, bp, orders_used = bleu_of_smoothed(matches[0], sm, st, candidate_length, reference_length,
                                             effective_order)
    return SmoothedBleuResult(bleu, bp, orders_used, sm, st)


def bleu_of_smoothed(
    first_match: int,
    sm: Sequence[Count],
    st: Sequence[Count],
    candidate_length: int,
    reference_length: int,
    effective_order: bool = False,
) -> tuple[float, float, int]:
    """The last steps of :func:`smoothed_bleu`, on counts already checked and smoothed.

    bleu-smoothing-compute card, semantics 3–5, in the card's order of
    operations (SPEC.md §2). It is :func:`smoothed_bleu` itself after its
    checks and :func:`bleu_compat.smoothing.smooth` (one code path), exposed
    for callers that hold statistics valid by construction (the per-segment
    BLEU of ``score --segments``, counted by the kernel) and would otherwise
    pay the checks once per segment.

    Args:
        first_match: m_1 before smoothing (bleu is 0 when it is 0).
        sm, st: the smoothed matches and totals per order.
        candidate_length: c; reference_length: r (ints >= 0).
        effective_order: use only the leading orders whose smoothed total is > 0.

    Returns:
        ``(bleu, brevity_penalty, orders_used)``, bleu and BP on the 0–1 scale.
    """
    bp = brevity_penalty(candidate_length, reference_length)
    if effective_order:
        orders_used = 0
        for t in st:
            if t <= 0:
                break
            orders_used += 1
    else:
        orders_used = len(st)
    if (
        candidate_length == 0
        or first_match == 0
        or orders_used == 0
        or any(st[k] == 0 or sm[k] == 0 for k in range(orders_used))
    ):
        return 0.0, bp, orders_used
    log_sum = 0.0
    for k in range(orders_used):
        # a quotient may underflow to 0 (method1, epsilon 5e-324, total 2):
        # ln(0) = -inf, exp(-inf) = 0, so bleu is 0 (SPEC.md §2)
        log_sum += _ln(_div(sm[k], st[k]))
    return bp * math.exp(log_sum / orders_used), bp, orders_used


@dataclass(frozen=True, slots=True)
class BrevityPenaltyResult:
    """The corpus brevity penalty and the lengths behind it.

    Attributes:
        candidate_length: c, the sum of candidate lengths.
        reference_length: r, the sum of closest reference lengths.
        closest_reference_lengths: the best-match length per segment, in order.
        brevity_penalty: BP in [0, 1].
    """

    candidate_length: int
    reference_length: int
    closest_reference_lengths: tuple[int, ...]
    brevity_penalty: float


def corpus_brevity_penalty(
    candidate_lengths: Sequence[int], reference_lengths: Sequence[Sequence[int]]
) -> BrevityPenaltyResult:
    """Corpus brevity penalty from per-segment lengths (bleu-brevity-penalty card).

    Args:
        candidate_lengths: c_i per segment, ints >= 0.
        reference_lengths: reference_lengths[i] lists every reference length
            of segment i (one or more).

    Raises:
        InvalidInputError: the lengths differ, a segment has no reference, or a
            length is negative.
    """
    if len(candidate_lengths) != len(reference_lengths):
        raise InvalidInputError(
            f"len(reference_lengths)={len(reference_lengths)} must equal "
            f"len(candidate_lengths)={len(candidate_lengths)}"
        )
    closest = []
    for c, refs in zip(candidate_lengths, reference_lengths):
        if c < 0 or any(r < 0 for r in refs):
            raise InvalidInputError(f"lengths must be >= 0, got {c} and {list(refs)}")
        closest.append(closest_ref_len(c, refs))
    c_sum, r_sum = sum(candidate_lengths), sum(closest)
    return BrevityPenaltyResult(c_sum, r_sum, tuple(closest), brevity_penalty(c_sum, r_sum))


def _check_counts(matches: Sequence[int], totals: Sequence[int]) -> None:
    if len(matches) != len(totals):
        raise InvalidInputError(
            f"len(matches)={len(matches)} must equal len(totals)={len(totals)}"
        )
    if len(matches) == 0:
        raise InvalidInputError("matches and totals must hold at least one order")
    for n, (m, t) in enumerate(zip(matches, totals), start=1):
        if m < 0 or t < 0:
            raise InvalidInputError(f"order {n}: counts must be >= 0, got m={m}, l={t}")
        if m > t:
            raise InvalidInputError(f"order {n}: matches={m} must be <= totals={t}")


