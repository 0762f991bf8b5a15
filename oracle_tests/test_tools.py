"""The tool layer (bleu_compat.tools): cards as package data, ``execute``, output shapes, schema validators.

The tool layer validates with fastjsonschema (draft 7, compiled: fast) and falls back
to jsonschema's Draft202012Validator for the message. Both must accept and reject the
same requests; that is only guaranteed if the cards use keywords that mean the same
in draft 7 and draft 2020-12, which is checked here, and then tested on generated
valid and invalid requests.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

from bleu_compat import ToolError, execute, validate_request
from bleu_compat.tools import MAX_REQUEST_BYTES, TOOL_IDS, card, cards

SHARED_SPEC = Path(__file__).resolve().parent.parent.parent / "shared" / "spec"

#: Keywords whose meaning is identical in draft 7 and draft 2020-12 (for "items" only
#: in its single-schema form; the array form changed meaning to "prefixItems").
SAME_MEANING = {"type", "additionalProperties", "required", "properties", "items", "minItems",
                "maxItems", "minimum", "maximum", "minLength", "maxLength", "enum"}


def _schema_nodes(schema: Any) -> list[dict[str, Any]]:
    """Every (sub)schema object of a schema."""
    out, stack = [], [schema]
    while stack:
        node = stack.pop()
        out.append(node)
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                stack.append(node[key])
        stack.extend(node.get("properties", {}).values())
    return out


class TestCards:
    """The cards ship as package data, identical to the contract's copies."""

    def test_ids(self) -> None:
        """The three ids, in order, with version and execute_url."""
        assert tuple(cards()) == TOOL_IDS
        for tool_id, c in cards().items():
            assert c.id == tool_id and c.version == "1.0.0"
            assert c.execute_url == f"/v1/tools/{tool_id}/versions/1.0.0/execute"

    def test_same_as_contract(self, shared_dir: Path) -> None:
        """The packaged cards equal ../shared/spec/*.json."""
        for tool_id in TOOL_IDS:
            contract = json.loads((shared_dir / "spec" / f"{tool_id}.json").read_text("utf-8"))
            assert dict(card(tool_id).data) == contract

    def test_shipped_spec_is_the_contract(self, shared_dir: Path) -> None:
        """docs/SPEC.md, the copy README cites, is ../shared/SPEC.md byte for byte."""
        shipped = Path(__file__).resolve().parent.parent / "docs" / "SPEC.md"
        assert shipped.read_bytes() == (shared_dir / "SPEC.md").read_bytes()

    def test_unknown(self) -> None:
        """An unknown id is a KeyError listing the known ids."""
        with pytest.raises(KeyError, match="bleu-corpus-compute"):
            card("bleu-sentence-components")
        with pytest.raises(KeyError):
            execute("nope", {})

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    def test_schemas_are_valid_2020_12(self, tool_id: str) -> None:
        """Input and output schemas are valid draft 2020-12 schemas."""
        jsonschema.Draft202012Validator.check_schema(card(tool_id).input_schema)
        jsonschema.Draft202012Validator.check_schema(card(tool_id).output_schema)

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    def test_keywords_mean_the_same_in_draft7(self, tool_id: str) -> None:
        """The input schema uses only keywords with the same meaning in draft 7 and 2020-12."""
        for node in _schema_nodes(card(tool_id).input_schema):
            assert set(node) <= SAME_MEANING, set(node) - SAME_MEANING
            assert not isinstance(node.get("items"), list)
            assert "$schema" not in node and "$ref" not in node


