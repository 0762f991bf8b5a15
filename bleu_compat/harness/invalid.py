"""Seeded invalid requests: each check of SPEC.md §2, and the card limits one past the edge.

:func:`generate_invalid_case` gives case ``k`` of tool ``t`` for seed ``s``,
reproducibly (``random.Random(f"{seed}:{tool_id}:invalid:{k}")``, as
:mod:`bleu_compat.harness.generate` does for valid cases). Case ``k`` breaks
the request in the way named by ``LABELS[tool_id][k % len(LABELS[tool_id])]``,
so the first ``len(LABELS[tool_id])`` cases reach every label; the random
source varies the rest (which field, which value, where in the corpus).

Each :class:`InvalidCase` has a ``kind``: the first check of SPEC.md §2, in
its order, that the request fails, and therefore the error a correct
implementation returns:

========== ===================================================== =====================
kind       SPEC.md §2 check                                      code
========== ===================================================== =====================
json       1. strict JSON (UTF-8, no NaN/Infinity, no duplicate   ``invalid_input``
           keys, a top-level object, nothing after it)
unsupported 2. the card's ``unsupported_operations``             ``unsupported_input``
schema     3. the card's ``input_schema``                        ``invalid_input``
limits     4. the card's ``limits``                              ``limit_exceeded``
cross_field 5. the cross-field rules (SPEC.md §3–§4)             ``invalid_input``
========== ===================================================== =====================

For the ``json`` kind the request is the JSON text (``str``, or ``bytes``
where the fault is in the encoding); otherwise it is a dict.

Limits one past the edge. Most card limits are also in the card's schema
(``maxItems`` 1000/10000/8, ``maxLength`` 128, ``maximum`` 1e12/1e6), and the
schema is checked first: 1,001 segments, 9 references, a 129-character
token, a count of 1e12 + 1 or a length of 1,000,001 are ``schema`` errors
(``invalid_input``), and a product that checks limits before the schema
answers ``limit_exceeded`` on them. Only bleu-corpus-compute has limits the
schema cannot express: ``max_total_tokens`` (50,001 tokens),
``max_token_bytes`` counted in UTF-8 bytes (a token of 129 bytes in at most
128 code points: ``"東" * 43``, ``"é" * 64 + "a"``) and
``max_total_token_bytes`` (1,048,577 bytes); those are the ``limits`` kind.
The valid neighbours (exactly at each limit) come from the valid generator
(:mod:`bleu_compat.harness.strategies`).

Requests that break two checks at once (label ``"A+B:..."``) have the kind
of the earlier check: a schema error beside a limit catches a product that
checks limits first; a limit beside a cross-field error one that checks
cross-field rules first; and so on.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable

from .strategies import GENERATORS, RandomSource

__all__ = ["InvalidCase", "KINDS", "CODES", "LABELS", "generate_invalid_case", "generate_invalid_cases"]

#: The kinds, in SPEC.md §2's order of checks.
KINDS = ("json", "unsupported", "schema", "limits", "cross_field")
#: The error code a correct implementation returns for each kind.
CODES = {
    "json": "invalid_input", "unsupported": "unsupported_input", "schema": "invalid_input",
    "limits": "limit_exceeded", "cross_field": "invalid_input",
}

Request = dict[str, Any]
Made = tuple[Any, str]  # (request, kind)
Breaker = Callable[[random.Random, str], Made]


@dataclass(frozen=True)
class InvalidCase:
    """One generated invalid request.

    Attributes:
        tool_id: the card.
        case: the case number (0-based).
        seed: the run's seed.
        request: the JSON text (``str``/``bytes``) for the ``json`` kind, else a dict.
        kind: the first SPEC.md §2 check it fails (one of :data:`KINDS`).
        label: what is broken, e.g. ``"limits:max_total_tokens+1"`` or
            ``"schema+limits:max_order_0+token_bytes_129"``.
    """

    tool_id: str
    case: int
    seed: int
    request: Any
    kind: str
    label: str

    @property
    def case_id(self) -> str:
        """``"<tool_id>!invalid#<case>"``, unique within a run."""
        return f"{self.tool_id}!invalid#{self.case}"

    @property
    def code(self) -> str:
        """The error code a correct implementation returns (:data:`CODES`)."""
        return CODES[self.kind]


# --- small valid bases -------------------------------------------------------------

_FALLBACK: dict[str, Request] = {
    "bleu-corpus-compute": {"hypotheses": [["the", "cat"]], "references": [[["the", "cat"]]]},
    "bleu-smoothing-compute": {"matches": [3, 1], "totals": [4, 3], "candidate_length": 4,
                               "reference_length": 5, "smoothing": "none"},
    "bleu-brevity-penalty": {"segments": [{"candidate_length": 3, "reference_lengths": [4, 2]}]},
}


def _base(rng: random.Random, tool_id: str) -> Request:
    """A small valid request from the valid generator (large ones are skipped)."""
    for _ in range(4):
        request = GENERATORS[tool_id](RandomSource(rng))
        if len(json.dumps(request)) <= 20_000:
            return request
    return json.loads(json.dumps(_FALLBACK[tool_id]))


def _copy(request: Request) -> Request:
    return json.loads(json.dumps(request))


# --- strict JSON (text) --------------------------------------------------------------

_BAD_UTF8 = (b"\xff", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80")
_MARK = "\u2603"  # a placeholder replaced by the bad bytes


def _text(request: Request) -> str:
    return json.dumps(request, ensure_ascii=False)


def _json_invalid_utf8(rng: random.Random, tool_id: str) -> Made:
    """Invalid UTF-8 inside a string a lenient decoder would accept (a token, the method)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        hyp = request["hypotheses"][0]
        hyp.append("a" + _MARK)
    elif tool_id == "bleu-smoothing-compute":
        request["smoothing"] = request["smoothing"] + _MARK
    else:
        request = {_MARK: 0, **request}
    raw = _text(request).encode("utf-8").replace(_MARK.encode("utf-8"), rng.choice(_BAD_UTF8))
    return raw, "json"


