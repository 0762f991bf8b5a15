"""A correct corpus BLEU (Papineni et al. 2002) in 40 lines: what ``--impl`` reports as identical.

The card's formula in the card's order of operations (SPEC.md §2): clipped
n-gram matches (clip by the largest count in any single reference), totals,
closest reference length (ties to the shorter), brevity penalty
``exp(1 - r/c)`` for ``c <= r`` (0 when ``c = 0``), then
``bp * exp((1/N) * sum(ln(m_n / l_n)))`` summed left to right; 0 when some
order has no match. Scores are on the 0–1 scale.

    bleu-compat crosscheck --impl examples/correct_bleu.py:bleu --no-real
"""

from __future__ import annotations

import math
from collections import Counter

from bleu_compat.implementations import declare


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


@declare("tokens->score", scale="0-1")
def bleu(hypotheses: list[list[str]], references: list[list[list[str]]], max_order: int = 4) -> float:
    """Corpus BLEU on the 0–1 scale; ``references[i]`` are segment i's references."""
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        c += len(hyp)
        r += min((len(ref) for ref in refs), key=lambda n: (abs(n - len(hyp)), n))
        for n in range(1, max_order + 1):
            counts = _ngrams(hyp, n)
            best: Counter[tuple[str, ...]] = Counter()
            for ref in refs:
                best |= _ngrams(ref, n)  # the largest count in any single reference
            matches[n - 1] += sum(min(k, best[g]) for g, k in counts.items())
            totals[n - 1] += sum(counts.values())
    if c == 0 or any(m == 0 for m in matches):
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / max_order) * log_sum)
