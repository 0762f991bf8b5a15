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

:func:`own_smoothing` computes ``SmoothingFunction.method4``–``method7``, which
the cards do not have, as ``corpus_bleu`` calls them (3.10.4 read): on the
corpus ``Fraction(matches, totals)``, with ``hyp_len`` the corpus' hypothesis
length and ``references``/``hypothesis`` the *last* segment's (``corpus_bleu``
passes its loop variables), then its last step.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Sequence

from bleu_compat.harness.dialect import (
    card_brevity,
    card_bp, card_corpus_bleu, card_smoothed_bleu, card_smoothing,
)
from bleu_compat.harness.truth import corpus_truth_stats, to_fixed

__all__ = ["evaluate", "nltk_score", "own_smoothing", "TINY", "OWN_DEFAULTS"]

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


_TOOLS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": card_brevity,
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


#: SmoothingFunction's defaults for the methods outside the cards: method4/method7's k,
#: method6's alpha (ints, as NLTK keeps them: ``5 * Fraction`` stays exact, ``5.0 *`` would not)
OWN_DEFAULTS: dict[str, Any] = {"method4": 5, "method5": None, "method6": 5, "method7": 5}


def _clipped_precision(hyp: Sequence[str], refs: Sequence[Sequence[str]], n: int) -> Fraction:
    """NLTK's ``modified_precision`` value for one segment at order n: clipped matches over
    the hypothesis' n-gram count floored at 1 (counted here, not by NLTK)."""
    def grams(tokens: Sequence[str]) -> Counter[tuple[str, ...]]:
        return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

    counts = grams(hyp)
    best: dict[tuple[str, ...], int] = {}
    for ref in refs:
        for g, c in grams(ref).items():
            if c > best.get(g, 0):
                best[g] = c
    clipped = sum(min(c, best.get(g, 0)) for g, c in counts.items())
    return Fraction(clipped, max(1, sum(counts.values())))


def _method4(p: list[Any], totals: Sequence[int], c: int, k: Any) -> list[Any]:
    # the i-th order without a match (i from 1) gets 1 / (2^i * k / ln c) over its total,
    # when the corpus has more than one hypothesis token
    out, i = list(p), 1
    for n, value in enumerate(p):
        if value == 0 and c > 1 and totals[n] > 0:
            out[n] = (1 / (2**i * k / math.log(c))) / totals[n]
            i += 1
    return out


def _method5(p: list[Any], fifth: Fraction) -> list[Any]:
    # each precision: (previous smoothed + its own + the next unsmoothed) / 3; the one before
    # the first is p_1 + 1, the one after the last is the last segment's order-5 precision
    following = list(p[1:]) + [fifth]
    out: list[Any] = []
    previous = p[0] + 1
    for value, nxt in zip(p, following):
        previous = (previous + value + nxt) / 3
        out.append(previous)
    return out


def _method6(p: list[Any], matches: Sequence[int], last_hyp_len: int, alpha: Any) -> list[Any]:
    # from order 3 on: (m_n + alpha * prior) / (count + alpha), prior = p_(n-1)^2 / p_(n-2)
    # (the smoothed p_(n-1)), count = the last segment's number of n-grams
    out = list(p)
    for n in range(2, len(p)):
        prior = 0 if out[n - 2] == 0 else out[n - 1] ** 2 / out[n - 2]
        out[n] = (matches[n] + alpha * prior) / (max(0, last_hyp_len - n) + alpha)
    return out


def own_smoothing(method: str, value: Any, request: Request,
                  last_segment: Callable[[], tuple[list[str], list[list[str]]]]) -> float:
    """NLTK's ``corpus_bleu`` with ``SmoothingFunction().methodK`` (K = 4..7) on statistics (0–1).

    Args:
        method: ``"method4"``, ``"method5"``, ``"method6"`` or ``"method7"``.
        value: method4/method7's ``k``, method6's ``alpha`` (None: NLTK's default 5);
            method5 takes none.
        request: ``matches``, ``totals`` (as NLTK sums them: each segment's floored at 1),
            ``candidate_length``, ``reference_length``; ``max_order`` is ``len(matches)``.
        last_segment: the last segment's (hypothesis tokens, reference token lists), read
            by method5 (its order-5 precision) and method6 (its n-gram counts) as NLTK
            reads ``hypothesis`` and ``references``.

    Returns:
        ``bp * exp(fsum(w_n * log(p_n) for p_n > 0))``, w_n = 1/N; 0 without a unigram match.

    A total of 0 never reaches NLTK's smoothing (``corpus_bleu`` floors each segment's at
    1; with 0 it raises ``ZeroDivisionError``); in a decomposition state without that floor
    such an order gets the precision 0 and no method4 count (it is left out of the sum).

    Raises:
        AssertionError: method6 with no trigram match (NLTK asserts ``p_n[2]``).
        IndexError: method6 with fewer than 3 orders.

    Source: nltk/translate/bleu_score.py ``corpus_bleu``, ``SmoothingFunction.method4``-
    ``method7`` (3.10.4), read for the formulas and their order of operations.
    """
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    c, r = request["candidate_length"], request["reference_length"]
    if matches[0] == 0:
        return 0.0
    if value is None:
        value = OWN_DEFAULTS[method]
    p: list[Any] = [Fraction(m, t) if t else Fraction(0) for m, t in zip(matches, totals)]
    if method in ("method4", "method7"):
        p = _method4(p, totals, c, value)
    if method in ("method5", "method7"):
        hyp, refs = last_segment()
        p = _method5(p, _clipped_precision(hyp, refs, 5))
    if method == "method6":
        if n_orders < 3:
            raise IndexError("list index out of range")
        if not p[2]:
            raise AssertionError("This smoothing method requires non-zero precision for bigrams.")
        hyp, _ = last_segment()
        p = _method6(p, matches, len(hyp), value)
    weight = 1 / n_orders
    s = math.fsum(weight * math.log(x) for x in p if x > 0)
    return card_bp(c, r) * math.exp(s)
