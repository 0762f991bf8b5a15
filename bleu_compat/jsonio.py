"""The strict JSON reader and the JavaScript-style JSON writer.

Shared by the tool layer, the command line and the HTTP server so that all
three accept and write exactly the same JSON (SPEC.md §2).
Standard library only.
"""

from __future__ import annotations

import gc
import json
import math
import re
from itertools import chain
from typing import Any

from .errors import ToolError
from .rounding import js_number_str

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "loads_strict", "check_json_value", "dumps_js", "pointer"]

#: The deepest nesting of arrays and objects accepted (RFC 8259 §9 lets a
#: parser limit it). The deepest valid request nests 4 (request object,
#: ``references``, a segment, a reference); 64 leaves room for any schema
#: error to be reported and stays far below the interpreter's recursion
#: limit (1000), so no recursive code (the schema validator, ``repr``, the
#: JSON writer) ever sees deeper input. Deeper input is ``invalid_input``
#: with path ``""``.
MAX_DEPTH = 64

#: The most digits an integer may have (RFC 8259 §9 lets a parser limit the
#: range of numbers). Valid requests need at most 13; 640 is the least value
#: Python's int/str conversion limit can be set to, so an accepted integer can
#: always be written back in a message. Longer integers are ``invalid_input``
#: at their JSON Pointer.
MAX_INT_DIGITS = 640

_INT_BOUND = 10**MAX_INT_DIGITS  # |n| < _INT_BOUND  <=>  n has at most MAX_INT_DIGITS digits
_LONG_DIGIT_RUN = re.compile(r"[0-9]{%d}" % (MAX_INT_DIGITS + 1))


