"""Truth: an independent evaluation of the three cards, exact and in card order.

Written from the cards' semantics, sharing no code with the core
(``bleu_compat.stats``/``bleu``/``smoothing``): n-grams are counted with
``collections.Counter`` over slices, clipping takes the largest count in any
single reference, the closest reference length is ``min`` by
``(|len - c|, len)`` (ties to the shorter), smoothing follows the card's
semantics 2 (Chen & Cherry 2014, section 2.2).

For every float field (``bleu``, ``brevity_penalty``) it gives:

* ``exact``: the correctly rounded double of the exact real value, computed
  with mpmath at 60 significant digits (the ratios m/l and r/c are exact
  rationals; only ln and exp are approximated, with about 140 bits to spare
  before the final rounding to 53 bits; subnormals are rounded directly at
  2^-1074);
* ``card``: the card's formula evaluated in doubles in the literal order of
  SPEC.md §2 (``ln(m/l)`` division first, summed n = 1..N, ``(1/N) * sum`` or
  ``sum / orders_used``, ``exp``, times BP), then ``decimals`` applied with
  JavaScript ``toFixed`` (:func:`bleu_compat.rounding.to_fixed`). This is
  the card's output: a correct implementation reproduces it bit for bit.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.libmp import round_nearest, to_float

from bleu_compat.rounding import to_fixed

__all__ = ["Truth", "truth", "corpus_truth_stats", "to_double", "DPS"]

#: mpmath working precision in significant decimal digits (about 199 bits).
DPS = 60
FLOAT_FIELDS = ("bleu", "brevity_penalty")
_SMALLEST_NORMAL = mpmath.mpf(2) ** -1022


@dataclass(frozen=True)
class Truth:
    """The independent answer to one request.

    Attributes:
        expected: the card's output (every field; floats in card order, with
            ``decimals`` applied). A correct implementation equals it exactly.
        unrounded: the card-order doubles of the float fields before ``decimals``.
        exact: the correctly rounded doubles of the exact real float fields.
        exact_rounded: ``exact`` with ``decimals`` applied (equal to ``exact``
            without ``decimals``).
    """

    expected: dict[str, Any]
    unrounded: dict[str, float]
    exact: dict[str, float]
    exact_rounded: dict[str, float]


def to_double(x: mpmath.mpf) -> float:
    """The double nearest to ``x`` (ties to even), subnormals included.

    ``x`` must be finite and non-negative, as every BLEU quantity is.
    """
    if x == 0:
        return 0.0
    if x < _SMALLEST_NORMAL:
        return math.ldexp(int(mpmath.nint(mpmath.ldexp(x, 1074))), -1074)
    return float(to_float(x._mpf_, rnd=round_nearest))


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _closest(c: int, lengths: list[int]) -> int:
    return min(lengths, key=lambda length: (abs(length - c), length))


def corpus_truth_stats(
    hypotheses: list[list[str]], references: list[list[list[str]]], max_order: int
) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, c, r) summed over the corpus, from the definition.

    Papineni 2002 section 2.1.1 (clipped counts summed before dividing) and
    2.2.2 (best-match length); bleu-corpus-compute card, semantics 2–3.
    """
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        c += len(hyp)
        r += _closest(len(hyp), [len(ref) for ref in refs])
        for n in range(1, max_order + 1):
            counts = _ngrams(hyp, n)
            best: Counter[tuple[str, ...]] = Counter()
            for ref in refs:
                best |= _ngrams(ref, n)  # elementwise max
            matches[n - 1] += sum(min(k, best[g]) for g, k in counts.items())
            totals[n - 1] += sum(counts.values())
    return matches, totals, c, r


def _bp_exact(c: int, r: int) -> mpmath.mpf:
    if c == 0:
        return mpmath.mpf(0)
    if c > r:
        return mpmath.mpf(1)
    return mpmath.exp(1 - mpmath.mpf(r) / c)


def _bp_card(c: int, r: int) -> float:
    if c == 0:
        return 0.0
    if c > r:
        return 1.0
    return math.exp(1 - r / c)


def _mp(value: int | float) -> mpmath.mpf:
    q = Fraction(value)
    return mpmath.mpf(q.numerator) / q.denominator


def _finish(
    expected_rest: dict[str, Any],
    unrounded: dict[str, float],
    exact: dict[str, float],
    decimals: int | None,
) -> Truth:
    def rounded(values: dict[str, float]) -> dict[str, float]:
        if decimals is None:
            return dict(values)
        return {k: to_fixed(v, decimals) for k, v in values.items()}

    expected = {**expected_rest, **rounded(unrounded)}
    return Truth(expected, unrounded, exact, rounded(exact))


