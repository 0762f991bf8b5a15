"""pycocoevalcap's dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the pycocoevalcap adapter would give (``Bleu_N``
and the statistics ``BleuScorer.compute_score`` prints; 0–1 scale) when the
models of the entries in ``on`` are switched on; with ``on`` empty it is the
card's output. The models transcribe pycocoevalcap 1.2's
``pycocoevalcap/bleu/bleu_scorer.py`` (``precook``, ``cook_test`` with
``eff="closest"``, ``BleuScorer.compute_score``), evaluated on statistics
counted by the truth (:mod:`bleu_compat.harness.truth`), never by the core.

Entry ids and what switching them on does:

* ``PYCOCOEVALCAP-WHITESPACE-IN-TOKEN``: tokens are ``" ".join(tokens).split()``;
* ``PYCOCOEVALCAP-FUDGE-ARITHMETIC`` / ``-SMOOTHING``: a score with every
  precision positive in coco's arithmetic: the running product of
  ``float(m_k + 1e-15) / (t_k + 1e-9)``, ``** (1 / N)``, times
  ``exp(1 - 1 / ratio)`` when ``ratio = (c + 1e-15) / (r + 1e-9) < 1``;
* ``PYCOCOEVALCAP-ZERO-MATCH-FUDGE`` / ``-SMOOTHING``: the same arithmetic where
  an order has no match (or no n-gram): ``1e-15 / (t + 1e-9)`` is a tiny positive
  precision and the score small but not 0 (the card: 0);
* ``PYCOCOEVALCAP-MAX-ORDER-ABOVE-4-INDEXERROR``: ``Bleu(n)`` with n > 4 cooks
  every caption with the default n = 4 (``cook_refs``/``cook_test`` are not given
  n) and ``compute_score`` then reads a fifth order: ``IndexError``.
"""

from __future__ import annotations

import math
from typing import Any

from bleu_compat.harness.dialect import (
    card_bp,
    card_brevity,
    card_corpus_bleu,
    card_smoothed_bleu,
    card_smoothing,
)
from bleu_compat.harness.truth import ngram_counts, to_fixed

__all__ = ["evaluate", "coco_bleu", "TINY", "SMALL"]

Request = dict[str, Any]

WHITESPACE = "PYCOCOEVALCAP-WHITESPACE-IN-TOKEN"
FUDGE = "PYCOCOEVALCAP-FUDGE-ARITHMETIC"
ZERO = "PYCOCOEVALCAP-ZERO-MATCH-FUDGE"
FUDGE_SMOOTHING = "PYCOCOEVALCAP-FUDGE-ARITHMETIC-SMOOTHING"
ZERO_SMOOTHING = "PYCOCOEVALCAP-ZERO-MATCH-FUDGE-SMOOTHING"
MAX_ORDER = "PYCOCOEVALCAP-MAX-ORDER-ABOVE-4-INDEXERROR"

#: BleuScorer.compute_score's fudge constants
TINY, SMALL = 1e-15, 1e-9


def coco_bleu(matches: list[Any], totals: list[Any], c: Any, r: Any) -> float:
    """``bleus[N - 1]`` of ``BleuScorer.compute_score``'s corpus part on these statistics."""
    n = len(matches)
    bleu = 1.
    bleus = []
    for k in range(n):
        bleu *= float(matches[k] + TINY) / (totals[k] + SMALL)
        bleus.append(bleu ** (1. / (k + 1)))
    ratio = (c + TINY) / (r + SMALL)
    if ratio < 1:
        for k in range(n):
            bleus[k] *= math.exp(1 - 1 / ratio)
    return bleus[n - 1]


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def corpus_statistics(request: Request, split: bool,
                      cache: dict[Any, Any]) -> tuple[list[int], list[int], int, int]:
    """(correct, guess, testlen, reflen) as BleuScorer counts them (``eff="closest"``: ties to
    the shorter; ``guess`` = max(0, testlen - k + 1))."""
    key = ("coco-corpus", split)
    if key in cache:
        return cache[key]
    n_orders = request.get("max_order", 4)

    def tok(tokens: list[str]) -> list[str]:
        return " ".join(tokens).split() if split else list(tokens)

    matches, totals = [0] * n_orders, [0] * n_orders
    c = r = 0
    for hyp, refs in zip(request["hypotheses"], request["references"]):
        h = tok(hyp)
        rs = [tok(ref) for ref in refs]
        c += len(h)
        r += min((abs(len(x) - len(h)), len(x)) for x in rs)[1]
        for n in range(1, n_orders + 1):
            counts = ngram_counts(h, n)
            best: dict[tuple[str, ...], int] = {}
            for ref in rs:
                for g, k in ngram_counts(ref, n).items():
                    if k > best.get(g, 0):
                        best[g] = k
            matches[n - 1] += sum(min(k, best.get(g, 0)) for g, k in counts.items())
            totals[n - 1] += max(0, len(h) - n + 1)
    cache[key] = (matches, totals, c, r)
    return cache[key]


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    if MAX_ORDER in on and n_orders > 4:
        return {"error": "IndexError: list index out of range"}
    matches, totals, c, r = corpus_statistics(request, WHITESPACE in on, cache)
    card = card_corpus_bleu(matches, totals, card_bp(c, r))
    zero = any(m == 0 for m in matches)
    if (FUDGE in on and not zero) or (ZERO in on and zero):
        bleu = coco_bleu(matches, totals, c, r)
    else:
        bleu = card
    return {"bleu": _round(bleu, request.get("decimals")), "brevity_penalty": card_bp(c, r),
            "candidate_length": c, "reference_length": r, "max_order": n_orders,
            "matches": list(matches), "totals": list(totals)}


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    c, r = request["candidate_length"], request["reference_length"]
    bp = card_bp(c, r)
    sm, st, used = card_smoothing(request)
    card = card_smoothed_bleu(request, sm, st, used, bp)
    zero = any(m == 0 for m in sm[:used]) or used == 0
    if used == len(matches) and ((FUDGE_SMOOTHING in on and not zero) or (ZERO_SMOOTHING in on and zero)):
        bleu = coco_bleu(sm, st, c, r)  # the card's (smoothed) counts in coco's arithmetic
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
    """pycocoevalcap's dialect on a valid card ``request``: the card with the models in ``on``."""
    return _TOOLS[tool_id](mode, request, on, cache)