class _LongInt:
    """Stands in for an integer literal of more than MAX_INT_DIGITS digits, so that
    check_json_value reports it at its pointer (never converted: int() of a long
    digit string is quadratic and limited by the interpreter)."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _capped_int(text: str) -> int | _LongInt:
    digits = len(text) - text.startswith("-")
    return _LongInt(digits) if digits > MAX_INT_DIGITS else int(text)


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


#: Byte order marks of the encodings a JSON text is sometimes sent in by mistake,
#: longest first (the UTF-32 LE mark begins with the UTF-16 LE one).
_OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 little-endian", "FF FE 00 00"),
    (b"\x00\x00\xfe\xff", "UTF-32 big-endian", "00 00 FE FF"),
    (b"\xff\xfe", "UTF-16 little-endian", "FF FE"),
    (b"\xfe\xff", "UTF-16 big-endian", "FE FF"),
)

#: A leading byte order mark written out as escape sequences instead of bytes
#: (``printf '\xef\xbb\xbf'`` in a shell whose printf has no ``\x``, such as dash).
_ESCAPED_BOM = re.compile(r"\s*(\\xef\\xbb\\xbf|\\ufeff)", re.IGNORECASE)

_BOM_ADVICE = "strict JSON takes no byte order mark (RFC 8259 section 8.1 lets a parser refuse one); remove it"


def _bom_problem(text: str, position: int) -> str | None:
    """Why a JSON syntax error at ``position`` is a byte order mark, or None."""
    if text[position:position + 1] == "\ufeff":
        return "a U+FEFF byte order mark stands where a JSON value or delimiter must"
    if position < 64 and not text[:position].strip():  # at the start, after whitespace
        escaped = _ESCAPED_BOM.match(text)
        if escaped:
            return (f"the request starts with the text {escaped.group(1)}, a byte order mark "
                    "written out as an escape sequence instead of bytes (printf in dash, for one, "
                    "does not interpret \\x escapes)")
    return None


def loads_strict(data: bytes | bytearray | memoryview | str) -> dict[str, Any]:
    """Parse one request: strict JSON whose top level is an object.

    Strict means: UTF-8 only (no byte order mark, anywhere outside a string:
    RFC 8259 section 8.1 lets a parser ignore one, and these tools refuse it, with
    a message naming it, on every interface; no invalid sequences, no
    lone surrogates, escaped or not); no ``NaN``, ``Infinity`` or numbers
    too large for a double; no duplicate keys; a top-level object; nesting
    at most :data:`MAX_DEPTH` deep; integers of at most
    :data:`MAX_INT_DIGITS` digits.

    Errors of the text (encoding, syntax, duplicate keys, NaN, a float out
    of range, nesting too deep) have path ``""``; errors of a value (a lone
    surrogate, an over-long integer) the JSON Pointer of the first such
    value in document order (see :func:`check_json_value`).

    Raises:
        ToolError: ``invalid_input`` saying what is wrong.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = data if isinstance(data, (bytes, bytearray)) else bytes(data)  # no copy of a body
        if raw.startswith(b"\xef\xbb\xbf"):
            raise ToolError("invalid_input",
                            f"request starts with a UTF-8 byte order mark (EF BB BF); {_BOM_ADVICE}")
        for mark, encoding, shown in _OTHER_BOMS:
            if raw.startswith(mark):
                raise ToolError("invalid_input", f"request is not UTF-8: it starts with a {encoding} "
                                f"byte order mark ({shown}); send UTF-8 without a byte order mark")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                "invalid_input", f"request is not UTF-8: invalid byte at offset {exc.start}"
            ) from None
    else:
        text = data
        if text.startswith("\ufeff"):
            raise ToolError("invalid_input", f"request starts with a byte order mark (U+FEFF); {_BOM_ADVICE}")
    if not text.strip():
        raise ToolError("invalid_input", "request is empty: expected a JSON object")
    # An integer literal over MAX_INT_DIGITS digits needs a digit run that
    # long somewhere in the text, and a number too large for a double an
    # exponent of 3 digits or 309 digits in a row; only then are integers
    # (floats) parsed in Python. Without them every number json makes is
    # already one the tools accept, which check_json_value need not re-check.
    long_digits, huge = _number_runs(raw if isinstance(data, (bytes, bytearray, memoryview)) else None,
                                     text)
    hooks: dict[str, Any] = {"parse_int": _capped_int} if long_digits else {}
    if long_digits or huge:
        hooks["parse_float"] = _finite_float
    # The parse makes only new, acyclic objects: the cyclic garbage collector, which the
    # allocations of millions of arrays would run again and again over everything already
    # made, has nothing to find (5.6 million empty arrays: 4.8 s with it, 0.6 s without).
    collecting = gc.isenabled()
    gc.disable()
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constants,
            **hooks,
        )
    except json.JSONDecodeError as exc:
        where = f"at line {exc.lineno} column {exc.colno}"
        bom = _bom_problem(text, exc.pos)
        raise ToolError(
            "invalid_input",
            # a few of the decoder's messages end in "at" ("Invalid control character at")
            f"malformed JSON: {exc.msg.removesuffix(' at')} {where}" if bom is None
            else f"malformed JSON {where}: {bom}; {_BOM_ADVICE}",
        ) from None
    except RecursionError:
        raise ToolError("invalid_input", "malformed JSON: nesting is too deep") from None
    except ValueError as exc:  # duplicate keys, NaN, huge numbers, over-long integers
        message = str(exc)
        if "int_max_str_digits" in message or "integer string conversion" in message:
            message = "an integer literal has more digits than any valid request needs"
        raise ToolError("invalid_input", f"invalid JSON: {message}") from None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(value, dict):
        raise ToolError(
            "invalid_input", f"request must be a JSON object, got {_json_type(value)}"
        )
    if long_digits or _SURROGATE_ESCAPE.search(text):
        check_json_value(value)
    else:
        # Parsed from UTF-8 text without a surrogate escape or an over-long number: every
        # string is valid Unicode and every number one the tools take, so only the depth
        # is left to check (a walk over the containers, level by level, in C where it can).
        # A rejected request then costs its parse, not a second walk over every value.
        if isinstance(data, (bytes, bytearray)) and data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
            pass  # too few brackets to nest deeper, even inside strings
        else:
            _check_depth(value)
    return value


