"""Dialects: the card plus a library's catalog entries, and explanation by reproduction.

SPEC.md §7: *a difference is explained only when it is reproduced*. Each
catalog entry (:class:`CatalogEntry`) names one thing a library does
differently from the card; its *model* is code in that library's
``bleu_compat.libraries.<library>.model`` module, switched on by the entry's
id. A library's *dialect* is the card with some of those switches on::

    model.evaluate(tool_id, mode, request, on=frozenset({...}), cache) -> output

With ``on`` empty the dialect is the card itself (a test checks that it
equals :func:`bleu_compat.harness.truth.truth` field for field). A library
output is *explained* when some set of the library's entries, switched on,
gives that output field by field: integers exactly, floats bit for bit
(:func:`same_value`). :func:`reproduce` searches the subsets in order of
size and catalog order and names the smallest; for every differing field it
also names the smallest part of that set that reproduces the field alone
(the *cause* of that field). Nothing here has a tolerance.

This module, the models and the truth are the judge: they import nothing
from the core (``bleu_compat.stats``, ``bleu``, ``smoothing``, ``rounding``,
``tools``, ...), so a core bug cannot change how a library's difference is
attributed (``oracle_tests/test_layering.py`` checks it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Protocol, Sequence

__all__ = [
    "CatalogEntry", "Model", "Reproduction", "reproduce", "same_value", "differing_fields",
    "card_bp", "card_brevity", "card_corpus_bleu", "card_smoothing", "safe_log", "ERROR_FIELD",
]

Request = dict[str, Any]
#: the pseudo-field of an output that is a library exception (``"Type: message"``)
ERROR_FIELD = "error"


@dataclass(frozen=True)
class CatalogEntry:
    """One thing a library does differently from a card, with its model's id.

    Attributes:
        id: stable id, e.g. ``"NLTK-DENOMINATOR-FLOOR"``; also the switch that turns
            the entry's model on in the library's dialect.
        library: the registered name of the implementation it concerns.
        verified: the library versions the model was verified on (the versions the
            catalog tests ran against), e.g. ``("2.6.0",)``.
        tool_id: the card it concerns.
        fields: output fields the model can change (``"error"`` when the library raises).
        modes: adapter modes (``"as_called"``, ``"mapped"``) where the library behaves so.
        title: one line.
        explanation: one paragraph in plain words; says what the model does.
        reproducer: a minimal card request showing it.
        reproducer_field: the output field the reproducer's values are for.
        card_value: the card's value of that field on the reproducer (0–1 scale).
        library_value: the library's value of that field, in the card's units, with the
            newest release in ``verified`` (older releases may differ there).
        library_code: Python code that prints the library's own value on the
            reproducer, run as the library's users run it (its own scale).
        library_prints: what ``library_code`` prints with the newest verified release.
        facts: request -> a sentence of the request's facts behind the entry, or None.
        tags: free labels (``"float"`` marks an arithmetic-only entry).
        negative: a request where the entry's model must leave the card's output alone
            (its *negative reproducer*, issue 25); None: the tool's plain request of
            :func:`bleu_compat.harness.consistency.negative_request`.
        unreached: why the default crosscheck's generators never reproduce the entry
            (listed so in its report, issue 25), or None.
    """

    id: str
    library: str
    verified: tuple[str, ...]
    tool_id: str
    fields: tuple[str, ...]
    modes: tuple[str, ...]
    title: str
    explanation: str
    reproducer: Request
    reproducer_field: str
    card_value: Any
    library_value: Any
    library_code: str
    library_prints: str
    facts: Callable[[Request], str | None] | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    negative: Request | None = None
    unreached: str | None = None

    @property
    def arithmetic_only(self) -> bool:
        """True for an entry whose model changes only the floating-point order."""
        return "float" in self.tags


class Model(Protocol):
    """A library's dialect: ``evaluate(tool_id, mode, request, on, cache) -> output``."""

    def __call__(self, tool_id: str, mode: str, request: Request, on: frozenset[str],
                 cache: dict[Any, Any]) -> dict[str, Any]: ...


