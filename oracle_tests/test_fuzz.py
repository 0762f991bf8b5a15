"""Fuzzing the three tools through every interface against an independent oracle (issue 11).

Requests are valid ones (drawn per card) with mutations of every kind issue
11 found: text-level (a byte order mark, a bad UTF-8 byte, truncation,
``NaN``, a duplicate key, nesting near the depth limit and near the
interpreter's, integers of 641 and 5,000 digits, lone-surrogate escapes) and
value-level (unsupported members, unknown and missing members, wrong types,
out-of-range and huge numbers, over-long tokens in UTF-8 bytes, too many
items, broken cross-field rules, subnormal ``epsilon``). The expected answer
of each comes from :func:`bleu_compat.harness.checks.expected_error`, which
shares no code with the product's validator: the error code always, the
JSON Pointer wherever SPEC fixes it. A valid request must give a result that
satisfies the card's output schema; nothing may raise anything but
``ToolError`` in process, exit other than 0/2 on the command line, or answer
other than 200/400/413/422 JSON over HTTP.

Interfaces: in process (``execute`` on text and on dicts), the command line
(``main(["run", ...])`` in process on a file, and a few real ``python -m
bleu_compat run`` processes), HTTP (a real server). The number of requests
per interface is printed at the end (``-s``). Bounded for CI; set
``BLEU_COMPAT_FUZZ=long`` for a nightly run 20 times longer.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import httpx
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from _server import CLIENT_KEEPALIVE_EXPIRY, running_server
from bleu_compat import ToolError, execute
from bleu_compat.cli import main
from bleu_compat.harness.checks import UNSUPPORTED, card, expected_error

LONG = os.environ.get("BLEU_COMPAT_FUZZ") == "long"
SCALE = 20 if LONG else 1
TOOLS = ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty")
STATUS = {"invalid_input": 400, "unsupported_input": 422, "limit_exceeded": 413}
REPO = Path(__file__).resolve().parent.parent
COUNTS: Counter[str] = Counter()


def _settings(n: int) -> Any:
    return settings(max_examples=n * SCALE, deadline=None, derandomize=not LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    yield
    print(f"\nfuzz: requests per interface {dict(sorted(COUNTS.items()))}, 0 crashes")


# --- valid requests ---------------------------------------------------------------------

TOKENS = st.sampled_from(["a", "b", "c", "the", "a b", "é", "ש", "😀", "~/", "x" * 128])


@st.composite
def corpus_requests(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(1, 4))
    request: dict[str, Any] = {
        "hypotheses": [draw(st.lists(TOKENS, max_size=6)) for _ in range(n)],
        "references": [draw(st.lists(st.lists(TOKENS, max_size=6), min_size=1, max_size=3))
                       for _ in range(n)],
    }
    if draw(st.booleans()):
        request["max_order"] = draw(st.integers(1, 8))
    if draw(st.booleans()):
        request["decimals"] = draw(st.integers(0, 15))
    return request


EPSILONS = st.sampled_from([5e-324, 1e-320, 2.2250738585072014e-308, 0.0, 0.1, 1.0, 1e-300, 0.5])


@st.composite
def smoothing_requests(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(1, 8))
    big = draw(st.booleans())
    totals = [draw(st.integers(0, 10**12 if big else 20)) for _ in range(n)]
    matches = [draw(st.integers(0, t)) for t in totals]
    if matches[0] == 0:
        matches = [0] * n
    request: dict[str, Any] = {
        "matches": matches, "totals": totals,
        "candidate_length": draw(st.integers(0, 10**12 if big else 40)),
        "reference_length": draw(st.integers(0, 10**12 if big else 40)),
        "smoothing": draw(st.sampled_from(["none", "method1", "method2", "method3"])),
    }
    if request["smoothing"] == "method1" and draw(st.booleans()):
        request["epsilon"] = draw(EPSILONS)
    if draw(st.booleans()):
        request["effective_order"] = draw(st.booleans())
    if draw(st.booleans()):
        request["decimals"] = draw(st.integers(0, 15))
    return request


@st.composite
def brevity_requests(draw: Any) -> dict[str, Any]:
    big = draw(st.booleans())
    length = st.integers(0, 10**6 if big else 30)
    request: dict[str, Any] = {"segments": [
        {"candidate_length": draw(length),
         "reference_lengths": draw(st.lists(length, min_size=1, max_size=3))}
        for _ in range(draw(st.integers(1, 4)))]}
    if draw(st.booleans()):
        request["decimals"] = draw(st.integers(0, 15))
    return request


VALID = {"bleu-corpus-compute": corpus_requests(), "bleu-smoothing-compute": smoothing_requests(),
         "bleu-brevity-penalty": brevity_requests()}

# --- mutations --------------------------------------------------------------------------------

def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


ODD_VALUES = st.sampled_from([
    None, True, False, -1, 0, 1.5, 1.0, 10**13, 10**700, -(10**650), "1", "", "x" * 200, [], {},
    [1, 2], {"a": 1}, 5e-324, 1e308, "\ud800", _nested(3), _nested(63), _nested(64), _nested(70),
])


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, path + (i,))
    return out


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _set(value[path[0]], path[1:], new)
    return copy


LONG_TOKENS = st.sampled_from(["x" * 129, "é" * 65, "ש" * 100, "😀" * 33, "é" * 64, "x" * 128])


def _over_limits(draw: Any, request: dict[str, Any]) -> dict[str, Any]:
    # The card's limits on a well-formed corpus request: token sizes in UTF-8
    # bytes (the schema counts characters), total tokens, total token bytes.
    kind = draw(st.sampled_from(["hypothesis-token", "reference-token", "tokens", "bytes"]))
    hypotheses, references = request["hypotheses"], request["references"]
    if kind == "hypothesis-token":
        i = draw(st.integers(0, len(hypotheses) - 1))
        tokens = list(hypotheses[i])
        tokens.insert(draw(st.integers(0, len(tokens))), draw(LONG_TOKENS))
        return _set(request, ("hypotheses", i), tokens)
    if kind == "reference-token":
        i = draw(st.integers(0, len(references) - 1))
        return _set(request, ("references", i, 0), [*references[i][0], draw(LONG_TOKENS)])
    if kind == "tokens":  # 50,000 is the cap: just under, at and over it
        n = 50_000 - sum(map(len, hypotheses)) - sum(len(r) for refs in references for r in refs)
        return _set(request, ("hypotheses", 0), ["a"] * (n + draw(st.sampled_from([0, 1, 2]))))
    return _set(request, ("hypotheses", 0), ["é" * 64] * 8193)  # 8193 x 128 bytes > 1 MiB


@st.composite
def mutated(draw: Any, tool_id: str) -> dict[str, Any]:
    request = draw(VALID[tool_id])
    if tool_id == "bleu-corpus-compute" and draw(st.integers(0, 3)) == 0:
        request = _over_limits(draw, request)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(
            ["unsupported", "method", "metric", "unknown", "drop", "replace", "replace", "grow",
             "token", "cross", "cross", "reorder"]))
        if kind == "unsupported":
            name = draw(st.sampled_from([n for group in UNSUPPORTED[tool_id] for n in group]))
            request = {**request, name: draw(ODD_VALUES)}
        elif kind == "method" and tool_id == "bleu-smoothing-compute":
            request = {**request, "smoothing": draw(st.sampled_from(
                ["method4", "method5", "method6", "method7", "method8", "METHOD1", "none"]))}
        elif kind == "metric":
            request = {**request, "metric": draw(st.sampled_from(["chrF", "BLEU", "bleu", 3]))}
        elif kind == "unknown":
            request = {**request, draw(st.sampled_from(["x", "~a/b", "é", ""])): draw(ODD_VALUES)}
        elif kind == "drop" and request:
            key = draw(st.sampled_from(sorted(request)))
            request = {k: v for k, v in request.items() if k != key}
        elif kind == "replace":
            path = draw(st.sampled_from(_paths(request)[1:] or [()]))
            request = _set(request, path, draw(ODD_VALUES))
            if not isinstance(request, dict):
                request = {"value": request}
        elif kind == "grow":
            # small lists only: 1001 copies of a 50,000-token list would need gigabytes
            lists = [p for p in _paths(request)
                     if isinstance(_get(request, p), list) and len(_get(request, p)) <= 20]
            if lists:
                path = draw(st.sampled_from(lists))
                items = _get(request, path)
                if items:
                    request = _set(request, path, items * draw(st.sampled_from([2, 9, 1001])))
        elif kind == "token" and tool_id == "bleu-corpus-compute":
            token = draw(st.sampled_from(["x" * 129, "é" * 65, "ש" * 100, "😀" * 33, "\udc00"]))
            where = draw(st.sampled_from(["hypotheses", "references"]))
            if isinstance(request.get(where), list) and request[where]:
                if where == "hypotheses" and isinstance(request[where][0], list):
                    request = _set(request, (where, 0), [*request[where][0], token])
                elif where == "references" and isinstance(request[where][0], list) \
                        and request[where][0] and isinstance(request[where][0][0], list):
                    request = _set(request, (where, 0, 0), [*request[where][0][0], token])
        elif kind == "cross":
            request = _cross(draw, tool_id, request)
        elif kind == "reorder":  # members in another order than the card's schema lists them
            request = dict(reversed(list(request.items())))
    return request


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _cross(draw: Any, tool_id: str, request: dict[str, Any]) -> dict[str, Any]:
    if tool_id == "bleu-corpus-compute" and isinstance(request.get("hypotheses"), list):
        return {**request, "hypotheses": request["hypotheses"] + [["a"]]}
    if tool_id == "bleu-smoothing-compute" and isinstance(request.get("matches"), list) \
            and isinstance(request.get("totals"), list) and request["matches"]:
        choice = draw(st.integers(0, 3))
        if choice == 0:
            return {**request, "totals": request["totals"][:-1] or [1, 1]}
        if choice == 1:
            return {**request, "matches": [t + 1 if isinstance(t, int) else 1 for t in request["totals"]]}
        if choice == 2:
            return {**request, "matches": [0] + [1] * (len(request["matches"]) - 1) or [0, 1]}
        return {**request, "epsilon": 0.1}
    return request


def _to_bytes(value: Any) -> bytes:
    """JSON as UTF-8; a lone surrogate is written as its escape (its raw form is not UTF-8)."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, allow_nan=True).encode("ascii")


