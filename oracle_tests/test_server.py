"""The tools over HTTP (issue 7), against a real server.

A module fixture starts ``python -m bleu_compat serve`` (uvicorn) on a free
loopback port and stops it at the end (``_server.running_server``). Expected
values come from the cards (their worked examples, schemas and limits), from
the error table of the issue, and, for the scaled example, from an argument
about exact arithmetic given in that test's docstring.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any, Iterator
from urllib.parse import urlsplit

import httpx
import jsonschema
import pytest

from _server import CLIENT_KEEPALIVE_EXPIRY, load_cards, running_server
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import MAX_REQUEST_BYTES

CARDS = load_cards()
CARD_BY_ID = {c["id"]: c for c in CARDS}
EXAMPLES = [
    pytest.param(c, ex, id=f"{c['id']}-{i}") for c in CARDS for i, ex in enumerate(c["examples"])
]
JSON = {"content-type": "application/json"}
CORPUS_URL = CARD_BY_ID["bleu-corpus-compute"]["execute_url"]
SMOOTHING_URL = CARD_BY_ID["bleu-smoothing-compute"]["execute_url"]
BP_URL = CARD_BY_ID["bleu-brevity-penalty"]["execute_url"]
BP_OK = {"segments": [{"candidate_length": 12, "reference_lengths": [28, 28]}]}

#: The error shape of issue 7 / SPEC.md §2, written here independently of the server.
ERROR_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["error"],
    "properties": {"error": {
        "type": "object",
        "additionalProperties": False,
        "required": ["code", "message", "path"],
        "properties": {
            "code": {"type": "string"}, "message": {"type": "string", "minLength": 1},
            "path": {"type": "string"},
        },
    }},
}


# --- fixtures and helpers -------------------------------------------------------------

@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with running_server() as base:
        yield base


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[httpx.Client]:
    limits = httpx.Limits(keepalive_expiry=CLIENT_KEEPALIVE_EXPIRY)  # see _server.py
    with httpx.Client(base_url=base_url, timeout=120.0, limits=limits) as c:
        yield c


def assert_error(resp: httpx.Response, status: int, code: str, path: str | None = None) -> dict[str, Any]:
    """The response is a JSON error of this status and code, without internals."""
    assert resp.status_code == status, resp.text[:500]
    assert resp.headers["content-type"] == "application/json"
    assert "Traceback" not in resp.text and 'File "' not in resp.text
    body = resp.json()
    jsonschema.validate(body, ERROR_BODY)
    assert body["error"]["code"] == code, body
    if path is not None:
        assert body["error"]["path"] == path, body
    return body


def strict_json(text: str) -> Any:
    """json.loads that also refuses duplicate keys and NaN/Infinity."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        assert len(keys) == len(set(keys)), f"duplicate keys {keys}"
        return dict(items)

    def constant(name: str) -> Any:
        raise AssertionError(f"{name} in JSON")

    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def _address(base_url: str) -> tuple[str, int]:
    parts = urlsplit(base_url)
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