def _corpus(request: dict[str, Any]) -> Truth:
    n_orders = request.get("max_order", 4)
    matches, totals, c, r = corpus_truth_stats(
        request["hypotheses"], request["references"], n_orders
    )
    bp_card = _bp_card(c, r)
    with mpmath.workdps(DPS):
        bp_exact = _bp_exact(c, r)
        if c == 0 or 0 in matches:
            bleu_exact, bleu_card = mpmath.mpf(0), 0.0
        else:
            logs = [mpmath.log(mpmath.mpf(m) / t) for m, t in zip(matches, totals)]
            bleu_exact = bp_exact * mpmath.exp(mpmath.fsum(logs) / n_orders)
            log_sum = 0.0
            for m, t in zip(matches, totals):
                log_sum += math.log(m / t)
            bleu_card = bp_card * math.exp((1 / n_orders) * log_sum)
        exact = {"bleu": to_double(bleu_exact), "brevity_penalty": to_double(bp_exact)}
    rest = {
        "candidate_length": c, "reference_length": r, "max_order": n_orders,
        "matches": matches, "totals": totals,
    }
    return _finish(rest, {"bleu": bleu_card, "brevity_penalty": bp_card}, exact,
                   request.get("decimals"))


def _smoothed_counts(request: dict[str, Any]) -> tuple[list[int | float], list[int]]:
    matches, totals, method = request["matches"], request["totals"], request["smoothing"]
    if method == "none":
        return list(matches), list(totals)
    if method == "method1":
        epsilon = request.get("epsilon", 0.1)
        return [epsilon if m == 0 else m for m in matches], list(totals)
    if method == "method2":
        return (
            [m + (n >= 2) for n, m in enumerate(matches, start=1)],
            [t + (n >= 2) for n, t in enumerate(totals, start=1)],
        )
    smoothed: list[int | float] = []
    k = 0
    for m in matches:
        if m == 0:
            k += 1
            smoothed.append(math.ldexp(1.0, -k))  # 1/2^k, exact in binary
        else:
            smoothed.append(m)
    return smoothed, list(totals)


def _smoothing(request: dict[str, Any]) -> Truth:
    sm, st = _smoothed_counts(request)
    c, r = request["candidate_length"], request["reference_length"]
    if request.get("effective_order", False):
        used = 0
        while used < len(st) and st[used] > 0:
            used += 1
    else:
        used = len(st)
    bp_card = _bp_card(c, r)
    with mpmath.workdps(DPS):
        bp_exact = _bp_exact(c, r)
        zero = (
            c == 0 or request["matches"][0] == 0 or used == 0
            or any(st[k] == 0 or sm[k] == 0 for k in range(used))
        )
        if zero:
            bleu_exact, bleu_card = mpmath.mpf(0), 0.0
        else:
            logs = [mpmath.log(_mp(sm[k]) / st[k]) for k in range(used)]
            bleu_exact = bp_exact * mpmath.exp(mpmath.fsum(logs) / used)
            log_sum = 0.0
            for k in range(used):
                log_sum += math.log(sm[k] / st[k])
            bleu_card = bp_card * math.exp(log_sum / used)
        exact = {"bleu": to_double(bleu_exact), "brevity_penalty": to_double(bp_exact)}
    rest = {"orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}
    return _finish(rest, {"bleu": bleu_card, "brevity_penalty": bp_card}, exact,
                   request.get("decimals"))


def _brevity(request: dict[str, Any]) -> Truth:
    segments = request["segments"]
    closest = [_closest(s["candidate_length"], list(s["reference_lengths"])) for s in segments]
    c = sum(s["candidate_length"] for s in segments)
    r = sum(closest)
    with mpmath.workdps(DPS):
        exact = {"brevity_penalty": to_double(_bp_exact(c, r))}
    rest = {"candidate_length": c, "reference_length": r, "closest_reference_lengths": closest}
    return _finish(rest, {"brevity_penalty": _bp_card(c, r)}, exact, request.get("decimals"))


_TRUTHS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": _brevity,
}


def truth(tool_id: str, request: dict[str, Any]) -> Truth:
    """The independent answer to a valid ``request`` for ``tool_id``.

    The request is not validated here (real corpora exceed the card limits);
    callers pass validated requests or request dicts they built themselves.

    Raises:
        KeyError: unknown tool.
    """
    return _TRUTHS[tool_id](request)


# --- public primitives for the dialect models (independent of the core) ----------


def ngram_counts(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    """Counts of the order-``n`` n-grams of ``tokens`` (tuples of tokens)."""
    return _ngrams(list(tokens), n)


def closest_length(c: int, lengths: list[int]) -> int:
    """The reference length closest to ``c``, ties to the shorter (card semantics)."""
    return _closest(c, list(lengths))


def segment_truth_stats(
    hypothesis: list[str], references: list[list[str]], max_order: int
) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, hyp_len, closest_ref_len) of one segment, from the definition."""
    return corpus_truth_stats([hypothesis], [references], max_order)
