"""sacreBLEU's dialect: the card, with each catalog entry's model behind its id.

:func:`evaluate` gives the output the sacreBLEU adapter would give (card
shape, 0–1 scale, ``decimals`` applied) when the models of the entries in
``on`` are switched on; with ``on`` empty it is the card's output. The models
are transcriptions of sacreBLEU's own code, 2.6.0 unless an entry says otherwise
(``sacrebleu/metrics/bleu.py``:
``BLEU.compute_bleu``, ``_get_closest_ref_len``, ``_extract_reference_info``,
``_compute_segment_statistics``; ``metrics/helpers.py``:
``extract_all_word_ngrams``; ``utils.py``: ``my_log``, ``sum_of_lists``),
evaluated on statistics counted by the truth
(:mod:`bleu_compat.harness.truth`), never by the core.

Entry ids and what switching them on does:

* ``SACREBLEU-WHITESPACE-IN-TOKEN``: tokens are ``" ".join(tokens).split()``;
* ``SACREBLEU-EMPTY-STRING-PADDING``: a segment with fewer references than the
  most any segment has gets empty references up to that number;
* ``SACREBLEU-BP-EMPTY-CORPUS`` / ``-BP-ZERO-LENGTHS-SMOOTHING`` /
  ``-BP-ZERO-LENGTHS-BREVITY``: the brevity penalty is 1.0 when c = r = 0;
* ``SACREBLEU-FLOAT-ORDER`` / ``-FLOAT-ORDER-SMOOTHING``: the score in
  sacreBLEU's arithmetic: precisions ``100. * m / t``, ``sum([my_log(p) ...]) /
  eff_order``, ``bp * exp(...)``, and the adapter's ``/ 100``;
* ``SACREBLEU-NO-MATCH-SKIPS-SMOOTHING``: no match at all returns before any
  smoothing (counts raw, orders used from the raw totals);
* ``SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL``: the loop breaks at the first
  total of 0; that order and the later ones are not smoothed;
* ``SACREBLEU-SMOOTHED-COUNTS-HIDDEN``: floor/exp report the raw counts.

Older releases (each entry's ``verified`` says which):

* ``SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR`` / ``-SCORE`` (2.0.0):
  ``_compute_score_from_stats`` does not pass ``max_ngram_order`` to
  ``compute_bleu``, which then loops over the default 4 orders of N-order
  statistics: ``IndexError`` when N < 4 and the loop gets past order N, a
  score from orders 1–4 only when N > 4;
* ``SACREBLEU-EMPTY-REFERENCE-DROPPED`` (2.0.0–2.1.0) / ``-DROPPED-EOF``
  (1.4–1.5): a reference that is the empty string is removed like ``None``
  (``lines = [x for x in refs if x is not None and x != ""]``); a segment left
  without one raises ``RuntimeError`` / ``EOFError``;
* ``SACREBLEU-FLOOR-DEFAULT-ZERO`` (1.4): ``floor`` without a value smooths
  with 0.0 (``SMOOTH_DEFAULTS['floor']``), not the card's 0.1;
* ``SACREBLEU-NO-MATCH-STILL-SMOOTHED`` (1.x, before the #141 fix): with no
  match at all ``compute_bleu`` still runs its loop, so floor/exp smooth and
  score, and add-k adds its 1.
"""

from __future__ import annotations

import math
from typing import Any

from bleu_compat.harness.dialect import (
    card_bp, card_corpus_bleu, card_smoothed_bleu, card_smoothing,
)
from bleu_compat.harness.truth import closest_length, segment_truth_stats, to_fixed

__all__ = ["corpus_outcome", "own_points", "points_key", "points_row_key", "points_on_key", "points", "evaluate", "own_smoothing"]

Request = dict[str, Any]

