"""Two deliberately flawed corpus BLEUs, to show what ``--impl`` finds (docs/impl.md, "Check your own BLEU").

``bleu`` clips each n-gram by its count summed over *all* references
instead of the largest count in any single reference (Papineni et al. 2002,
§2.1). With one reference nothing changes; with two references that share
an n-gram the hypothesis may match it twice. No known library does this, so
the crosscheck reports it UNEXPECTED and shrinks it to a minimal reproducer.

``bleu_floor`` is otherwise correct but floors each segment's order-n total
at 1 (a hypothesis shorter than n adds 1 to ``totals[n-1]``), as NLTK's
``corpus_bleu`` does: the card is its target, so the crosscheck reports a
finding (exit 1) named ``NLTK-DENOMINATOR-FLOOR``, the one entry of NLTK's
dialect that reproduces it on every case; ``--allow NLTK-DENOMINATOR-FLOOR``
accepts it (exit 0).

This file does not import bleu_compat: it declares its signature with a
plain ``bleu_compat`` attribute.

    bleu-compat crosscheck --impl examples/flawed_bleu.py:bleu --no-real
"""

from __future__ import annotations

import math
from collections import Counter


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _score(hypotheses, references, max_order, clip_sum, floor):
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        c += len(hyp)
        r += min((len(ref) for ref in refs), key=lambda n: (abs(n - len(hyp)), n))
        for n in range(1, max_order + 1):
            counts = _ngrams(hyp, n)
            allowed = Counter()
            for ref in refs:
                if clip_sum:
                    allowed += _ngrams(ref, n)  # the flaw: counts added over references
                else:
                    allowed |= _ngrams(ref, n)
            matches[n - 1] += sum(min(k, allowed[g]) for g, k in counts.items())
            total = sum(counts.values())
            totals[n - 1] += max(1, total) if floor else total  # the NLTK-like floor
    if c == 0 or any(m == 0 for m in matches):
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / max_order) * log_sum)


def bleu(hypotheses, references, max_order=4):
    """Corpus BLEU (0–1) with the clipping flaw."""
    return _score(hypotheses, references, max_order, clip_sum=True, floor=False)


def bleu_floor(hypotheses, references, max_order=4):
    """Corpus BLEU (0–1) with NLTK's floor on each segment's totals."""
    return _score(hypotheses, references, max_order, clip_sum=False, floor=True)


bleu.bleu_compat = {"signature": "tokens->score", "scale": "0-1"}
bleu_floor.bleu_compat = {"signature": "tokens->score", "scale": "0-1"}
