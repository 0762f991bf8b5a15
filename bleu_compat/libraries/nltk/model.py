"""NLTK's dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the NLTK adapter would give (card shape,
0–1 scale, ``decimals`` applied) when the models of the entries in ``on`` are
switched on; with ``on`` empty it is the card's output. The models are
transcriptions of NLTK 3.10's ``nltk/translate/bleu_score.py``
(``corpus_bleu``, ``modified_precision``, ``brevity_penalty``,
``SmoothingFunction.method0``–``method3``), evaluated on statistics counted by
the truth (:mod:`bleu_compat.harness.truth`), never by the core.

Entry ids and what switching them on does:

* ``NLTK-DENOMINATOR-FLOOR``: each segment's order-n total is
  ``max(1, count)``: a hypothesis shorter than n adds 1;
* ``NLTK-ZERO-MATCH-TINY`` / ``-ZERO-MATCH-TINY-SMOOTHING``: an order with no
  match gets the precision ``sys.float_info.min`` (method0) and the score is
  ``bp * exp(math.fsum(w_i * log(p_i)))`` where the card's is 0;
* ``NLTK-METHOD1-ZERO-EPSILON``: a method1 precision ``(0 + epsilon) / l_n``
  that is 0.0 (epsilon 0, or a quotient that underflows) is left out of the sum
  (``if p_i > 0``) where the card's score is 0;
* ``NLTK-METHOD1-ZERO-EPSILON-RAISES`` (3.4–3.5): that precision of 0.0 reaches
  ``math.log`` (the ``if p_i > 0`` came in 3.6): ``ValueError: math domain error``;
* ``NLTK-METHOD2-ADDS-TO-UNIGRAMS`` (3.4–3.5): method2 adds 1 to the match and
  total of every order, the unigrams included (3.6 starts at order 2);
* ``NLTK-FLOAT-ORDER`` / ``-FLOAT-ORDER-SMOOTHING``: a positive score in NLTK's
  arithmetic: ``bp * exp(fsum(w_i * log(p_i)))`` with ``w_i = 1/N``;
* ``NLTK-NO-MATCH-SKIPS-SMOOTHING``: no unigram match returns 0 before any
  smoothing (the counts stay raw);
* ``NLTK-ZERO-TOTAL-NOT-A-FRACTION``: a total of 0 raises
  ``ZeroDivisionError: Fraction(m, 0)`` (as called).
"""

from __future__ import annotations

import math
import sys
from typing import Any, Sequence

from bleu_compat.harness.dialect import (
    card_bp, card_corpus_bleu, card_smoothed_bleu, card_smoothing,
)
from bleu_compat.harness.truth import corpus_truth_stats, to_fixed

__all__ = ["evaluate", "nltk_score", "TINY"]

Request = dict[str, Any]

FLOOR = "NLTK-DENOMINATOR-FLOOR"
ZERO_TINY = "NLTK-ZERO-MATCH-TINY"
FLOAT = "NLTK-FLOAT-ORDER"
NOT_A_FRACTION = "NLTK-ZERO-TOTAL-NOT-A-FRACTION"
ZERO_TINY_SMOOTHING = "NLTK-ZERO-MATCH-TINY-SMOOTHING"
METHOD1_ZERO = "NLTK-METHOD1-ZERO-EPSILON"
METHOD1_ZERO_RAISES = "NLTK-METHOD1-ZERO-EPSILON-RAISES"
METHOD2_ALL_ORDERS = "NLTK-METHOD2-ADDS-TO-UNIGRAMS"
NO_MATCH = "NLTK-NO-MATCH-SKIPS-SMOOTHING"
FLOAT_SMOOTHING = "NLTK-FLOAT-ORDER-SMOOTHING"

#: SmoothingFunction.method0's stand-in for a zero precision
TINY = sys.float_info.min


