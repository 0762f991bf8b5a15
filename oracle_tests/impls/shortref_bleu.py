"""A held-back flawed corpus BLEU for the judge's tests (issue 36): the brevity penalty takes
each segment's *shortest* reference, not the closest.

A real mistake: HF evaluate's ``bleu`` (tensorflow/nmt's compute_bleu), bleuscore's default
and torcheval's ``bleu_score`` ship it. Everything else is the card's formula in the card's
order of operations (SPEC.md section 2), so the one quirk is the reference length. Scores on
the 0-1 scale. Not imported by bleu_compat; declared by a plain attribute.
"""

from __future__ import annotations

import math
from collections import Counter


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(hypotheses, references, max_order=4):
    """Corpus BLEU (0-1) whose reference length is each segment's shortest reference."""
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        c += len(hyp)
        r += min(len(ref) for ref in refs)  # the flaw: the shortest, not the closest
        for n in range(1, max_order + 1):
            counts = _ngrams(hyp, n)
            best = Counter()
            for ref in refs:
                best |= _ngrams(ref, n)
            matches[n - 1] += sum(min(k, best[g]) for g, k in counts.items())
            totals[n - 1] += sum(counts.values())
    if c == 0 or any(m == 0 for m in matches):
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / max_order) * log_sum)


bleu.bleu_compat = {"signature": "tokens->score", "scale": "0-1"}