def _json_constant(rng: random.Random, tool_id: str) -> Made:
    """NaN / Infinity / -Infinity where a number goes."""
    constant = rng.choice(("NaN", "Infinity", "-Infinity"))
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        key = rng.choice(("max_order", "decimals"))
    elif tool_id == "bleu-smoothing-compute":
        key = rng.choice(("epsilon", "candidate_length", "decimals"))
        if key == "epsilon":
            request["smoothing"] = "method1"
    else:
        key = "decimals"
    request[key] = _MARK
    return _text(request).replace(json.dumps(_MARK, ensure_ascii=False), constant), "json"


def _json_duplicate_key(rng: random.Random, tool_id: str) -> Made:
    """A key twice with the same value (so a last-wins parser would compute a result)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-brevity-penalty" and rng.random() < 0.5:
        # nested, inside a segment object
        seg = request["segments"][0]
        inner = json.dumps(seg["candidate_length"])
        text = _text(request).replace('"candidate_length": ' + inner,
                                      '"candidate_length": ' + inner + ', "candidate_length": ' + inner, 1)
        return text, "json"
    key = rng.choice(sorted(request))
    body = _text(request)
    return "{" + json.dumps(key) + ": " + json.dumps(request[key], ensure_ascii=False) + ", " + body[1:], "json"


def _json_top_level(rng: random.Random, tool_id: str) -> Made:
    """A top level that is not an object."""
    body = _text(_base(rng, tool_id))
    return rng.choice(("[]", "[" + body + "]", '"request"', "1", "null", "true", "[1, 2]")), "json"


def _json_trailing(rng: random.Random, tool_id: str) -> Made:
    """A valid object followed by something else."""
    body = _text(_base(rng, tool_id))
    return body + rng.choice((" x", "}", " " + body, ",", "\n[]", " 0")), "json"


def _json_syntax(rng: random.Random, tool_id: str) -> Made:
    """Malformed JSON: truncated, single quotes, empty, a trailing comma."""
    body = _text(_base(rng, tool_id))
    return rng.choice((body[:-1], body.replace('"', "'"), "", "   ", body[:-1] + ",}")), "json"


def _json_lone_surrogate(rng: random.Random, tool_id: str) -> Made:
    """An escaped lone surrogate (``"\\ud800"``): no UTF-8 encoding exists for it."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        request["hypotheses"][0].append(_MARK)
    else:
        request = {_MARK: 0, **request}
    return _text(request).replace(_MARK, rng.choice(("\\ud800", "\\udfff", "a\\udc00b"))), "json"


