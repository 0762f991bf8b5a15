"""/healthz latency under load (issue 24): 50 concurrent 16 MiB bodies, and 300 idle connections.

Usage::

    .venv/bin/python benchmarks/healthz_load.py [--bodies 50] [--idle 300] [--probes 100]

Starts ``bleu-compat serve`` (oracle_tests/_server.py), then

1. sends ``--bodies`` request bodies of 16 MiB at once (the four kinds of
   oracle_tests/test_server_resources.py in turn: 3.3 million tokens, 5.6
   million empty hypotheses, a valid request at the card limits, 8 million
   integers) while a prober asks ``GET /healthz`` every 50 ms, each on a new
   connection; every body's status is checked;
2. opens ``--idle`` TCP connections that send nothing (more than the
   server's ``--max-connections``, 256) and probes ``/healthz`` ``--probes``
   times on new connections.

Prints p50, p99 and max of the /healthz latencies (milliseconds) and the
1-minute load average. Not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "oracle_tests"))

from _server import running_server  # noqa: E402
from test_server_resources import (  # noqa: E402
    CORPUS_URL, EMPTIES_BODY, INTS_BODY, JSON, TOKENS_BODY, _valid_max_body,
)


_PROBER = """
import select, sys, time, httpx
base = sys.argv[1]
client = httpx.Client(timeout=30.0, limits=httpx.Limits(max_keepalive_connections=0))
while True:
    started = time.perf_counter()
    try:  # a new connection each time, as a load balancer's health check makes
        ok = client.get(base + "/healthz").json() == {"status": "ok"}
    except httpx.HTTPError:
        ok = False
    print(time.perf_counter() - started if ok else "BAD", flush=True)
    if select.select([sys.stdin], [], [], 0.05)[0]:
        break
"""


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _summary(label: str, latencies: list[float]) -> str:
    ms = [1000 * x for x in latencies]
    return (f"{label}: n={len(ms)} p50 {statistics.median(ms):.1f} ms, p99 {_pct(ms, 0.99):.1f} ms, "
            f"max {max(ms):.1f} ms (load average {os.getloadavg()[0]:.2f})")


async def _probe_once(base: str) -> float:
    async with httpx.AsyncClient(base_url=base, timeout=30.0) as client:
        started = time.perf_counter()
        resp = await client.get("/healthz")
        took = time.perf_counter() - started
    if resp.status_code != 200 or resp.json() != {"status": "ok"}:
        raise AssertionError(f"/healthz answered {resp.status_code} {resp.text[:100]}")
    return took


async def _bodies(base: str, n: int) -> tuple[list[float], list[str], float]:
    valid, _ = _valid_max_body()
    kinds = [(TOKENS_BODY, 413), (EMPTIES_BODY, 413), (valid, 200), (INTS_BODY, 413)]
    bodies = [kinds[i % len(kinds)] for i in range(n)]
    problems: list[str] = []
    latencies: list[float] = []
    done = asyncio.Event()

    # the prober is a process of its own: in this one it would share the GIL with the
    # client sending 16 MiB bodies, and measure the client's stalls as the server's
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _PROBER, base, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE)

    async def prober() -> None:
        await done.wait()
        assert proc.stdin is not None
        proc.stdin.close()
        out, _ = await proc.communicate()
        for line in out.decode().split():
            if line == "BAD":
                problems.append("a /healthz probe failed")
            else:
                latencies.append(float(line))

    limits = httpx.Limits(max_connections=n + 1, keepalive_expiry=1.0)
    async with httpx.AsyncClient(base_url=base, timeout=3000.0, limits=limits) as client:
        async def send(body: bytes, status: int) -> None:
            resp = await client.post(CORPUS_URL, content=body, headers=JSON)
            if resp.status_code != status:
                problems.append(f"{resp.status_code} != {status}: {resp.text[:100]}")

        task = asyncio.create_task(prober())
        started = time.perf_counter()
        await asyncio.gather(*(send(b, s) for b, s in bodies))
        elapsed = time.perf_counter() - started
        done.set()
        await task
    return latencies, problems, elapsed


async def _idle(base: str, n: int, probes: int) -> list[float]:
    host, port = base.rsplit("/", 1)[-1].split(":")
    sockets = []
    for _ in range(n):
        s = socket.create_connection((host, int(port)))
        sockets.append(s)
    await asyncio.sleep(0.5)  # the server has accepted them all
    try:
        return [await _probe_once(base) for _ in range(probes)]
    finally:
        for s in sockets:
            s.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bodies", type=int, default=50)
    parser.add_argument("--idle", type=int, default=300)
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--url", default=None, help="a running server instead of starting one")
    args = parser.parse_args()
    import contextlib

    server = (contextlib.nullcontext(args.url) if args.url
              else running_server(extra_args=("--admission-timeout", "3000")))
    with server as base:
        if args.bodies:
            latencies, problems, elapsed = asyncio.run(_bodies(base, args.bodies))
            print(_summary(f"/healthz during {args.bodies} concurrent 16 MiB bodies ({elapsed:.1f} s)",
                           latencies))
            if problems:
                print("PROBLEMS:", problems[:5])
                return 1
        if args.idle:
            print(_summary(f"/healthz with {args.idle} idle connections open",
                           asyncio.run(_idle(base, args.idle, args.probes))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