def read_http_response(sock: socket.socket) -> bytes:
    """Read one HTTP/1.1 response with a Content-Length body (or until EOF)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


# --- the endpoints that answer 200 ------------------------------------------------------

def test_healthz(client: httpx.Client) -> None:
    """GET /healthz answers 200 {"status": "ok"}; HEAD answers 200 without a body."""
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.json() == {"status": "ok"}
    head = client.head("/healthz")
    assert head.status_code == 200 and head.content == b""


def test_list_tools(client: httpx.Client) -> None:
    """GET /v1/tools lists id, version, description and execute_url of every card."""
    resp = client.get("/v1/tools")
    assert resp.status_code == 200
    assert resp.headers["content-type"] == "application/json"
    expected = [
        {k: c[k] for k in ("id", "version", "description", "execute_url")} for c in CARDS
    ]
    assert sorted(resp.json()["tools"], key=lambda t: t["id"]) == sorted(expected, key=lambda t: t["id"])


@pytest.mark.parametrize("card", CARDS, ids=[c["id"] for c in CARDS])
def test_get_card(client: httpx.Client, card: dict[str, Any]) -> None:
    """GET /v1/tools/{id}/versions/{version} returns the whole card."""
    resp = client.get(f"/v1/tools/{card['id']}/versions/{card['version']}")
    assert resp.status_code == 200
    assert strict_json(resp.text) == card


@pytest.mark.parametrize(("card", "example"), EXAMPLES)
def test_card_example(client: httpx.Client, card: dict[str, Any], example: dict[str, Any]) -> None:
    """Every worked example: the output equals the card's, written JavaScript-style."""
    resp = client.post(card["execute_url"], content=json.dumps(example["input"]), headers=JSON)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "application/json"
    assert strict_json(resp.text) == example["output"]
    assert resp.text == dumps_js(example["output"])
    jsonschema.Draft202012Validator(card["output_schema"]).validate(resp.json())


@pytest.mark.parametrize(
    "content_type",
    ["application/json; charset=utf-8", "Application/JSON;Charset=UTF-8",
     'application/json; charset="utf-8"', "application/json; charset=utf8"],
)
@pytest.mark.parametrize("card", CARDS, ids=[c["id"] for c in CARDS])
def test_utf8_charset_is_accepted(client: httpx.Client, card: dict[str, Any], content_type: str) -> None:
    """application/json with an explicit UTF-8 charset is accepted."""
    example = card["examples"][0]
    resp = client.post(
        card["execute_url"], content=dumps_js(example["input"]).encode("utf-8"),
        headers={"content-type": content_type},
    )
    assert resp.status_code == 200, resp.text
    assert resp.text == dumps_js(example["output"])


@pytest.mark.parametrize("index", range(len(CARD_BY_ID["bleu-corpus-compute"]["examples"])))
def test_scaled_corpus_example(client: httpx.Client, index: int) -> None:
    """A corpus example repeated k times: counts times k, bleu and brevity_penalty bit-identical.

    Corpus BLEU sums the statistics over segments (Papineni 2002 §2.2), so k
    copies give k*m_n, k*l_n, k*c, k*r. Each double in the card's formula is a
    correctly rounded function of the exact ratios (k*m)/(k*l) = m/l and
    (k*r)/(k*c) = r/c (all integers far below 2**53), so every intermediate
    double, and the result, is unchanged. k is as large as the limits allow,
    so the request also exercises the threadpool with a sizeable body.
    """
    card = CARD_BY_ID["bleu-corpus-compute"]
    example = card["examples"][index]
    request, output = example["input"], example["output"]
    limits = card["limits"]
    n_segments = len(request["hypotheses"])
    tokens = sum(len(h) for h in request["hypotheses"]) + sum(
        len(r) for refs in request["references"] for r in refs
    )
    k = min(limits["max_segments"] // n_segments, limits["max_total_tokens"] // max(tokens, 1))
    assert k >= 2
    scaled = dict(request, hypotheses=request["hypotheses"] * k, references=request["references"] * k)
    expected = dict(
        output,
        candidate_length=k * output["candidate_length"],
        reference_length=k * output["reference_length"],
        matches=[k * m for m in output["matches"]],
        totals=[k * t for t in output["totals"]],
    )
    resp = client.post(CORPUS_URL, content=json.dumps(scaled), headers=JSON)
    assert resp.status_code == 200, resp.text
    assert resp.text == dumps_js(expected)


def test_chunked_valid_body(client: httpx.Client) -> None:
    """A valid body sent chunked (no Content-Length) is read whole and answered."""
    body = dumps_js(BP_OK).encode("utf-8")

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(body), 7):
            yield body[i:i + 7]

    resp = client.post(BP_URL, content=chunks(), headers=JSON)
    assert "content-length" not in resp.request.headers
    assert resp.status_code == 200
    assert resp.text == dumps_js(CARD_BY_ID["bleu-brevity-penalty"]["examples"][0]["output"])


