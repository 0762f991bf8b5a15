"""The seeded invalid requests reach every check of SPEC.md §2, and each card limit one past the edge.

Each case's ``kind`` (the first check it fails) is confirmed here without the product's own checks:
the strict-JSON faults with the standard library's parser, the schema with ``jsonschema`` on the
card's ``input_schema``, the limits and cross-field rules by measuring the request. The product is
then asked too: it must answer the kind's error code.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import jsonschema
import pytest

from bleu_compat.errors import ToolError
from bleu_compat.harness.invalid import CODES, KINDS, LABELS, InvalidCase, generate_invalid_case
from bleu_compat.tools import TOOL_IDS, validate_request

#: Kinds each card can reach: only bleu-corpus-compute has limits the schema cannot express
#: (tokens, UTF-8 bytes); bleu-brevity-penalty has no cross-field rule (SPEC.md §5).
KINDS_BY_TOOL = {
    "bleu-corpus-compute": set(KINDS),
    "bleu-smoothing-compute": set(KINDS) - {"limits"},
    "bleu-brevity-penalty": set(KINDS) - {"limits", "cross_field"},
}
ROUNDS = 2  # every label twice (different random draws)


@functools.cache
def _cases(tool_id: str) -> tuple[InvalidCase, ...]:
    return tuple(generate_invalid_case(0, tool_id, k) for k in range(ROUNDS * len(LABELS[tool_id])))


@functools.cache
def _validator(tool_id: str) -> jsonschema.Draft202012Validator:
    text = resources.files("bleu_compat").joinpath("cards", f"{tool_id}.json").read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text)["input_schema"])


def _strict_json_fault(text: str | bytes) -> str | None:
    """Why ``text`` is not one strict JSON object (SPEC §2 check 1), or None. Standard library only."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8"

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(items)

    def constant(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except ValueError as exc:  # JSONDecodeError is a ValueError
        return str(exc)
    if not isinstance(value, dict):
        return "top level is not an object"
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate"
    return None


def _tokens(request: dict[str, Any]) -> list[str]:
    return [t for h in request["hypotheses"] for t in h] + [
        t for rs in request["references"] for r in rs for t in r]


def _corpus_limit_broken(request: dict[str, Any]) -> bool:
    tokens = _tokens(request)
    return (len(tokens) > 50_000 or any(len(t.encode("utf-8")) > 128 for t in tokens)
            or sum(len(t.encode("utf-8")) for t in tokens) > 1_048_576)


def _cross_field_broken(tool_id: str, request: dict[str, Any]) -> bool:
    if tool_id == "bleu-corpus-compute":
        return len(request["hypotheses"]) != len(request["references"])
    m, t = request["matches"], request["totals"]
    return (len(m) != len(t) or any(a > b for a, b in zip(m, t))
            or (m[0] == 0 and any(m)) or ("epsilon" in request and request["smoothing"] != "method1"))


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_every_label_and_kind_is_reached(tool_id: str) -> None:
    """The first len(LABELS) cases reach every label; the kinds are those the card can reach."""
    cases = _cases(tool_id)
    assert {c.label for c in cases[: len(LABELS[tool_id])]} == set(LABELS[tool_id])
    assert {c.kind for c in cases} == KINDS_BY_TOOL[tool_id]
    assert all(c.code == CODES[c.kind] for c in cases)


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_kind_is_the_first_failing_check(tool_id: str) -> None:
    """Judged without the product: json faults fail the standard library's strict parse; every other
    request is strict JSON; schema cases fail the card's schema (jsonschema); limits and cross-field
    cases pass it and break what they claim, measured from the request."""
    for c in _cases(tool_id):
        if c.kind == "json":
            assert isinstance(c.request, (str, bytes)), c.label
            assert _strict_json_fault(c.request) is not None, c.label
            continue
        assert isinstance(c.request, dict), c.label
        assert _strict_json_fault(json.dumps(c.request)) is None, c.label
        schema_errors = list(_validator(tool_id).iter_errors(c.request))
        if c.kind == "schema":
            assert schema_errors, c.label
        elif c.kind == "limits":
            assert not schema_errors, (c.label, schema_errors[0].message)
            assert _corpus_limit_broken(c.request), c.label
        elif c.kind == "cross_field":
            assert not schema_errors, (c.label, schema_errors[0].message)
            assert not (tool_id == "bleu-corpus-compute" and _corpus_limit_broken(c.request)), c.label
            assert _cross_field_broken(tool_id, c.request), c.label


def test_limits_one_past_the_edge() -> None:
    """The corpus limits the schema cannot express, broken by exactly one (tokens, bytes), and a
    token over 128 bytes in at most 128 code points (SPEC §2 check 4's note)."""
    seen: set[str] = set()
    for c in _cases("bleu-corpus-compute"):
        if c.label == "limits:max_total_tokens+1":
            assert len(_tokens(c.request)) == 50_001
            seen.add(c.label)
        elif c.label == "limits:max_total_token_bytes+1":
            tokens = _tokens(c.request)
            assert sum(len(t.encode("utf-8")) for t in tokens) == 1_048_577 and len(tokens) <= 50_000
            seen.add(c.label)
        elif c.label == "limits:max_token_bytes+1":
            long = [t for t in _tokens(c.request) if len(t.encode("utf-8")) > 128]
            assert len(long) == 1 and len(long[0]) <= 128
            assert len(long[0].encode("utf-8")) in (129, 200)  # one past, or SPEC's Hebrew example
            seen.add(c.label)
    assert len(seen) == 3


def test_schema_limits_one_past_the_edge() -> None:
    """Limits that the schema also states, one past: 1,001 / 10,001 segments, 9 references, a
    129-character token, 1e12 + 1, 1,000,001, decimals 16, max_order 0 or 9, 9 orders."""
    found: dict[str, set[Any]] = {}

    def note(name: str, value: Any) -> None:
        found.setdefault(name, set()).add(value)

    for tool_id in TOOL_IDS:
        for c in _cases(tool_id):
            r = c.request
            if not isinstance(r, dict):
                continue
            if "decimals" in r:
                note("decimals", r["decimals"])
            if tool_id == "bleu-corpus-compute":
                note("corpus_segments", max(len(r.get("hypotheses", [])), len(r.get("references", []))))
                if "references" in r and all(isinstance(rs, list) for rs in r["references"]):
                    note("corpus_refs", max(map(len, r["references"])))
                if isinstance(r.get("max_order"), int):
                    note("max_order", r["max_order"])
                if "hypotheses" in r and all(isinstance(h, list) for h in r["hypotheses"]):
                    note("token_chars", max((len(t) for h in r["hypotheses"] for t in h
                                             if isinstance(t, str)), default=0))
                    note("token_chars", max((len(t) for rs in r.get("references", []) if isinstance(rs, list)
                                             for x in rs if isinstance(x, list) for t in x
                                             if isinstance(t, str)), default=0))
            elif tool_id == "bleu-smoothing-compute":
                for key in ("matches", "totals"):
                    if isinstance(r.get(key), list):
                        note("orders", len(r[key]))
                        note("count", max((v for v in r[key] if isinstance(v, int)), default=0))
                for key in ("candidate_length", "reference_length"):
                    if isinstance(r.get(key), int):
                        note("count", r[key])
            else:
                segs = r.get("segments")
                if isinstance(segs, list):
                    note("brevity_segments", len(segs))
                    for s in segs:
                        if isinstance(s, dict) and isinstance(s.get("reference_lengths"), list):
                            note("brevity_refs", len(s["reference_lengths"]))
                            note("length", max([v for v in s["reference_lengths"] if isinstance(v, int)]
                                               + [s.get("candidate_length") if isinstance(
                                                   s.get("candidate_length"), int) else 0], default=0))
    assert 16 in found["decimals"]
    assert 1001 in found["corpus_segments"] and 9 in found["corpus_refs"]
    assert {0, 9} <= found["max_order"] and 129 in found["token_chars"]
    assert 9 in found["orders"] and 10**12 + 1 in found["count"]
    assert 10_001 in found["brevity_segments"] and 9 in found["brevity_refs"]
    assert 1_000_001 in found["length"]


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_product_answers_the_kinds_error(tool_id: str) -> None:
    """Ours rejects every generated invalid request with the code of its kind (SPEC §2 order)."""
    for c in _cases(tool_id):
        with pytest.raises(ToolError) as info:
            validate_request(tool_id, c.request)
        assert info.value.code == c.code, (c.label, c.kind, info.value.code, str(info.value)[:200])


def test_invalid_cases_are_reproducible() -> None:
    """Case k depends only on (seed, tool, k)."""
    for tool_id in TOOL_IDS:
        k = len(LABELS[tool_id]) + 3
        assert generate_invalid_case(5, tool_id, k) == generate_invalid_case(5, tool_id, k)
        a, b = generate_invalid_case(5, tool_id, k), generate_invalid_case(6, tool_id, k)
        assert a.label == b.label  # the label cycles with k; the draws follow the seed