WHITESPACE = "SACREBLEU-WHITESPACE-IN-TOKEN"
PADDING = "SACREBLEU-EMPTY-STRING-PADDING"
BP_EMPTY = "SACREBLEU-BP-EMPTY-CORPUS"
FLOAT = "SACREBLEU-FLOAT-ORDER"
BP_ZERO_SMOOTHING = "SACREBLEU-BP-ZERO-LENGTHS-SMOOTHING"
HIDDEN = "SACREBLEU-SMOOTHED-COUNTS-HIDDEN"
STOPS = "SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL"
NO_MATCH = "SACREBLEU-NO-MATCH-SKIPS-SMOOTHING"
FLOAT_SMOOTHING = "SACREBLEU-FLOAT-ORDER-SMOOTHING"
BP_ZERO_BREVITY = "SACREBLEU-BP-ZERO-LENGTHS-BREVITY"
MAX_ORDER_ERROR = "SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR"
MAX_ORDER_SCORE = "SACREBLEU-MAX-ORDER-NOT-PASSED-SCORE"
EMPTY_DROPPED = "SACREBLEU-EMPTY-REFERENCE-DROPPED"
EMPTY_DROPPED_EOF = "SACREBLEU-EMPTY-REFERENCE-DROPPED-EOF"
NO_MATCH_SMOOTHED = "SACREBLEU-NO-MATCH-STILL-SMOOTHED"
FLOOR_DEFAULT_ZERO = "SACREBLEU-FLOOR-DEFAULT-ZERO"

#: what 2.0.0–2.1.0's ``_cache_references`` raises for a segment without a non-empty reference
EMPTY_DROPPED_ERROR = "RuntimeError: Empty or `None` reference sentence found."
#: what 1.4–1.5's ``corpus_score`` raises for it
EMPTY_DROPPED_EOF_ERROR = "EOFError: No valid references for a sentence!"

#: sacreBLEU's utils.my_log(0.0)
MY_LOG_ZERO = -9999999999


def _my_log(num: float) -> float:
    # sacrebleu/utils.py my_log
    if num == 0.0:
        return MY_LOG_ZERO
    return math.log(num)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _bp(c: int, r: int, zero_lengths_is_one: bool) -> float:
    # compute_bleu: bp = 1.0; if sys_len < ref_len: bp = exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if zero_lengths_is_one and c == 0 and r == 0:
        return 1.0
    return card_bp(c, r)


def corpus_statistics(request: Request, split: bool, pad: bool, cache: dict[Any, Any],
                      drop: str | None = None) -> tuple[list[int], list[int], int, int] | None:
    """(matches, totals, c, r) as sacreBLEU counts them with the given models on.

    ``split``: every segment is ``" ".join(tokens).split()`` (sacreBLEU's
    string interface); ``pad``: segments with fewer references get empty ones
    up to the largest reference count; ``drop``: references whose string is
    empty are removed (``"string"``: the string is ``" ".join(tokens)``, as
    called; ``"tokens"``: the token list is empty, the mapped adapter's
    surrogates), and None is returned when a segment is left without one.
    Counted with the truth's primitives.
    """
    key = ("sacrebleu-corpus", split, pad, drop)
    if key in cache:
        return cache[key]
    n_orders = request.get("max_order", 4)
    most = max(len(refs) for refs in request["references"])

    def tok(tokens: list[str]) -> list[str]:
        return " ".join(tokens).split() if split else list(tokens)

    def empty(tokens: list[str]) -> bool:
        return " ".join(tokens) == "" if drop == "string" else not tokens

    matches, totals = [0] * n_orders, [0] * n_orders
    c = r = 0
    segments: dict[Any, tuple[list[int], list[int]]] = cache.setdefault("sacrebleu-segments", {})
    for hyp, refs in zip(request["hypotheses"], request["references"]):
        h = tok(hyp)
        raw_refs = [list(ref) for ref in refs]
        if pad:
            raw_refs += [[] for _ in range(most - len(raw_refs))]
        if drop is not None:
            raw_refs = [ref for ref in raw_refs if not empty(ref)]
            if not raw_refs:
                cache[key] = None
                return None
        rs = [tok(ref) for ref in raw_refs]
        c += len(h)
        r += closest_length(len(h), [len(x) for x in rs])
        # a segment's counts depend only on its tokens and non-empty references (an empty one
        # holds no n-gram): the variants (split, pad, drop) that leave those as they are share
        # them, counted once rather than once per variant
        segment = (tuple(h), tuple(tuple(x) for x in rs if x))
        seen = segments.get(segment)
        if seen is None:
            seen = segments[segment] = _segment_counts(h, rs, n_orders)
        for n in range(n_orders):
            matches[n] += seen[0][n]
            totals[n] += seen[1][n]
    cache[key] = (matches, totals, c, r)
    return cache[key]


