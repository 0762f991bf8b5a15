"""Every error code and every cross-field rule, with its JSON Pointer; the order of SPEC.md §2's checks.

Each refused request is checked for ``code`` AND ``path``; the library-level
exceptions are checked for their exact types (STYLE.md "Errors").
"""

from __future__ import annotations

import json

import pytest

from bleu_compat import (
    BleuCompatError,
    ConfigError,
    InvalidInputError,
    OracleError,
    OracleUnavailableError,
    ToolError,
    execute,
)
from bleu_compat.errors import TOOL_ERROR_CODES

CORPUS = "bleu-corpus-compute"
SMOOTH = "bleu-smoothing-compute"
BP = "bleu-brevity-penalty"

HEBREW_100 = "\u05d0" * 100  # 100 code points, 200 UTF-8 bytes


def corpus(**extra: object) -> dict:
    """A valid corpus request, updated with ``extra``."""
    return {"hypotheses": [["a", "b"]], "references": [[["a", "b"]]], **extra}


def smoothing(**extra: object) -> dict:
    """A valid smoothing request, updated with ``extra``."""
    return {"matches": [2, 1], "totals": [2, 1], "candidate_length": 2, "reference_length": 2,
            "smoothing": "none", **extra}


def refused(tool_id: str, request: object) -> ToolError:
    """The ToolError that ``execute`` raises for ``request``."""
    with pytest.raises(ToolError) as info:
        execute(tool_id, request)
    err = info.value
    assert err.to_dict() == {"error": {"code": err.code, "message": err.message, "path": err.path}}
    assert err.message
    return err


class TestToolError:
    """``ToolError`` carries a card-level code, a message and a JSON Pointer."""

    def test_codes(self) -> None:
        """The three codes of SPEC.md §2."""
        assert TOOL_ERROR_CODES == ("invalid_input", "unsupported_input", "limit_exceeded")

    def test_unknown_code(self) -> None:
        """An unknown code is a ValueError (a programming error)."""
        with pytest.raises(ValueError):
            ToolError("bad_code", "x")

    def test_str_and_dict(self) -> None:
        """str() names code and path; to_dict() is the structured body."""
        err = ToolError("limit_exceeded", "too big", "/a/0")
        assert str(err) == "limit_exceeded at /a/0: too big"
        assert err.to_dict() == {"error": {"code": "limit_exceeded", "message": "too big", "path": "/a/0"}}
        assert str(ToolError("invalid_input", "x")) == "invalid_input: x"


class TestHierarchy:
    """Library exceptions subclass a builtin so callers can catch them the usual way."""

    @pytest.mark.parametrize(
        ("cls", "base"),
        [(InvalidInputError, ValueError), (ConfigError, ValueError),
         (OracleUnavailableError, ImportError), (ToolError, BleuCompatError), (OracleError, BleuCompatError),
         (InvalidInputError, BleuCompatError), (ConfigError, BleuCompatError)],
    )
    def test_bases(self, cls: type, base: type) -> None:
        """Each class derives from its documented base."""
        assert issubclass(cls, base)


class TestInvalidInput:
    """Strict JSON and schema failures are invalid_input."""

    @pytest.mark.parametrize(
        "data",
        [b'{"hypotheses": NaN}', b'{"a": 1, "a": 1}', b"[]", b"\xef\xbb\xbf{}", b"\xc3\x28",
         b'{"x": "\\ud800"}', b"[" * 100_000, b'{"a": 1e400}', b'{"a": ' + b"1" * 5000 + b"}", b"",
         b'{"x": Infinity}'],
    )
    def test_strict_json(self, data: bytes) -> None:
        """Every strict-JSON failure is invalid_input from every tool."""
        for tool in (CORPUS, SMOOTH, BP):
            assert refused(tool, data).code == "invalid_input"

    @pytest.mark.parametrize(
        ("request_", "path"),
        [
            (corpus(max_order=9), "/max_order"),
            (corpus(max_order=0), "/max_order"),
            (corpus(decimals=16), "/decimals"),
            (corpus(max_order=2.5), "/max_order"),
            (corpus(max_order=True), "/max_order"),
            (corpus(hypotheses=[["a", ""]]), "/hypotheses/0/1"),
            (corpus(hypotheses=[["a", 1]]), "/hypotheses/0/1"),
            (corpus(references=[[]]), "/references/0"),
            (corpus(references=[[["x"]] * 9]), "/references/0"),
            (corpus(hypotheses=[["x" * 129]]), "/hypotheses/0/0"),
            (corpus(hypotheses=[]), "/hypotheses"),
            (corpus(extra=1), ""),
            ({"hypotheses": [["a"]]}, ""),
        ],
    )
    def test_corpus_schema(self, request_: dict, path: str) -> None:
        """Schema violations name the offending value's pointer."""
        err = refused(CORPUS, request_)
        assert (err.code, err.path) == ("invalid_input", path)

    @pytest.mark.parametrize(
        ("request_", "path"),
        [
            (smoothing(smoothing="add-k"), "/smoothing"),
            (smoothing(epsilon=1.5, smoothing="method1"), "/epsilon"),
            (smoothing(effective_order="yes"), "/effective_order"),
            (smoothing(matches=[2] * 9), "/matches"),
            (smoothing(candidate_length=-1), "/candidate_length"),
            (smoothing(matches=[10**12 + 1, 1]), "/matches/0"),
        ],
    )
    def test_smoothing_schema(self, request_: dict, path: str) -> None:
        """Smoothing schema violations name their pointer."""
        err = refused(SMOOTH, request_)
        assert (err.code, err.path) == ("invalid_input", path)

    def test_brevity_schema(self) -> None:
        """A negative reference length is invalid_input at its pointer."""
        err = refused(BP, {"segments": [{"candidate_length": 1, "reference_lengths": [1, -1]}]})
        assert (err.code, err.path) == ("invalid_input", "/segments/0/reference_lengths/1")

    def test_non_dict_request(self) -> None:
        """A Python request that is not a dict is invalid_input."""
        assert refused(CORPUS, [1, 2]).code == "invalid_input"


