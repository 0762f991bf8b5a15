"""`bleu-compat serve` stops cleanly on SIGTERM and SIGINT (issue 24's small ones): its worker
processes are shut down with the application, so nothing is printed after uvicorn's own
shutdown lines (no multiprocessing "leaked semaphore objects" warning, no traceback)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

import httpx
import pytest

from _server import REPO, _die_with_parent, _wait_healthy, free_port

CORPUS_URL = "/v1/tools/bleu-corpus-compute/versions/1.0.0/execute"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stop_signal_leaves_no_warning(sig: signal.Signals) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bleu_compat", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=_die_with_parent)
        try:
            assert _wait_healthy(proc, base)
            # a body over the process threshold (1 MiB): parsed in a worker process
            body = b'{"hypotheses":[["a"]],"references":[[["a"]]]}'
            body = body[:-1] + b" " * (2 * 2**20) + b"}"
            answer = httpx.post(base + CORPUS_URL, content=body,
                                headers={"content-type": "application/json"}, timeout=120)
            assert answer.status_code == 200, answer.text
            proc.send_signal(sig)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    assert "Finished server process" in text, text
    tail = text.split("Finished server process", 1)[1].split("\n", 1)[1]
    # nothing after uvicorn's last line but, for Ctrl-C, our one-line interruption notice
    assert tail.strip() == ("bleu-compat: interrupted" if sig == signal.SIGINT else ""), text
    assert "leaked" not in text and "Traceback" not in text, text