def _segment_counts(h: list[str], rs: list[list[str]], n_orders: int) -> tuple[list[int], list[int]]:
    """One segment's clipped matches and totals per order (the truth's definition)."""
    matches, totals, _, _ = segment_truth_stats(h, rs, n_orders)
    return matches, totals


def _sacrebleu_score(precisions: list[float], bp: float, eff_order: int) -> float:
    # compute_bleu: score = bp * math.exp(sum([my_log(p) for p in precisions[:eff_order]]) / eff_order)
    return bp * math.exp(sum([_my_log(p) for p in precisions[:eff_order]]) / eff_order)


def _default_order_score(matches: list[int], totals: list[int], bp: float) -> float | None:
    """2.0.0's ``compute_bleu`` with its default max order 4 on N-order statistics (0–100).

    None where it raises ``IndexError`` (N < 4 and the loop gets past order N).
    """
    if not any(matches):
        return 0.0  # the early return (#141)
    precisions = [0.0] * 4
    for n in range(1, 5):
        if n - 1 >= len(totals):
            return None  # total[n - 1]: list index out of range
        if totals[n - 1] == 0:
            break
        if matches[n - 1] != 0:
            precisions[n - 1] = 100. * matches[n - 1] / totals[n - 1]
    return _sacrebleu_score(precisions, bp, 4)


