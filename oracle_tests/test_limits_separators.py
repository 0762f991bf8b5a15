"""Dense bodies refused unread (issue 24, the lead's decision): a request text holding more
``,`` ``[`` ``{`` bytes than any request within the cards' limits is ``limit_exceeded``,
path ``""``, before it is parsed, on every interface that takes text (``execute`` given
bytes or ``str``, ``run``, ``explain``, HTTP); no valid request is refused.

The bound has two derivations that share nothing: the product's
(``bleu_compat.tools.max_separators``, a formula over the cards' limits), the judge's
(``bleu_compat.harness.checks.max_separators``, the count in the densest valid request
it builds from the cards); and a third here, the formula written out from the cards'
numbers. Equal, the bound is tight: the densest request is valid and at the bound, one
separator more is refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat import ToolError, execute
from bleu_compat.harness import checks
from bleu_compat.tools import TOOL_IDS, card, max_separators

CORPUS = "bleu-corpus-compute"


def _count(text: bytes) -> int:
    return sum(text.count(c) for c in (b",", b"[", b"{"))


def _densest(tool_id: str) -> bytes:
    return json.dumps(checks.densest_request(tool_id), separators=(",", ":")).encode()


def _over_by_one() -> bytes:
    """The densest corpus request with one more comma in its first token: bound + 1
    separators (and over max_total_token_bytes, so invalid either way)."""
    body = _densest(CORPUS)
    return body.replace(b'"hypotheses":[["', b'"hypotheses":[[",', 1)


def test_bound_from_the_cards_by_hand() -> None:
    """The corpus card's most: '{' 1; '[' hypotheses, references, one per hypothesis, per
    segment and per reference; ',' between the 4 members, the segments (twice), a segment's
    references, the tokens of one list (total - 1); token bytes that are all commas."""
    limits = card(CORPUS).limits
    s, r = limits["max_segments"], limits["max_references_per_segment"]
    t, b = limits["max_total_tokens"], limits["max_total_token_bytes"]
    members = len(card(CORPUS).input_schema["properties"])
    by_hand = 1 + (2 + s + s + s * r) + ((members - 1) + 2 * (s - 1) + s * (r - 1) + (t - 1)) + b
    assert members == 4 and by_hand == 1 + 10_002 + 59_000 + 1_048_576
    assert max_separators() == checks.max_separators() == by_hand
    for tool_id in TOOL_IDS:  # the judge's witness of each tool is within the bound
        assert _count(_densest(tool_id)) <= by_hand


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_densest_valid_request_is_accepted(tool_id: str) -> None:
    """Each tool's densest request (the corpus one exactly at the bound) is valid: the
    judge finds nothing, and execute computes it from bytes and from str."""
    body = _densest(tool_id)
    if tool_id == CORPUS:
        assert _count(body) == max_separators()
    assert checks.expected_error(tool_id, body) is None
    assert execute(tool_id, body) == execute(tool_id, body.decode())


def test_bound_plus_one_is_refused_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """bound + 1 separators: limit_exceeded, path "", without parsing (the parser is
    replaced by one that fails the test), from bytes, bytearray, memoryview and str."""
    body = _over_by_one()
    assert _count(body) == max_separators() + 1
    import bleu_compat.tools as tools

    def no_parse(_: object) -> None:
        raise AssertionError("parsed a body that should be refused unread")

    monkeypatch.setattr(tools, "loads_strict", no_parse)
    for text in (body, bytearray(body), memoryview(body), body.decode()):
        with pytest.raises(ToolError) as info:
            execute(CORPUS, text)
        assert (info.value.code, info.value.path) == ("limit_exceeded", "")
        assert str(max_separators()) in info.value.message
    assert checks.expected_error(CORPUS, body) == ("limit_exceeded", "")


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@pytest.mark.parametrize("kind", ["commas", "brackets", "braces", "mixed", "not json"])
def test_refused_before_every_other_check(tool_id: str, kind: str) -> None:
    """Over the bound, whatever else is wrong (not JSON, a byte order mark, bad UTF-8): the
    same limit_exceeded for every tool, product and judge alike; at the bound, the other
    checks decide as before."""
    n = max_separators()
    unit = {"commas": b",", "brackets": b"[", "braces": b"{", "mixed": b",[{", "not json": b","}[kind]
    prefix = b"\xef\xbb\xbf" if kind == "not json" else b'{"x":"'
    suffix = b"\xff" if kind == "not json" else b'"}'
    filler = (unit * (n // len(unit) + 1))[: n + 1 - _count(prefix + suffix)]
    over = prefix + filler + suffix
    assert _count(over) == n + 1
    for request in (over, over.decode("utf-8", "replace")):
        with pytest.raises(ToolError) as info:
            execute(tool_id, request)
        assert (info.value.code, info.value.path) == ("limit_exceeded", "")
        assert checks.expected_error(tool_id, request) == ("limit_exceeded", "")
    at = over.replace(filler, filler[:-1], 1)
    assert _count(at) == n
    with pytest.raises(ToolError) as info:
        execute(tool_id, at)
    assert info.value.code == "invalid_input"
    assert checks.expected_error(tool_id, at) == (info.value.code, info.value.path)


def test_dense_bodies_of_the_benchmark_are_refused() -> None:
    """The bodies that cost 4-10x to refuse (8M integers, 5.6M empty hypotheses, 3.3M
    tokens) are over the bound: limit_exceeded "", product and judge alike."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_server_resources import EMPTIES_BODY, INTS_BODY, TOKENS_BODY

    for body in (INTS_BODY, EMPTIES_BODY, TOKENS_BODY):
        assert _count(body) > max_separators()
        with pytest.raises(ToolError) as info:
            execute(CORPUS, body)
        assert (info.value.code, info.value.path) == ("limit_exceeded", "")
        assert checks.expected_error(CORPUS, body) == ("limit_exceeded", "")


@pytest.mark.parametrize("command", ["run", "explain"])
def test_cli_at_and_over_the_bound(tmp_path: Path, command: str) -> None:
    """`run` and `explain` from a file: the densest request is answered (exit 0 or 1 for
    explain's verdict), bound + 1 is the limit_exceeded JSON, exit 2."""
    at, over = tmp_path / "at.json", tmp_path / "over.json"
    at.write_bytes(_densest(CORPUS))
    over.write_bytes(_over_by_one())
    extra = ["--format", "json"] if command == "explain" else []
    base = [sys.executable, "-m", "bleu_compat", command, CORPUS]
    refused = subprocess.run(base + [str(over)] + extra, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2, refused.stderr
    error = json.loads(refused.stdout)["error"]
    assert (error["code"], error["path"]) == ("limit_exceeded", "")
    if command == "run":
        answered = subprocess.run(base + [str(at)], capture_output=True, text=True, timeout=120)
        assert answered.returncode == 0, answered.stdout[:300] + answered.stderr[-300:]
        assert json.loads(answered.stdout) == execute(CORPUS, at.read_bytes())


@pytest.mark.parametrize("where", ["hypotheses", "references", "split"])
@pytest.mark.parametrize("also", ["nothing", "long token first", "bytes too"])
def test_over_max_total_tokens_is_refused_before_the_tokens_are_read(where: str, also: str) -> None:
    """Over max_total_tokens, with or without another limit failing earlier in document
    order: ``limit_exceeded``; alone, path ``""``; with another, the path is the product's
    choice and the judge (harness/checks.py, its own reading) must leave it open (None).
    The product decides max_total_tokens by counting lists, so a million short tokens
    cost a count, not a pass over the tokens (issue 24's rejection cost)."""
    limits = card(CORPUS).limits
    n = limits["max_total_tokens"] + 1
    hyp, ref = (["a"] * n, ["a"]) if where == "hypotheses" else (["a"], ["a"] * n)
    if where == "split":
        hyp, ref = ["a"] * (n // 2), ["a"] * (n - n // 2)
    refs = [ref]
    if also == "long token first":  # within the schema's maxLength (code points), over in bytes
        hyp = ["\u05d0" * (limits["max_token_bytes"] // 2 + 1)] + hyp[1:]
    elif also == "bytes too":  # and over max_total_token_bytes (path "" as well)
        size = limits["max_token_bytes"]
        hyp = ["x" * size] * (limits["max_total_token_bytes"] // size + 1) + hyp
    request = {"hypotheses": [hyp], "references": [refs]}
    with pytest.raises(ToolError) as info:
        execute(CORPUS, request)
    assert info.value.code == "limit_exceeded"
    expected = checks.expected_error(CORPUS, request)
    assert expected is not None and expected[0] == "limit_exceeded"
    if also != "long token first":
        assert expected in {("limit_exceeded", ""), ("limit_exceeded", None)}
        assert info.value.path == ""
    else:
        assert expected[1] is None  # several limits fail: the path is left open
