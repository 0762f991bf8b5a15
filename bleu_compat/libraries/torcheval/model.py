"""torcheval's dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the torcheval adapter would give (the score
and, for the corpus tool, the statistics ``_bleu_score_update`` returns; 0–1
scale) when the models of the entries in ``on`` are switched on; with ``on``
empty it is the card's output. The models transcribe torcheval 0.0.7's
``torcheval/metrics/functional/text/bleu.py`` (``bleu_score``,
``_bleu_score_update``, ``_bleu_score_compute``), evaluated on statistics counted
by the truth (:mod:`bleu_compat.harness.truth`), never by the core.

As in torchmetrics' model, the float32 arithmetic is evaluated with torch's own
operations on tensors of the dtypes ``_bleu_score_update`` builds (lengths int64,
counts float32, weights ``torch.tensor([1 / N] * N)``): torch's float32 ``log``
and ``exp`` are not always correctly rounded on this CPU.

Entry ids and what switching them on does:

* ``TORCHEVAL-WHITESPACE-IN-TOKEN``: tokens are ``" ".join(tokens).split()``;
* ``TORCHEVAL-SHORTEST-REFERENCE``: each segment's reference length is its
  shortest reference's (``min([len(ref) ...])``), not the closest;
* ``TORCHEVAL-FLOAT32`` / ``-FLOAT32-SMOOTHING``: the score in float32:
  ``exp(sum(w * log(m / t)))``, ``bp = 1 if c > r else exp(1 - r / c)`` with
  r / c an int64 division giving float32;
* ``TORCHEVAL-ZERO-TOTAL-RAISES``: an order with no n-gram at all (every
  hypothesis shorter than n) raises ``ValueError`` (the card: bleu 0);
* ``TORCHEVAL-MAX-ORDER-4``: a max order above 4 raises ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import (
    card_bp,
    card_brevity,
    card_corpus_bleu,
    card_smoothed_bleu,
    card_smoothing,
)
from bleu_compat.harness.truth import ngram_counts, to_fixed

__all__ = ["corpus_outcome", "evaluate", "float32_bleu"]

Request = dict[str, Any]

WHITESPACE = "TORCHEVAL-WHITESPACE-IN-TOKEN"
SHORTEST = "TORCHEVAL-SHORTEST-REFERENCE"
FLOAT32 = "TORCHEVAL-FLOAT32"
FLOAT32_SMOOTHING = "TORCHEVAL-FLOAT32-SMOOTHING"
ZERO_TOTAL = "TORCHEVAL-ZERO-TOTAL-RAISES"
MAX_ORDER = "TORCHEVAL-MAX-ORDER-4"


def float32_bleu(matches: list[Any], totals: list[Any], c: int, r: int, n_orders: int) -> float:
    """``_bleu_score_compute`` on the tensors ``_bleu_score_update`` builds, as ``.item()``.

    Counts become float32 (exactly, below 2^24: one rounding of the whole number
    above), lengths int64. A zero total gives NaN (update() raises before).
    """
    import struct

    import torch

    def f32(x: Any) -> float:
        return struct.unpack("<f", struct.pack("<f", float(x)))[0]

    matches_t = torch.tensor([f32(m) for m in matches], dtype=torch.float32)
    possible = torch.tensor([f32(t) for t in totals], dtype=torch.float32)
    input_len = torch.tensor(int(c), dtype=torch.int64)
    target_len = torch.tensor(int(r), dtype=torch.int64)
    weights = torch.tensor([1 / n_orders] * n_orders)
    precisions = matches_t / possible
    gm = torch.exp(torch.sum(weights * torch.log(precisions)))
    bp = torch.tensor(1.0) if input_len > target_len else torch.exp(1 - target_len / input_len)
    return float((bp * gm).item())


def _round(value: float, decimals: int | None) -> float:
    if decimals is None or value != value:
        return float(value)
    return to_fixed(float(value), decimals)


def corpus_statistics(request: Request, split: bool, shortest: bool,
                      cache: dict[Any, Any]) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, c, r) as torcheval counts them with the given models on."""
    key = ("torcheval-corpus", split, shortest)
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
        lengths = [len(x) for x in rs]
        c += len(h)
        r += min(lengths) if shortest else min(lengths, key=lambda x: (abs(x - len(h)), x))
        for n in range(1, n_orders + 1):
            counts = ngram_counts(h, n)
            best: dict[tuple[str, ...], int] = {}
            for ref in rs:
                for g, k in ngram_counts(ref, n).items():
                    if k > best.get(g, 0):
                        best[g] = k
            matches[n - 1] += sum(min(k, best.get(g, 0)) for g, k in counts.items())
            totals[n - 1] += sum(counts.values())
    cache[key] = (matches, totals, c, r)
    return cache[key]


def _corpus_error(n_orders: int, totals: list[Any] | None, on: frozenset[str]) -> str | None:
    """The error ``bleu_score`` raises for a max order and the corpus totals, or None."""
    if MAX_ORDER in on and n_orders > 4:  # _get_ngrams checks it for every hypothesis
        return f"ValueError: n_gram should be 1, 2, 3, or 4, got {n_orders}."
    if totals is not None and ZERO_TOTAL in on and min(totals) == 0:
        return ("ValueError: the input is too short to find all n-gram matches with "
                f"n_gram={n_orders}")
    return None


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    error = _corpus_error(n_orders, None, on)
    if error:
        return {"error": error}
    matches, totals, c, r = corpus_statistics(request, WHITESPACE in on, SHORTEST in on, cache)
    error = _corpus_error(n_orders, totals, on)
    if error:
        return {"error": error}
    if FLOAT32 in on and min(totals) > 0:
        bleu = float32_bleu(matches, totals, c, r, n_orders)
    else:
        bleu = card_corpus_bleu(matches, totals, card_bp(c, r))
    return {"bleu": _round(bleu, request.get("decimals")), "brevity_penalty": card_bp(c, r),
            "candidate_length": c, "reference_length": r, "max_order": n_orders,
            "matches": list(matches), "totals": list(totals)}


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    c, r = request["candidate_length"], request["reference_length"]
    bp = card_bp(c, r)
    sm, st, used = card_smoothing(request)
    card = card_smoothed_bleu(request, sm, st, used, bp)
    if FLOAT32_SMOOTHING in on and c > 0 and min(st) > 0 and used == n_orders:
        # the card's (smoothed) counts in torcheval's arithmetic: its own for method none
        bleu = float32_bleu(sm, st, c, r, n_orders) if card != 0 else 0.0
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
    """torcheval's dialect on a valid card ``request``: the card with the models in ``on``."""
    return _TOOLS[tool_id](mode, request, on, cache)


def corpus_outcome(facts: Request, on: frozenset[str]) -> str | float | None:
    """What ``bleu_score`` does on a corpus with these statistics beyond the arithmetic: a
    total of 0 (no hypothesis long enough for an order) raises ``ValueError``
    (TORCHEVAL-ZERO-TOTAL-RAISES), as does a max order above 4; else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    return _corpus_error(facts["max_order"], list(facts["totals"]), on)
