"""tensor2tensor's dialect: ``bleu_hook.compute_bleu`` and ``bleu_tokenize`` (t2t-bleu).

:func:`evaluate` gives the output the t2t adapter would give (only ``bleu``: that is all
``compute_bleu`` returns) when the models of the entries in ``on`` are switched on; with
``on`` empty it is the card's. Written from the facts of tensor2tensor 1.15.7's
``tensor2tensor/utils/bleu_hook.py``, read, not copied:

* one reference per hypothesis; clipped matches and totals as the card's;
* ``bleu_tokenize``: a non-digit before a punctuation character (category P*), a
  punctuation character before a non-digit, and every symbol (S*) are spaced apart, then
  the line is split; t2t builds its punctuation class by writing the characters between
  brackets unescaped, so the backslash escapes the ``]`` after it and is itself left out;
* smoothing always on: the k-th order with n-grams but no match gets the precision
  ``1.0 / (2^k * l_n)`` (k counts only such orders; the unigrams too, so no unigram
  match still scores);
* an order without n-grams gets the precision 0.0, which the sum of logs skips
  (``if p``): it counts as precision 1, while the mean still divides by N (an
  all-short corpus scores 1.0, where the card gives 0);
* ``geo_mean = exp(sum(log p for p in precisions if p) / N)`` when some precision is
  > 0, else 0; ``bp = 1.0`` when r = 0, else ``ratio = c / r``: 0.0 when ``ratio <= 0``,
  1.0 when ``ratio >= 1``, else ``exp(1 - 1. / ratio)``;
* ``np.float32(geo_mean * bp)``: the score is rounded to single precision.

``bleu_wrapper`` (the ``t2t-bleu`` command) lowercases both files unless
``case_sensitive`` and tokenizes each line with ``bleu_tokenize``:
:func:`t2t_tokenize` is that tokenizer, built from this Python's ``unicodedata`` as
t2t builds it (so, like t2t, its classes follow the running Python's Unicode version).

Entry ids and what switching them on does:

* ``T2T-ALWAYS-SMOOTHED``: zero-match orders with n-grams get ``1 / (2^k * l_n)``;
* ``T2T-EMPTY-ORDER-PRECISION-ONE`` / ``-SMOOTHING``: an order without n-grams counts as
  precision 1 (and, smoothing, is not numbered among the k);
* ``T2T-NO-MATCH-STILL-SMOOTHED-SMOOTHING``: no unigram match still scores (the card's
  smoothed score is 0 then);
* ``T2T-FLOAT32-RESULT`` / ``-SMOOTHING``: the score in t2t's arithmetic, rounded to
  float32.
"""

from __future__ import annotations

import functools
import math
import re
import struct
import sys
import unicodedata
from typing import Any, Sequence

from bleu_compat.harness.dialect import card_bp, card_brevity, card_smoothing
from bleu_compat.harness.truth import corpus_truth_stats, to_fixed

__all__ = ["corpus_outcome", "evaluate", "t2t_tokenize", "t2t_score", "float32"]

Request = dict[str, Any]

SMOOTHED = "T2T-ALWAYS-SMOOTHED"
EMPTY = "T2T-EMPTY-ORDER-PRECISION-ONE"
FLOAT32 = "T2T-FLOAT32-RESULT"
EMPTY_SMOOTHING = "T2T-EMPTY-ORDER-PRECISION-ONE-SMOOTHING"
NO_MATCH_SMOOTHING = "T2T-NO-MATCH-STILL-SMOOTHED-SMOOTHING"
FLOAT32_SMOOTHING = "T2T-FLOAT32-RESULT-SMOOTHING"


def float32(x: float) -> float:
    """``x`` rounded to the nearest IEEE single (ties to even), as ``np.float32(x)``."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _ranges(prefix: str, leave_out: str = "") -> str:
    """A regex class body of the code points below ``sys.maxunicode`` whose Unicode general
    category starts with ``prefix`` (``P`` punctuation, ``S`` symbols), but ``leave_out``, as
    ranges."""
    out, start, prev = [], None, None
    for cp in range(sys.maxunicode):
        if unicodedata.category(chr(cp)).startswith(prefix) and chr(cp) not in leave_out:
            if start is None:
                start = cp
            prev = cp
        elif start is not None:
            out.append((start, prev))
            start = None
    if start is not None:
        out.append((start, prev))
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in out)


@functools.lru_cache(maxsize=1)
def _rules() -> tuple[tuple[re.Pattern[str], str], ...]:
    # t2t writes the punctuation characters into its class unescaped, in code point order, so
    # its backslash (U+005C, punctuation) escapes the ']' after it: the backslash itself is
    # not in t2t's punctuation class (it stays inside a token); '[' and ']' are.
    punct, symbols = _ranges("P", leave_out="\\"), _ranges("S")
    return (
        # punctuation after a character that is not a decimal digit (Nd): spaces after it
        (re.compile(rf"([^\d])([{punct}])"), r"\1 \2 "),
        # punctuation before a character that is not a decimal digit: spaces before it
        (re.compile(rf"([{punct}])([^\d])"), r" \1 \2"),
        # every symbol a token of its own
        (re.compile(rf"([{symbols}])"), r" \1 "),
    )


def t2t_tokenize(line: str) -> list[str]:
    """``bleu_tokenize``'s tokens: mteval-v14's international rules with Python's
    ``unicodedata`` classes and ``\\d`` for the digits, then ``str.split()``."""
    for pattern, replacement in _rules():
        line = pattern.sub(replacement, line)
    return line.split()


def t2t_bp(c: int, r: int) -> float:
    """compute_bleu's brevity penalty (``use_bp=True``)."""
    if not r:
        return 1.0
    ratio = c / r
    if ratio <= 0.0:
        return 0.0
    if ratio >= 1.0:
        return 1.0
    return math.exp(1 - 1.0 / ratio)