def nltk_score(precisions: Sequence[Any], bp: float, n_orders: int) -> float:
    """corpus_bleu's last step: ``bp * exp(fsum(w_i * log(p_i) for p_i > 0))``, w_i = 1/N.

    ``precisions`` are floats or ``(m, l)`` pairs (NLTK's Fractions, which
    ``math.log`` reads as the correctly rounded ``m / l``).
    """
    weights = (1 / n_orders,) * n_orders
    values = [p[0] / p[1] if isinstance(p, tuple) else p for p in precisions]
    s = (w_i * math.log(p_i) for w_i, p_i in zip(weights, values) if p_i > 0)
    return bp * math.exp(math.fsum(s))


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    decimals = request.get("decimals")
    key = ("nltk-corpus",)
    if key not in cache:
        cache[key] = corpus_truth_stats(request["hypotheses"], request["references"], n_orders)
    matches, card_totals, c, r = cache[key]
    totals = list(card_totals)
    if FLOOR in on:  # modified_precision: denominator = max(1, sum(counts.values()))
        for n in range(1, n_orders + 1):
            totals[n - 1] += sum(1 for h in request["hypotheses"] if len(h) < n)
    bp = card_bp(c, r)  # brevity_penalty(r, c) is the card's
    if matches[0] == 0:
        bleu = 0.0  # corpus_bleu: "if p_numerators[1] == 0: return 0"
    elif any(m == 0 for m in matches):
        if ZERO_TINY in on:
            precisions = [TINY if m == 0 else (m, t) for m, t in zip(matches, totals)]
            bleu = nltk_score(precisions, bp, n_orders)
        else:
            bleu = 0.0
    elif FLOAT in on:
        bleu = nltk_score(list(zip(matches, totals)), bp, n_orders)
    else:
        bleu = card_corpus_bleu(matches, totals, bp)
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "candidate_length": c,
        "reference_length": r,
        "max_order": n_orders,
        "matches": list(matches),
        "totals": totals,
    }


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    method = request["smoothing"]
    decimals = request.get("decimals")
    c, r = request["candidate_length"], request["reference_length"]
    epsilon = request.get("epsilon", 0.1)
    if NOT_A_FRACTION in on and 0 in totals:
        first = totals.index(0)
        return {"error": f"ZeroDivisionError: Fraction({matches[first]}, 0)"}
    bp = card_bp(c, r)
    sm, st, used = card_smoothing(request)
    if method == "method1":  # NLTK adds epsilon to the numerator: 0 + -0.0 is 0.0 (IEEE 754)
        sm = [0 + x for x in sm]
    if NO_MATCH in on and matches[0] == 0:
        return {"bleu": _round(0.0, decimals), "brevity_penalty": _round(bp, decimals),
                "orders_used": n_orders, "smoothed_matches": matches, "smoothed_totals": totals}
    all_orders = METHOD2_ALL_ORDERS in on and method == "method2"
    if all_orders:  # 3.4-3.5: Fraction(p_i.numerator + 1, p_i.denominator + 1) for every order
        sm, st = [m + 1 for m in matches], [t + 1 for t in totals]
    card_bleu = card_smoothed_bleu(request, sm, st, used, bp)
    if matches[0] == 0:
        bleu = 0.0
    elif 0 in totals:
        # NLTK cannot hold a zero total (NLTK-ZERO-TOTAL-NOT-A-FRACTION, switched off here):
        # the dialect without that entry is the card for these statistics
        bleu = card_bleu
    else:
        # NLTK's smoothed precisions (SmoothingFunction.methodK on Fraction(m, l))
        precisions: list[Any] = []
        needs: set[str] = set()
        k = 0
        for m, t in zip(matches, totals):
            if method == "none":
                if m == 0:
                    precisions.append(TINY)
                    needs.add(ZERO_TINY_SMOOTHING)
                else:
                    precisions.append((m, t))
            elif method == "method1":
                if m == 0:
                    p = (0 + epsilon) / t
                    if not p > 0:
                        needs.add(METHOD1_ZERO)
                    precisions.append(p)
                else:
                    precisions.append((m, t))
            elif method == "method2":
                precisions.append((m, t) if not precisions and not all_orders else (m + 1, t + 1))
            else:  # method3
                if m == 0:
                    k += 1
                    precisions.append(1 / (2**k * t))
                else:
                    precisions.append((m, t))
        if METHOD1_ZERO in needs and METHOD1_ZERO_RAISES in on:
            return {"error": "ValueError: math domain error"}
        if needs:  # the card's score is 0 here; NLTK computes one
            bleu = nltk_score(precisions, bp, n_orders) if needs <= on else card_bleu
        elif FLOAT_SMOOTHING in on:
            bleu = nltk_score(precisions, bp, n_orders)
        else:
            bleu = card_bleu
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "orders_used": used,  # NLTK has no effective order: with totals > 0 it is N
        "smoothed_matches": sm,
        "smoothed_totals": st,
    }


def _brevity(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    from bleu_compat.harness.truth import closest_length

    segments = request["segments"]
    closest = [closest_length(s["candidate_length"], list(s["reference_lengths"])) for s in segments]
    c = sum(s["candidate_length"] for s in segments)
    r = sum(closest)
    return {"candidate_length": c, "reference_length": r, "closest_reference_lengths": closest,
            "brevity_penalty": _round(card_bp(c, r), request.get("decimals"))}


_TOOLS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": _brevity,
}


def evaluate(tool_id: str, mode: str, request: Request, on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """NLTK's dialect on a valid card ``request``: the card with the models in ``on``.

    Args:
        tool_id: the card.
        mode: ``"as_called"`` or ``"mapped"``.
        request: a valid request (or a real corpus' request dict).
        on: ids of the entries whose models are switched on.
        cache: per-request memo shared by calls on the same request.

    Returns:
        The output in the card's shape (0–1 scale, ``decimals`` applied with the
        truth's ``toFixed``), or ``{"error": "Type: message"}`` where NLTK raises.
    """
    return _TOOLS[tool_id](mode, request, on, cache)