@st.composite
def text_requests(draw: Any, tool_id: str) -> bytes:
    text = _to_bytes(draw(mutated(tool_id))).decode("utf-8")
    kind = draw(st.sampled_from(["none", "none", "none", "bom", "byte", "truncate", "nan",
                                 "duplicate", "deep", "long-int", "surrogate", "top", "blank"]))
    if kind == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if kind == "byte":
        raw = text.encode()
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:]
    if kind == "truncate":
        return text.encode()[: draw(st.integers(0, max(0, len(text.encode()) - 1)))]
    if kind == "nan":
        return text.replace("1", draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"])), 1).encode()
    if kind == "duplicate":
        return text.replace("{", '{"x": 1, "x": 1, ', 1).encode()
    if kind == "deep":
        depth = draw(st.sampled_from([60, 63, 64, 65, 500, 989, 1200, 100_000]))
        return text.replace("{", '{"max_order": ' + "[" * depth + "]" * depth + ", ", 1).encode()
    if kind == "long-int":
        digits = draw(st.sampled_from([639, 640, 641, 5000]))
        return text.replace("{", '{"decimals": ' + "7" * digits + ", ", 1).encode()
    if kind == "surrogate":
        return text.replace('"', '"\\ud800', 2).encode()
    if kind == "top":
        return ("[" + text + "]").encode()
    if kind == "blank":
        return b" \n\t"
    return text.encode()


def requests(tool_id: str) -> Any:
    """(payload, is_text) pairs: JSON text as bytes, or a dict."""
    return st.one_of(text_requests(tool_id).map(lambda b: (b, True)),
                     mutated(tool_id).map(lambda d: (d, False)))


# --- checking an answer ------------------------------------------------------------------------

def _check_result(tool_id: str, result: dict[str, Any]) -> None:
    jsonschema.validate(result, card(tool_id)["output_schema"])
    for key in ("bleu", "brevity_penalty"):
        if key in result:
            assert math.isfinite(result[key]) and 0 <= result[key] <= 1, result


def _check_error(expected: tuple[str, str | None], code: str, path: str, where: str) -> None:
    assert code == expected[0], f"{where}: code {code} at {path!r}, expected {expected}"
    if expected[1] is not None:
        assert path == expected[1], f"{where}: path {path!r}, expected {expected}"


# --- in process ---------------------------------------------------------------------------------

@pytest.mark.parametrize("tool_id", TOOLS)
@_settings(400)
@given(data=st.data())
def test_fuzz_in_process(tool_id: str, data: Any) -> None:
    """execute() on fuzzed text and dicts: the oracle's code (and path), or a valid result."""
    payload, _ = data.draw(requests(tool_id))
    _in_process(tool_id, payload)


@pytest.mark.parametrize("payload", [
    # found by the long run: an unhashable "smoothing" crashed the oracle (not the product)
    b'{"matches": [0], "totals": [0], "reference_length": 0, "smoothing": [[[1]]]}',
    {"matches": [1], "totals": [1], "candidate_length": 1, "reference_length": 1, "smoothing": {}},
])
def test_fuzz_found(payload: Any) -> None:
    """Requests a fuzz run once failed on, kept."""
    _in_process("bleu-smoothing-compute", payload)


def _in_process(tool_id: str, payload: Any) -> None:
    expected = expected_error(tool_id, payload)
    COUNTS["in-process"] += 1
    try:
        result = execute(tool_id, payload)
    except ToolError as exc:
        assert expected is not None, f"refused a valid request: {exc}"
        _check_error(expected, exc.code, exc.path, "execute")
        return
    assert expected is None, f"accepted an invalid request, expected {expected}"
    _check_result(tool_id, result)


# --- the command line ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def request_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "request.json"


@pytest.mark.parametrize("tool_id", TOOLS)
@_settings(80)
@given(data=st.data())
def test_fuzz_cli_run(tool_id: str, request_file: Path, data: Any) -> None:
    """``bleu-compat run TOOL FILE``: exit 0 with a result or exit 2 with the oracle's error on stdout."""
    payload, is_text = data.draw(requests(tool_id))
    raw = payload if is_text else _to_bytes(payload)
    request_file.write_bytes(raw)
    expected = expected_error(tool_id, raw)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["run", tool_id, str(request_file)])
    COUNTS["cli"] += 1
    assert err.getvalue() == "", err.getvalue()
    answer = json.loads(out.getvalue())
    if expected is None:
        assert status == 0, answer
        _check_result(tool_id, answer)
    else:
        assert status == 2 and set(answer) == {"error"}, answer
        _check_error(expected, answer["error"]["code"], answer["error"]["path"], "run")