def _json_and_schema(rng: random.Random, tool_id: str) -> Made:
    """Duplicate keys in a request that also misses a required field: json comes first."""
    request = _base(rng, tool_id)
    required = {"bleu-corpus-compute": "references", "bleu-smoothing-compute": "totals",
                "bleu-brevity-penalty": "segments"}[tool_id]
    del request[required]
    request["decimals"] = 2
    return '{"decimals": 2, ' + _text(request)[1:], "json"


# --- unsupported ---------------------------------------------------------------------

_UNSUPPORTED: dict[str, tuple[tuple[str, Any], ...]] = {
    "bleu-corpus-compute": (
        ("weights", [0.25, 0.25, 0.25, 0.25]), ("tokenize", "13a"), ("lowercase", True),
        ("smoothing", "method1"), ("effective_order", True),
    ),
    "bleu-smoothing-compute": (
        ("smoothing", "method4"), ("smoothing", "method5"), ("smoothing", "method6"),
        ("smoothing", "method7"), ("weights", [0.5, 0.5]), ("k", 2),
    ),
    "bleu-brevity-penalty": (
        ("hypotheses", ["the cat sat"]), ("references", [["the cat sat on the mat"]]),
    ),
}


def _unsupported(rng: random.Random, tool_id: str) -> Made:
    """A field for something the card lists under ``unsupported_operations``."""
    request = _base(rng, tool_id)
    key, value = rng.choice(_UNSUPPORTED[tool_id])
    request[key] = value
    if key == "smoothing" and tool_id == "bleu-smoothing-compute":
        request.pop("epsilon", None)
    return request, "unsupported"


