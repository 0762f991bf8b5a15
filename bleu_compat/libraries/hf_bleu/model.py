"""HF evaluate ``bleu``'s dialect: the tensorflow/nmt formula and evaluate's copy of 13a.

:func:`evaluate` gives the output the hf-bleu adapter would give (card shape, 0–1
scale, ``decimals`` applied) when the models of the entries in ``on`` are
switched on; with ``on`` empty it is the card's output. The models are written
from the facts of the code they describe, read, not copied:

* ``nmt/scripts/bleu.py`` ``compute_bleu`` (tensorflow/nmt 0be8642, 2017; what
  evaluate's ``bleu.py`` imports as ``nmt_bleu``): the *shortest* reference of
  each segment (``min(len(r) for r in references)``); precisions
  ``float(m_n) / l_n`` (0.0 for an order without n-grams) or, with
  ``smooth=True``, ``(m_n + 1.) / (l_n + 1.)`` for every order, the unigrams
  included; ``geo_mean = exp(sum((1. / N) * log(p_n)))`` when every precision
  is > 0, else 0; ``ratio = float(c) / r``; ``bp = 1.`` when ``ratio > 1.0``,
  else ``exp(1 - 1. / ratio)``; ``bleu = geo_mean * bp``. ``c = 0`` or ``r = 0``
  raises ``ZeroDivisionError: float division by zero``.
* evaluate's ``metrics/bleu/tokenizer_13a.py`` (2022-05-02): mteval-v13a's
  rules as sacreBLEU's 13a has them, on the string as given: ``<skipped>``
  removed, ``-\\n`` removed, ``\\n`` -> space, the four entities unescaped
  (``&quot;``, ``&amp;``, ``&lt;``, ``&gt;``, in that order, when the line has an
  ``&``), the line padded with a space on each side, then four substitutions
  (:func:`tokenize_13a_copy`) and a whitespace split. Unlike sacreBLEU's
  ``BLEU``, nothing strips the line first (no ``rstrip``): a line ending in
  ``-\\n`` loses its ``-`` here and keeps it in sacreBLEU. On lines read from a
  file (which hold no ``\\n``) the tokens are sacreBLEU's 13a tokens.

The functions :func:`tokenize_13a_copy`, :func:`nmt_bp` and :func:`nmt_geo_mean`
are shared with the bleuscore plug-in (a reimplementation of this family).

Entry ids and what switching them on does:

* ``HF-BLEU-13A-RETOKENIZES`` (as called): each segment is its tokens joined by
  spaces, tokenized again by the 13a copy (the default ``tokenizer``);
* ``HF-BLEU-SHORTEST-REFERENCE``: the reference length of a segment is its
  shortest reference's;
* ``HF-BLEU-BP-RATIO`` / ``-SMOOTHING``: ``bp = exp(1 - 1 / (c / r))`` (two
  roundings) where the card has ``exp(1 - r / c)``;
* ``HF-BLEU-FLOAT-ORDER`` / ``-SMOOTHING``: ``exp(sum((1/N) * log(p_n))) * bp``;
* ``HF-BLEU-ZERO-LENGTH-RAISES``: ``c = 0`` or ``r = 0`` raises
  ``ZeroDivisionError``;
* ``HF-BLEU-ADD-ONE-ON-UNIGRAMS-SMOOTHING``: ``smooth=True`` (card method2)
  adds one to the match and total of every order, the unigrams included.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from bleu_compat.harness.dialect import (
    card_brevity,
    card_bp, card_corpus_bleu, card_smoothed_bleu, card_smoothing, safe_log,
)
from bleu_compat.harness.truth import corpus_truth_stats, to_fixed

__all__ = ["corpus_outcome", 
    "evaluate", "tokenize_13a_copy", "nmt_bp", "nmt_geo_mean", "shortest_lengths",
    "PYTHON_WHITESPACE", "RUST_WHITESPACE", "ZERO_DIVISION",
]

Request = dict[str, Any]

RETOKENIZES = "HF-BLEU-13A-RETOKENIZES"
SHORTEST = "HF-BLEU-SHORTEST-REFERENCE"
BP_RATIO = "HF-BLEU-BP-RATIO"
FLOAT = "HF-BLEU-FLOAT-ORDER"
ZERO_RAISES = "HF-BLEU-ZERO-LENGTH-RAISES"
BP_RATIO_SMOOTHING = "HF-BLEU-BP-RATIO-SMOOTHING"
FLOAT_SMOOTHING = "HF-BLEU-FLOAT-ORDER-SMOOTHING"
ADD_ONE_SMOOTHING = "HF-BLEU-ADD-ONE-ON-UNIGRAMS-SMOOTHING"

#: what ``compute_bleu`` raises for c = 0 or r = 0 (``float(c) / r`` or ``1. / ratio``)
ZERO_DIVISION = "ZeroDivisionError: float division by zero"

# --- evaluate's copy of 13a -------------------------------------------------------------

#: mteval-v13a's "language-dependent" punctuation: each becomes a token of its own.
#: The ranges { .. ~, [ .. `, space .. &, ( .. +, : .. @ and the slash.
_SPLIT_CHARS = "".join(chr(c) for lo, hi in ((0x7B, 0x7E), (0x5B, 0x60), (0x20, 0x26), (0x28, 0x2B),
                                             (0x3A, 0x40), (0x2F, 0x2F)) for c in range(lo, hi + 1))
_RULES = (
    (re.compile("([" + re.escape(_SPLIT_CHARS) + "])"), r" \1 "),
    # a period or comma after a character that is not an ASCII digit
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),
    # a period or comma before a character that is not an ASCII digit
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),
    # a dash after an ASCII digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
#: Python's ``str.split()`` whitespace (``str.isspace``): Unicode White_Space plus the
#: ASCII information separators U+001C..U+001F
PYTHON_WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
                     "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: Rust's ``str::split_whitespace`` (``char::is_whitespace``, Unicode White_Space): Python's
#: without U+001C..U+001F
RUST_WHITESPACE = "".join(c for c in PYTHON_WHITESPACE if not "\x1c" <= c <= "\x1f")
_RUST_SPLIT = re.compile("[" + re.escape(RUST_WHITESPACE) + "]+")


def tokenize_13a_copy(line: str, whitespace: str = "python") -> list[str]:
    """The tokens of evaluate's ``Tokenizer13a`` (and bleuscore's ``tokenizer_13a``) for ``line``.

    Args:
        line: the string as given to the tokenizer (not stripped).
        whitespace: ``"python"`` (``str.split()``, evaluate) or ``"rust"``
            (``split_whitespace``, bleuscore: U+001C..U+001F are not whitespace).
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<") \
            .replace("&gt;", ">")
    line = f" {line} "
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    if whitespace == "python":
        return line.split()
    return [t for t in _RUST_SPLIT.split(line) if t]