@_settings(4)
@given(tool_id=st.sampled_from(TOOLS), data=st.data())
def test_fuzz_cli_subprocess(tool_id: str, data: Any) -> None:
    """A few real ``python -m bleu_compat run`` processes on standard input."""
    raw = data.draw(text_requests(tool_id))
    expected = expected_error(tool_id, raw)
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "run", tool_id], input=raw,
                          capture_output=True, cwd=REPO, timeout=120)
    COUNTS["cli-process"] += 1
    assert b"Traceback" not in proc.stderr
    answer = json.loads(proc.stdout)
    if expected is None:
        assert proc.returncode == 0, answer
    else:
        assert proc.returncode == 2, (proc.returncode, answer)
        _check_error(expected, answer["error"]["code"], answer["error"]["path"], "process")


# --- HTTP ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with running_server() as base:
        limits = httpx.Limits(keepalive_expiry=CLIENT_KEEPALIVE_EXPIRY)
        with httpx.Client(base_url=base, timeout=120.0, limits=limits) as c:
            yield c


@pytest.mark.parametrize("tool_id", TOOLS)
@_settings(80)
@given(data=st.data())
def test_fuzz_http(tool_id: str, client: httpx.Client, data: Any) -> None:
    """POST to the card's execute_url: 200 with a result, or the oracle's error with its status."""
    payload, is_text = data.draw(requests(tool_id))
    raw = payload if is_text else _to_bytes(payload)
    expected = expected_error(tool_id, raw)
    resp = client.post(card(tool_id)["execute_url"], content=raw,
                       headers={"content-type": "application/json"})
    COUNTS["http"] += 1
    assert resp.headers["content-type"] == "application/json"
    answer = resp.json()
    if expected is None:
        assert resp.status_code == 200, answer
        _check_result(tool_id, answer)
    else:
        assert resp.status_code == STATUS[expected[0]], (resp.status_code, answer, expected)
        _check_error(expected, answer["error"]["code"], answer["error"]["path"], "http")