# --- equality: integers exactly, floats bit for bit -------------------------------


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def same_value(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are the same JSON value, floats bit for bit.

    Numbers compare as JSON numbers (``1 == 1.0``, a bool is not a number);
    two floats are the same only when their bits are (``0.0`` and ``-0.0``
    differ); arrays element by element; error strings by their exception
    type (the text before the first ``":"``) and message.
    """
    if _is_number(a) and _is_number(b):
        if isinstance(a, float) and isinstance(b, float):
            return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def differing_fields(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The fields (in ``expected``'s order, then ``actual``'s extra ones) that differ."""
    keys = list(expected) + [k for k in actual if k not in expected]
    return [k for k in keys if k not in expected or k not in actual
            or not same_value(expected[k], actual[k])]


# --- the card's formulas in doubles (SPEC.md §2), for the dialects ----------------


def safe_log(x: float) -> float:
    """``Math.log``: ln(x), with ln(0) = -inf (IEEE, SPEC.md §2) instead of an exception."""
    return math.log(x) if x > 0 else -math.inf


def card_bp(c: int, r: int) -> float:
    """The card's brevity penalty: 0 when c = 0; 1 when c > r; else exp(1 - r/c).

    ``r / c`` that overflows a double is +inf (IEEE), so the penalty is 0.
    """
    if c == 0:
        return 0.0
    if c > r:
        return 1.0
    try:
        ratio = r / c
    except OverflowError:
        return 0.0
    return math.exp(1 - ratio)


def card_brevity(mode: str, request: Request, on: frozenset[str],
                 cache: dict[Any, Any]) -> dict[str, Any]:
    """bleu-brevity-penalty's output in card order, for a dialect in which no model changes it.

    Args:
        mode, on, cache: a dialect's ``evaluate`` arguments (unused: nothing changes the card).
        request: a valid bleu-brevity-penalty request (``segments`` of ``candidate_length``
            and ``reference_lengths``; optional ``decimals``).

    Returns:
        ``candidate_length`` c and ``reference_length`` r (sums, ints), each segment's closest
        reference length (ties to the shorter), and :func:`card_bp` (c, r), rounded with
        ``toFixed`` when ``decimals`` is given (SPEC.md §2).
    """
    from bleu_compat.harness.truth import closest_length, to_fixed

    segments = request["segments"]
    closest = [closest_length(s["candidate_length"], list(s["reference_lengths"])) for s in segments]
    c = sum(s["candidate_length"] for s in segments)
    r = sum(closest)
    bp = card_bp(c, r)
    decimals = request.get("decimals")
    return {"candidate_length": c, "reference_length": r, "closest_reference_lengths": closest,
            "brevity_penalty": float(bp) if decimals is None else to_fixed(float(bp), decimals)}


def card_corpus_bleu(matches: Sequence[int], totals: Sequence[int], bp: float) -> float:
    """bleu-corpus-compute's score in card order: bp * exp((1/N) * sum(ln(m_n / l_n))).

    0 when some m_n = 0 (the card's branch); the sum runs left to right.
    """
    n_orders = len(matches)
    if any(m == 0 for m in matches):
        return 0.0
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / n_orders) * log_sum)


def card_smoothing(request: Request) -> tuple[list[Any], list[int], int]:
    """bleu-smoothing-compute's smoothed matches, smoothed totals and orders used.

    Chen & Cherry 2014 §2.2 as the card defines them: method1 puts ``epsilon``
    (default 0.1) in place of a zero match; method2 adds 1 to match and total
    from order 2; method3 puts 1/2^k for the k-th zero-match order, k over all
    orders (SPEC.md §4). With ``effective_order`` the orders used are the
    leading orders whose smoothed total is > 0.
    """
    matches, totals, method = request["matches"], request["totals"], request["smoothing"]
    if method == "method1":
        epsilon = request.get("epsilon", 0.1)
        sm: list[Any] = [epsilon if m == 0 else m for m in matches]
        st = list(totals)
    elif method == "method2":
        sm = [m + (n >= 2) for n, m in enumerate(matches, start=1)]
        st = [t + (n >= 2) for n, t in enumerate(totals, start=1)]
    elif method == "method3":
        sm, k = [], 0
        for m in matches:
            if m == 0:
                k += 1
                sm.append(math.ldexp(1.0, -k))
            else:
                sm.append(m)
        st = list(totals)
    else:
        sm, st = list(matches), list(totals)
    used = len(st)
    if request.get("effective_order", False):
        used = 0
        while used < len(st) and st[used] > 0:
            used += 1
    return sm, st, used


def card_smoothed_bleu(request: Request, sm: Sequence[Any], st: Sequence[int], used: int,
                       bp: float) -> float:
    """bleu-smoothing-compute's score in card order: bp * exp(sum(ln(sm_n / st_n)) / used).

    0 when m_1 = 0, no order is used, or a used order has a zero smoothed total
    or match; a ratio that underflows to 0 gives ln 0 = -inf and so 0 (SPEC.md §2).
    """
    if request["matches"][0] == 0 or used == 0:
        return 0.0
    if any(st[k] == 0 or sm[k] == 0 for k in range(used)):
        return 0.0
    log_sum = 0.0
    for k in range(used):
        log_sum += safe_log(sm[k] / st[k])
    return bp * math.exp(log_sum / used)


