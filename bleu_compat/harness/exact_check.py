"""The truth's exact side, recomputed by a second route (issue 25, item 4).

:mod:`bleu_compat.harness.truth` gives, besides the card-order doubles, the
correctly rounded double of each float field's real value (``Truth.exact``).
Nothing judged that side: a wrong exact value changed only the ULP histograms.
Here the same real values are computed again, by another route, and must give
the same double bit for bit; a difference is a finding of the run (the
crosscheck fails).

The route differs from the truth's where the truth treats a range specially:

* no short-cut on the argument of ``exp``: ``exp(1 - r/c)`` is evaluated by
  mpmath for every ``r/c`` (mpmath's exponents are unbounded; ``exp(-10^12)``
  costs microseconds), where the truth returns 0 for ``r/c > 800``;
* another working precision (:data:`DPS` = 80 digits, the truth's is 60);
* rounding to a double by Python's ``float`` of the exact ``Fraction`` of the
  mpmath value (correctly rounded, subnormals included), where the truth uses
  mpmath's rounding and rounds subnormals itself at ``2^-1074``; a value at or
  below ``2^-1075`` is 0 (the half-way point rounds to the even 0);
* the card's definition at a ratio whose double is 0 (SPEC.md §2: ``ln(0) = −∞``,
  ``bleu`` 0) decided by ``float(Fraction(m) / l) == 0`` (Python's correctly
  rounded conversion), where the truth compares the ratio with ``2^-1075``.

The statistics (clipped matches, totals, lengths) are not recomputed: they are
the truth's integer fields, which every case compares with ours bit for bit.
This module imports nothing of the truth (``oracle_tests/test_layering.py``):
standard library and mpmath only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import mpmath

__all__ = ["exact_values", "check_exact", "DPS"]

#: working precision of the second route, in significant decimal digits (about 266 bits)
DPS = 80
_HALF_MIN_SUBNORMAL = Fraction(1, 2**1075)


def _to_double(x: mpmath.mpf) -> float:
    """The double nearest to ``x >= 0`` (ties to even), via the exact ``Fraction`` of ``x``."""
    if x == 0:
        return 0.0
    man, exp = int(x.man), int(x.exp)
    if exp >= 0:
        return float(man << exp)
    if man.bit_length() + exp < -1080:  # far below 2^-1075: the double 0, without a 2^10^12 Fraction
        return 0.0
    q = Fraction(man, 1 << -exp)
    return 0.0 if q <= _HALF_MIN_SUBNORMAL else float(q)


def _bp(c: int, r: int) -> mpmath.mpf:
    if c == 0:
        return mpmath.mpf(0)
    if c > r:
        return mpmath.mpf(1)
    return mpmath.exp(1 - mpmath.mpf(r) / mpmath.mpf(c))


def _bleu(ratios: Sequence[Fraction], c: int, r: int) -> float:
    if any(float(q) == 0.0 for q in ratios):  # the card's double is 0: ln 0 = -inf, bleu 0
        return 0.0
    logs = [mpmath.log(mpmath.mpf(q.numerator) / q.denominator) for q in ratios]
    return _to_double(_bp(c, r) * mpmath.exp(mpmath.fsum(logs) / len(logs)))


def _smoothed(request: dict[str, Any]) -> tuple[list[Fraction], list[int]]:
    """The smoothed counts of SPEC.md §4, in exact rationals (epsilon at its binary value)."""
    matches, totals, method = request["matches"], request["totals"], request["smoothing"]
    if method == "method1":
        eps = Fraction(request.get("epsilon", 0.1))
        return [eps if m == 0 else Fraction(m) for m in matches], list(totals)
    if method == "method2":
        return ([Fraction(m + (1 if n > 0 else 0)) for n, m in enumerate(matches)],
                [t + (1 if n > 0 else 0) for n, t in enumerate(totals)])
    if method == "method3":
        out, zeros = [], 0
        for m in matches:
            if m == 0:
                zeros += 1
                out.append(Fraction(1, 2**zeros))
            else:
                out.append(Fraction(m))
        return out, list(totals)
    return [Fraction(m) for m in matches], list(totals)


def exact_values(tool_id: str, request: dict[str, Any], stats: dict[str, Any]) -> dict[str, float]:
    """The correctly rounded doubles of the real float fields, by this module's route.

    Args:
        tool_id: the card.
        request: the valid request.
        stats: the truth's integer fields of the card's output (``matches``, ``totals``,
            ``candidate_length``, ``reference_length`` for bleu-corpus-compute; the
            lengths for bleu-brevity-penalty; unused for bleu-smoothing-compute).

    Returns:
        ``{"bleu", "brevity_penalty"}`` (bleu-brevity-penalty: ``brevity_penalty`` only).
    """
    with mpmath.workdps(DPS):
        if tool_id == "bleu-brevity-penalty":
            return {"brevity_penalty": _to_double(_bp(stats["candidate_length"],
                                                      stats["reference_length"]))}
        if tool_id == "bleu-corpus-compute":
            m, t = stats["matches"], stats["totals"]
            c, r = stats["candidate_length"], stats["reference_length"]
            if c == 0 or 0 in m:
                bleu = 0.0
            else:
                bleu = _bleu([Fraction(a, b) for a, b in zip(m, t)], c, r)
            return {"bleu": bleu, "brevity_penalty": _to_double(_bp(c, r))}
        sm, st = _smoothed(request)
        c, r = request["candidate_length"], request["reference_length"]
        used = len(st)
        if request.get("effective_order", False):
            used = next((k for k, t in enumerate(st) if t <= 0), len(st))
        if (c == 0 or request["matches"][0] == 0 or used == 0
                or any(st[k] == 0 or sm[k] == 0 for k in range(used))):
            bleu = 0.0
        else:
            bleu = _bleu([sm[k] / st[k] for k in range(used)], c, r)
        return {"bleu": bleu, "brevity_penalty": _to_double(_bp(c, r))}


def check_exact(tool_id: str, case_id: str, request: dict[str, Any], expected: dict[str, Any],
                exact: dict[str, float]) -> list[dict[str, Any]]:
    """The fields where the truth's exact doubles (``exact``) differ from this route's.

    Returns:
        One finding per differing field: ``{"tool", "case_id", "field", "truth", "direct",
        "candidate_length", "reference_length", "request"}`` (empty: the same doubles).
    """
    mine = exact_values(tool_id, request, expected)
    out = []
    for f, value in mine.items():
        theirs = exact.get(f)
        if theirs is None or float(theirs) != value or (value == 0 and str(theirs) != str(value)):
            c = expected.get("candidate_length", request.get("candidate_length"))
            r = expected.get("reference_length", request.get("reference_length"))
            out.append({"tool": tool_id, "case_id": case_id, "field": f, "truth": theirs,
                        "direct": value, "candidate_length": c, "reference_length": r,
                        "request": request})
    return out
