"""An independent oracle of SPEC.md §2's order of checks: which check a request fails first.

``expected_error(tool_id, request) -> (code, path) | None`` reads the cards
itself (``bleu_compat/cards/*.json``, by file path) and shares no code with
the product's validator (``bleu_compat.tools``, ``bleu_compat.jsonio``): it
imports nothing from ``bleu_compat`` (oracle_tests/test_layering.py checks).
Its own strict JSON reading, its own reading of each card's
``unsupported_operations``, jsonschema's Draft 2020-12 validator for the
schema (every error it reports, then the rule below picks one), its own
limits and cross-field rules.

The checks, in SPEC order, and the ``(code, path)`` each gives:

0. A text (``bytes``/``str``) holding more ``,`` ``[`` ``{`` than any valid request
   of any tool can (:func:`max_separators`) → ``limit_exceeded``, path ``""``, unread.
1. Strict JSON → ``invalid_input``.
   a. The text (``bytes``/``str`` requests): a UTF-8 byte order mark, bytes
      that are not UTF-8, empty text, malformed JSON, ``NaN``/``Infinity``,
      a duplicate key, a number beyond the double range, nesting the parser
      cannot follow, a top level that is not an object: path ``""``.
      (A request given as a Python object must be a ``dict``: else ``""``.)
   b. Nesting of arrays and objects deeper than :data:`MAX_DEPTH` (the
      request object is depth 1) anywhere: path ``""``. RFC 8259 §9 lets a
      parser limit depth; valid requests nest 4.
   c. The first bad value in document order (a value before what it holds,
      object members in their order, array items by index): a string or
      object key with a lone surrogate, an integer of more than
      :data:`MAX_INT_DIGITS` digits (RFC 8259 §9: a parser may limit the
      range of numbers), and for Python objects a non-finite float, a key
      that is not a string or a value that is not JSON data. A bad key is the
      object's own fault: the object's pointer. Path: that pointer.
2. Something the card lists under ``unsupported_operations`` →
   ``unsupported_input`` (:data:`UNSUPPORTED`: a request member named after
   it, whatever its value; ``smoothing`` of ``"method4"``…``"method7"``; a
   ``metric`` other than BLEU). Path: the member's pointer when exactly one
   thing is unsupported; ``None`` when there are several (SPEC does not
   order them).
3. The card's ``input_schema`` → ``invalid_input``. Of all the errors
   jsonschema's ``Draft202012Validator`` reports, the first in document
   order, and of several on the same value the first jsonschema reports
   (the card's keyword order). This is the product's documented choice
   (``bleu_compat.tools``, "Which schema error is reported"), computed here
   from the full list of errors, the product's from a targeted search. Path:
   that error's pointer.
4. The card's ``limits`` → ``limit_exceeded`` (token sizes in UTF-8 bytes,
   totals over hypotheses and references). Path: the offending item's
   pointer (``""`` for a total) when exactly one limit is exceeded once;
   ``None`` when several are.
5. Cross-field rules (SPEC.md §3–§4) → ``invalid_input``. Path: as the rule
   says when exactly one rule fails once; ``None`` when several fail.

A path of ``None`` means "any pointer": SPEC leaves the order open there, and
a caller compares the code only. The lead's crosscheck harness uses this
signature; keep it.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "UNSUPPORTED", "expected_error", "card", "densest_request",
           "max_separators"]

#: Deepest nesting of arrays and objects accepted (the product's documented limit).
MAX_DEPTH = 64
#: Most digits an integer may have (the product's documented limit).
MAX_INT_DIGITS = 640

_CARDS_DIR = Path(__file__).resolve().parent.parent / "cards"
_TOOLS = ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty")

#: Per tool, per line of the card's ``unsupported_operations`` (same order),
#: the request members that ask for it. A test checks that every line of
#: every card is covered, so a card that gains a line fails until it is read.
UNSUPPORTED: dict[str, tuple[tuple[str, ...], ...]] = {
    "bleu-corpus-compute": (
        # tokenizing raw text (13a, intl, char or any other tokenizer)
        ("tokenize", "tokenizer", "tokenization"),
        # sentence-level smoothing (Chen and Cherry methods) or effective-order rescaling
        ("smoothing", "smooth_method", "smooth_value", "epsilon", "effective_order",
         "use_effective_order"),
        # averaging per-sentence BLEU scores (macro average)
        ("average", "macro", "macro_average", "sentence_level", "sentence_bleu"),
        # custom non-uniform n-gram weights, chrF, TER, METEOR or case-insensitive matching
        ("weights", "chrf", "chrF", "ter", "TER", "meteor", "METEOR", "lowercase",
         "case_insensitive", "ignore_case", "lc"),
    ),
    "bleu-smoothing-compute": (
        # counting n-grams from text
        ("hypotheses", "references", "hypothesis", "reference", "text", "tokens", "tokenize",
         "lowercase"),
        # Chen and Cherry smoothing 4-7: the value of "smoothing", below
        (),
        # add-k with k other than 1, or custom n-gram weights
        ("k", "weights"),
        # confidence intervals or significance tests
        ("confidence", "confidence_interval", "ci", "bootstrap", "paired_bs", "paired_ar",
         "significance"),
    ),
    "bleu-brevity-penalty": (
        # counting tokens in raw text
        ("text", "candidate", "candidates", "hypotheses", "hypothesis", "references",
         "reference", "tokenize"),
        # shortest-reference or average-reference length variants
        ("reference_length_method", "ref_length_method", "ref_len_method",
         "effective_reference_length", "method", "shortest", "average"),
        # per-sentence penalties averaged over a corpus
        ("per_segment", "sentence_level", "per_sentence"),
        # the full BLEU score
        ("matches", "totals", "max_order", "bleu"),
    ),
}

_UNSUPPORTED_SMOOTHING = frozenset({"method4", "method5", "method6", "method7"})



@lru_cache(maxsize=None)
def card(tool_id: str) -> dict[str, Any]:
    """The card of ``tool_id``, read from its JSON file (do not mutate).

    Raises:
        KeyError: not one of the three tools.
    """
    if tool_id not in _TOOLS:
        raise KeyError(f"unknown tool {tool_id!r}")
    data: dict[str, Any] = json.loads((_CARDS_DIR / f"{tool_id}.json").read_text("utf-8"))
    return data


def expected_error(tool_id: str, request: bytes | str | object) -> tuple[str, str | None] | None:
    """The first check of SPEC.md §2 that ``request`` fails, or None if it is valid.

    Args:
        tool_id: one of the three tool ids.
        request: the JSON text (``bytes``, ``bytearray`` or ``str``) or a
            Python object (which must be a dict of plain JSON data).

    Returns:
        ``(code, path)``: ``code`` one of ``invalid_input``,
        ``unsupported_input``, ``limit_exceeded``; ``path`` the JSON Pointer
        the product must report, or ``None`` where SPEC leaves it open (see
        the module docstring). ``None`` for a valid request.

    Raises:
        KeyError: unknown ``tool_id``.
    """
    the_card = card(tool_id)
    if isinstance(request, (bytes, bytearray, memoryview, str)):
        if _separator_count(request) > max_separators():
            return ("limit_exceeded", "")
        parsed = _parse_text(request)
        if isinstance(parsed, tuple):
            return parsed
        value: Any = parsed
    elif isinstance(request, dict):
        value = request
    else:
        return ("invalid_input", "")
    for check in (_check_values, _check_unsupported, _check_schema, _check_limits,
                  _check_cross_fields):
        found = check(tool_id, the_card, value)
        if found is not None:
            return found
    return None


# --- step 0: more separators than any valid request ----------------------------------

def densest_request(tool_id: str) -> dict[str, Any]:
    """A valid request of ``tool_id`` whose JSON text holds as many ``,`` ``[`` ``{`` as
    the card's limits allow (a witness built from the card, not a formula): every
    container the schema allows at its ``maxItems``, every optional member, every token
    of bleu-corpus-compute in one list, made of commas up to ``max_total_token_bytes``."""
    data = card(tool_id)
    limits, props = data["limits"], data["input_schema"]["properties"]
    if tool_id == "bleu-corpus-compute":
        segments, refs = limits["max_segments"], limits["max_references_per_segment"]
        n_tokens, n_bytes = limits["max_total_tokens"], limits["max_total_token_bytes"]
        size, longer = divmod(n_bytes, n_tokens)
        assert size + (longer > 0) <= limits["max_token_bytes"] <= props["hypotheses"]["items"]["items"]["maxLength"]
        tokens = ["," * (size + 1)] * longer + ["," * size] * (n_tokens - longer)
        return {"hypotheses": [tokens] + [[] for _ in range(segments - 1)],
                "references": [[[] for _ in range(refs)] for _ in range(segments)],
                "max_order": props["max_order"]["maximum"], "decimals": props["decimals"]["maximum"]}
    if tool_id == "bleu-smoothing-compute":
        orders = limits["max_orders"]
        return {"matches": [0] * orders, "totals": [0] * orders, "candidate_length": 0,
                "reference_length": 0, "smoothing": "method1", "epsilon": 0.1,
                "effective_order": True, "decimals": 0}
    segments, refs = limits["max_segments"], limits["max_references_per_segment"]
    return {"segments": [{"candidate_length": 0, "reference_lengths": [0] * refs}
                         for _ in range(segments)], "decimals": 0}


def _separator_count(request: bytes | bytearray | memoryview | str) -> int:
    raw = request.encode("utf-8", "surrogatepass") if isinstance(request, str) else bytes(request)
    return sum(raw.count(c) for c in (b",", b"[", b"{"))


@lru_cache(maxsize=None)
def max_separators() -> int:
    """The most ``,`` ``[`` ``{`` bytes a valid request of any tool holds: those of the
    densest request (:func:`densest_request`) of each tool, the largest. A text with more
    is ``limit_exceeded``, path ``""``, before check 1 (the lead's decision, issue 24:
    refused unread, as the transports refuse bodies over 16 MiB)."""
    return max(_separator_count(json.dumps(densest_request(t))) for t in _TOOLS)


# --- step 1: strict JSON ------------------------------------------------------------

class _Refused(Exception):
    pass


class _HugeInt:
    """An integer literal with too many digits (never converted)."""


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in items:
        if key in seen:
            raise _Refused("duplicate key")
        seen[key] = value
    return seen


def _constant(name: str) -> Any:
    raise _Refused(name)


def _float(text: str) -> float:
    number = float(text)
    if math.isinf(number) or math.isnan(number):
        raise _Refused("out of range")
    return number


def _int(text: str) -> Any:
    return _HugeInt() if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _parse_text(request: bytes | bytearray | memoryview | str) -> Any:
    if isinstance(request, str):
        text = request
        if text[:1] == "\ufeff":
            return ("invalid_input", "")
    else:
        raw = bytes(request)
        if raw[:3] == b"\xef\xbb\xbf":
            return ("invalid_input", "")
        try:
            text = raw.decode("utf-8", "strict")
        except UnicodeDecodeError:
            return ("invalid_input", "")
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant,
                           parse_float=_float, parse_int=_int)
    except (ValueError, RecursionError, _Refused):  # JSONDecodeError is a ValueError
        return ("invalid_input", "")
    if not isinstance(value, dict):
        return ("invalid_input", "")
    return value


def _escape(part: Any) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _pointer(parts: list[Any] | tuple[Any, ...]) -> str:
    return "".join("/" + _escape(p) for p in parts)


def _too_deep(value: Any) -> bool:
    # Iterative depth-first count of nested containers; stops past MAX_DEPTH
    # (a cyclic object is too deep).
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, (dict, list)):
            if depth > MAX_DEPTH:
                return True
            children = node.values() if isinstance(node, dict) else node
            pending.extend((child, depth + 1) for child in children
                           if isinstance(child, (dict, list)))
    return False


def _document_order(value: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) for every value, in document order (depth bounded by the caller)."""
    pending: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while pending:
        path, node = pending.pop()
        yield path, node
        if isinstance(node, dict):
            pending.extend(reversed([(path + (k,), v) for k, v in node.items()]))
        elif isinstance(node, list):
            pending.extend(reversed([(path + (i,), v) for i, v in enumerate(node)]))


def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def _bad_value(node: Any) -> bool:
    if isinstance(node, dict):
        return any(not isinstance(k, str) or _has_lone_surrogate(k) for k in node)
    if isinstance(node, list) or node is None or isinstance(node, bool):
        return False
    if isinstance(node, str):
        return _has_lone_surrogate(node)
    if isinstance(node, int):
        return abs(node) >= 10**MAX_INT_DIGITS
    if isinstance(node, float):
        return not math.isfinite(node)
    return True  # _HugeInt, tuples, bytes, sets, any other object


def _check_values(tool_id: str, the_card: dict[str, Any], value: Any) -> Any:
    if _too_deep(value):
        return ("invalid_input", "")
    for path, node in _document_order(value):
        if _bad_value(node):
            return ("invalid_input", _pointer(path))
    return None


# --- step 2: unsupported operations ------------------------------------------------------

def _check_unsupported(tool_id: str, the_card: dict[str, Any], request: dict[str, Any]) -> Any:
    lines = the_card["unsupported_operations"]
    keys = UNSUPPORTED[tool_id]
    if len(keys) != len(lines):
        raise RuntimeError(f"{tool_id}: the card lists {len(lines)} unsupported operations, "
                           f"this oracle reads {len(keys)}")
    found = [name for group in keys for name in group if name in request]
    method = request.get("smoothing")
    if tool_id == "bleu-smoothing-compute" and isinstance(method, str) \
            and method in _UNSUPPORTED_SMOOTHING:
        found.append("smoothing")
    metric = request.get("metric")
    if tool_id == "bleu-corpus-compute" and isinstance(metric, str) and metric.lower() != "bleu":
        found.append("metric")
    found = list(dict.fromkeys(found))
    if not found:
        return None
    return ("unsupported_input", _pointer([found[0]]) if len(found) == 1 else None)


# --- step 3: the card's schema ------------------------------------------------------------

@lru_cache(maxsize=None)
def _validator(tool_id: str) -> Any:
    import jsonschema

    schema = card(tool_id)["input_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _rank(request: Any, path: Any) -> tuple[int, ...]:
    # The document position of a path: at each step, the member's place in
    # its object as written, or the item's index.
    ranks = []
    node = request
    for part in path:
        ranks.append(list(node).index(part) if isinstance(node, dict) else int(part))
        node = node[part]
    return tuple(ranks)


def _check_schema(tool_id: str, the_card: dict[str, Any], request: dict[str, Any]) -> Any:
    errors = list(_validator(tool_id).iter_errors(request))
    if not errors:
        return None
    first = min(errors, key=lambda e: _rank(request, e.absolute_path))  # min keeps report order on ties
    return ("invalid_input", _pointer(list(first.absolute_path)))


# --- step 4: the card's limits ------------------------------------------------------------

def _utf8_size(token: str) -> int:
    return len(token.encode("utf-8"))


def _check_limits(tool_id: str, the_card: dict[str, Any], request: dict[str, Any]) -> Any:
    limits = the_card["limits"]
    over: list[str] = []
    if tool_id == "bleu-corpus-compute":
        hypotheses, references = request["hypotheses"], request["references"]
        if len(hypotheses) > limits["max_segments"]:
            over.append("/hypotheses")
        if len(references) > limits["max_segments"]:
            over.append("/references")
        tokens = [(("hypotheses", i, j), t) for i, h in enumerate(hypotheses) for j, t in enumerate(h)]
        for i, refs in enumerate(references):
            if len(refs) > limits["max_references_per_segment"]:
                over.append(_pointer(["references", i]))
            tokens += [(("references", i, k, j), t) for k, r in enumerate(refs) for j, t in enumerate(r)]
        sizes = [(where, _utf8_size(t)) for where, t in tokens]
        over += [_pointer(where) for where, size in sizes if size > limits["max_token_bytes"]]
        if len(tokens) > limits["max_total_tokens"]:
            over.append("")
        if sum(size for _, size in sizes) > limits["max_total_token_bytes"]:
            over.append("")
        known = {"max_segments", "max_references_per_segment", "max_total_tokens",
                 "max_token_bytes", "max_total_token_bytes"}
    elif tool_id == "bleu-smoothing-compute":
        for key in ("matches", "totals"):
            if len(request[key]) > limits["max_orders"]:
                over.append(_pointer([key]))
            over += [_pointer([key, i]) for i, v in enumerate(request[key])
                     if v > limits["max_count_value"]]
        over += [_pointer([key]) for key in ("candidate_length", "reference_length")
                 if request[key] > limits["max_count_value"]]
        known = {"max_orders", "max_count_value"}
    else:
        segments = request["segments"]
        if len(segments) > limits["max_segments"]:
            over.append("/segments")
        for i, segment in enumerate(segments):
            if len(segment["reference_lengths"]) > limits["max_references_per_segment"]:
                over.append(_pointer(["segments", i, "reference_lengths"]))
            if segment["candidate_length"] > limits["max_length_value"]:
                over.append(_pointer(["segments", i, "candidate_length"]))
            over += [_pointer(["segments", i, "reference_lengths", k])
                     for k, v in enumerate(segment["reference_lengths"])
                     if v > limits["max_length_value"]]
        known = {"max_segments", "max_references_per_segment", "max_length_value"}
    if set(limits) - known:
        raise RuntimeError(f"{tool_id}: limits this oracle does not read: {sorted(set(limits) - known)}")
    if not over:
        return None
    return ("limit_exceeded", over[0] if len(over) == 1 else None)


# --- step 5: cross-field rules ---------------------------------------------------------------

def _check_cross_fields(tool_id: str, the_card: dict[str, Any], request: dict[str, Any]) -> Any:
    failing: list[str] = []
    if tool_id == "bleu-corpus-compute":
        if len(request["hypotheses"]) != len(request["references"]):
            failing.append("/references")
    elif tool_id == "bleu-smoothing-compute":
        matches, totals = request["matches"], request["totals"]
        if len(matches) != len(totals):
            failing.append("/totals")
        failing += [f"/matches/{i}" for i, (m, t) in enumerate(zip(matches, totals)) if m > t]
        if matches[0] == 0:
            failing += [f"/matches/{i}" for i, m in enumerate(matches) if m != 0]
        if "epsilon" in request and request["smoothing"] != "method1":
            failing.append("/epsilon")
    if not failing:
        return None
    return ("invalid_input", failing[0] if len(failing) == 1 else None)