def t2t_score(precisions: Sequence[float | None], c: int, r: int, n_orders: int, *,
              t2t_arithmetic: bool) -> float:
    """The score from per-order precisions (None: an order left out, i.e. precision 1).

    ``t2t_arithmetic``: ``exp(sum(log p) / N) * t2t_bp``, rounded to float32; else the card's
    ``card_bp * exp((1/N) * sum(log p))``. 0.0 when every precision is None (no n-gram at all).
    """
    present = [p for p in precisions if p is not None]
    if not present:
        return 0.0
    if t2t_arithmetic:
        total: float = 0
        for p in present:
            total = total + math.log(p)
        return float32(math.exp(total / n_orders) * t2t_bp(c, r))
    log_sum = 0.0
    for p in present:
        log_sum += math.log(p)
    return card_bp(c, r) * math.exp((1 / n_orders) * log_sum)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    key = ("t2t-corpus",)
    if key not in cache:
        cache[key] = corpus_truth_stats(request["hypotheses"], request["references"], n_orders)
    matches, totals, c, r = cache[key]
    precisions: list[float | None] = []
    k = 0
    bleu: float | None = None
    for m, t in zip(matches, totals):
        if t == 0:
            if EMPTY not in on:
                bleu = 0.0
            precisions.append(None)
        elif m == 0:
            if SMOOTHED not in on:
                bleu = 0.0
            k += 1
            precisions.append(1.0 / (2.0 ** k * t))
        else:
            precisions.append(m / t)
    if bleu is None:
        bleu = t2t_score(precisions, c, r, n_orders, t2t_arithmetic=FLOAT32 in on)
    return {"bleu": _round(bleu, request.get("decimals"))}


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    method = request["smoothing"]
    c, r = request["candidate_length"], request["reference_length"]
    sm, st, used = card_smoothing(request)
    empty = EMPTY_SMOOTHING in on
    precisions: list[float | None] = []
    zero = matches[0] == 0 and NO_MATCH_SMOOTHING not in on  # the card: no unigram match, 0
    k = 0
    for n in range(used):
        if st[n] == 0:
            if not empty:
                zero = True
            precisions.append(None)
        elif method == "method3" and matches[n] == 0:
            k += 1  # the card numbers every zero-match order; t2t only those with n-grams
            precisions.append(1.0 / (2.0 ** k * st[n]) if empty else sm[n] / st[n])
        else:
            precisions.append(sm[n] / st[n])
    if any(p is not None and p <= 0 for p in precisions):
        zero = True
    if zero or not used or all(p is None for p in precisions):
        bleu = 0.0
    elif FLOAT32_SMOOTHING in on:
        bleu = t2t_score(precisions, c, r, used, t2t_arithmetic=True)
    else:  # the smoothing card's order: the mean of the logs over the orders used
        log_sum = 0.0
        for p in precisions:
            if p is not None:
                log_sum += math.log(p)
        bleu = card_bp(c, r) * math.exp(log_sum / used)
    return {
        "bleu": _round(bleu, request.get("decimals")),
        "brevity_penalty": _round(card_bp(c, r), request.get("decimals")),
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
    """tensor2tensor's dialect on a valid card ``request``: the card with the models in ``on``.

    Returns:
        The output in the card's shape (0–1 scale, ``decimals`` applied with the truth's
        ``toFixed``); the corpus tool gives ``bleu`` only, as ``compute_bleu`` does.
    """
    return _TOOLS[tool_id](mode, request, on, cache)


def corpus_outcome(facts: Request, on: frozenset[str]) -> str | float | None:
    """What ``t2t-bleu`` does with these files beyond the arithmetic: ``bleu_wrapper``
    takes one reference file, so other than one is no call of it; else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    if facts["reference_files"] != 1:
        return (f"bleu_wrapper(ref_filename, hyp_filename) takes one reference file "
                f"({facts['reference_files']} given)")
    return None