#: A number json.loads might make infinite: an exponent of three or more digits, or
#: 309 digits in a row (checked with the float hook only then; a false alarm costs speed).
_HUGE_NUMBER = re.compile(r"[eE][+-]?[0-9]{3}|[0-9]{309}")
#: Every digit as "0", "E" as "e", "-" as "+": runs of digits become substrings to look for.
_NUMBER_SHAPES = bytes.maketrans(b"123456789E-", b"000000000e+")


def _number_runs(raw: bytes | bytearray | None, text: str) -> tuple[bool, bool]:
    """(an integer literal of more than MAX_INT_DIGITS digits may be there, a number too
    large for a double may be there). On UTF-8 bytes by substring search after a byte
    translation (tens of milliseconds for 16 MiB, where the equivalent regular expressions
    took hundreds: they try a match at every digit); on text by the expressions."""
    if raw is None:
        return _LONG_DIGIT_RUN.search(text) is not None, _HUGE_NUMBER.search(text) is not None
    shapes = raw.translate(_NUMBER_SHAPES)
    long_digits = b"0" * (MAX_INT_DIGITS + 1) in shapes
    huge = long_digits or b"0" * 309 in shapes or b"e000" in shapes or b"e+000" in shapes
    return long_digits, huge
#: A \uD800-\uDFFF escape: the only way parsed UTF-8 text yields a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")


_CONTAINERS = frozenset((list, dict))


def _check_depth(value: Any) -> None:
    """Raise :func:`_too_deep` when arrays and objects nest more than :data:`MAX_DEPTH` deep
    (``value`` is depth 1), looking at containers only, one level at a time, in C where it
    can (``set(map(type, ...))``: a list of 8 million numbers costs one pass, no loop here)."""
    level: list[Any] = [value]
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            raise _too_deep()
        below: list[Any] = []
        if len(level) > 64 and set(map(type, level)) == {list}:  # many arrays: in bulk
            items = list(chain.from_iterable(level))
            found = set(map(type, items))
            if found & _CONTAINERS:
                below = items if found <= _CONTAINERS else [x for x in items if type(x) in _CONTAINERS]
        else:
            for container in level:
                values = container.values() if type(container) is dict else container
                found = set(map(type, values))
                if found & _CONTAINERS:
                    below.extend(values if found <= _CONTAINERS
                                 else [x for x in values if type(x) in _CONTAINERS])
        level = below
        depth += 1