def _corpus(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    n_orders = request.get("max_order", 4)
    decimals = request.get("decimals")
    drop = None
    if EMPTY_DROPPED in on or EMPTY_DROPPED_EOF in on:
        drop = "string" if mode == "as_called" else "tokens"
    stats = corpus_statistics(request, WHITESPACE in on, PADDING in on, cache, drop)
    if stats is None:
        return {"error": EMPTY_DROPPED_ERROR if EMPTY_DROPPED in on else EMPTY_DROPPED_EOF_ERROR}
    matches, totals, c, r = stats
    bp = _bp(c, r, BP_EMPTY in on)
    default_order = None
    if n_orders < 4 and MAX_ORDER_ERROR in on or n_orders > 4 and MAX_ORDER_SCORE in on:
        default_order = _default_order_score(matches, totals, bp)
        if default_order is None:
            return {"error": "IndexError: list index out of range"}
    if default_order is not None:
        bleu = default_order / 100
    elif FLOAT in on:
        # compute_bleu with smooth_method 'none' on the summed statistics
        if not any(matches):
            score = 0.0
        else:
            precisions = [0.0] * n_orders
            for n in range(1, n_orders + 1):
                if totals[n - 1] == 0:
                    break
                if matches[n - 1] != 0:
                    precisions[n - 1] = 100. * matches[n - 1] / totals[n - 1]
            score = _sacrebleu_score(precisions, bp, n_orders)
        bleu = score / 100
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


def _leading_positive(totals: list[Any]) -> int:
    k = 0
    for t in totals:
        if t <= 0:
            break
        k += 1
    return k


#: the key under which :func:`_smoothing` leaves sacreBLEU's own score (0-100) in ``cache``
_POINTS = "sacrebleu-score-points"


def points(request: Request, on: frozenset[str]) -> float | None:
    """sacreBLEU's own ``score`` (0–100, before the adapter's ``/ 100``) for a valid
    bleu-smoothing-compute ``request`` in the dialect of the entries ``on``: what
    ``BLEU.sentence_score(hyp, refs).score`` is for a segment with these statistics
    (``compute_bleu`` on them). None where the model computes in the card's order (no
    SACREBLEU-FLOAT-ORDER-SMOOTHING: no release verified so).

    Used by ``bleu-compat identify`` for a mean of sentence scores, which sacreBLEU users
    take over the 0–100 scores (``bleu / 100 * 100`` is not always the score).
    """
    cache: dict[Any, Any] = {}
    _smoothing("as_called", request, on, cache)
    return cache.get(_POINTS)


def corpus_outcome(facts: Request, on: frozenset[str]) -> str | float | None:
    """What ``BLEU(...).corpus_score`` does on a corpus with these statistics where it is not
    :func:`evaluate`'s smoothing arithmetic: the error it raises (``"Type: message"``) or, in
    words, what else it does; or its own 0-100 score where it computes another; or None.

    2.0.0 (``SACREBLEU-MAX-ORDER-NOT-PASSED-*``) scores a max order below 4 with its default
    4 orders: ``IndexError`` once the loop passes order N, else that score; 1.5-2.1
    (``SACREBLEU-EMPTY-REFERENCE-DROPPED*``) raise when a segment has only empty references.

    ``facts``: the corpus statistics the configuration scores (``matches``, ``totals``,
    ``candidate_length``, ``reference_length``, after the implementation's statistics
    changes), ``max_order``, ``smoothing`` (the card's method), ``effective_order``,
    ``reference_files`` (how many) and ``segments_without_reference`` (segments whose every
    reference line is the empty string); ``on``: the ids of its
    ``bleu-corpus-compute`` entries verified on the release. Used by ``identify``, which
    scores configurations from statistics, to leave out those the library does not score.
    """
    n = facts["max_order"]
    if facts.get("segments_without_reference"):
        if EMPTY_DROPPED in on:
            return EMPTY_DROPPED_ERROR
        if EMPTY_DROPPED_EOF in on:
            return EMPTY_DROPPED_EOF_ERROR
    if n < 4 and MAX_ORDER_ERROR in on:
        bp = _bp(facts["candidate_length"], facts["reference_length"], False)
        score = _default_order_score(list(facts["matches"]), list(facts["totals"]), bp)
        if score is None:
            return "IndexError: list index out of range"
        if not any(facts["matches"]) or (facts.get("smoothing", "none") == "none"
                                         and not facts.get("effective_order")):
            return score  # the early return (#141), or compute_bleu's 4 orders unsmoothed
        return (f"scores its default 4 orders on {n}-order statistics "
                "(SACREBLEU-MAX-ORDER-NOT-PASSED-SCORE; not modelled with smoothing)")
    return None


def own_points(method: str, value: Any, request: Request) -> float:
    """:func:`own_smoothing`'s score on sacreBLEU's own 0-100 scale (before the ``/ 100``)."""
    return _own_score(method, value, request)


def points_row_key(request: Request) -> tuple[Any, ...] | None:
    """What of ``request`` decides its :func:`points`, whatever its effective order and the
    dialect (with :func:`points_on_key`), or None when more does.

    A request with a match at some order, every total positive and a non-empty hypothesis
    meets none of the cases the entries are about but the float order and 1.4's floor value:
    no early return (a match exists), no stop at a zero total, every order used with or
    without the effective order, no zero-length brevity penalty. Its score is then
    ``compute_bleu``'s arithmetic on its counts, lengths and smoothing method (and
    ``floor``'s value), in the card's or sacreBLEU's float order. ``identify`` averages
    sentence scores with one call per key (a test compares every key's sharers).
    """
    matches, totals = request["matches"], request["totals"]
    if request["candidate_length"] <= 0 or not any(matches) or not all(totals):
        return None
    method = request["smoothing"]
    return ("has-match", tuple(matches), tuple(totals), request["candidate_length"],
            request["reference_length"], method,
            request.get("epsilon") if method == "method1" else None)


def points_on_key(request: Request, on: frozenset[str]) -> tuple[Any, ...]:
    """What of the entries ``on`` decides :func:`points` of a request with a
    :func:`points_row_key`: the float order, and for ``floor`` without a value the value
    1.4 takes (``SACREBLEU-FLOOR-DEFAULT-ZERO``). Reads only ``smoothing`` and whether an
    ``epsilon`` is given."""
    floor_default = request["smoothing"] == "method1" and "epsilon" not in request
    return (FLOAT_SMOOTHING in on, floor_default and FLOOR_DEFAULT_ZERO in on)


def points_key(request: Request, on: frozenset[str]) -> tuple[Any, ...] | None:
    """A key shared by requests whose :func:`points` are equal in the dialects ``on``, or
    None: ``(points_row_key, points_on_key)``."""
    row = points_row_key(request)
    return None if row is None else (row, points_on_key(request, on))


def _smoothing(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    method = request["smoothing"]
    effective_order = bool(request.get("effective_order", False))
    decimals = request.get("decimals")
    c, r = request["candidate_length"], request["reference_length"]
    if FLOOR_DEFAULT_ZERO in on and method == "method1" and "epsilon" not in request:
        request = dict(request, epsilon=0.0)  # 1.4's SMOOTH_DEFAULTS['floor']
    epsilon = request.get("epsilon", 0.1)
    bp = _bp(c, r, BP_ZERO_SMOOTHING in on)
    card_sm, card_st, card_used = card_smoothing(request)

    if NO_MATCH in on and not any(matches):
        # compute_bleu returns BLEUScore(0.0, correct, total, ...) before the loop (#141)
        cache[_POINTS] = 0.0
        used = _leading_positive(totals) if effective_order else n_orders
        return {"bleu": _round(0.0, decimals), "brevity_penalty": _round(bp, decimals),
                "orders_used": used, "smoothed_matches": matches, "smoothed_totals": totals}

    # The loop over orders: which orders are smoothed, and sacreBLEU's precisions.
    sm: list[Any] = list(card_sm)
    st: list[Any] = list(card_st)
    reached = n_orders
    loop_runs = any(matches) or NO_MATCH_SMOOTHED in on  # 2.x: only when some order has a match
    if STOPS in on and loop_runs:
        for n in range(n_orders):
            if card_st[n] == 0:  # add-k adds before the test; its totals are the card's
                reached = n
                break
        for n in range(reached, n_orders):  # never reached: unsmoothed
            sm[n], st[n] = matches[n], totals[n]
    if effective_order:
        used = _leading_positive(st[:reached]) if STOPS in on else card_used
    else:
        used = n_orders

    no_match_scored = NO_MATCH_SMOOTHED in on and not any(matches)
    if FLOAT_SMOOTHING in on or no_match_scored:
        if not loop_runs:
            score = 0.0
        else:
            precisions = [0.0] * n_orders
            mteval = 1.0
            for n in range(n_orders):
                if st[n] == 0:
                    break
                if method == "method2":
                    m_n = sm[n]
                    precisions[n] = 100. * m_n / st[n] if m_n != 0 else 0.0
                elif matches[n] == 0:
                    if method == "method3":
                        mteval *= 2
                        precisions[n] = 100. / (mteval * st[n])
                    elif method == "method1":
                        precisions[n] = 100. * epsilon / st[n]
                else:
                    precisions[n] = 100. * matches[n] / st[n]
            eff = used if effective_order else n_orders
            score = _sacrebleu_score(precisions, bp, eff) if eff > 0 else 0.0
        cache[_POINTS] = score
        bleu = score / 100
    else:
        bleu = card_smoothed_bleu(request, sm, st, used, bp)

    if HIDDEN in on and method in ("method1", "method3"):
        sm = [matches[n] if matches[n] == 0 else sm[n] for n in range(n_orders)]
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "orders_used": used,
        "smoothed_matches": sm,
        "smoothed_totals": st,
    }


def _brevity(mode: str, request: Request, on: frozenset[str], cache: dict[Any, Any]) -> dict[str, Any]:
    segments = request["segments"]
    closest = [closest_length(s["candidate_length"], list(s["reference_lengths"])) for s in segments]
    c = sum(s["candidate_length"] for s in segments)
    r = sum(closest)
    bp = _bp(c, r, BP_ZERO_BREVITY in on)
    return {"candidate_length": c, "reference_length": r, "closest_reference_lengths": closest,
            "brevity_penalty": _round(bp, request.get("decimals"))}


_TOOLS = {
    "bleu-corpus-compute": _corpus,
    "bleu-smoothing-compute": _smoothing,
    "bleu-brevity-penalty": _brevity,
}


def evaluate(tool_id: str, mode: str, request: Request, on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """sacreBLEU's dialect on a valid card ``request``: the card with the models in ``on``.

    Args:
        tool_id: the card.
        mode: ``"as_called"`` or ``"mapped"`` (the models are the same; which
            entries may be switched on per mode is the catalog's business).
        request: a valid request (or a real corpus' request dict).
        on: ids of the entries whose models are switched on.
        cache: per-request memo shared by calls on the same request.

    Returns:
        The output in the card's shape, 0–1 scale, ``decimals`` applied with the
        truth's ``toFixed``.
    """
    return _TOOLS[tool_id](mode, request, on, cache)


def own_smoothing(method: str, value: Any, request: Request, last_segment: Any = None) -> float:
    """sacreBLEU's ``compute_bleu`` with ``smooth_method='add-k'`` and any k, on statistics (0–1).

    The card's method2 is k = 1; this is every k as sacreBLEU computes it: from
    order 2, ``correct[n-1] += k`` and ``total[n-1] += k`` (floats once k is), the
    loop stopping at a total of 0, ``precision = 100. * correct / total`` where
    ``correct`` is not 0, ``score = bp * exp(sum(my_log(p) for p in
    precisions[:eff_order]) / eff_order)``, 0 when no order has a match (#141).

    Args:
        method: ``"add-k"``.
        value: k (None: ``BLEU.SMOOTH_DEFAULTS['add-k']``, 1).
        request: ``matches``, ``totals``, ``candidate_length``, ``reference_length``,
            ``effective_order``.
        last_segment: unused (sacreBLEU reads corpus statistics only).

    Returns:
        ``score / 100``.

    Source: sacrebleu/metrics/bleu.py ``BLEU.compute_bleu`` (2.6.0), read for the formula
    and its order of operations.
    """
    return _own_score(method, value, request) / 100


def _own_score(method: str, value: Any, request: Request) -> float:
    """:func:`own_smoothing` on sacreBLEU's 0-100 scale (``compute_bleu``'s ``score``)."""
    if method != "add-k":
        raise ValueError(f"sacreBLEU has no smoothing {method!r} outside the cards")
    k = 1 if value is None else value
    correct, total = list(request["matches"]), list(request["totals"])
    n_orders = len(correct)
    bp = _bp(request["candidate_length"], request["reference_length"], False)
    if not any(correct):
        return 0.0
    precisions = [0.0] * n_orders
    eff_order = n_orders
    for n in range(1, n_orders + 1):
        if n > 1:
            correct[n - 1] += k
            total[n - 1] += k
        if total[n - 1] == 0:
            break
        if request.get("effective_order", False):
            eff_order = n
        if correct[n - 1] != 0:
            precisions[n - 1] = 100. * correct[n - 1] / total[n - 1]
    return _sacrebleu_score(precisions, bp, eff_order)
