"""Sufficient statistics of BLEU: clipped matches, totals, lengths.

Per-segment statistics add up (``a + b``) to corpus statistics
(Papineni et al. 2002, section 2.1.1: counts are summed over the corpus
before dividing). Standard library only.
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from .errors import ConfigError, InvalidInputError
from .ngrams import NGram, Tokens, ngram_counts

__all__ = [
    "SufficientStats",
    "closest_ref_len",
    "segment_stats",
    "corpus_stats",
    "check_max_order",
]


def check_max_order(max_order: int) -> None:
    """Raise ConfigError unless ``max_order`` is an int >= 1."""
    if isinstance(max_order, bool) or not isinstance(max_order, int):
        raise ConfigError(f"max_order={max_order!r} must be an int")
    if max_order < 1:
        raise ConfigError(f"max_order={max_order} must be >= 1")


@dataclass(frozen=True, slots=True)
class SufficientStats:
    """Additive BLEU counts; index n - 1 holds order n.

    Attributes:
        matches: clipped n-gram matches m_n per order (ints).
        totals: hypothesis n-gram counts l_n per order (ints).
        hyp_len: candidate length c, in tokens.
        ref_len: summed closest reference length r, in tokens.
    """

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    hyp_len: int
    ref_len: int

    @property
    def max_order(self) -> int:
        """N, the number of orders held."""
        return len(self.matches)

    @classmethod
    def zero(cls, max_order: int) -> SufficientStats:
        """The neutral element of ``+`` for ``max_order`` orders."""
        return cls((0,) * max_order, (0,) * max_order, 0, 0)

    def __add__(self, other: SufficientStats) -> SufficientStats:
        if not isinstance(other, SufficientStats):
            return NotImplemented
        if len(self.matches) != len(other.matches):
            raise InvalidInputError(
                f"cannot add statistics of max_order={len(self.matches)} "
                f"and max_order={len(other.matches)}"
            )
        return SufficientStats(
            tuple(map(operator.add, self.matches, other.matches)),
            tuple(map(operator.add, self.totals, other.totals)),
            self.hyp_len + other.hyp_len,
            self.ref_len + other.ref_len,
        )


def closest_ref_len(hyp_len: int, ref_lens: Iterable[int]) -> int:
    """The reference length closest to ``hyp_len``, ties to the shorter.

    This is the "best match length" of Papineni et al. 2002, section 2.2.2,
    with the tie rule of mteval-v13a, NLTK ``closest_ref_length`` and
    sacreBLEU (bleu-brevity-penalty card, semantics 1).

    Raises:
        InvalidInputError: ``ref_lens`` is empty.
    """
    best: int | None = None
    for length in ref_lens:
        if best is None:
            best = length
            continue
        d, bd = abs(length - hyp_len), abs(best - hyp_len)
        if d < bd or (d == bd and length < best):
            best = length
    if best is None:
        raise InvalidInputError("a segment has no reference")
    return best


def segment_stats(
    hypothesis: Tokens, references: Sequence[Tokens], *, max_order: int = 4
) -> SufficientStats:
    """Sufficient statistics of one segment.

    Args:
        hypothesis: the hypothesis tokens (may be empty).
        references: one or more reference token lists (each may be empty).
        max_order: N, the largest n-gram order.

    Returns:
        SufficientStats where matches[n-1] is the clipped count of hypothesis
        n-grams (each n-gram's count clipped by its largest count in any single
        reference, Papineni 2002 section 2.1) and totals[n-1] is
        max(len(hypothesis) - n + 1, 0).

    Raises:
        InvalidInputError: ``references`` is empty.
        ConfigError: ``max_order`` < 1.
    """
    check_max_order(max_order)
    if len(references) == 0:
        raise InvalidInputError("a segment has no reference")
    hyp_counts = ngram_counts(hypothesis, max_order)
    max_ref: Counter[NGram] = Counter()
    for reference in references:
        max_ref |= ngram_counts(reference, max_order)
    matches = [0] * max_order
    for ngram, count in hyp_counts.items():
        ref_count = max_ref.get(ngram, 0)
        if ref_count:
            matches[len(ngram) - 1] += count if count < ref_count else ref_count
    hyp_len = len(hypothesis)
    totals = tuple(max(hyp_len - n + 1, 0) for n in range(1, max_order + 1))
    return SufficientStats(
        tuple(matches),
        totals,
        hyp_len,
        closest_ref_len(hyp_len, (len(r) for r in references)),
    )


def corpus_stats(
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_order: int = 4,
) -> SufficientStats:
    """Corpus sufficient statistics: the sum of every segment's statistics.

    Args:
        hypotheses: hypotheses[i] is the token list of segment i.
        references: references[i] holds every reference token list for
            segment i (1 or more; lists may differ in count per segment).
        max_order: N, the largest n-gram order.

    Raises:
        InvalidInputError: the lengths differ or a segment has no reference.
        ConfigError: ``max_order`` < 1.
    """
    check_max_order(max_order)
    if len(hypotheses) != len(references):
        raise InvalidInputError(
            f"len(references)={len(references)} must equal "
            f"len(hypotheses)={len(hypotheses)}"
        )
    matches = [0] * max_order
    totals = [0] * max_order
    hyp_len = ref_len = 0
    for index, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        if len(refs) == 0:
            raise InvalidInputError(f"segment {index} has no reference")
        s = segment_stats(hypothesis, refs, max_order=max_order)
        for k in range(max_order):
            matches[k] += s.matches[k]
            totals[k] += s.totals[k]
        hyp_len += s.hyp_len
        ref_len += s.ref_len
    return SufficientStats(tuple(matches), tuple(totals), hyp_len, ref_len)
