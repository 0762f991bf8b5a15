"""bleuscore's dialect: HF evaluate's ``bleu`` family, reimplemented in Rust.

:func:`evaluate` gives the output the bleuscore adapter would give (card shape, 0–1
scale, ``decimals`` applied) when the models of the entries in ``on`` are switched
on; with ``on`` empty it is the card's output. Written from the facts of bleuscore
0.2.0's ``crates/bleuscore/src/bleu.rs`` (``compute_score``) and ``tokenizer.rs``
(``Tokenizer13a``, the rules of evaluate's copy of 13a), read, not copied:

* every string is tokenized by the 13a copy (:func:`~bleu_compat.libraries.hf_bleu.model.
  tokenize_13a_copy`) and split with Rust's ``split_whitespace``: U+001C..U+001F are not
  whitespace there (they are for Python's ``str.split``, so evaluate splits on them);
* ``ref_len_method="shortest"`` (the default): the shortest reference of each segment;
  ``"closest"``: the card's rule;
* precisions ``m_n as f64 / l_n as f64`` (0.0 for an order without n-grams) or, with
  ``smooth=true``, ``(m_n + 1.0) / (l_n + 1.0)`` for every order;
* ``geo_mean = exp((1.0 / N) * sum(ln p_n))`` when every precision is > 0 (the card's
  corpus order), else 0;
* ``length_ratio = c as f64 / r as f64`` in IEEE arithmetic (no exception):
  ``bp = exp(1.0 - 1.0 / length_ratio)`` when ``length_ratio <= 1.0``, else 1.0, so
  c = r = 0 (ratio NaN) gives 1.0 where the card gives 0.

Entry ids and what switching them on does:

* ``BLEUSCORE-13A-RETOKENIZES`` (as called): each segment is its tokens joined by
  spaces, tokenized again by the 13a copy with Rust's whitespace;
* ``BLEUSCORE-SHORTEST-REFERENCE`` (as called): the shortest reference's length;
* ``BLEUSCORE-BP-RATIO``: ``exp(1 - 1 / (c / r))`` for 0 < c < r;
* ``BLEUSCORE-BP-ZERO-LENGTHS``: c = r = 0 gives a brevity penalty of 1.0;
* ``BLEUSCORE-BP-RATIO-SMOOTHING``: bleuscore's brevity penalty (both of the above);
* ``BLEUSCORE-FLOAT-ORDER-SMOOTHING``: ``exp((1/N) * sum(ln p_n)) * bp`` where the
  smoothing card divides the sum by the orders used;
* ``BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING``: ``smooth=True`` (card method2) adds one
  to every order, the unigrams included.
"""

from __future__ import annotations

import math
from typing import Any

from bleu_compat.harness.dialect import (
    card_brevity,
    card_bp, card_corpus_bleu, card_smoothed_bleu, card_smoothing, safe_log,
)
from bleu_compat.harness.truth import corpus_truth_stats, to_fixed
from bleu_compat.libraries.hf_bleu.model import shortest_lengths, tokenize_13a_copy

__all__ = ["evaluate", "rust_bp"]

Request = dict[str, Any]

RETOKENIZES = "BLEUSCORE-13A-RETOKENIZES"
SHORTEST = "BLEUSCORE-SHORTEST-REFERENCE"
BP_RATIO = "BLEUSCORE-BP-RATIO"
BP_ZERO = "BLEUSCORE-BP-ZERO-LENGTHS"
BP_SMOOTHING = "BLEUSCORE-BP-RATIO-SMOOTHING"
FLOAT_SMOOTHING = "BLEUSCORE-FLOAT-ORDER-SMOOTHING"
ADD_ONE_SMOOTHING = "BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING"


def rust_bp(c: int, r: int) -> float:
    """bleuscore's brevity penalty: ``length_ratio = c / r`` in IEEE arithmetic (c > 0, r = 0:
    +inf; c = r = 0: NaN); ``exp(1.0 - 1.0 / length_ratio)`` when ``length_ratio <= 1.0``
    (c = 0 < r: exp(-inf) = 0.0), else 1.0."""
    if r == 0:
        return 1.0  # +inf or NaN: neither is <= 1.0
    ratio = float(c) / float(r)
    if not ratio <= 1.0:
        return 1.0
    if ratio == 0.0:
        return 0.0  # 1.0 / 0.0 = +inf, exp(1 - inf) = 0
    return math.exp(1.0 - 1.0 / ratio)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    decimals = request.get("decimals")
    hyps, refs = request["hypotheses"], request["references"]
    retokenize = RETOKENIZES in on
    key = ("bleuscore-corpus", retokenize)
    if key not in cache:
        if retokenize:
            hyps = [tokenize_13a_copy(" ".join(h), "rust") for h in hyps]
            refs = [[tokenize_13a_copy(" ".join(r), "rust") for r in seg] for seg in refs]
        cache[key] = (corpus_truth_stats(hyps, refs, n_orders), shortest_lengths(refs))
    (matches, totals, c, closest), shortest = cache[key]
    r = shortest if SHORTEST in on else closest
    bp = card_bp(c, r)
    if BP_RATIO in on and 0 < c < r:
        bp = rust_bp(c, r)
    if BP_ZERO in on and c == 0 and r == 0:
        bp = 1.0
    bleu = 0.0 if any(m == 0 for m in matches) else card_corpus_bleu(matches, totals, bp)
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "candidate_length": c,
        "reference_length": r,
        "max_order": n_orders,
        "matches": list(matches),
        "totals": list(totals),
    }


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    decimals = request.get("decimals")
    c, r = request["candidate_length"], request["reference_length"]
    sm, st, used = card_smoothing(request)
    add_one = ADD_ONE_SMOOTHING in on and request["smoothing"] == "method2"
    if add_one:
        sm, st, used = [m + 1 for m in matches], [t + 1 for t in totals], n_orders
    bp = rust_bp(c, r) if BP_SMOOTHING in on else card_bp(c, r)
    precisions = [sm[k] / st[k] if st[k] > 0 else 0.0 for k in range(used)]
    if FLOAT_SMOOTHING in on:  # (1.0 / N) * sum(ln p), exp, times bp
        if used and min(precisions) > 0:
            bleu = math.exp((1.0 / used) * sum(math.log(p) for p in precisions)) * bp
        else:
            bleu = 0.0
    elif add_one:
        log_sum = 0.0
        for p in precisions:
            log_sum += safe_log(p)
        bleu = bp * math.exp(log_sum / used)
    else:
        bleu = card_smoothed_bleu(request, sm, st, used, bp)
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "orders_used": used,
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
    """bleuscore's dialect on a valid card ``request``: the card with the models in ``on``.

    Returns:
        The output in the card's shape (0–1 scale, ``decimals`` applied with the truth's
        ``toFixed``).
    """
    return _TOOLS[tool_id](mode, request, on, cache)
