"""Truth: an independent evaluation of the three cards, exact and in card order.

Written from the cards' semantics and SPEC.md §2, sharing no code with the
product: this module imports nothing from ``bleu_compat`` (standard library
and mpmath only; ``oracle_tests/test_layering.py`` enforces it), so a bug in
the core's counting, rounding or arithmetic cannot hide itself by changing
the answer it is compared with. It has its own

* n-gram counting (:func:`ngram_counts`: ``collections.Counter`` over
  slices), clipping (the largest count in any single reference, an
  elementwise ``Counter`` maximum) and closest reference length
  (:func:`closest_length`: ``min`` by ``(|len - c|, len)``, ties to the
  shorter), per segment (:func:`segment_truth_stats`) and summed over a
  corpus (:func:`corpus_truth_stats`);
* smoothing, from the card's semantics 2 (Chen & Cherry 2014, section 2.2);
* JavaScript ``Number.prototype.toFixed`` (:func:`to_fixed`, in exact
  ``Fraction`` arithmetic on the double's binary value);
* IEEE-754 double arithmetic as JavaScript evaluates the formula (SPEC.md §2):
  a quotient that underflows is 0, ``ln(0)`` is −∞, ``exp(−∞)`` is 0, a
  quotient that overflows is +∞ (so ``1 − r/c`` is −∞ and the brevity
  penalty 0). Python's ``math.log(0)`` and ``int / int`` raise where
  JavaScript does not; the helpers here do not. A valid request never raises.

For every float field (``bleu``, ``brevity_penalty``) it gives:

* ``card`` (:attr:`Truth.unrounded`, and :attr:`Truth.expected` after
  ``decimals``): the card's formula evaluated in doubles in the literal order
  of SPEC.md §2 (``ln(m/l)`` division first, summed n = 1..N, ``(1/N) * sum``
  or ``sum / orders_used``, ``exp``, times BP), then ``decimals`` applied with
  :func:`to_fixed`. This is the card's output: a correct implementation
  reproduces it bit for bit.
* ``exact`` (:attr:`Truth.exact`): the correctly rounded double of the real
  value, computed with mpmath at :data:`DPS` significant digits. The ratios
  m/l and r/c are exact rationals of the request's numbers (``epsilon`` and
  method3's 1/2^k at their exact binary values); only ln and exp are
  approximated, with about 140 bits to spare before the final rounding to 53
  bits; subnormals are rounded directly at 2^-1074.

What "exact" means where the card's doubles underflow. SPEC.md §2 defines
the result at a ratio m_n/l_n whose double is 0 (method1 with a subnormal
``epsilon``: ``5e-324 / 2`` is 0): ``ln(0) = −∞`` and ``bleu`` is 0. The
real value of the formula there is positive (about 1.6e-162 for
``matches [1, 0], totals [1, 2], epsilon 5e-324``), but it is not the card's
quantity: the card, through SPEC §2, *defines* the result at that point to
be 0, and 0 is known exactly. So the exact side takes the same branch,
decided on its own from the exact ratio: a used order whose exact ratio
rounds to the double 0 (at most 2^-1075, the tie going to even 0) gives
``bleu`` 0 exactly. A ratio that is subnormal but not 0 (``1e-310 / 1e12``)
takes no branch: exact uses the exact rational, the card its rounded double,
and their distance in ULPs is the card order's real error. The brevity
penalty needs no branch: where ``r / c`` overflows, the real
``exp(1 − r/c)`` is far below 2^-1075 and its correctly rounded double is 0,
the card-order value; the exact side short-cuts ``r / c > 800`` to 0 (as
``exp(-799) < 2^-1075``) rather than asking mpmath for ``exp(-10^400)``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import mpmath
from mpmath.libmp import round_nearest, to_float

__all__ = [
    "Truth", "truth", "corpus_truth_stats", "segment_truth_stats", "ngram_counts",
    "closest_length", "to_fixed", "to_double", "FLOAT_FIELDS", "DPS",
]

#: mpmath working precision in significant decimal digits (about 199 bits).
DPS = 60
#: The float fields of the cards' outputs.
FLOAT_FIELDS = ("bleu", "brevity_penalty")
_SMALLEST_NORMAL = mpmath.mpf(2) ** -1022
#: Half the smallest subnormal: a positive real at or below it rounds to the double 0.
_HALF_MIN_SUBNORMAL = Fraction(1, 2**1075)
#: exp(-x) for x above this is below 2^-1075 (exp(-800) ~ 3.6e-348): its double is 0.
_EXP_UNDERFLOW_ARGUMENT = 800


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


# --- JavaScript Number.prototype.toFixed ------------------------------------------


def to_fixed(x: float, decimals: int) -> float:
    """``Number(x.toFixed(decimals))``: JavaScript's rounding, read back as a double.

    ECMA-262 ``Number.prototype.toFixed``: let n be the integer for which
    n / 10^decimals − x is as close to zero as possible, computed on the
    *exact binary value* of ``x``; "if there are two such n, pick the larger
    n" (applied to ``|x|``, the sign being written separately: an exact tie
    goes to the larger magnitude). For ``|x| >= 1e21`` (and NaN, ±∞) toFixed
    returns ``ToString(x)``, which reads back as ``x`` itself. SPEC.md §2:
    ``to_fixed(0.625, 2) == 0.63``, ``to_fixed(0.125, 2) == 0.13``,
    ``to_fixed(0.5, 0) == 1.0``, ``to_fixed(0.0625, 3) == 0.063``,
    ``to_fixed(1.005, 2) == 1.0`` (1.005's binary value lies below the tie).

    Computed here in ``Fraction`` arithmetic (independent of the core's
    ``decimal`` implementation): ``n = floor(|x| * 10^d + 1/2)``, and the
    string ``n / 10^d`` is read back as the nearest double (``float`` of a
    ``Fraction`` is correctly rounded, as JavaScript's ``Number(string)``).
    A negative ``x`` that rounds to 0 gives ``-0.0`` (``"-0.00"`` reads back
    as −0); ``-0.0`` itself gives ``0.0`` (ECMA-262: −0 is not < 0).

    Args:
        x: a double (the cards' values are in 0–1).
        decimals: places after the point, an int in 0–100 (the cards allow 0–15).

    Returns:
        The rounded value as a double.

    Raises:
        ValueError: ``decimals`` is not an int in 0–100 (JavaScript's RangeError).
    """
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 100:
        raise ValueError(f"decimals={decimals!r} must be an int in [0, 100]")
    if not math.isfinite(x) or abs(x) >= 1e21:
        return x
    exact = Fraction(x)  # the double's exact binary value
    scale = 10**decimals
    n = math.floor(abs(exact) * scale + Fraction(1, 2))
    value = float(Fraction(n, scale))
    return -value if exact < 0 else value


# --- IEEE-754 doubles as JavaScript evaluates them ----------------------------------


def _js_number(value: int | float) -> float:
    """JavaScript ``Number(value)``: the nearest double, +∞ beyond the largest."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _js_div(a: int | float, b: int | float) -> float:
    """``a / b`` in doubles for a >= 0, b > 0: 0 on underflow, +∞ on overflow.

    Both operands become doubles first (exact for every card value: all are
    below 2^53), then one IEEE division, correctly rounded (Python's float
    division is IEEE's, returning +∞ on overflow and 0 on underflow).
    """
    return _js_number(a) / _js_number(b)


def _js_log(x: float) -> float:
    """``Math.log`` for x >= 0: ``ln(0) = −∞``, ``ln(+∞) = +∞``."""
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return math.log(x)


def _js_exp(x: float) -> float:
    """``Math.exp``: ``exp(−∞) = 0``, +∞ on overflow."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def to_double(x: mpmath.mpf) -> float:
    """The double nearest to ``x`` (ties to even), subnormals included.

    ``x`` must be finite and non-negative, as every BLEU quantity is.
    """
    if x == 0:
        return 0.0
    if x < _SMALLEST_NORMAL:
        return math.ldexp(int(mpmath.nint(mpmath.ldexp(x, 1074))), -1074)
    return float(to_float(x._mpf_, rnd=round_nearest))


# --- statistics, from the definition -------------------------------------------------


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    """The n-grams of a token sequence with their counts.

    Args:
        tokens: one segment's tokens (hypothesis or reference), compared by
            exact string equality (no case folding, normalisation or trimming).
        n: the n-gram order, >= 1.

    Returns:
        ``Counter`` of n-tuples of tokens; empty when ``len(tokens) < n``.
        ``sum(counts.values()) == max(0, len(tokens) - n + 1)``.
    """
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def closest_length(c: int, lengths: Sequence[int]) -> int:
    """The best-match reference length: the length closest to ``c``, ties to the shorter.

    Papineni 2002 section 2.2.2; cards: bleu-corpus-compute semantics 3,
    bleu-brevity-penalty semantics 1 (mteval-v13a, NLTK ``closest_ref_length``,
    sacreBLEU).

    Args:
        c: the hypothesis (candidate) length in tokens.
        lengths: the reference lengths, at least one.

    Raises:
        ValueError: ``lengths`` is empty.
    """
    return min(lengths, key=lambda length: (abs(length - c), length))


def segment_truth_stats(
    hypothesis: Sequence[str], references: Sequence[Sequence[str]], max_order: int
) -> tuple[list[int], list[int], int, int]:
    """One segment's sufficient statistics, from the definition.

    Args:
        hypothesis: the hypothesis tokens.
        references: 1 or more reference token lists (an empty list is a
            reference of length 0).
        max_order: N, the highest n-gram order (>= 1).

    Returns:
        ``(matches, totals, hyp_len, closest_ref_len)``: per order n = 1..N
        the clipped matches (each hypothesis n-gram counted at most as often
        as in the single reference holding it most often; Papineni 2002
        section 2.1) and the totals (hypothesis n-gram count, 0 when the
        hypothesis is shorter than n), the hypothesis length and the closest
        reference length (:func:`closest_length`).

    Raises:
        ValueError: ``references`` is empty.
    """
    matches, totals = [0] * max_order, [0] * max_order
    for n in range(1, max_order + 1):
        counts = ngram_counts(hypothesis, n)
        best: Counter[tuple[str, ...]] = Counter()
        for ref in references:
            best |= ngram_counts(ref, n)  # elementwise max
        matches[n - 1] = sum(min(k, best[g]) for g, k in counts.items())
        totals[n - 1] = sum(counts.values())
    return matches, totals, len(hypothesis), closest_length(len(hypothesis), [len(r) for r in references])


def corpus_truth_stats(
    hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]], max_order: int
) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, c, r) summed over the corpus, from the definition.

    Papineni 2002 section 2.1.1 (clipped counts summed before dividing) and
    2.2.2 (best-match length); bleu-corpus-compute card, semantics 2–3.
    Segments pair up in order (``zip``); see :func:`segment_truth_stats`.

    Raises:
        ValueError: a segment has no reference.
    """
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        m, t, hyp_len, ref_len = segment_truth_stats(hyp, refs, max_order)
        matches = [a + b for a, b in zip(matches, m)]
        totals = [a + b for a, b in zip(totals, t)]
        c += hyp_len
        r += ref_len
    return matches, totals, c, r


# --- the formulas --------------------------------------------------------------------


def _bp_exact(c: int, r: int) -> mpmath.mpf:
    if c == 0:
        return mpmath.mpf(0)
    if c > r:
        return mpmath.mpf(1)
    if Fraction(r, c) > _EXP_UNDERFLOW_ARGUMENT:
        return mpmath.mpf(0)  # exp(1 - r/c) < 2^-1075: its double is 0
    return mpmath.exp(1 - mpmath.mpf(r) / c)


def _bp_card(c: int, r: int) -> float:
    if c == 0:
        return 0.0
    if c > r:
        return 1.0
    return _js_exp(1 - _js_div(r, c))


def _mp(value: int | float | Fraction) -> mpmath.mpf:
    q = Fraction(value)
    return mpmath.mpf(q.numerator) / q.denominator


def _mean_log_exact(ratios: list[Fraction]) -> mpmath.mpf | None:
    """The exact mean of ln(ratio), or None where a ratio's double is 0 (ln 0 = −∞)."""
    if any(q <= _HALF_MIN_SUBNORMAL for q in ratios):
        return None
    return mpmath.fsum(mpmath.log(_mp(q)) for q in ratios) / len(ratios)


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
        if c == 0 or 0 in matches:  # card semantics 5: exactly 0 (also l_n = 0)
            bleu_exact, bleu_card = mpmath.mpf(0), 0.0
        else:
            mean = _mean_log_exact([Fraction(m, t) for m, t in zip(matches, totals)])
            bleu_exact = mpmath.mpf(0) if mean is None else bp_exact * mpmath.exp(mean)
            log_sum = 0.0
            for m, t in zip(matches, totals):
                log_sum += _js_log(_js_div(m, t))
            bleu_card = bp_card * _js_exp((1 / n_orders) * log_sum)
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
        zero = (  # card semantics 5: bleu is exactly 0
            c == 0 or request["matches"][0] == 0 or used == 0
            or any(st[k] == 0 or sm[k] == 0 for k in range(used))
        )
        if zero:
            bleu_exact, bleu_card = mpmath.mpf(0), 0.0
        else:
            mean = _mean_log_exact([Fraction(sm[k]) / st[k] for k in range(used)])
            bleu_exact = mpmath.mpf(0) if mean is None else bp_exact * mpmath.exp(mean)
            log_sum = 0.0
            for k in range(used):
                log_sum += _js_log(_js_div(sm[k], st[k]))  # −∞ where sm/st underflows
            bleu_card = bp_card * _js_exp(log_sum / used)
        exact = {"bleu": to_double(bleu_exact), "brevity_penalty": to_double(bp_exact)}
    rest = {"orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}
    return _finish(rest, {"bleu": bleu_card, "brevity_penalty": bp_card}, exact,
                   request.get("decimals"))


def _brevity(request: dict[str, Any]) -> Truth:
    segments = request["segments"]
    closest = [closest_length(s["candidate_length"], list(s["reference_lengths"])) for s in segments]
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
    Never raises on a valid request, whatever IEEE-754 does on it (see the
    module docstring: underflow, ``ln(0)``, overflow of ``r / c``).

    Raises:
        KeyError: unknown tool.
    """
    return _TRUTHS[tool_id](request)