# --- reproduction ------------------------------------------------------------------


@dataclass(frozen=True)
class Reproduction:
    """How a library output relates to its dialect.

    Attributes:
        differing: the output fields where the library differs from the card.
        entries: the smallest set of entry ids whose models, together, reproduce
            every field of the library's output (empty when nothing differs); None
            when no set does (UNEXPECTED).
        causes: field -> the smallest part of ``entries`` that reproduces that
            field on its own (every differing field has one when explained).
        nearest: when UNEXPECTED, the entry set whose dialect output matches the
            most fields (ties: the smaller, then catalog order).
        nearest_output: that dialect's output, to show beside the library's.
        unreproduced: when UNEXPECTED, the fields ``nearest`` still gets wrong.
        dialect: which library dialect judged the output (e.g. ``"sacreBLEU
            2.2.1–2.6.0"``), set by :func:`bleu_compat.catalog.classify`.
    """

    differing: tuple[str, ...]
    entries: tuple[str, ...] | None
    causes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    nearest: tuple[str, ...] = ()
    nearest_output: dict[str, Any] | None = None
    unreproduced: tuple[str, ...] = ()
    dialect: str = ""

    @property
    def explained(self) -> bool:
        """True when some entry set reproduces the library's output."""
        return self.entries is not None


def _matches(out: dict[str, Any], target: dict[str, Any], fields: Sequence[str]) -> list[str]:
    return [f for f in fields if f in out and f in target and same_value(out[f], target[f])]


def reproduce(
    entries: Sequence[CatalogEntry],
    model: Model,
    tool_id: str,
    mode: str,
    request: Request,
    expected: dict[str, Any],
    library_output: dict[str, Any],
) -> Reproduction:
    """Explain ``library_output`` by the smallest set of ``entries`` that reproduces it.

    Args:
        entries: the library's catalog entries (any tool or mode: only those for
            ``tool_id`` and ``mode`` take part), in catalog order.
        model: the library's dialect.
        tool_id, mode, request: what the library was run on (a valid request).
        expected: the card's output (the truth's).
        library_output: the library's output in the card's shape; an exception
            is ``{"error": "Type: message"}``.

    Returns:
        A :class:`Reproduction`; ``entries`` is None when no set of entries gives
        the library's output bit for bit.
    """
    if ERROR_FIELD in library_output:  # the library raised: the error is the one difference
        differing: tuple[str, ...] = (ERROR_FIELD,)
    else:
        differing = tuple(differing_fields(expected, library_output))
    if not differing:
        return Reproduction((), ())
    candidates = [e.id for e in entries if e.tool_id == tool_id and mode in e.modes]
    fields = list(library_output)
    cache: dict[Any, Any] = {}
    outputs: dict[frozenset[str], dict[str, Any]] = {}

    def run(ids: Sequence[str]) -> dict[str, Any]:
        key = frozenset(ids)
        if key not in outputs:
            try:
                outputs[key] = model(tool_id, mode, request, key, cache)
            except Exception as exc:  # a model that cannot run reproduces nothing
                outputs[key] = {"model_error": f"{type(exc).__name__}: {exc}"}
        return outputs[key]

    best: tuple[int, tuple[str, ...]] = (-1, ())
    found: tuple[str, ...] | None = None
    for size in range(0, len(candidates) + 1):
        for subset in combinations(candidates, size):
            out = run(subset)
            good = _matches(out, library_output, fields)
            if len(good) == len(fields) and set(out) >= set(fields):
                found = subset
                break
            if len(good) > best[0]:
                best = (len(good), subset)
        if found is not None:
            break
    if found is None:
        nearest = best[1]
        out = run(nearest)
        wrong = tuple(f for f in fields if f not in _matches(out, library_output, fields))
        return Reproduction(differing, None, {}, nearest, out, wrong)
    causes: dict[str, tuple[str, ...]] = {}
    for f in differing:
        for size in range(1, len(found) + 1):
            hit = next((s for s in combinations(found, size)
                        if f in run(s) and same_value(run(s)[f], library_output.get(f))), None)
            if hit is not None:
                causes[f] = hit
                break
        else:  # only the whole set gives it (e.g. an error that needs two models)
            causes[f] = found
    return Reproduction(differing, found, causes)