class TestUnsupportedInput:
    """Requests for something the card lists under unsupported_operations are unsupported_input."""

    @pytest.mark.parametrize("method", ["method4", "method5", "method6", "method7"])
    def test_smoothing_methods_4_to_7(self, method: str) -> None:
        """Chen and Cherry 4–7 are unsupported_input at /smoothing, with the reason in words."""
        err = refused(SMOOTH, smoothing(smoothing=method))
        assert (err.code, err.path) == ("unsupported_input", "/smoothing")
        assert method in err.message and "not supported" in err.message

    @pytest.mark.parametrize(
        ("tool", "request_", "path"),
        [
            (CORPUS, corpus(weights=[0.5, 0.5]), "/weights"),
            (CORPUS, corpus(tokenize="13a"), "/tokenize"),
            (CORPUS, corpus(lowercase=True), "/lowercase"),
            (CORPUS, corpus(smoothing="method1"), "/smoothing"),
            (CORPUS, corpus(chrf=True), "/chrf"),
            (CORPUS, corpus(metric="TER"), "/metric"),
            (SMOOTH, smoothing(k=2), "/k"),
            (SMOOTH, smoothing(weights=[1]), "/weights"),
            (BP, {"segments": [{"candidate_length": 1, "reference_lengths": [1]}], "text": "a b"}, "/text"),
            (BP, {"segments": [{"candidate_length": 1, "reference_lengths": [1]}], "shortest": True},
             "/shortest"),
        ],
    )
    def test_unsupported_keys(self, tool: str, request_: dict, path: str) -> None:
        """Each unsupported request is unsupported_input at its key."""
        err = refused(tool, request_)
        assert (err.code, err.path) == ("unsupported_input", path)


class TestLimitExceeded:
    """The cards' limits are limit_exceeded."""

    def test_hebrew_token_bytes(self) -> None:
        """A 100-character Hebrew token passes maxLength 128 (code points) but is 200 UTF-8 bytes > 128."""
        assert len(HEBREW_100) == 100 and len(HEBREW_100.encode("utf-8")) == 200
        err = refused(CORPUS, corpus(hypotheses=[["a", HEBREW_100]]))
        assert (err.code, err.path) == ("limit_exceeded", "/hypotheses/0/1")
        err = refused(CORPUS, corpus(references=[[["a"], ["b", "c", HEBREW_100]]]))
        assert (err.code, err.path) == ("limit_exceeded", "/references/0/1/2")

    def test_64_hebrew_letters_fit(self) -> None:
        """64 two-byte letters are exactly 128 bytes: accepted."""
        execute(CORPUS, corpus(hypotheses=[["\u05d0" * 64]]))

    def test_total_tokens(self) -> None:
        """50,001 tokens in total is limit_exceeded; 50,000 is fine."""
        ok = corpus(hypotheses=[["a"] * 25_000], references=[[["a"] * 25_000]])
        assert execute(CORPUS, ok)["candidate_length"] == 25_000
        err = refused(CORPUS, corpus(hypotheses=[["a"] * 25_001], references=[[["a"] * 25_000]]))
        assert err.code == "limit_exceeded" and "50001" in err.message

    def test_total_token_bytes(self) -> None:
        """9,000 tokens of 128 bytes (1,152,000 bytes > 1 MiB) is limit_exceeded."""
        token = "x" * 128
        err = refused(CORPUS, corpus(hypotheses=[[token] * 4500], references=[[[token] * 4500]]))
        assert err.code == "limit_exceeded" and "1152000" in err.message


