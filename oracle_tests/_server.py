"""Test helper: run ``python -m bleu_compat serve`` (uvicorn) on a free loopback port.

``running_server()`` is a context manager: it starts the real server as a
subprocess, waits until ``GET /healthz`` answers (up to ``STARTUP_TIMEOUT``
seconds, generous for a loaded 2-core machine), yields its base URL, and
always stops it (SIGTERM, then SIGKILL) on exit, even when a test failed.
On Linux the child also gets ``PR_SET_PDEATHSIG`` so that it dies with the
test process if pytest itself is killed.

The test modules wrap it in a module-scoped fixture; each module gets its
own server, so the load test runs against a fresh process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import httpx

REPO = Path(__file__).resolve().parent.parent
CARDS_DIR = REPO / "bleu_compat" / "cards"
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0

#: How long a test client keeps an idle connection for reuse. It must be well
#: below the server's keep-alive timeout (5 s, ``bleu_compat.server``), or the
#: client may send a request on a connection at the very moment the server
#: closes it for idleness (the server's close crosses the request: RST, httpx
#: ``ReadError``, and a POST is not retried). httpx's default expiry is 5 s,
#: equal to the server's: that race made test_server_load fail about one run in
#: three on a loaded 2-core machine (issue 11).
CLIENT_KEEPALIVE_EXPIRY = 1.0


def load_cards() -> list[dict[str, Any]]:
    """The cards as JSON files (the contract's copies shipped as package data)."""
    return [json.loads(p.read_text("utf-8")) for p in sorted(CARDS_DIR.glob("*.json"))]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except Exception:  # not glibc Linux: the fixture's finally still stops it
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_TIMEOUT)


@contextlib.contextmanager
def running_server(attempts: int = 3, extra_args: tuple[str, ...] = ()) -> Iterator[str]:
    """Start the server, yield ``http://127.0.0.1:<port>``, stop it afterwards.

    ``extra_args`` are passed to ``bleu-compat serve`` (e.g. shorter timeouts).

    Raises:
        RuntimeError: the server did not answer ``/healthz`` in time (the
            message includes its log).
    """
    last_log = ""
    for _ in range(attempts):  # another process may grab the port between probe and bind
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "bleu_compat", "serve", "--host", "127.0.0.1",
                 "--port", str(port), "--log-level", "warning", *extra_args],
                cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
            try:
                if _wait_healthy(proc, base):
                    yield base
                    return
            finally:
                _stop(proc)
                log.seek(0)
                last_log = log.read().decode("utf-8", "replace")
    raise RuntimeError(f"bleu-compat serve did not become healthy; its log:\n{last_log}")


def _wait_healthy(proc: subprocess.Popen[bytes], base: str) -> bool:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            if httpx.get(f"{base}/healthz", timeout=2.0).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    return False
