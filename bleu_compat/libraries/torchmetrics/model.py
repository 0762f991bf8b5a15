"""torchmetrics' dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the torchmetrics adapter would give (card
shape without ``brevity_penalty``, which torchmetrics never returns; 0–1 scale)
when the models of the entries in ``on`` are switched on; with ``on`` empty it
is the card's output. The models transcribe torchmetrics 1.9's
``torchmetrics/functional/text/bleu.py`` (``_bleu_score_update``,
``_bleu_score_compute``), evaluated on statistics counted by the truth
(:mod:`bleu_compat.harness.truth`), never by the core.

The float32 arithmetic is evaluated with torch's own float32 operations
(``torch.log``, ``torch.exp``, ``torch.sum`` on float32 tensors), as the library
evaluates it: on this machine's CPU build (MKL/SLEEF), 12 in 20,000 float32
logarithms and 222 in 20,000 exponentials are not the correctly rounded
float32, so no standard-library arithmetic gives torchmetrics' bits. Only those
elementary operations are torch's; the statistics, their float32 values and the
order of operations are the model's.

Entry ids and what switching them on does:

* ``TORCHMETRICS-WHITESPACE-IN-TOKEN``: tokens are ``" ".join(tokens).split()``
  (the library takes strings and splits them; as called);
* ``TORCHMETRICS-FIRST-REFERENCE-TIES``: a segment's reference length is the
  first listed of the references closest to the hypothesis length (the card:
  the shorter);
* ``TORCHMETRICS-FLOAT32`` / ``-FLOAT32-SMOOTHING``: the statistics are float32
  values and the score is ``_bleu_score_compute`` in float32: ``p = num / den``,
  ``w * log(p)``, ``exp(sum(...))``, ``bp = 1 if c > r else exp(1 - r / c)``,
  ``bp * gm``; a count above 2^24 is rounded to float32;
* ``TORCHMETRICS-ZERO-MATCH-SKIPS-SMOOTHING``: ``min(numerator) == 0`` returns 0
  before smoothing (``smooth=True`` adds one only when every order has a match).

Statistics ``update()`` cannot produce (c = 0 with a match in every order, where
``exp(1 - 0 / 0)`` would make the score NaN) are refused by the adapter.
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
from bleu_compat.harness.truth import ngram_counts

__all__ = ["evaluate", "float32_bleu", "to_float32"]

Request = dict[str, Any]

WHITESPACE = "TORCHMETRICS-WHITESPACE-IN-TOKEN"
FIRST_TIES = "TORCHMETRICS-FIRST-REFERENCE-TIES"
FLOAT32 = "TORCHMETRICS-FLOAT32"
FLOAT32_SMOOTHING = "TORCHMETRICS-FLOAT32-SMOOTHING"
ZERO_SKIPS = "TORCHMETRICS-ZERO-MATCH-SKIPS-SMOOTHING"


def to_float32(x: int | float) -> float:
    """The float32 nearest ``x`` (round to nearest, ties to even), as a Python float.

    ``x`` an int up to 2^53 or a float: its double is exact, and one rounding to
    float32 follows (what ``torch.tensor(x, dtype=torch.float32)`` and float32
    accumulation of counts below 2^24 give).
    """
    import struct

    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def float32_bleu(matches: list[Any], totals: list[Any], c: Any, r: Any, n_orders: int,
                 smooth: bool, *, zero_check: bool = True) -> float:
    """``_bleu_score_compute`` on float32 statistics, as a Python float (``.item()``).

    Args:
        matches, totals, c, r: the statistics (each rounded to float32 here).
        n_orders: N (weights ``[1.0 / N] * N`` as a float32 tensor).
        smooth: ``smooth=True``: add one to numerator and denominator, then put
            back the unsmoothed unigram precision.
        zero_check: ``if min(numerator) == 0.0: return 0`` first (the library's);
            False: a zero precision goes through ``log`` (the card's 0).
    """
    import torch

    numerator = torch.tensor([to_float32(m) for m in matches], dtype=torch.float32)
    denominator = torch.tensor([to_float32(t) for t in totals], dtype=torch.float32)
    preds_len = torch.tensor(to_float32(c), dtype=torch.float32)
    target_len = torch.tensor(to_float32(r), dtype=torch.float32)
    if zero_check and min(numerator) == 0.0:
        return 0.0
    if c == 0:
        return 0.0  # (zero_check off: a state of no library; the card's brevity penalty 0)
    if smooth:
        precision = torch.div(torch.add(numerator, torch.ones(n_orders)),
                              torch.add(denominator, torch.ones(n_orders)))
        precision[0] = numerator[0] / denominator[0]
    else:
        precision = numerator / denominator
    log_p = torch.tensor([1.0 / n_orders] * n_orders) * torch.log(precision)
    gm = torch.exp(torch.sum(log_p))
    bp = torch.tensor(1.0) if preds_len > target_len else torch.exp(1 - (target_len / preds_len))
    return float((bp * gm).item())


def _round(value: float, decimals: int | None) -> float:
    from bleu_compat.harness.truth import to_fixed

    if decimals is None or value != value:
        return float(value)
    return to_fixed(float(value), decimals)


def _first_closest(c: int, lengths: list[int]) -> int:
    # target_len_diff.index(min(target_len_diff)): the first listed among the closest
    diffs = [abs(c - x) for x in lengths]
    return lengths[diffs.index(min(diffs))]


def corpus_statistics(request: Request, split: bool, first_ties: bool,
                      cache: dict[Any, Any]) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, c, r) as torchmetrics counts them with the given models on."""
    key = ("torchmetrics-corpus", split, first_ties)
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
        if first_ties:
            r += _first_closest(len(h), lengths)
        else:
            r += min(lengths, key=lambda x: (abs(x - len(h)), x))
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


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    matches, totals, c, r = corpus_statistics(request, WHITESPACE in on, FIRST_TIES in on, cache)
    if FLOAT32 in on:
        bleu = float32_bleu(matches, totals, c, r, n_orders, smooth=False)
    else:
        bleu = card_corpus_bleu(matches, totals, card_bp(c, r))
    return {"bleu": _round(bleu, request.get("decimals")), "brevity_penalty": card_bp(c, r),
            "candidate_length": c,
            "reference_length": r, "max_order": n_orders, "matches": list(matches),
            "totals": list(totals)}


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    c, r = request["candidate_length"], request["reference_length"]
    method = request["smoothing"]
    bp = card_bp(c, r)
    sm, st, used = card_smoothing(request)
    out = {"brevity_penalty": bp, "orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}
    decimals = request.get("decimals")
    if ZERO_SKIPS in on and min(matches) == 0:
        return dict(out, bleu=_round(0.0, decimals))
    card = card_smoothed_bleu(request, sm, st, used, bp)
    if FLOAT32_SMOOTHING in on and card != 0 and method in ("none", "method2"):
        bleu = float32_bleu(matches, totals, c, r, n_orders, smooth=method == "method2",
                            zero_check=False)
    elif FLOAT32_SMOOTHING in on and card != 0:
        # a state of no library (another method): the card's smoothed counts, torchmetrics' arithmetic
        bleu = float32_bleu(sm, st, c, r, n_orders, smooth=False, zero_check=False)
    else:
        bleu = card
    return dict(out, bleu=_round(bleu, decimals))


_TOOLS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": card_brevity,
}


def evaluate(tool_id: str, mode: str, request: Request, on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """torchmetrics' dialect on a valid card ``request``: the card with the models in ``on``.

    Returns:
        The output in the card's shape (0–1 scale); ``decimals`` is not applied
        (torchmetrics has none: the adapter refuses a request with ``decimals``).
    """
    return _TOOLS[tool_id](mode, request, on, cache)