class TestCrossField:
    """Cross-field rules (SPEC.md §3–§4) are invalid_input with a pointer."""

    def test_corpus_reference_count(self) -> None:
        """references count != hypotheses count → /references."""
        err = refused(CORPUS, corpus(hypotheses=[["a"], ["b"]]))
        assert (err.code, err.path) == ("invalid_input", "/references")
        assert "2" in err.message and "1" in err.message

    def test_smoothing_lengths(self) -> None:
        """len(matches) != len(totals) → /totals."""
        err = refused(SMOOTH, smoothing(totals=[2, 1, 0]))
        assert (err.code, err.path) == ("invalid_input", "/totals")

    def test_matches_exceed_totals(self) -> None:
        """m_n > l_n → /matches/{n-1}."""
        err = refused(SMOOTH, smoothing(matches=[2, 2]))
        assert (err.code, err.path) == ("invalid_input", "/matches/1")

    def test_m1_zero_with_higher_matches(self) -> None:
        """m_1 = 0 with some m_n > 0 → /matches/{n-1}."""
        err = refused(SMOOTH, smoothing(matches=[0, 1]))
        assert (err.code, err.path) == ("invalid_input", "/matches/1")

    @pytest.mark.parametrize("method", ["none", "method2", "method3"])
    def test_epsilon_without_method1(self, method: str) -> None:
        """epsilon with another method → /epsilon."""
        err = refused(SMOOTH, smoothing(smoothing=method, epsilon=0.1))
        assert (err.code, err.path) == ("invalid_input", "/epsilon")

    def test_epsilon_with_method1_is_fine(self) -> None:
        """epsilon with method1 is accepted."""
        assert execute(SMOOTH, smoothing(smoothing="method1", epsilon=0.2))["bleu"] == 1


class TestOrderOfChecks:
    """A request failing several checks reports the earliest (SPEC.md §2: strict, unsupported, schema, limits, cross-field)."""

    def test_strict_before_unsupported(self) -> None:
        """A duplicate key wins over method4."""
        data = b'{"smoothing": "method4", "smoothing": "method4"}'
        assert refused(SMOOTH, data).code == "invalid_input"

    def test_unsupported_before_schema(self) -> None:
        """method5 wins over a missing required field and a wrong type."""
        err = refused(SMOOTH, {"smoothing": "method5", "matches": "x"})
        assert (err.code, err.path) == ("unsupported_input", "/smoothing")

    def test_schema_before_limits(self) -> None:
        """max_order 9 wins over an over-long Hebrew token."""
        err = refused(CORPUS, corpus(hypotheses=[[HEBREW_100]], max_order=9))
        assert (err.code, err.path) == ("invalid_input", "/max_order")

    def test_limits_before_cross_field(self) -> None:
        """An over-long Hebrew token wins over a reference-count mismatch."""
        err = refused(CORPUS, corpus(hypotheses=[[HEBREW_100], ["b"]]))
        assert (err.code, err.path) == ("limit_exceeded", "/hypotheses/0/0")

    def test_schema_before_cross_field(self) -> None:
        """A schema violation wins over m_n > l_n."""
        err = refused(SMOOTH, smoothing(matches=[3, 1], candidate_length="2"))
        assert (err.code, err.path) == ("invalid_input", "/candidate_length")

    def test_text_and_dict_agree(self) -> None:
        """The same request as dict, str and bytes fails the same way."""
        req = corpus(hypotheses=[[HEBREW_100], ["b"]])
        errs = [refused(CORPUS, r) for r in (req, json.dumps(req), json.dumps(req).encode())]
        assert {(e.code, e.path) for e in errs} == {("limit_exceeded", "/hypotheses/0/0")}


class TestSchemaMessagesSpeakJson:
    """Schema errors show the caller's values in JSON's spelling, not Python's."""

    @pytest.mark.parametrize(("value", "spelled"), [(True, "true"), (None, "null"), ("7", '"7"')])
    def test_type_error_spells_json(self, value: object, spelled: str) -> None:
        """true, null and strings appear as the request wrote them."""
        request = {"segments": [{"candidate_length": value, "reference_lengths": [1]}]}
        with pytest.raises(ToolError) as info:
            execute("bleu-brevity-penalty", request)
        assert info.value.code == "invalid_input"
        assert info.value.path == "/segments/0/candidate_length"
        assert info.value.message.endswith(f'{spelled} is not of type "integer"')
        assert "True" not in info.value.message and "None" not in info.value.message

    def test_unknown_property_is_named(self) -> None:
        """An extra property is named with the allowed ones."""
        with pytest.raises(ToolError) as info:
            execute("bleu-brevity-penalty", {"segments": [{"candidate_length": 1, "reference_lengths": [1]}], "x": 1})
        assert info.value.message == 'request: unknown property "x"; allowed: "segments", "decimals"'