def test_body_of_exactly_the_cap_is_read(client: httpx.Client) -> None:
    """A valid request padded with whitespace to exactly MAX_REQUEST_BYTES is accepted."""
    body = dumps_js(BP_OK).encode("utf-8")
    padded = body + b" " * (MAX_REQUEST_BYTES - len(body))
    assert len(padded) == MAX_REQUEST_BYTES
    resp = client.post(BP_URL, content=padded, headers=JSON)
    assert resp.status_code == 200, resp.text[:300]
    assert resp.text == dumps_js(CARD_BY_ID["bleu-brevity-penalty"]["examples"][0]["output"])


def test_separator_bound_at_and_over(client: httpx.Client) -> None:
    """The densest valid request (exactly the most ',' '[' '{' any valid request holds) is
    answered as in process; one separator more is 413 limit_exceeded, path "" (issue 24)."""
    from bleu_compat.harness.checks import densest_request
    from bleu_compat.tools import execute, max_separators

    url = CORPUS_URL
    at = json.dumps(densest_request("bleu-corpus-compute"), separators=(",", ":")).encode()
    assert sum(at.count(c) for c in (b",", b"[", b"{")) == max_separators()
    resp = client.post(url, content=at, headers=JSON)
    assert resp.status_code == 200, resp.text[:300]
    assert resp.json() == execute("bleu-corpus-compute", at)
    over = at.replace(b'"hypotheses":[["', b'"hypotheses":[[",', 1)
    assert_error(client.post(url, content=over, headers=JSON), 413, "limit_exceeded", "")


# --- 400 invalid_input ------------------------------------------------------------------

