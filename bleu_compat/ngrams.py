"""n-gram counting (Papineni et al. 2002, section 2.1). Standard library only."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

__all__ = ["Tokens", "NGram", "ngram_counts"]

Tokens = Sequence[str]
NGram = tuple[str, ...]


def ngram_counts(tokens: Tokens, max_order: int) -> Counter[NGram]:
    """Count every n-gram of ``tokens`` for n = 1..max_order.

    Args:
        tokens: one segment's tokens; compared by exact string equality.
        max_order: the largest n-gram order N (>= 1).

    Returns:
        A Counter mapping each n-gram (a tuple of n tokens) to how often it
        occurs. A segment of length L contributes max(L - n + 1, 0) n-grams
        of order n.
    """
    counts: Counter[NGram] = Counter()
    length = len(tokens)
    for n in range(1, min(max_order, length) + 1):
        counts.update(zip(*(tokens[i:] for i in range(n))))
    return counts
