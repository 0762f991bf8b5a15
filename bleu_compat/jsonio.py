"""The strict JSON reader and the JavaScript-style JSON writer.

Shared by the tool layer, the command line and the HTTP server so that all
three accept and write exactly the same JSON (SPEC.md §2).
Standard library only.
"""

from __future__ import annotations

import json
import math
from itertools import chain
from typing import Any

from .errors import ToolError
from .rounding import js_number_str

__all__ = ["loads_strict", "check_json_value", "dumps_js", "pointer"]


def pointer(parts: Any) -> str:
    """A JSON Pointer (RFC 6901) from path parts, e.g. ``["a", 0] -> "/a/0"``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is too large for a double")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def loads_strict(data: bytes | bytearray | memoryview | str) -> dict[str, Any]:
    """Parse one request: strict JSON whose top level is an object.

    Strict means: UTF-8 only (no byte order mark, no invalid sequences, no
    lone surrogates, escaped or not); no ``NaN``, ``Infinity`` or numbers
    too large for a double; no duplicate keys; a top-level object.

    Raises:
        ToolError: ``invalid_input`` saying what is wrong (``path`` is ``""``
            for syntax errors, a pointer for a bad string).
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if raw.startswith(b"\xef\xbb\xbf"):
            raise ToolError("invalid_input", "request starts with a UTF-8 byte order mark")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                "invalid_input", f"request is not UTF-8: invalid byte at offset {exc.start}"
            ) from None
    else:
        text = data
        if text.startswith("\ufeff"):
            raise ToolError("invalid_input", "request starts with a byte order mark")
    if not text.strip():
        raise ToolError("invalid_input", "request is empty: expected a JSON object")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constants,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as exc:
        raise ToolError(
            "invalid_input", f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise ToolError("invalid_input", "malformed JSON: nesting is too deep") from None
    except ValueError as exc:  # duplicate keys, NaN, huge numbers, over-long integers
        message = str(exc)
        if "int_max_str_digits" in message or "integer string conversion" in message:
            message = "an integer literal has more digits than any valid request needs"
        raise ToolError("invalid_input", f"invalid JSON: {message}") from None
    if not isinstance(value, dict):
        raise ToolError(
            "invalid_input", f"request must be a JSON object, got {_json_type(value)}"
        )
    check_json_value(value)
    return value


def check_json_value(value: Any) -> None:
    """Check that a Python value is plain JSON data.

    Accepts dict (str keys), list, str (valid Unicode: no lone surrogates),
    int, finite float, bool and None, at any depth (iteratively, so deep
    nesting cannot exhaust the stack).

    Raises:
        ToolError: ``invalid_input`` with the JSON Pointer of the first bad value.
    """
    # A path is a linked list (parent, part), flattened only for an error, so
    # deep nesting costs O(depth) rather than O(depth**2) (tuples copied per level).
    stack: list[tuple[Any, Any]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise ToolError(
                        "invalid_input", "string holds a lone surrogate (not valid Unicode)",
                        pointer(_parts(path)),
                    ) from None
        elif isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise ToolError(
                        "invalid_input", f"object key {key!r} is not a string", pointer(_parts(path))
                    )
                try:
                    key.encode("utf-8")
                except UnicodeEncodeError:
                    raise ToolError(
                        "invalid_input", "object key holds a lone surrogate", pointer(_parts(path))
                    ) from None
                stack.append((sub, (path, key)))
        elif isinstance(item, list):
            if item and _valid_str_list(item):
                continue  # a token list: checked in C, same verdict as item by item
            stack.extend((sub, (path, i)) for i, sub in enumerate(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ToolError("invalid_input", f"{item!r} is not valid JSON", pointer(_parts(path)))
        elif item is None or isinstance(item, (bool, int)):
            pass
        else:
            raise ToolError(
                "invalid_input",
                f"{type(item).__name__} is not a JSON value", pointer(_parts(path)),
            )


def _parts(path: Any) -> list[Any]:
    parts: list[Any] = []
    while path:
        path, part = path
        parts.append(part)
    return parts[::-1]


def _valid_str_list(items: list[Any]) -> bool:
    # True iff ``items`` is a list of (lists of, up to 3 levels) str without a
    # lone surrogate, or of ints and finite floats: token lists, count and
    # length arrays, checked in C (exact types only; anything else goes the
    # slow way). Joining never pairs two
    # lone surrogates into a valid character (Python strings are code points),
    # so the joined text encodes iff every item does. False sends the caller to
    # its item-by-item walk, which finds the first bad item's pointer; the
    # depth bound keeps that fallback linear on deep nesting.
    level: list[Any] = items
    for _ in range(3):
        kinds = set(map(type, level))
        if kinds == {list}:
            level = list(chain.from_iterable(level))
            if not level:
                return True
            continue
        if kinds == {int}:  # exact int: bool (a subclass) goes the slow way
            return True
        if kinds == {float} or kinds == {int, float}:
            try:
                return all(map(math.isfinite, level))
            except OverflowError:  # an int too large for a double: let the walk decide
                return False
        if kinds != {str}:
            return False
        joined = "".join(level)
        if joined.isascii():
            return True
        try:
            joined.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    return False


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    return type(value).__name__


def dumps_js(value: Any, *, indent: int | None = None) -> str:
    """Write JSON the way JavaScript's ``JSON.stringify`` does.

    Numbers use ECMAScript ``Number::toString`` (integral doubles as ``1``,
    not ``1.0``; ``1e-7``; ``0.000001``); strings are written as UTF-8 text
    with JSON escapes; key order is kept. With ``indent``, nested values go
    on their own lines indented by that many spaces per level.

    Raises:
        ValueError: a NaN or infinite float, or a value that is not JSON data.
    """
    parts: list[str] = []
    _write(value, parts, indent, 0)
    return "".join(parts)


def _write(value: Any, out: list[str], indent: int | None, level: int) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(js_number_str(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            if indent is not None:
                out.append("\n" + " " * (indent * (level + 1)))
            _write(item, out, indent, level + 1)
        if indent is not None:
            out.append("\n" + " " * (indent * level))
        out.append("]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            if indent is not None:
                out.append("\n" + " " * (indent * (level + 1)))
            out.append(json.dumps(str(key), ensure_ascii=False))
            out.append(": " if indent is not None else ":")
            _write(item, out, indent, level + 1)
        if indent is not None:
            out.append("\n" + " " * (indent * level))
        out.append("}")
    else:
        raise ValueError(f"{type(value).__name__} is not JSON data")