# --- the nmt formula -------------------------------------------------------------------


def nmt_bp(c: int, r: int) -> float:
    """``compute_bleu``'s brevity penalty for c > 0 and r > 0: ``ratio = float(c) / r``;
    1.0 when ``ratio > 1.0``, else ``exp(1 - 1. / ratio)``."""
    ratio = float(c) / r
    if ratio > 1.0:
        return 1.0
    return math.exp(1 - 1.0 / ratio)


def nmt_geo_mean(precisions: Sequence[float], n_orders: int) -> float:
    """``exp(sum((1. / N) * log(p) for p in precisions))`` (Python's ``sum``, left to right
    from the integer 0) when every precision is > 0, else 0.0."""
    if min(precisions) <= 0:
        return 0.0
    total: float = 0
    for p in precisions:
        total = total + (1.0 / n_orders) * math.log(p)
    return math.exp(total)


def shortest_lengths(references: Sequence[Sequence[Sequence[str]]]) -> int:
    """Σ over segments of the shortest reference's length."""
    return sum(min(len(r) for r in refs) for refs in references)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    decimals = request.get("decimals")
    hyps, refs = request["hypotheses"], request["references"]
    retokenize = RETOKENIZES in on
    key = ("hf-corpus", retokenize)
    if key not in cache:
        if retokenize:
            hyps = [tokenize_13a_copy(" ".join(h)) for h in hyps]
            refs = [[tokenize_13a_copy(" ".join(r)) for r in seg] for seg in refs]
        cache[key] = (corpus_truth_stats(hyps, refs, n_orders), shortest_lengths(refs))
    (matches, totals, c, closest), shortest = cache[key]
    r = shortest if SHORTEST in on else closest
    if ZERO_RAISES in on and (c == 0 or r == 0):
        return {"error": ZERO_DIVISION}
    bp = nmt_bp(c, r) if BP_RATIO in on and c > 0 and r > 0 else card_bp(c, r)
    if any(m == 0 for m in matches):
        bleu = 0.0
    elif FLOAT in on:
        bleu = nmt_geo_mean([m / t for m, t in zip(matches, totals)], n_orders) * bp
    else:
        bleu = card_corpus_bleu(matches, totals, bp)
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
    if add_one:  # (m_n + 1.) / (l_n + 1.) for every order
        sm, st, used = [m + 1 for m in matches], [t + 1 for t in totals], n_orders
    bp = nmt_bp(c, r) if BP_RATIO_SMOOTHING in on and c > 0 and r > 0 else card_bp(c, r)
    if FLOAT_SMOOTHING in on:
        precisions = [sm[k] / st[k] if st[k] > 0 else 0.0 for k in range(used)]
        bleu = nmt_geo_mean(precisions, used) * bp if used else 0.0
    elif add_one:  # the card's order on the counts plus one (no early 0 for m_1 = 0)
        log_sum = 0.0
        for k in range(used):
            log_sum += safe_log(sm[k] / st[k])
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
    """HF evaluate ``bleu``'s dialect on a valid card ``request``: the card with the models in ``on``.

    Args:
        tool_id: the card.
        mode: ``"as_called"`` or ``"mapped"``.
        request: a valid request.
        on: ids of the entries whose models are switched on.
        cache: per-request memo shared by calls on the same request.

    Returns:
        The output in the card's shape (0–1 scale, ``decimals`` applied with the
        truth's ``toFixed``), or ``{"error": "Type: message"}`` where the library raises.
    """
    return _TOOLS[tool_id](mode, request, on, cache)


def corpus_outcome(facts: Request, on: frozenset[str]) -> str | float | None:
    """What evaluate's ``bleu`` does on a corpus with these statistics beyond the smoothing
    arithmetic: ``compute_bleu`` raises ``ZeroDivisionError`` for c = 0 or r = 0 (the
    shortest references' length: HF-BLEU-ZERO-LENGTH-RAISES); else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    if ZERO_RAISES in on and (facts["candidate_length"] == 0 or facts["reference_length"] == 0):
        return ZERO_DIVISION
    return None