class TestExecute:
    """``execute`` returns exactly the card's output shape."""

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    def test_examples_validate_output_schema(self, tool_id: str) -> None:
        """Each example's output validates against output_schema and equals the card's output."""
        validator = jsonschema.Draft202012Validator(card(tool_id).output_schema)
        for example in card(tool_id).examples:
            out = execute(tool_id, copy.deepcopy(example["input"]))
            validator.validate(out)
            assert out == example["output"]
            assert set(out) == set(card(tool_id).output_schema["properties"])

    def test_request_not_mutated(self) -> None:
        """The caller's request dict is not modified."""
        req = {"matches": [1.0, 0], "totals": [2, 1], "candidate_length": 2.0, "reference_length": 2,
               "smoothing": "method2"}
        before = copy.deepcopy(req)
        execute("bleu-smoothing-compute", req)
        assert req == before

    def test_integral_floats_become_ints(self) -> None:
        """JSON Schema's integer admits 1.0; outputs still hold ints (written 1, not 1.0)."""
        out = execute("bleu-smoothing-compute",
                      {"matches": [1.0], "totals": [2.0], "candidate_length": 2.0, "reference_length": 2.0,
                       "smoothing": "none", "decimals": 2.0})
        assert out["smoothed_matches"] == [1] and type(out["smoothed_matches"][0]) is int
        out = execute("bleu-corpus-compute",
                      {"hypotheses": [["a"]], "references": [[["a"]]], "max_order": 1.0})
        assert out["max_order"] == 1 and type(out["max_order"]) is int
        out = execute("bleu-brevity-penalty",
                      {"segments": [{"candidate_length": 3.0, "reference_lengths": [4.0, 2.0]}]})
        assert out["closest_reference_lengths"] == [2] and type(out["candidate_length"]) is int

    def test_text_requests(self) -> None:
        """JSON text (str or bytes) is parsed strictly and gives the same result as the dict."""
        req = {"hypotheses": [["a", "b"]], "references": [[["a", "b", "c"]]], "max_order": 2}
        expected = execute("bleu-corpus-compute", req)
        assert execute("bleu-corpus-compute", json.dumps(req)) == expected
        assert execute("bleu-corpus-compute", json.dumps(req).encode("utf-8")) == expected
        assert execute("bleu-corpus-compute", bytearray(json.dumps(req).encode())) == expected

    @pytest.mark.parametrize(
        ("hyp", "ref", "matches"),
        [
            (["a b"], ["a b"], [1]),
            (["a b"], ["a", "b"], [0]),
            (["a\u00a0b"], ["a b"], [0]),
            (["a\u3000b"], ["a b"], [0]),
            (["a\u200bb"], ["ab"], [0]),
            (["a\tb"], ["a b"], [0]),
            (["\u00e9"], ["e\u0301"], [0]),
            (["The"], ["the"], [0]),
            ([" "], [" "], [1]),
        ],
    )
    def test_tokens_compare_exactly(self, hyp: list[str], ref: list[str], matches: list[int]) -> None:
        """No trimming, no Unicode normalisation, no case folding through the tool."""
        out = execute("bleu-corpus-compute", {"hypotheses": [hyp], "references": [[ref]], "max_order": 1})
        assert out["matches"] == matches

    def test_validate_request_returns_plain_data(self) -> None:
        """validate_request returns the request with integral integers."""
        out = validate_request("bleu-corpus-compute",
                               '{"hypotheses": [["a"]], "references": [[["a"]]], "decimals": 3.0}')
        assert out["decimals"] == 3 and type(out["decimals"]) is int

    def test_max_request_bytes_covers_largest_valid_request(self) -> None:
        """The largest valid request (1 MiB of tokens as \\u escapes) is below MAX_REQUEST_BYTES."""
        assert 6 * 1024 * 1024 + 50_000 * 3 < MAX_REQUEST_BYTES


# --- validator agreement -------------------------------------------------------

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 10**13), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 2.0, 1.5, -1.0, 8.0, 9.0, 1e12, 1e12 + 1]), st.text(max_size=4),
    st.sampled_from(["", "none", "method1", "method3", "x" * 129, "\u05d0" * 100]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=8,
)


def _weighted(valid: st.SearchStrategy, invalid: st.SearchStrategy, percent_valid: int) -> st.SearchStrategy:
    """``valid`` with the given probability (in percent), else ``invalid``."""
    return st.integers(0, 99).flatmap(lambda k: valid if k < percent_valid else invalid)


tokens = st.lists(
    _weighted(st.sampled_from(["a", "b", "a b", "x" * 128, "\u05d0" * 64]),
              st.sampled_from(["", 1, "x" * 129, None]), 98),
    max_size=4,
)
counts = _weighted(st.one_of(st.integers(0, 10), st.sampled_from([1.0, 10**12])),
                   st.sampled_from([2.5, -1, True, 10**12 + 1, "3"]), 97)


def _maybe(valid: st.SearchStrategy, percent_valid: int = 95) -> st.SearchStrategy:
    """Mostly ``valid``, sometimes any JSON value."""
    return _weighted(valid, json_values, percent_valid)