MALFORMED = {
    "empty": b"",
    "whitespace": b"  \n ",
    "unclosed object": b"{",
    "missing value": b'{"segments": }',
    "trailing comma": b'{"segments": [],}',
    "single quotes": b"{'segments': []}",
    "top-level array": b"[]",
    "top-level string": b'"segments"',
    "top-level null": b"null",
    "top-level number": b"1",
    "NaN": b'{"segments": [{"candidate_length": 1, "reference_lengths": [1]}], "decimals": NaN}',
    "Infinity": b'{"segments": [{"candidate_length": Infinity, "reference_lengths": [1]}]}',
    "huge number": b'{"segments": [{"candidate_length": 1e999, "reference_lengths": [1]}]}',
    "duplicate key": b'{"segments": [{"candidate_length": 1, "reference_lengths": [1]}], '
                     b'"segments": [{"candidate_length": 2, "reference_lengths": [2]}]}',
    "trailing garbage": b'{"segments": [{"candidate_length": 1, "reference_lengths": [1]}]} x',
    "two objects": b"{} {}",
    "byte order mark": b"\xef\xbb\xbf" + dumps_js(BP_OK).encode(),
    "invalid UTF-8 byte": b'{"segments": "\xff"}',
    "overlong UTF-8": b'{"segments": "\xc0\xaf"}',
    "encoded surrogate": b'{"segments": "\xed\xa0\x80"}',
    "escaped lone surrogate": b'{"segments": "\\ud800"}',
    "Latin-1 text": '{"segments": "café"}'.encode("latin-1"),
    "UTF-16 body": dumps_js(BP_OK).encode("utf-16"),
    "deep arrays 100k": b"[" * 100_000 + b"]" * 100_000,
    "deep arrays in a field": b'{"segments": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep objects 100k": b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
    "deep unclosed arrays": b'{"segments": ' + b"[" * 100_000,
    "deep arrays, schema-sized": b'{"segments": ' + b"[" * 500 + b"]" * 500 + b"}",
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_json_is_invalid_input(client: httpx.Client, body: bytes) -> None:
    """Bodies that are not one strict UTF-8 JSON object (or break the schema) get 400."""
    assert_error(client.post(BP_URL, content=body, headers=JSON), 400, "invalid_input")


@pytest.mark.parametrize("card", CARDS, ids=[c["id"] for c in CARDS])
def test_every_truncation_is_invalid_input(client: httpx.Client, card: dict[str, Any]) -> None:
    """Every proper prefix of a valid request (a body cut short) gets 400, and the whole one 200."""
    body = dumps_js(card["examples"][0]["input"]).encode("utf-8")
    for cut in range(len(body)):
        assert_error(client.post(card["execute_url"], content=body[:cut], headers=JSON),
                     400, "invalid_input")
    assert client.post(card["execute_url"], content=body, headers=JSON).status_code == 200


@pytest.mark.parametrize(
    ("url", "request_", "path"),
    [
        pytest.param(BP_URL, {"segments": []}, "/segments", id="schema-minItems"),
        pytest.param(BP_URL, {"segments": [{"candidate_length": -1, "reference_lengths": [1]}]},
                     "/segments/0/candidate_length", id="schema-minimum"),
        pytest.param(BP_URL, {**BP_OK, "extra": 1}, None, id="schema-additionalProperties"),
        pytest.param(CORPUS_URL, {"hypotheses": [["a"], ["b"]], "references": [[["a"]]]},
                     "/references", id="cross-field-lengths"),
        pytest.param(SMOOTHING_URL, {"matches": [2], "totals": [1], "candidate_length": 1,
                                     "reference_length": 1, "smoothing": "none"},
                     "/matches/0", id="cross-field-matches-exceed-totals"),
        pytest.param(SMOOTHING_URL, {"matches": [1], "totals": [1], "candidate_length": 1,
                                     "reference_length": 1, "smoothing": "method2",
                                     "epsilon": 0.1}, "/epsilon", id="cross-field-epsilon"),
    ],
)
def test_schema_and_cross_field_errors(client: httpx.Client, url: str, request_: dict[str, Any],
                                       path: str | None) -> None:
    """Schema and cross-field violations (SPEC.md §2 checks 3 and 5) get 400 with a pointer."""
    assert_error(client.post(url, content=json.dumps(request_), headers=JSON), 400, "invalid_input", path)


def test_body_cut_short_at_the_socket(base_url: str, client: httpx.Client) -> None:
    """A client that sends less than its Content-Length and hangs up does not hurt the server."""
    host, port = _address(base_url)
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(
            f"POST {BP_URL} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n".encode() + b'{"segments": [{"cand'
        )
        sock.shutdown(socket.SHUT_WR)
        try:
            answer = read_http_response(sock)
        except ConnectionResetError:
            answer = b""
    assert answer == b"" or answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert client.get("/healthz").status_code == 200


def test_protocol_garbage_does_not_hurt_the_server(base_url: str, client: httpx.Client) -> None:
    """Bytes that are not HTTP at all are refused by uvicorn; the server keeps serving."""
    host, port = _address(base_url)
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(b"\x00\xffNOT HTTP\r\n\r\n")
        try:
            answer = read_http_response(sock)
        except ConnectionResetError:
            answer = b""
    assert answer == b"" or answer.startswith(b"HTTP/1.1 400")
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(("raw", "words"), [
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 'illegal header line: "Bad Header"'),
    (b"GARBAGE\xff'\r\n\r\n", 'illegal request line: "GARBAGE\\xff\'"'),
])
def test_malformed_head_quotes_the_bytes_as_text(base_url: str, raw: bytes, words: str) -> None:
    """h11's reason names the offending line as text, not as a Python ``bytearray(b'...')``."""
    host, port = _address(base_url)
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(raw)
        answer = read_http_response(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    message = json.loads(body)["error"]["message"]
    assert words in message and "bytearray" not in message and "b'" not in message


@pytest.mark.parametrize("split", [False, True], ids=["one-read", "two-reads"])
@pytest.mark.parametrize("extra", [-1, 0, 1, 50_000])
def test_head_limit_is_the_same_however_the_bytes_arrive(base_url: str, split: bool, extra: int) -> None:
    """A request head of exactly 16,384 bytes is served, one byte more is 431, whether it
    arrives whole or in two writes (h11 alone measures only a head still incomplete)."""
    host, port = _address(base_url)
    prefix, suffix = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ", b"\r\n\r\n"
    pad = 16 * 1024 - len(prefix) - len(suffix) + extra
    raw = prefix + b"a" * pad + suffix
    assert len(raw) == 16 * 1024 + extra
    with socket.create_connection((host, port), timeout=60) as sock:
        if split:
            sock.sendall(raw[: len(raw) // 2])
            time.sleep(0.2)
            sock.sendall(raw[len(raw) // 2:])
        else:
            sock.sendall(raw)
        answer = read_http_response(sock)
    if extra <= 0:
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    else:
        assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
        assert b"16384" in answer


# --- 422 unsupported_input ------------------------------------------------------------

@pytest.mark.parametrize(
    ("url", "request_", "path"),
    [
        *[pytest.param(SMOOTHING_URL, {"matches": [1], "totals": [1], "candidate_length": 1,
                                       "reference_length": 1, "smoothing": f"method{k}"},
                       "/smoothing", id=f"smoothing-method{k}") for k in range(4, 8)],
        pytest.param(CORPUS_URL, {"hypotheses": [["a"]], "references": [[["a"]]], "tokenize": "13a"},
                     "/tokenize", id="corpus-tokenize"),
        pytest.param(CORPUS_URL, {"hypotheses": [["a"]], "references": [[["a"]]],
                                  "weights": [1, 0, 0, 0]}, "/weights", id="corpus-weights"),
        pytest.param(BP_URL, {**BP_OK, "text": "a b c"}, "/text", id="brevity-text"),
    ],
)
def test_unsupported_input(client: httpx.Client, url: str, request_: dict[str, Any], path: str) -> None:
    """Requests the cards list under unsupported_operations get 422 unsupported_input."""
    body = assert_error(client.post(url, content=json.dumps(request_), headers=JSON), 422,
                        "unsupported_input", path)
    assert "not supported" in body["error"]["message"]


# --- 413 limit_exceeded ---------------------------------------------------------------

def test_card_limit_token_bytes(client: httpx.Client) -> None:
    """A 100-letter Hebrew token passes the schema (maxLength counts code points) but is
    200 UTF-8 bytes, over max_token_bytes=128 (SPEC.md §2 check 4)."""
    card = CARD_BY_ID["bleu-corpus-compute"]
    token = "ש" * 100
    assert len(token) <= 128 < len(token.encode("utf-8")) and card["limits"]["max_token_bytes"] == 128
    request = {"hypotheses": [[token]], "references": [[["a"]]]}
    assert_error(client.post(CORPUS_URL, content=json.dumps(request), headers=JSON),
                 413, "limit_exceeded", "/hypotheses/0/0")


def test_card_limit_total_tokens(client: httpx.Client) -> None:
    """Over max_total_tokens with every array within the schema's bounds gets 413."""
    limits = CARD_BY_ID["bleu-corpus-compute"]["limits"]
    n = limits["max_segments"]
    per = limits["max_total_tokens"] // (2 * n) + 1  # hypothesis + one reference of `per` tokens
    assert 2 * n * per > limits["max_total_tokens"]
    request = {"hypotheses": [["a"] * per] * n, "references": [[["a"] * per]] * n}
    assert_error(client.post(CORPUS_URL, content=json.dumps(request), headers=JSON),
                 413, "limit_exceeded", "")


def test_huge_body_with_content_length(client: httpx.Client) -> None:
    """A body one byte over MAX_REQUEST_BYTES, with Content-Length, gets 413."""
    resp = client.post(BP_URL, content=b" " * (MAX_REQUEST_BYTES + 1), headers=JSON)
    assert resp.request.headers["content-length"] == str(MAX_REQUEST_BYTES + 1)
    assert_error(resp, 413, "limit_exceeded")
    assert client.get("/healthz").status_code == 200


def test_huge_chunked_body(client: httpx.Client) -> None:
    """A chunked body (no Content-Length) that grows past the cap gets 413."""
    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_REQUEST_BYTES // (1 << 20) + 4):
            yield b" " * (1 << 20)

    resp = client.post(BP_URL, content=chunks(), headers=JSON)
    assert "content-length" not in resp.request.headers
    assert resp.request.headers["transfer-encoding"] == "chunked"
    assert_error(resp, 413, "limit_exceeded")
    assert client.get("/healthz").status_code == 200


def test_huge_content_length_is_refused_unread(base_url: str, client: httpx.Client) -> None:
    """Content-Length of 10**12 gets 413 from the headers alone: no body byte is sent."""
    host, port = _address(base_url)
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(
            f"POST {BP_URL} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {10**12}\r\n\r\n".encode()
        )
        answer = read_http_response(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), answer[:300]
    assert json.loads(body)["error"]["code"] == "limit_exceeded"
    assert client.get("/healthz").status_code == 200


# --- 404, 405, 415 ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("POST", "/v1/tools/bleu-nonsense/versions/1.0.0/execute"),
        ("POST", "/v1/tools/bleu-corpus-compute/versions/9.9.9/execute"),
        ("POST", "/v1/tools/bleu-corpus-compute/versions/1.0/execute"),
        ("GET", "/v1/tools/bleu-nonsense/versions/1.0.0"),
        ("GET", "/v1/tools/bleu-brevity-penalty/versions/2.0.0"),
        ("GET", "/"),
        ("GET", "/v1"),
        ("GET", "/v1/tools/"),
        ("GET", "/v1/tools/bleu-corpus-compute"),
        ("POST", "/v1/tools/bleu-corpus-compute/versions/1.0.0/execute/"),
        ("GET", "/healthz/x"),
    ],
)
def test_not_found(client: httpx.Client, method: str, url: str) -> None:
    """Unknown tools, versions and paths get 404 not_found."""
    resp = client.request(method, url, content=dumps_js(BP_OK), headers=JSON)
    assert_error(resp, 404, "not_found")


@pytest.mark.parametrize(
    ("method", "url", "allowed"),
    [
        ("GET", BP_URL, "POST"),
        ("PUT", CORPUS_URL, "POST"),
        ("DELETE", SMOOTHING_URL, "POST"),
        ("POST", "/v1/tools", "GET"),
        ("POST", "/v1/tools/bleu-corpus-compute/versions/1.0.0", "GET"),
        ("DELETE", "/healthz", "GET"),
        ("POST", "/openapi.json", "GET"),
    ],
)
def test_method_not_allowed(client: httpx.Client, method: str, url: str, allowed: str) -> None:
    """A wrong method gets 405 method_not_allowed with an Allow header."""
    resp = client.request(method, url, content=dumps_js(BP_OK) if method != "GET" else None,
                          headers=JSON)
    assert_error(resp, 405, "method_not_allowed")
    assert allowed in [m.strip() for m in resp.headers["allow"].split(",")]


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (None, dumps_js(BP_OK).encode()),
        ("text/plain", dumps_js(BP_OK).encode()),
        ("text/json", dumps_js(BP_OK).encode()),
        ("application/x-www-form-urlencoded", b"segments=1"),
        ("multipart/form-data; boundary=x", b"--x--\r\n"),
        ("application/jsonx", dumps_js(BP_OK).encode()),
        ("application/json-patch+json", b"[]"),
        ("application/json; charset=latin-1", dumps_js(BP_OK).encode("latin-1")),
        ("application/json; charset=utf-16", dumps_js(BP_OK).encode("utf-16")),
        ("", dumps_js(BP_OK).encode()),
    ],
)
def test_unsupported_media_type(client: httpx.Client, content_type: str | None, body: bytes) -> None:
    """A body that is not application/json (UTF-8) gets 415 unsupported_media_type."""
    headers = {} if content_type is None else {"content-type": content_type}
    request = client.build_request("POST", BP_URL, content=body, headers=headers)
    if content_type is None:
        request.headers.pop("content-type", None)
    resp = client.send(request)
    assert_error(resp, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    "headers",
    [
        [("content-type", "application/json"), ("content-encoding", "gzip")],
        [("content-type", "application/json"), ("content-encoding", "bogus")],
        [("content-type", "application/json"), ("content-type", "text/plain")],
    ],
    ids=["gzip", "bogus-encoding", "two-content-types"],
)
def test_encoded_or_ambiguous_bodies_get_415(client: httpx.Client, headers: list[tuple[str, str]]) -> None:
    """A body under a Content-Encoding, or with two Content-Types, is refused rather than misread."""
    import gzip

    body = dumps_js(BP_OK).encode()
    if ("content-encoding", "gzip") in headers:
        body = gzip.compress(body)
    resp = client.post(BP_URL, content=body, headers=httpx.Headers(headers))
    assert_error(resp, 415, "unsupported_media_type")


def test_identity_encoding_is_accepted(client: httpx.Client) -> None:
    """Content-Encoding: identity is no encoding at all."""
    resp = client.post(BP_URL, content=dumps_js(BP_OK).encode(),
                       headers={"content-type": "application/json", "content-encoding": "identity"})
    assert resp.status_code == 200


# --- the OpenAPI document --------------------------------------------------------------

@pytest.fixture(scope="module")
def openapi(client: httpx.Client) -> dict[str, Any]:
    resp = client.get("/openapi.json")
    assert resp.status_code == 200
    assert resp.headers["content-type"] == "application/json"
    doc = strict_json(resp.text)  # valid JSON, no duplicate keys, no NaN
    assert isinstance(doc, dict)
    return doc


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> Any:
    ref = schema["$ref"]
    assert ref.startswith("#/")
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def test_openapi_header(openapi: dict[str, Any]) -> None:
    """The document is OpenAPI 3.1 with info and paths."""
    assert openapi["openapi"].startswith("3.1.")
    assert openapi["info"]["title"] and openapi["info"]["version"]
    assert {"/healthz", "/v1/tools", "/v1/tools/{id}/versions/{version}"} <= set(openapi["paths"])


@pytest.mark.parametrize("card", CARDS, ids=[c["id"] for c in CARDS])
def test_openapi_has_each_card(openapi: dict[str, Any], card: dict[str, Any]) -> None:
    """One POST path per card at its execute_url: input_schema in, output_schema out, errors."""
    operation = openapi["paths"][card["execute_url"]]["post"]
    request_schema = operation["requestBody"]["content"]["application/json"]["schema"]
    assert _resolve(openapi, request_schema) == card["input_schema"]
    ok_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert _resolve(openapi, ok_schema) == card["output_schema"]
    for status in ("400", "404", "405", "413", "415", "422"):
        schema = operation["responses"][status]["content"]["application/json"]["schema"]
        error_schema = _resolve(openapi, schema)
        jsonschema.Draft202012Validator.check_schema(error_schema)
        jsonschema.validate({"error": {"code": "invalid_input", "message": "m", "path": ""}},
                            error_schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"error": {"code": "invalid_input"}}, error_schema)
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert [e["value"] for e in examples.values()] == [ex["input"] for ex in card["examples"]]


