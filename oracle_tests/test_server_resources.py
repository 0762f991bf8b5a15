"""The server's memory and responsiveness under concurrent maximum-size bodies (issue 11).

A real server (``bleu-compat serve``) gets N concurrent 16 MiB request bodies
(the largest the transports read, ``MAX_REQUEST_BYTES``) while a prober asks
``GET /healthz`` every 0.1 s. Measured and printed (run with ``-s``): the
server's peak resident memory (``VmHWM`` from ``/proc/<pid>/status``, the
kernel's high-water mark, so no peak is missed between samples), its idle RSS,
and the ``/healthz`` latency during the load. Asserted: every body gets its
right JSON answer, and the memory bound the server promises:

    peak RSS <= idle RSS + EXPANSION * body_budget

The server admits request bodies only while the bytes of the bodies being
read, parsed and computed stay within its ``body_budget`` (24 MiB by
default: one maximum-size body beside 8 MiB of smaller ones); the others
wait unread. EXPANSION bounds what one body byte can cost in memory while
it is held, parsed into Python objects and checked: the raw bytes (1), the
decoded text (1) and the objects. The costliest JSON per byte is a list of
empty arrays: ``[],`` (3 bytes) becomes a 56-byte list and an 8-byte slot,
about 21 bytes per byte, 23 in all; a token ``"ab",`` about 12 + 2. 32
leaves room for the allocator: the bound is 24 MiB x 32 = 768 MiB over the
idle server, whatever the number of connections. The latencies are figures
for the closing note, never asserted.

Always run: 6 concurrent bodies of each kind (a few seconds). The 20- and
50-body runs of the issue take longer and run with ``BLEU_COMPAT_FUZZ=long``
(the nightly switch shared with test_fuzz.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from _server import CLIENT_KEEPALIVE_EXPIRY, running_server
from bleu_compat.tools import MAX_REQUEST_BYTES

LONG = os.environ.get("BLEU_COMPAT_FUZZ") == "long"
MIB = 2**20
BODY_BUDGET = 24 * MIB  # ServerLimits.body_budget's default
EXPANSION = 32
CORPUS_URL = "/v1/tools/bleu-corpus-compute/versions/1.0.0/execute"
JSON = {"content-type": "application/json"}


def _fill(prefix: bytes, item: bytes, suffix: bytes, size: int = MAX_REQUEST_BYTES) -> bytes:
    """prefix + item, item, ... + suffix, as close to ``size`` bytes as fits."""
    count = (size - len(prefix) - len(suffix) + 1) // (len(item) + 1)
    body = prefix + b",".join([item] * count) + suffix
    assert len(body) <= size
    return body


#: 3.3 million two-letter tokens: refused unread (413 limit_exceeded; parsed, schema-valid and
#: over max_total_tokens).
TOKENS_BODY = _fill(b'{"hypotheses":[[', b'"ab"', b']],"references":[[["a"]]]}')
#: 8 million integers where tokens belong: more separators than any valid request, refused
#: unread (413 limit_exceeded; parsed, a schema error at /hypotheses/0/0).
INTS_BODY = _fill(b'{"hypotheses":[[', b"1", b']],"references":[[["a"]]]}')
#: 5.6 million empty hypotheses, the costliest JSON per byte: refused unread (413; parsed,
#: over maxItems).
EMPTIES_BODY = _fill(b'{"hypotheses":[', b"[]", b'],"references":[[["a"]]]}')


def _valid_max_body() -> tuple[bytes, dict[str, Any]]:
    """A valid request at the card's limits: 1,000 segments, 50,000 tokens, 1,000,000
    token bytes, each token ten escaped 'é' (the body is about 3 MB)."""
    token = "\\u00e9" * 10  # 'é' * 10: 10 characters, 20 UTF-8 bytes
    hyp = "[" + ",".join(f'"{token}"' for _ in range(25)) + "]"
    body = ('{"hypotheses":[' + ",".join([hyp] * 1000) + '],"references":['
            + ",".join(["[" + hyp + "]"] * 1000) + "]}").encode()
    # every hypothesis equals its reference: 25 tokens each, all n-grams match
    expected = {"candidate_length": 25_000, "reference_length": 25_000,
                "matches": [25_000, 24_000, 23_000, 22_000], "totals": [25_000, 24_000, 23_000, 22_000]}
    return body, expected


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in bytes (Linux /proc)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) * 1024
    return out


def _server_pid(port: int) -> int:
    """The pid of the process listening on 127.0.0.1:port (from /proc/net/tcp)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        if state == "0A" and int(local.split(":")[1], 16) == port:  # LISTEN
            inode = fields[9]
    assert inode is not None, f"nothing listens on port {port}"
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) == f"socket:[{inode}]":
                    return int(proc.name)
        except OSError:
            continue
    raise AssertionError(f"no process owns the socket of port {port}")


