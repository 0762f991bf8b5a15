"""A token corpus whose statistics are exactly a smoothing request's, where one exists simply.

HF evaluate's ``bleu``, bleuscore and tensor2tensor's ``compute_bleu`` count their
statistics from token corpora and have no entry point that takes statistics.
To run them on a ``bleu-smoothing-compute`` request, their adapters build a
corpus with exactly the request's matches, totals and lengths and run the
library on it (so the library's own arithmetic, not a transcription, gives the
score). :func:`realize` builds one from *prefix segments*: a hypothesis of L
distinct tokens whose first K tokens begin its one reference (K ≤ L), which
has ``max(0, K - n + 1)`` matches and ``max(0, L - n + 1)`` n-grams of order n.
It exists when the lengths and the prefixes follow from the totals and matches
(their successive differences do not increase), the candidate length is the
unigram total and the reference length is at least the unigram matches;
otherwise, or above :data:`MAX_TOKENS`, the request is not representable and
:func:`realize` says why.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["realize", "MAX_TOKENS", "Unrealizable"]

#: the most tokens a realized corpus may have (hypotheses and references)
MAX_TOKENS = 100_000


class Unrealizable(ValueError):
    """No prefix-segment corpus has these statistics (the message says why)."""


def _lengths(counts: Sequence[int], what: str) -> list[list[int]]:
    """Candidate sets of segment lengths L_i with Σ max(0, L_i - n + 1) = counts[n-1] for every
    order n: one per possible number of segments at least N long (which the counts leave open),
    fewest first, at most :data:`_CHOICES` of them.
    """
    n_orders = len(counts)
    if any(x < 0 for x in counts):
        raise Unrealizable(f"negative {what}")
    last = counts[-1]
    if n_orders == 1:
        # any split of the unigram count: one segment, or up to _CHOICES equal-ish ones
        return [[last]] if last else [[]]
    at_least = [counts[n] - counts[n + 1] for n in range(n_orders - 1)]  # #segments with L >= n+1
    if any(a < 0 for a in at_least) or any(a < b for a, b in zip(at_least, at_least[1:])):
        raise Unrealizable(f"the {what} are not the n-gram counts of any set of segments "
                           "(their successive differences must not increase)")
    if last and not at_least[-1]:
        raise Unrealizable(f"the {what} have order-{n_orders} n-grams but no segment that long")
    choices = range(1, min(at_least[-1], last) + 1) if last else range(0, 1)
    out = []
    for long in list(choices)[:_CHOICES]:
        lengths = []
        for n in range(1, n_orders):  # segments of length exactly n
            exactly = at_least[n - 1] - (at_least[n] if n < n_orders - 1 else long)
            lengths += [n] * exactly
        if long:  # (L - N + 1) summing to `last`: the excess on one segment
            lengths += [n_orders + (last - long)] + [n_orders] * (long - 1)
        out.append(sorted(lengths, reverse=True))
    return out


#: how many choices of the number of long segments :func:`realize` tries for each side
_CHOICES = 32


def realize(matches: Sequence[int], totals: Sequence[int], candidate_length: int,
            reference_length: int) -> tuple[list[list[str]], list[list[str]]]:
    """``(hypotheses, references)``, one reference per segment, with exactly these statistics.

    Tokens are ``h<i>x<j>`` and ``r<i>x<j>`` (letters and digits only: 13a and the other
    tokenizers keep each whole; no token repeats, so every count is the construction's).

    Raises:
        Unrealizable: no prefix-segment corpus has them, or it would exceed :data:`MAX_TOKENS`.
    """
    if candidate_length != totals[0]:
        raise Unrealizable(f"the candidate length {candidate_length} is not the unigram total "
                           f"{totals[0]} (a corpus' hypothesis length is its unigram count)")
    if sum(totals[:1]) + reference_length > MAX_TOKENS:
        raise Unrealizable(f"more than {MAX_TOKENS} tokens")
    fitting = next(((h, k) for h in _lengths(totals, "totals") for k in reversed(_lengths(matches, "matches"))
                    if len(k) <= len(h) and all(a <= b for a, b in zip(k, h))), None)
    if fitting is None:
        raise Unrealizable("the matches do not fit in the hypotheses as prefixes")
    hyp_lengths, prefixes = list(fitting[0]), list(fitting[1])
    prefixes += [0] * (len(hyp_lengths) - len(prefixes))
    if reference_length < sum(prefixes):
        raise Unrealizable(f"the reference length {reference_length} is below the unigram "
                           f"matches {sum(prefixes)}")
    if not hyp_lengths:
        hyp_lengths, prefixes = [0], [0]
    extra = reference_length - sum(prefixes)
    hypotheses, references = [], []
    for i, (length, k) in enumerate(zip(hyp_lengths, prefixes)):
        hyp = [f"h{i}x{j}" for j in range(length)]
        pad = extra if i == 0 else 0
        references.append([hyp[:k] + [f"r{i}x{j}" for j in range(pad)]])
        hypotheses.append(hyp)
    return hypotheses, references