def test_openapi_error_schema_matches_real_errors(openapi: dict[str, Any], client: httpx.Client) -> None:
    """Real error bodies of every status validate against the document's Error schema."""
    error_schema = openapi["components"]["schemas"]["Error"]
    answers = [
        client.post(BP_URL, content=b"{", headers=JSON),
        client.post(SMOOTHING_URL, content=json.dumps(
            {"matches": [1], "totals": [1], "candidate_length": 1, "reference_length": 1,
             "smoothing": "method5"}), headers=JSON),
        client.post(CORPUS_URL, content=json.dumps(
            {"hypotheses": [["ש" * 100]], "references": [[["a"]]]}), headers=JSON),
        client.post("/v1/tools/x/versions/1/execute", content=b"{}", headers=JSON),
        client.get(BP_URL),
        client.post(BP_URL, content=b"{}", headers={"content-type": "text/plain"}),
    ]
    assert sorted(a.status_code for a in answers) == [400, 404, 405, 413, 415, 422]
    for answer in answers:
        jsonschema.validate(answer.json(), error_schema)


def test_openapi_refs_resolve(openapi: dict[str, Any]) -> None:
    """Every $ref in the document points at an existing node."""
    def walk(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if "$ref" in node:
                yield node
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    refs = list(walk(openapi["paths"]))
    assert len(refs) >= 3 * 8
    for ref in refs:
        assert _resolve(openapi, ref) is not None


def test_openapi_spec_validator(openapi: dict[str, Any]) -> None:
    """The document passes openapi-spec-validator (only when it is installed)."""
    validator = pytest.importorskip("openapi_spec_validator")
    validator.validate(openapi)


# --- the catch-all, in process -----------------------------------------------------------

def test_unexpected_exception_is_a_json_error_not_500(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the tool layer answers a JSON internal_error (not 500, no internals);
    the application keeps serving."""
    import asyncio

    from bleu_compat import server, tools

    def broken(tool_id: str, request: Any) -> dict[str, Any]:
        raise RuntimeError("secret internal detail /etc/passwd")

    async def two_requests() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=server.create_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://local") as local:
            monkeypatch.setattr(tools, "execute", broken)
            first = await local.post(BP_URL, content=dumps_js(BP_OK), headers=JSON)
            monkeypatch.undo()
            second = await local.post(BP_URL, content=dumps_js(BP_OK), headers=JSON)
        return first, second

    first, second = asyncio.run(two_requests())
    assert first.status_code != 500
    body = assert_error(first, 400, "internal_error")
    assert "secret" not in first.text and "RuntimeError" not in first.text
    assert "internal error" in body["error"]["message"]
    assert second.status_code == 200
    assert second.text == dumps_js(CARD_BY_ID["bleu-brevity-penalty"]["examples"][0]["output"])


# --- last: after everything above, the server still serves -----------------------------------

def test_zz_still_serving_after_every_bad_request(client: httpx.Client) -> None:
    """After all the bad requests of this module, /healthz and a card example still work."""
    assert client.get("/healthz").json() == {"status": "ok"}
    for card in CARDS:
        example = card["examples"][-1]
        resp = client.post(card["execute_url"], content=json.dumps(example["input"]), headers=JSON)
        assert resp.status_code == 200 and resp.text == dumps_js(example["output"])


def test_serve_refuses_a_busy_port_cleanly() -> None:
    """`serve` on a port already bound exits 2 with a one-line reason, no traceback."""
    import subprocess
    import sys

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "bleu_compat", "serve", "--port", str(port),
             "--log-level", "warning"],
            capture_output=True, text=True, timeout=120,
        )
    assert done.returncode == 2
    assert "could not start" in done.stderr and "Traceback" not in done.stderr


def test_serve_refuses_a_bad_port() -> None:
    """`serve --port 70000` is a usage error (exit 2)."""
    from bleu_compat.cli import main

    assert main(["serve", "--port", "70000"]) == 2
