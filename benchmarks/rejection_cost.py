"""What rejecting an invalid 16 MiB request costs against accepting a valid one of the same size (issue 24).

Usage::

    .venv/bin/python benchmarks/rejection_cost.py [--runs 5] [--interfaces inprocess,cli,http]

Bodies (bleu-corpus-compute, 16 MiB each; oracle_tests/test_server_resources.py's):
``valid`` is a valid request at the card's limits (1,000 segments, 50,000
tokens) padded with spaces to 16 MiB, the yardstick; the invalid ones are
the dense kinds (3.3 million tokens, 8 million integers where tokens belong,
5.6 million empty hypotheses, 8 million nulls, 5.6 million empty tokens: each
holds more ``,`` ``[`` ``{`` than any valid request, so it is refused unread,
``limit_exceeded``; parsed, the first would be over max_total_tokens and the
others schema errors) and sparse ones (the valid request with a bad member at
its end: parsed, then refused by the schema), and the densest bodies the
bound lets through to the parser (as many tokens, integers, empty hypotheses
or nulls as stay within ``max_separators()``, padded with spaces to 16 MiB).

Cost is CPU seconds (user + system), median over ``--runs``:

- ``inprocess``: ``bleu_compat.execute`` in this process (``time.process_time``);
- ``cli``: the whole ``bleu-compat run bleu-corpus-compute FILE`` process (``os.wait4``);
- ``http``: ``POST`` to ``bleu-compat serve``, the CPU the server's processes (the
  server and its workers) spent on the request (``/proc/<pid>/stat``).

Prints one row per body and interface: milliseconds and the ratio to ``valid``.
Not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "oracle_tests"))

from test_server_resources import (  # noqa: E402
    CORPUS_URL, EMPTIES_BODY, INTS_BODY, JSON, TOKENS_BODY, _fill, _valid_max_body,
)

SIZE = 16 * 2**20


def bodies() -> dict[str, bytes]:
    valid, _ = _valid_max_body()

    def pad(b: bytes) -> bytes:
        return b[:-1] + b" " * (SIZE - len(b)) + b[-1:]

    from bleu_compat.tools import max_separators

    def at_bound(prefix: bytes, item: bytes, suffix: bytes) -> bytes:
        # as many items as the separator bound lets through unread, padded to 16 MiB
        fixed = sum(prefix.count(c) + suffix.count(c) for c in (b",", b"[", b"{"))
        per = sum(item.count(c) for c in (b",", b"[", b"{")) + 1
        count = (max_separators() - fixed + 1) // per
        return pad(prefix + b",".join([item] * count) + suffix)

    return {
        "valid": pad(valid),
        "tokens at the bound (413)": at_bound(b'{"hypotheses":[[', b'"ab"', b']],"references":[[["a"]]]}'),
        "integers at the bound (400)": at_bound(b'{"hypotheses":[[', b"1", b']],"references":[[["a"]]]}'),
        "empty hyps at the bound (400)": at_bound(b'{"hypotheses":[', b"[]", b'],"references":[[["a"]]]}'),
        "nulls at the bound (400)": at_bound(b'{"hypotheses":[[', b"null", b']],"references":[[["a"]]]}'),
        "tokens (413, unread)": TOKENS_BODY,
        "integers (413, unread)": INTS_BODY,
        "empty hypotheses (413, unread)": EMPTIES_BODY,
        "nulls (413, unread)": _fill(b'{"hypotheses":[[', b"null", b']],"references":[[["a"]]]}'),
        "empty tokens (413, unread)": _fill(b'{"hypotheses":[[', b'""', b']],"references":[[["a"]]]}'),
        "valid + unknown member at the end": pad(valid[:-1] + b',"bogus":1}'),
        "valid + duplicate key at the end": pad(valid[:-1] + b',"hypotheses":[]}'),
        "valid + bad max_order at the end": pad(valid[:-1] + b',"max_order":"a"}'),
    }


def inprocess(body: bytes) -> float:
    from bleu_compat.errors import ToolError
    from bleu_compat.tools import execute

    started = time.process_time()
    try:
        execute("bleu-corpus-compute", body)
    except ToolError:
        pass
    return time.process_time() - started


def cli(path: str) -> float:
    proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", "run", "bleu-corpus-compute", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu(pid: int) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids = {pid}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) in pids or int(entry.name) == pid:
                pids.add(int(entry.name))
    for p in pids:  # the server and the processes it started (one level of children, then theirs)
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--interfaces", default="inprocess,cli,http")
    args = parser.parse_args()
    wanted = args.interfaces.split(",")
    kinds = bodies()
    results: dict[str, dict[str, float]] = {k: {} for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for i, (name, body) in enumerate(kinds.items()):
            paths[name] = os.path.join(tmp, f"{i}.json")
            Path(paths[name]).write_bytes(body)
        if "inprocess" in wanted:
            for name, body in kinds.items():
                inprocess(body)
                results[name]["inprocess"] = statistics.median(inprocess(body) for _ in range(args.runs))
        if "cli" in wanted:
            for name in kinds:
                results[name]["cli"] = statistics.median(cli(paths[name]) for _ in range(args.runs))
        if "http" in wanted:
            import httpx
            from _server import running_server
            from test_server_resources import _server_pid
            with running_server(extra_args=("--admission-timeout", "3000")) as base:
                pid = _server_pid(int(base.rsplit(":", 1)[1]))
                with httpx.Client(base_url=base, timeout=600) as client:
                    for name, body in kinds.items():
                        costs = []
                        for _ in range(args.runs + 1):
                            before = _tree_cpu(pid)
                            client.post(CORPUS_URL, content=body, headers=JSON)
                            time.sleep(0.2)  # the worker's accounting settles
                            costs.append(_tree_cpu(pid) - before)
                        results[name]["http"] = statistics.median(costs[1:])
    base = results["valid"]
    print(f"load average {os.getloadavg()[0]:.2f}; CPU ms (ratio to valid), median of {args.runs}")
    for name, row in results.items():
        print(f"  {name:36} " + "  ".join(
            f"{i} {1000 * row[i]:7.0f} ({row[i] / base[i]:5.2f}x)" for i in wanted if i in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