def _requests(required: dict[str, st.SearchStrategy], optional: dict[str, st.SearchStrategy]
              ) -> st.SearchStrategy:
    """Mostly objects with every required field (each maybe invalid) and some optional ones;
    sometimes any subset of the fields, or an extra key."""
    complete = st.fixed_dictionaries(required, optional=optional)
    anything = st.fixed_dictionaries({}, optional={**required, **optional, "extra_key": json_values})
    return _weighted(complete, anything, 80)


REQUESTS = {
    "bleu-corpus-compute": _requests(
        {"hypotheses": _maybe(st.lists(tokens, min_size=1, max_size=3)),
         "references": _maybe(st.lists(st.lists(tokens, min_size=1, max_size=8), min_size=1, max_size=3))},
        {"max_order": _maybe(st.integers(0, 9)), "decimals": _maybe(st.one_of(st.integers(-1, 16), st.just(2.0)))},
    ),
    "bleu-smoothing-compute": _requests(
        {"matches": _maybe(st.lists(counts, min_size=1, max_size=8)),
         "totals": _maybe(st.lists(counts, min_size=1, max_size=8)),
         "candidate_length": _maybe(counts),
         "reference_length": _maybe(counts),
         "smoothing": _maybe(_weighted(st.sampled_from(["none", "method1", "method2", "method3"]), st.sampled_from(["method9", "NONE"]), 90))},
        {"epsilon": _maybe(st.one_of(st.floats(-0.2, 1.2), st.just(1), st.just(True))),
         "effective_order": _maybe(st.one_of(st.booleans(), st.just(0))),
         "decimals": _maybe(st.integers(-1, 16))},
    ),
    "bleu-brevity-penalty": _requests(
        {"segments": _maybe(st.lists(
            _maybe(st.fixed_dictionaries(
                {"candidate_length": _maybe(counts),
                 "reference_lengths": _maybe(st.lists(counts, min_size=1, max_size=8))})),
            min_size=1, max_size=3))},
        {"decimals": _maybe(st.integers(-1, 16))},
    ),
}


@functools.cache
def _fast(tool_id: str) -> Any:
    return fastjsonschema.compile(dict(card(tool_id).input_schema))


@functools.cache
def _full(tool_id: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(card(tool_id).input_schema)


def _fast_accepts(tool_id: str, request: Any) -> bool:
    validate = _fast(tool_id)
    try:
        validate(request)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


class TestValidatorAgreement:
    """fastjsonschema (draft 7) and jsonschema Draft202012Validator accept and reject the same requests."""

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    @settings(deadline=None)
    @given(data=st.data())
    def test_agree(self, tool_id: str, data: st.DataObject) -> None:
        """On generated near-valid requests both validators give the same verdict, and so does execute."""
        request = data.draw(REQUESTS[tool_id])
        fast = _fast_accepts(tool_id, request)
        full = _full(tool_id).is_valid(request)
        assert fast == full, request
        if not full:
            try:
                execute(tool_id, request)
            except ToolError as err:
                assert err.code in ("invalid_input", "unsupported_input")
            else:  # pragma: no cover
                pytest.fail(f"execute accepted a schema-invalid request {request!r}")

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    def test_examples_accepted_by_both(self, tool_id: str) -> None:
        """Every card example input is valid to both validators."""
        for example in card(tool_id).examples:
            assert _fast_accepts(tool_id, example["input"])
            jsonschema.Draft202012Validator(card(tool_id).input_schema).validate(example["input"])

    @pytest.mark.parametrize(
        "value", [True, False, 1.0, 1.5, 2**63, -0.0, "1", None]
    )
    def test_integer_edge_values(self, value: Any) -> None:
        """bool is not an integer, 1.0 and -0.0 are, for both validators."""
        req = {"matches": [1], "totals": [1], "candidate_length": value, "reference_length": 1,
               "smoothing": "none"}
        full = jsonschema.Draft202012Validator(card("bleu-smoothing-compute").input_schema).is_valid(req)
        assert _fast_accepts("bleu-smoothing-compute", req) == full

    @pytest.mark.parametrize("tool_id", TOOL_IDS)
    def test_generator_reaches_both_verdicts(self, tool_id: str) -> None:
        """The request generator produces schema-valid and schema-invalid requests (about half each)."""
        from hypothesis import Phase, find

        fast = settings(database=None, phases=[Phase.generate], max_examples=200)
        find(REQUESTS[tool_id], lambda r: _full(tool_id).is_valid(r), settings=fast)
        find(REQUESTS[tool_id], lambda r: not _full(tool_id).is_valid(r), settings=fast)