async def _load(base_url: str, bodies: list[tuple[bytes, int]]) -> tuple[list[str], list[float], float]:
    """Send every body at once; probe /healthz every 0.1 s meanwhile.

    Returns (problems, healthz latencies in seconds, elapsed seconds)."""
    problems: list[str] = []
    latencies: list[float] = []
    done = asyncio.Event()
    timeout = httpx.Timeout(600.0)
    limits = httpx.Limits(max_connections=len(bodies) + 1, keepalive_expiry=CLIENT_KEEPALIVE_EXPIRY)

    async def probe() -> None:
        probe_limits = httpx.Limits(keepalive_expiry=CLIENT_KEEPALIVE_EXPIRY)
        async with httpx.AsyncClient(base_url=base_url, timeout=timeout, limits=probe_limits) as prober:
            while not done.is_set():
                started = time.perf_counter()
                resp = await prober.get("/healthz")
                latencies.append(time.perf_counter() - started)
                if resp.status_code != 200:
                    problems.append(f"healthz {resp.status_code}")
                await asyncio.sleep(0.1)

    async with httpx.AsyncClient(base_url=base_url, timeout=timeout, limits=limits) as client:
        async def send(body: bytes, status: int) -> None:
            resp = await client.post(CORPUS_URL, content=body, headers=JSON)
            if resp.status_code != status or resp.headers.get("content-type") != "application/json":
                problems.append(f"status {resp.status_code} != {status}: {resp.text[:200]}")
            elif status != 200 and set(resp.json()) != {"error"}:
                problems.append(f"not an error body: {resp.text[:200]}")

        prober = asyncio.create_task(probe())
        started = time.perf_counter()
        await asyncio.gather(*(send(body, status) for body, status in bodies))
        elapsed = time.perf_counter() - started
        done.set()
        await prober
    return problems, latencies, elapsed


def _measure(n: int, label: str) -> None:
    valid_body, _ = _valid_max_body()
    kinds = [(TOKENS_BODY, 413), (EMPTIES_BODY, 413), (valid_body, 200), (INTS_BODY, 413)]
    bodies = [kinds[i % len(kinds)] for i in range(n)]
    # every body waits its turn, however slow the machine: answers, not 503s
    with running_server(extra_args=("--admission-timeout", "3000")) as base:
        pid = _server_pid(int(base.rsplit(":", 1)[1]))
        idle = _status(pid)["VmRSS"]
        problems, latencies, elapsed = asyncio.run(_load(base, bodies))
        peak = _status(pid)["VmHWM"]
    latencies.sort()
    print(
        f"\n{label}: {n} concurrent bodies ({sum(len(b) for b, _ in bodies) / MIB:.0f} MiB) in "
        f"{elapsed:.1f} s; server RSS idle {idle / MIB:.0f} MiB, peak {peak / MIB:.0f} MiB "
        f"(bound {(idle + EXPANSION * BODY_BUDGET) / MIB:.0f} MiB); /healthz during the load: "
        f"n={len(latencies)} median {1000 * statistics.median(latencies):.0f} ms, "
        f"max {1000 * latencies[-1]:.0f} ms"
    )
    assert problems == [], problems[:5]
    assert peak <= idle + EXPANSION * BODY_BUDGET, (
        f"peak RSS {peak / MIB:.0f} MiB exceeds idle {idle / MIB:.0f} MiB + {EXPANSION} x "
        f"{BODY_BUDGET / MIB:.0f} MiB"
    )


def test_bodies_are_what_they_claim() -> None:
    """The load's bodies: the invalid ones are 16 MiB and fail as intended, in process; the valid one scores 1."""
    from bleu_compat import ToolError, execute

    for body, code, path in ((TOKENS_BODY, "limit_exceeded", ""),
                             (INTS_BODY, "limit_exceeded", ""),
                             (EMPTIES_BODY, "limit_exceeded", "")):
        assert len(body) > MAX_REQUEST_BYTES - 8
        with pytest.raises(ToolError) as info:
            execute("bleu-corpus-compute", body)
        assert (info.value.code, info.value.path) == (code, path)
    body, expected = _valid_max_body()
    result = execute("bleu-corpus-compute", body)
    assert {k: result[k] for k in expected} == expected and result["bleu"] == 1.0


def test_memory_bound_8_concurrent_max_bodies() -> None:
    """8 concurrent maximum-size bodies: right answers, peak RSS within the bound."""
    _measure(8, "resources-8")


@pytest.mark.skipif(not LONG, reason="long run: set BLEU_COMPAT_FUZZ=long")
@pytest.mark.parametrize("n", [20, 50])
def test_memory_bound_many_concurrent_max_bodies(n: int) -> None:
    """20 and 50 concurrent maximum-size bodies (issue 11's load): right answers, RSS within the bound."""
    _measure(n, f"resources-{n}")
