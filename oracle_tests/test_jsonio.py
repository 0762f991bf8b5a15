"""The strict JSON reader ``loads_strict`` and the JavaScript-style writer ``dumps_js`` (SPEC.md §2)."""

from __future__ import annotations

import json

import pytest

from bleu_compat import ToolError
from bleu_compat.jsonio import check_json_value, dumps_js, loads_strict, pointer


def _refused(data: bytes | str) -> ToolError:
    with pytest.raises(ToolError) as info:
        loads_strict(data)
    assert info.value.code == "invalid_input"
    return info.value


class TestLoadsStrict:
    """``loads_strict`` accepts one JSON object in UTF-8 and refuses everything else as invalid_input."""

    def test_plain_object(self) -> None:
        """A plain object with nested arrays, strings, numbers and literals parses as json.loads would."""
        text = '{"a": [1, 2.5, "x", true, false, null], "b": {"c": -0.0}}'
        assert loads_strict(text.encode()) == json.loads(text)

    @pytest.mark.parametrize(
        ("data", "fragment"),
        [
            (b"", "empty"),
            (b" \n\t ", "empty"),
            (b'{"a": NaN}', "NaN"),
            (b'{"a": Infinity}', "Infinity"),
            (b'{"a": -Infinity}', "Infinity"),
            (b'{"a": 1, "a": 2}', "duplicate"),
            (b'{"x": {"a": 1, "a": 1}}', "duplicate"),
            (b"[1, 2]", "object"),
            (b'"text"', "object"),
            (b"null", "object"),
            (b"42", "object"),
            (b"\xef\xbb\xbf{}", "byte order mark"),
            (b'{"a": "\xff"}', "UTF-8"),
            (b'{"a": "\xed\xa0\x80"}', "UTF-8"),
            (b'{"a": 1e400}', "too large"),
            (b'{"a": -1e400}', "too large"),
            (b"{} {}", "malformed"),
            (b"{", "malformed"),
            (b"{'a': 1}", "malformed"),
            (b'{"a": 1,}', "malformed"),
        ],
    )
    def test_refused(self, data: bytes, fragment: str) -> None:
        """Each non-strict input is invalid_input with a message saying what is wrong."""
        err = _refused(data)
        assert fragment.lower() in err.message.lower()

    def test_lone_surrogate_escape(self) -> None:
        """An escaped lone surrogate "\\ud800" is not valid Unicode: refused with the pointer of the string."""
        err = _refused(b'{"hypotheses": [["ok", "\\ud800"]]}')
        assert err.path == "/hypotheses/0/1"

    def test_lone_surrogate_key(self) -> None:
        """A lone surrogate in an object key is refused."""
        _refused(b'{"\\udc00": 1}')

    def test_escaped_surrogate_pair_is_fine(self) -> None:
        """A correctly paired surrogate escape is one code point and is accepted."""
        assert loads_strict(b'{"a": "\\ud83d\\ude00"}') == {"a": "\U0001F600"}

    def test_deep_nesting(self) -> None:
        """100,000 nested '[' is refused without a RecursionError escaping."""
        _refused(b"[" * 100_000)
        _refused(b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")

    def test_5000_digit_integer(self) -> None:
        """A 5000-digit integer is refused (Python's int-string limit), not a crash."""
        _refused(b'{"a": ' + b"7" * 5000 + b"}")

    def test_str_input_with_bom(self) -> None:
        """A str that starts with U+FEFF is refused like the UTF-8 BOM."""
        _refused("\ufeff{}")

    def test_nul_and_control_in_strings(self) -> None:
        """A raw control character inside a string is malformed JSON (RFC 8259 §7)."""
        _refused(b'{"a": "x\x01y"}')


class TestCheckJsonValue:
    """``check_json_value`` accepts plain JSON data only."""

    def test_accepts_plain_data(self) -> None:
        """Nested dict/list/str/int/float/bool/None passes."""
        check_json_value({"a": [1, 2.0, "x", True, None, {"b": []}]})

    @pytest.mark.parametrize(
        ("value", "path"),
        [
            ({"a": [1, float("nan")]}, "/a/1"),
            ({"a": {"b": float("inf")}}, "/a/b"),
            ({"a": ("x",)}, "/a"),
            ({"a": {1: "x"}}, "/a"),
            ({"a/b": ["\ud800"]}, "/a~1b/0"),
            ({"a~b": b"x"}, "/a~0b"),
        ],
    )
    def test_refuses_with_pointer(self, value: object, path: str) -> None:
        """The first bad value is named by its JSON Pointer (RFC 6901 escapes ~0 and ~1)."""
        with pytest.raises(ToolError) as info:
            check_json_value(value)
        assert info.value.code == "invalid_input" and info.value.path == path

    def test_deep_nesting_does_not_recurse(self) -> None:
        """A 100,000-deep Python list is refused (depth limit, issue 11) without recursing."""
        value: list = []
        for _ in range(100_000):
            value = [value]
        with pytest.raises(ToolError) as info:
            check_json_value({"a": value})
        assert info.value.code == "invalid_input" and info.value.path == ""
        assert "nested more than" in info.value.message


class TestPointer:
    """``pointer`` builds RFC 6901 JSON Pointers."""

    def test_escapes(self) -> None:
        """'~' becomes '~0' and '/' becomes '~1'; integers are indices."""
        assert pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"
        assert pointer([]) == ""


class TestDumpsJs:
    """``dumps_js`` writes JSON as JavaScript's JSON.stringify does."""

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (1.0, "1"),
            (1, "1"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (True, "true"),
            (None, "null"),
            ("a\"b", '"a\\"b"'),
            ("\u05e9\u05dc\u05d5\u05dd", '"\u05e9\u05dc\u05d5\u05dd"'),
            ([], "[]"),
            ({}, "{}"),
            ({"b": 1.0, "a": [0.25, 2]}, '{"b":1,"a":[0.25,2]}'),
            ((1.0, 2.0), "[1,2]"),
        ],
    )
    def test_compact(self, value: object, expected: str) -> None:
        """Compact output: JS number forms, key order kept, UTF-8 text unescaped."""
        assert dumps_js(value) == expected

    def test_card_example_output(self) -> None:
        """The smoothing card's first example output is written with 1, not 1.0, and parses back equal."""
        out = {"bleu": 0.8375922397, "brevity_penalty": 1.0, "orders_used": 4,
               "smoothed_matches": [9, 7, 5, 3], "smoothed_totals": [10, 8, 6, 4]}
        text = dumps_js(out)
        assert '"brevity_penalty":1,' in text and "1.0" not in text
        assert json.loads(text) == out

    def test_indent(self) -> None:
        """With indent, nested values go on their own lines; the parsed value is unchanged."""
        value = {"a": [1.0, {"b": 2}], "c": []}
        text = dumps_js(value, indent=2)
        assert text == '{\n  "a": [\n    1,\n    {\n      "b": 2\n    }\n  ],\n  "c": []\n}'
        assert json.loads(text) == value

    @pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1, 2}, b"x", object()])
    def test_refuses_non_json(self, bad: object) -> None:
        """NaN, infinity and non-JSON types raise ValueError."""
        with pytest.raises(ValueError):
            dumps_js({"a": bad})
