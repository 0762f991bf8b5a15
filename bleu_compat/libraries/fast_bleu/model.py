"""fast-bleu's dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the fast-bleu adapter would give (the score;
0–1 scale) when the models of the entries in ``on`` are switched on; with ``on``
empty it is the card's output. The models transcribe fast-bleu 0.0.90's C++
(``fast_bleu/cpp_sources/sources/nltk.cpp``: ``modified_precision``,
``closest_ref_length``, ``brevity_penalty``, ``smooth_0``, ``smooth_1``,
``corpus_bleu``; ``bleu.cpp``: ``BLEU_CPP::get_score``), evaluated on statistics
counted by the truth (:mod:`bleu_compat.harness.truth`), never by the core.

fast-bleu sums its logarithms in x87 extended precision: ``s += (double)w *
log((long double)m / (long double)t)`` with ``w`` a float32 weight and ``s`` a
double; the model evaluates that with numpy's ``longdouble`` (the same 80-bit
type and the same libm ``logl`` on x86-64 Linux).

Entry ids and what switching them on does:

* ``FAST-BLEU-POOLED-MEAN``: the number is the mean, ``sum(scores) / len(scores)``,
  of one score per hypothesis, each against every reference of the corpus pooled
  (clipped by the largest count in any reference, the closest of all reference
  lengths, ties to the shorter), each order's total floored at 1, smoothed as
  ``smooth_1`` (a zero match becomes 1 / (10 t)), in fast-bleu's arithmetic;
* ``FAST-BLEU-LONG-DOUBLE``: a score in fast-bleu's arithmetic (above; the
  smoothing request's method1 with epsilon 0.1 is ``smooth_1``'s exact 1 / (10 t),
  method ``none`` is ``smooth_0``: ``log(LDBL_MIN)`` for a zero match);
* ``FAST-BLEU-MAX-ORDER-1``: a max order of 1 fails fast-bleu's ``assert 2 <=
  min_n``;
* ``FAST-BLEU-NGRAM-STRINGS``: an n-gram is the string of its tokens joined by one
  space (``get_ngrams``), so n-grams of tokens holding spaces can be equal as
  strings though their tokens differ (``"a b" + "c"`` and ``"a" + "b c"``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from bleu_compat.harness.dialect import (
    card_bp,
    card_brevity,
    card_corpus_bleu,
    card_smoothed_bleu,
    card_smoothing,
)
from bleu_compat.harness.truth import ngram_counts, to_fixed

__all__ = ["corpus_outcome", "evaluate", "fast_bleu_score", "pooled_statistics"]

Request = dict[str, Any]

POOLED = "FAST-BLEU-POOLED-MEAN"
LONG_DOUBLE = "FAST-BLEU-LONG-DOUBLE"
MAX_ORDER_1 = "FAST-BLEU-MAX-ORDER-1"
NGRAM_STRINGS = "FAST-BLEU-NGRAM-STRINGS"

#: fast-bleu's smooth_1 epsilon, Fraction(1, 10)
EPSILON = Fraction(1, 10)


def fast_bleu_score(matches: list[Any], totals: list[Any], c: int, r: int, smoothing: str,
                    epsilon: float = 0.1) -> float:
    """fast-bleu's ``corpus_bleu`` (one hypothesis) on statistics, after ``p_n[0] == 0``.

    Args:
        matches, totals: per order (totals already floored at 1 where fast-bleu floors).
        c, r: hypothesis length and closest reference length.
        smoothing: ``"method1"`` (``smooth_1``: a zero match is 1 / (10 t) when
            ``epsilon`` is 0.1; another epsilon, a state of no library, epsilon / t),
            anything else ``smooth_0`` (``log(LDBL_MIN)``).
    """
    import numpy as np

    ld = np.longdouble
    n = len(matches)
    w = float(np.float32(1.0 / n))  # vector<float> weights, read as (double)weights[i]
    if matches[0] == 0:
        return 0.0
    if c == 0:
        bp = 0.0
    elif c > r:
        bp = 1.0
    else:
        bp = math.exp(1 - r / c)
    s = 0.0
    for m, t in zip(matches, totals):
        if m == 0 and smoothing == "method1":
            if epsilon == 0.1:
                q = ld(EPSILON.numerator) / ld(EPSILON.denominator * t)
            else:
                q = ld(epsilon) / ld(t)
            term = ld(w) * np.log(q)
        elif m == 0:
            term = ld(w) * np.log(np.finfo(np.longdouble).tiny)
        else:
            term = ld(w) * np.log(ld(m) / ld(t))
        s = float(ld(s) + term)
    return bp * math.exp(s)


def _counts(tokens: list[str], n: int, joined: bool) -> dict[Any, int]:
    counts = ngram_counts(tokens, n)
    if not joined:
        return dict(counts)
    out: dict[Any, int] = {}
    for g, k in counts.items():
        key = " ".join(g)
        out[key] = out.get(key, 0) + k
    return out


def pooled_statistics(hypotheses: list[list[str]], pool: list[list[str]], n_orders: int,
                      joined: bool = False) -> list[tuple[list[int], list[int], int, int]]:
    """Per hypothesis ``(matches, totals floored at 1, c, r)`` against the pooled references
    (``joined``: n-grams compared as their tokens joined by one space)."""
    best: list[dict[Any, int]] = []
    for n in range(1, n_orders + 1):
        b: dict[Any, int] = {}
        for ref in pool:
            for g, k in _counts(ref, n, joined).items():
                if k > b.get(g, 0):
                    b[g] = k
        best.append(b)
    lengths = [len(ref) for ref in pool]
    out = []
    for h in hypotheses:
        matches, totals = [], []
        for n in range(1, n_orders + 1):
            counts = _counts(h, n, joined)
            matches.append(sum(min(k, best[n - 1].get(g, 0)) for g, k in counts.items()))
            totals.append(max(1, sum(counts.values())))
        r = min(lengths, key=lambda x: (abs(x - len(h)), x))
        out.append((matches, totals, len(h), r))
    return out


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    from bleu_compat.harness.truth import corpus_truth_stats

    n_orders = request.get("max_order", 4)
    if MAX_ORDER_1 in on and n_orders < 2:
        return {"error": "AssertionError: 2 <= min_n <= max_n; got 2 <= 1 <= 1"}
    decimals = request.get("decimals")
    if POOLED in on:
        pool = [ref for refs in request["references"] for ref in refs]
        per = pooled_statistics(request["hypotheses"], pool, n_orders, NGRAM_STRINGS in on)
        scores = [fast_bleu_score(m, t, c, r, "method1") for m, t, c, r in per]
        return {"bleu": _round(sum(scores) / len(scores), decimals)}
    matches, totals, c, r = corpus_truth_stats(request["hypotheses"], request["references"], n_orders)
    bp = card_bp(c, r)
    if LONG_DOUBLE in on:
        # one segment, smooth_0 (the mapped call): each total floored at 1
        floored = [max(1, t) for t in totals]
        bleu = fast_bleu_score(matches, floored, c, r, "none")
    else:
        bleu = card_corpus_bleu(matches, totals, bp)
    return {"bleu": _round(bleu, decimals), "brevity_penalty": bp, "candidate_length": c,
            "reference_length": r, "max_order": n_orders, "matches": list(matches),
            "totals": list(totals)}


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    c, r = request["candidate_length"], request["reference_length"]
    method = request["smoothing"]
    bp = card_bp(c, r)
    sm, st, used = card_smoothing(request)
    card = card_smoothed_bleu(request, sm, st, used, bp)
    if LONG_DOUBLE in on and used == len(matches) and min(totals) > 0:
        if method in ("none", "method1"):
            bleu = fast_bleu_score(matches, totals, c, r, method, request.get("epsilon", 0.1))
        else:  # a state of no library: the card's smoothed counts in fast-bleu's arithmetic
            bleu = fast_bleu_score(sm, st, c, r, "none") if card != 0 else 0.0
    else:
        bleu = card
    return {"bleu": _round(bleu, request.get("decimals")), "brevity_penalty": bp,
            "orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}


_TOOLS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": card_brevity,
}


def evaluate(tool_id: str, mode: str, request: Request, on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """fast-bleu's dialect on a valid card ``request``: the card with the models in ``on``."""
    return _TOOLS[tool_id](mode, request, on, cache)


def corpus_outcome(facts: Request, on: frozenset[str]) -> str | float | None:
    """What fast-bleu does on a corpus beyond the arithmetic: refuses a max order of 1
    (FAST-BLEU-MAX-ORDER-1: ``AssertionError``); else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    if MAX_ORDER_1 in on and facts["max_order"] < 2:
        return "AssertionError: 2 <= min_n <= max_n; got 2 <= 1 <= 1"
    return None