def check_json_value(value: Any) -> None:
    """Check that a Python value is plain JSON data the tools accept.

    Accepts dict (str keys), list, str (valid Unicode: no lone surrogates),
    int of at most :data:`MAX_INT_DIGITS` digits, finite float, bool and
    None, nested at most :data:`MAX_DEPTH` arrays and objects deep (the
    request object is depth 1). The walk is iterative, so neither depth nor a
    cycle can exhaust the stack, and it visits values in document order (a
    value before what it holds, object members in their order, array items
    by index).

    Raises:
        ToolError: ``invalid_input``: nesting too deep (path ``""``; checked
            over the whole value first), else the JSON Pointer of the first bad
            value in document order (a bad object key is the object's own
            error, reported at the object).
    """
    # A path is a linked list (parent, part), flattened only for an error, so
    # deep nesting costs O(depth) rather than O(depth**2) (tuples copied per level).
    # A stack entry (list, path, depth, start > 0) resumes a list after the
    # subtree of its item start - 1: scalars in a list are checked in place,
    # in order, and only containers are pushed.
    first_bad: tuple[str, Any] | None = None
    stack: list[tuple[Any, Any, int, int]] = [(value, (), 1, 0)]
    while stack:
        item, path, depth, start = stack.pop()
        if isinstance(item, dict):
            if depth > MAX_DEPTH:
                raise _too_deep()
            if first_bad is None:
                for key in item:
                    if not isinstance(key, str):
                        first_bad = (f"object key {key!r} is not a string", path)
                        break
                    if not key.isascii() and not _encodes(key):
                        first_bad = ("object key holds a lone surrogate", path)
                        break
            stack.extend([(sub, (path, key), depth + 1, 0) for key, sub in item.items()][::-1])
        elif isinstance(item, list):
            if start == 0:
                if depth > MAX_DEPTH:
                    raise _too_deep()
                levels = _valid_str_list(item) if item else 0
                if levels and depth + levels - 1 <= MAX_DEPTH:
                    continue  # a token list: checked in C, same verdict as item by item
            for i in range(start, len(item)):
                sub = item[i]
                if isinstance(sub, (list, dict)):
                    if i + 1 < len(item):
                        stack.append((item, path, depth, i + 1))
                    stack.append((sub, (path, i), depth + 1, 0))
                    break
                if first_bad is None:
                    problem = _scalar_problem(sub)
                    if problem is not None:
                        first_bad = (problem, (path, i))
        elif first_bad is None:
            problem = _scalar_problem(item)
            if problem is not None:
                first_bad = (problem, path)
    if first_bad is not None:
        raise ToolError("invalid_input", first_bad[0], pointer(_parts(first_bad[1])))


def _scalar_problem(item: Any) -> str | None:
    # What is wrong with a value that is not a list or dict, or None.
    if isinstance(item, str):
        if item.isascii() or _encodes(item):
            return None
        return "string holds a lone surrogate (not valid Unicode)"
    if item is None or isinstance(item, bool):
        return None
    if isinstance(item, int):
        if -_INT_BOUND < item < _INT_BOUND:
            return None
        return f"integer of more than {MAX_INT_DIGITS} digits; valid requests need at most 13"
    if isinstance(item, float):
        return None if math.isfinite(item) else f"{item!r} is not valid JSON"
    if isinstance(item, _LongInt):
        return (f"integer literal of {item.digits} digits; at most {MAX_INT_DIGITS} allowed "
                "(valid requests need at most 13)")
    return f"{type(item).__name__} is not a JSON value"


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _too_deep() -> ToolError:
    return ToolError(
        "invalid_input",
        f"arrays and objects nested more than {MAX_DEPTH} deep; valid requests nest at most 4",
    )


def _parts(path: Any) -> list[Any]:
    parts: list[Any] = []
    while path:
        path, part = path
        parts.append(part)
    return parts[::-1]


def _valid_str_list(items: list[Any]) -> int:
    # The number of list levels (1-3) if ``items`` is a list of (lists of, up
    # to 3 levels) str without a lone surrogate, or of ints (of at most
    # MAX_INT_DIGITS digits) and finite floats: token lists, count and length
    # arrays, checked in C (exact types only; anything else goes the slow
    # way). Joining never pairs two lone surrogates into a valid character
    # (Python strings are code points), so the joined text encodes iff every
    # item does. 0 sends the caller to its item-by-item walk, which finds the
    # first bad item's pointer; the depth bound keeps that fallback linear on
    # deep nesting.
    level: list[Any] = items
    for levels in range(1, 4):
        kinds = set(map(type, level))
        if kinds == {list}:
            level = list(chain.from_iterable(level))
            if not level:
                return levels + 1
            continue
        if kinds == {int}:  # exact int: bool (a subclass) goes the slow way
            return levels if -_INT_BOUND < min(level) and max(level) < _INT_BOUND else 0
        if kinds == {float} or kinds == {int, float}:
            try:
                return levels if all(map(math.isfinite, level)) else 0
            except OverflowError:  # an int too large for a double: let the walk decide
                return 0
        if kinds != {str}:
            return 0
        joined = "".join(level)
        return levels if joined.isascii() or _encodes(joined) else 0
    return 0


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