def _unsupported_and_schema(rng: random.Random, tool_id: str) -> Made:
    """Unsupported and a schema error (a wrong type): unsupported comes first."""
    request, _ = _unsupported(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        request["max_order"] = rng.choice((0, "4", 9))
    elif tool_id == "bleu-smoothing-compute":
        request["matches"] = rng.choice(("3", [1.5], []))
    else:
        request["segments"] = rng.choice(([], "12"))
    return request, "unsupported"


def _unsupported_and_limits(rng: random.Random, tool_id: str) -> Made:
    """Unsupported beside a limit (corpus: 50,001 tokens): unsupported comes first."""
    if tool_id != "bleu-corpus-compute":
        return _unsupported_and_schema(rng, tool_id)
    request, _ = _corpus_total_tokens(rng, tool_id)
    key, value = rng.choice(_UNSUPPORTED[tool_id])
    request[key] = value
    return request, "unsupported"


# --- schema --------------------------------------------------------------------------

_REQUIRED = {
    "bleu-corpus-compute": ("hypotheses", "references"),
    "bleu-smoothing-compute": ("matches", "totals", "candidate_length", "reference_length", "smoothing"),
    "bleu-brevity-penalty": ("segments",),
}


def _schema_missing(rng: random.Random, tool_id: str) -> Made:
    """A required field left out."""
    request = _base(rng, tool_id)
    del request[rng.choice(_REQUIRED[tool_id])]
    return request, "schema"


def _schema_unknown_property(rng: random.Random, tool_id: str) -> Made:
    """A property the schema does not know (``additionalProperties: false``)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-brevity-penalty" and rng.random() < 0.5:
        request["segments"][0]["colour"] = "blue"
    else:
        request[rng.choice(("colour", "maxorder", "Max_order", "extra"))] = 1
    return request, "schema"


def _schema_type(rng: random.Random, tool_id: str) -> Made:
    """A value of the wrong JSON type (a bool, string or fraction for an integer, ...)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        choice = rng.randrange(5)
        if choice == 0:
            request["hypotheses"][0] = "the cat"
        elif choice == 1:
            request["references"][0][0] = [*request["references"][0][0], 7]
        elif choice == 2:
            request["max_order"] = rng.choice((True, "4", 4.5, None))
        elif choice == 3:
            request["decimals"] = rng.choice((False, "2", 2.5))
        else:
            request["references"][0] = ["the", "cat"]
    elif tool_id == "bleu-smoothing-compute":
        key = rng.choice(("matches", "candidate_length", "reference_length", "effective_order", "smoothing"))
        request[key] = {
            "matches": [*request["matches"][:-1], 0.5], "candidate_length": rng.choice(("3", True, 2.5)),
            "reference_length": None, "effective_order": "yes", "smoothing": rng.choice(("Method1", "exp", 1)),
        }[key]
    else:
        seg = request["segments"][0]
        choice = rng.randrange(3)
        if choice == 0:
            seg["reference_lengths"] = seg["reference_lengths"][0]
        elif choice == 1:
            seg["candidate_length"] = rng.choice(("3", True, 3.5, None))
        else:
            request["segments"] = request["segments"][0]
    return request, "schema"


def _schema_bound(rng: random.Random, tool_id: str) -> Made:
    """A value one past a schema bound that is not a card limit (below a minimum, empty arrays)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        choice = rng.randrange(6)
        if choice == 0:
            request["max_order"] = rng.choice((0, 9, -1))
        elif choice == 1:
            request["decimals"] = rng.choice((-1, 16))
        elif choice == 2:
            request["hypotheses"], request["references"] = [], []
        elif choice == 3:
            request["references"][0] = []  # a segment without references
        elif choice == 4:
            request["hypotheses"][0] = [*request["hypotheses"][0], ""]  # minLength 1
        else:
            request["references"][0][0] = [""]
    elif tool_id == "bleu-smoothing-compute":
        choice = rng.randrange(5)
        if choice == 0:
            request["matches"], request["totals"] = [], []
        elif choice == 1:
            request["smoothing"] = "method1"
            request["epsilon"] = rng.choice((-5e-324, -0.1, 1.0000000000000002, 2))
        elif choice == 2:
            request["decimals"] = rng.choice((-1, 16))
        elif choice == 3:
            request["candidate_length"] = -1
        else:
            request["totals"] = [*request["totals"][:-1], -1]
    else:
        choice = rng.randrange(4)
        if choice == 0:
            request["segments"] = []
        elif choice == 1:
            request["segments"][0]["reference_lengths"] = []
        elif choice == 2:
            request["decimals"] = rng.choice((-1, 16))
        else:
            request["segments"][0]["candidate_length"] = -1
    return request, "schema"


def _schema_decimals_16(rng: random.Random, tool_id: str) -> Made:
    """decimals 16 (15 is the largest allowed)."""
    request = _base(rng, tool_id)
    request["decimals"] = 16
    return request, "schema"


def _schema_nine_orders(rng: random.Random, tool_id: str) -> Made:
    """9 orders in bleu-smoothing-compute (``max_orders`` and the schema's ``maxItems`` 8)."""
    request = _base(rng, tool_id)
    request["matches"] = [1] * 9
    request["totals"] = [2] * 9
    request.pop("epsilon", None)
    request["smoothing"] = rng.choice(("none", "method1", "method2", "method3"))
    return request, "schema"


def _schema_max_order_is(value: int) -> Breaker:
    def breaker(rng: random.Random, tool_id: str) -> Made:
        request = _base(rng, tool_id)
        request["max_order"] = value
        return request, "schema"

    breaker.__doc__ = f"max_order {value} (the schema allows 1-8)."
    return breaker


def _schema_segments_plus_one(rng: random.Random, tool_id: str) -> Made:
    """One segment past ``max_segments`` (1,001 / 10,001): the schema's ``maxItems`` says it first."""
    if tool_id == "bleu-corpus-compute":
        n = 1001
        hyps = [[rng.choice("abc") for _ in range(rng.randint(0, 3))] for _ in range(n)]
        refs = [[[rng.choice("abc") for _ in range(rng.randint(0, 3))]] for _ in range(n)]
        if rng.random() < 0.3:  # only one of the two arrays over: the other has 1,000
            which = rng.choice(("hypotheses", "references"))
            return ({"hypotheses": hyps[:1000] if which == "references" else hyps,
                     "references": refs[:1000] if which == "hypotheses" else refs}, "schema")
        return {"hypotheses": hyps, "references": refs}, "schema"
    segments = [{"candidate_length": rng.randint(0, 50), "reference_lengths": [rng.randint(0, 50)]}
                for _ in range(10_001)]
    return {"segments": segments}, "schema"


def _schema_references_plus_one(rng: random.Random, tool_id: str) -> Made:
    """9 references in a segment (``max_references_per_segment`` and ``maxItems`` 8)."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-corpus-compute":
        i = rng.randrange(len(request["references"]))
        request["references"][i] = [["a", "b"]] * 9
    else:
        i = rng.randrange(len(request["segments"]))
        request["segments"][i]["reference_lengths"] = [rng.randint(0, 9) for _ in range(9)]
    return request, "schema"


def _schema_token_chars_129(rng: random.Random, tool_id: str) -> Made:
    """An ASCII token of 129 characters (schema ``maxLength`` 128, before the byte limit)."""
    request = _base(rng, tool_id)
    token = "y" * 129
    if rng.random() < 0.5:
        request["hypotheses"][0] = [*request["hypotheses"][0], token]
    else:
        request["references"][0][0] = [token, *request["references"][0][0]]
    return request, "schema"


def _schema_count_plus_one(rng: random.Random, tool_id: str) -> Made:
    """A count one past ``max_count_value`` (1e12 + 1) or a length past ``max_length_value``
    (1,000,001): the schema's ``maximum`` says it first."""
    request = _base(rng, tool_id)
    if tool_id == "bleu-smoothing-compute":
        over = 10**12 + 1
        key = rng.choice(("matches", "totals", "candidate_length", "reference_length"))
        if key in ("matches", "totals"):
            request["matches"] = [10**12]
            request["totals"] = [10**12]
            request[key] = [over]
            request.pop("effective_order", None)
        else:
            request[key] = over
    else:
        seg = request["segments"][rng.randrange(len(request["segments"]))]
        if rng.random() < 0.5:
            seg["candidate_length"] = 1_000_001
        else:
            seg["reference_lengths"][rng.randrange(len(seg["reference_lengths"]))] = 1_000_001
    return request, "schema"


# --- limits (bleu-corpus-compute) ------------------------------------------------------

#: Tokens of 129 UTF-8 bytes in at most 128 code points (the schema's maxLength passes them).
BYTES_129 = ("東" * 43, "é" * 64 + "a", "😀" * 32 + "a", "א" * 64 + "b", "ab" + "東" * 42 + "c")
#: SPEC.md §2's own example: a 100-character Hebrew token is 200 bytes.
HEBREW_100 = "ש" * 100


def _token_129(rng: random.Random) -> str:
    return rng.choice(BYTES_129 + (HEBREW_100,))


def _corpus_token_bytes(rng: random.Random, tool_id: str) -> Made:
    """A token over 128 UTF-8 bytes in at most 128 code points, in a hypothesis or a reference."""
    request = _base(rng, "bleu-corpus-compute")
    token = _token_129(rng)
    i = rng.randrange(len(request["hypotheses"]))
    if rng.random() < 0.5:
        hyp = request["hypotheses"][i]
        hyp.insert(rng.randint(0, len(hyp)), token)
    else:
        ref = request["references"][i][rng.randrange(len(request["references"][i]))]
        ref.insert(rng.randint(0, len(ref)), token)
    return request, "limits"


def _corpus_total_tokens(rng: random.Random, tool_id: str, segments: tuple[int, ...] = (1, 7, 100, 1000)) -> Made:
    """Exactly 50,001 tokens (hypotheses and references), every token short and ASCII."""
    n_segments = rng.choice(segments)
    total = 50_001
    hyps: list[list[str]] = []
    refs: list[list[list[str]]] = []
    for i in range(n_segments):
        share = total // n_segments + (1 if i < total % n_segments else 0)
        h = rng.randint(0, share)
        hyps.append([rng.choice("abcd") for _ in range(h)])
        refs.append([[rng.choice("abcd") for _ in range(share - h)]])
    return {"hypotheses": hyps, "references": refs}, "limits"


def _corpus_total_bytes(rng: random.Random, tool_id: str) -> Made:
    """Exactly 1,048,577 UTF-8 bytes of tokens: 8,192 tokens of 128 bytes and one of 1 byte."""
    big = ["x" * 128, "é" * 64, "東" * 42 + "ab", "😀" * 32] + [f"{k:03d}" + "y" * 125 for k in range(8)]
    tokens = [rng.choice(big) for _ in range(8192)] + ["a"]
    rng.shuffle(tokens)
    n_segments = rng.choice((1, 16, 256))
    half = len(tokens) // 2
    hyp_part, ref_part = tokens[:half], tokens[half:]
    hyps = [hyp_part[i * half // n_segments:(i + 1) * half // n_segments] for i in range(n_segments)]
    m = len(ref_part)
    refs = [[ref_part[i * m // n_segments:(i + 1) * m // n_segments]] for i in range(n_segments)]
    return {"hypotheses": hyps, "references": refs}, "limits"


# --- cross-field -----------------------------------------------------------------------

def _cross_field(rng: random.Random, tool_id: str) -> Made:
    """A cross-field rule of SPEC.md §3–§4 broken (the schema and limits pass)."""
    if tool_id == "bleu-corpus-compute":
        request = _base(rng, tool_id)
        if rng.random() < 0.5 and len(request["references"]) > 1:
            request["references"].pop(rng.randrange(len(request["references"])))
        else:
            request["references"].append([["extra"]])
        return request, "cross_field"
    choice = rng.randrange(6)
    c, r = rng.randint(0, 20), rng.randint(0, 20)
    request: Request = {"candidate_length": c, "reference_length": r,
                        "smoothing": rng.choice(("none", "method1", "method2", "method3"))}
    if choice == 0:  # lengths differ
        n = rng.randint(1, 7)
        request["matches"] = [1] * n
        request["totals"] = [2] * rng.choice([k for k in range(1, 9) if k != n])
    elif choice == 1:  # m_n > l_n by one
        n = rng.randint(1, 8)
        totals = [rng.randint(1, 9) for _ in range(n)]
        matches = [rng.randint(1, t) for t in totals]
        k = rng.randrange(n)
        matches[k] = totals[k] + 1
        request["matches"], request["totals"] = matches, totals
    elif choice == 2:  # m_n > l_n at the count limit
        request["matches"], request["totals"] = [10**12, 10**12], [10**12, 10**12 - 1]
    elif choice == 3:  # m_1 = 0 with a later m_n > 0
        n = rng.randint(2, 8)
        request["totals"] = [5] * n
        request["matches"] = [0] * n
        request["matches"][rng.randint(1, n - 1)] = rng.randint(1, 5)
    else:  # epsilon without method1
        request["matches"], request["totals"] = [3, 1], [4, 3]
        request["smoothing"] = rng.choice(("none", "method2", "method3"))
        request["epsilon"] = rng.choice((0.1, 0.0, 1e-9))
    return request, "cross_field"


# --- two at once -------------------------------------------------------------------------

def _schema_and_limits(rng: random.Random, tool_id: str) -> Made:
    """A schema error beside a limit: the schema comes first (catches limits checked first)."""
    if tool_id != "bleu-corpus-compute":
        # every limit of these cards is also a schema bound: one past it is both at once
        other = _schema_nine_orders if tool_id == "bleu-smoothing-compute" else _schema_references_plus_one
        request, _ = _schema_count_plus_one(rng, tool_id) if rng.random() < 0.5 else other(rng, tool_id)
        request["decimals"] = rng.choice((16, -1, "2"))
        return request, "schema"
    if rng.random() < 0.5:
        request, _ = _corpus_token_bytes(rng, tool_id)
    else:
        request, _ = _corpus_total_tokens(rng, tool_id)
    breaker = rng.randrange(3)
    if breaker == 0:
        request["max_order"] = rng.choice((0, 9))
    elif breaker == 1:
        request["decimals"] = 16
    else:
        request["hypotheses"][-1] = [*request["hypotheses"][-1], ""]
    return request, "schema"


def _limits_and_cross_field(rng: random.Random, tool_id: str) -> Made:
    """A limit beside a cross-field error: the limit comes first (corpus); for the other cards
    (no limit outside the schema) a schema error beside a cross-field one."""
    if tool_id == "bleu-corpus-compute":
        if rng.random() < 0.5:  # fewer than 1,000 segments: one more reference stays within maxItems
            request, _ = _corpus_total_tokens(rng, tool_id, (1, 7, 100))
        else:
            request, _ = _corpus_token_bytes(rng, tool_id)
        request["references"].append([["extra"]])
        return request, "limits"
    if tool_id == "bleu-smoothing-compute":
        request, _ = _cross_field(rng, tool_id)
        request["decimals"] = 16
        return request, "schema"
    request = _base(rng, tool_id)
    request["segments"][0]["candidate_length"] = 1_000_001
    request["decimals"] = 2.5
    return request, "schema"


def _schema_and_cross_field(rng: random.Random, tool_id: str) -> Made:
    """A schema error beside a cross-field one: the schema comes first."""
    if tool_id == "bleu-corpus-compute":
        request = _base(rng, tool_id)
        request["references"].append([["extra"]])
        request["max_order"] = rng.choice((0, 9))
        return request, "schema"
    if tool_id == "bleu-smoothing-compute":
        request, _ = _cross_field(rng, tool_id)
        request["candidate_length"] = rng.choice((-1, 10**12 + 1, "1"))
        return request, "schema"
    return _schema_type(rng, tool_id)


_COMMON: tuple[tuple[str, Breaker], ...] = (
    ("json:invalid_utf8", _json_invalid_utf8),
    ("json:nan_infinity", _json_constant),
    ("json:duplicate_key", _json_duplicate_key),
    ("json:top_level_not_object", _json_top_level),
    ("json:trailing_data", _json_trailing),
    ("json:syntax", _json_syntax),
    ("json:lone_surrogate", _json_lone_surrogate),
    ("json+schema:duplicate_key+missing", _json_and_schema),
    ("unsupported", _unsupported),
    ("unsupported+schema", _unsupported_and_schema),
    ("schema:missing_required", _schema_missing),
    ("schema:unknown_property", _schema_unknown_property),
    ("schema:wrong_type", _schema_type),
    ("schema:out_of_bounds", _schema_bound),
    ("schema:decimals_16", _schema_decimals_16),
)

_BREAKERS: dict[str, tuple[tuple[str, Breaker], ...]] = {
    "bleu-corpus-compute": _COMMON + (
        ("unsupported+limits", _unsupported_and_limits),
        ("schema:max_order_0", _schema_max_order_is(0)),
        ("schema:max_order_9", _schema_max_order_is(9)),
        ("schema(limit):max_segments+1", _schema_segments_plus_one),
        ("schema(limit):max_references+1", _schema_references_plus_one),
        ("schema(limit):token_chars_129", _schema_token_chars_129),
        ("limits:max_token_bytes+1", _corpus_token_bytes),
        ("limits:max_total_tokens+1", _corpus_total_tokens),
        ("limits:max_total_token_bytes+1", _corpus_total_bytes),
        ("cross_field:segment_counts", _cross_field),
        ("schema+limits", _schema_and_limits),
        ("limits+cross_field", _limits_and_cross_field),
        ("schema+cross_field", _schema_and_cross_field),
    ),
    "bleu-smoothing-compute": _COMMON + (
        ("schema(limit):max_orders+1", _schema_nine_orders),
        ("schema(limit):max_count+1", _schema_count_plus_one),
        ("cross_field", _cross_field),
        ("schema+limits", _schema_and_limits),
        ("schema+cross_field:decimals_16", _limits_and_cross_field),
        ("schema+cross_field:length_value", _schema_and_cross_field),
    ),
    "bleu-brevity-penalty": _COMMON + (
        ("schema(limit):max_segments+1", _schema_segments_plus_one),
        ("schema(limit):max_references+1", _schema_references_plus_one),
        ("schema(limit):max_length+1", _schema_count_plus_one),
        ("schema+limits", _schema_and_limits),
        ("schema+schema:max_length+1,decimals_2.5", _limits_and_cross_field),
    ),
}

#: Every label per tool, in the order cases cycle through them.
LABELS: dict[str, tuple[str, ...]] = {tool: tuple(label for label, _ in b) for tool, b in _BREAKERS.items()}


def generate_invalid_case(seed: int, tool_id: str, k: int) -> InvalidCase:
    """Invalid case number ``k`` of ``tool_id`` for ``seed`` (reproducible on its own).

    Raises:
        KeyError: unknown tool.
    """
    breakers = _BREAKERS[tool_id]
    label, breaker = breakers[k % len(breakers)]
    rng = random.Random(f"{seed}:{tool_id}:invalid:{k}")
    request, kind = breaker(rng, tool_id)
    return InvalidCase(tool_id, k, seed, request, kind, label)


def generate_invalid_cases(seed: int, tool_id: str, count: int, start: int = 0) -> list[InvalidCase]:
    """Invalid cases ``start .. start + count - 1`` of ``tool_id`` for ``seed``."""
    return [generate_invalid_case(seed, tool_id, k) for k in range(start, start + count)]
