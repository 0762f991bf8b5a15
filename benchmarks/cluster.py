"""Throughput of crosscheck and score on Dask LocalClusters (issue 16), as whole processes.

    python benchmarks/cluster.py crosscheck [--cases N]       # cases/s: --workers 1, local:1, local:2
    python benchmarks/cluster.py score [--segments N] [--shards K] [--dir /tmp/...]

``crosscheck`` runs ``bleu-compat crosscheck --cases N --no-real --invalid 0``
(3N generated cases) with ``--workers 1``, ``--cluster local:1`` and
``--cluster local:2`` and checks that the three crosscheck.json are the same
bytes. ``score`` writes a sharded corpus (K aligned shards of a hypothesis
and one reference, N segments in all; random words, 0-30 tokens a line)
under ``--dir`` (default /tmp/bleu-compat-shards), the concatenated files
beside it, and runs ``score --json`` on the concatenation and
``card-score --cluster local:1|local:2 --json`` on the globs: the outputs must be
equal; tokens/s counts hypothesis plus reference tokens. Wall times include
each process's start (and the LocalCluster's). The machine is shared: the
load average is printed with every figure.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLEU = [sys.executable, "-m", "bleu_compat"]


def _run(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}\n{proc.stderr}")
    return wall, proc.stdout


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def crosscheck(cases: int) -> None:
    outs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in (("workers 1", ["--workers", "1"]), ("local:1", ["--cluster", "local:1"]),
                            ("local:2", ["--cluster", "local:2"])):
            out = Path(tmp) / name.replace(" ", "").replace(":", "")
            wall, _ = _run([*BLEU, "crosscheck", "--cases", str(cases), "--no-real", "--invalid", "0",
                            "--no-html", "--no-progress", "--out", str(out), *extra])
            outs[name] = (out / "crosscheck.json").read_bytes()
            print(f"crosscheck {3 * cases} cases, {name:9}: {wall:6.1f} s wall, "
                  f"{3 * cases / wall:7.0f} cases/s ({_load()})", flush=True)
    assert len(set(outs.values())) == 1, "crosscheck.json differs"
    print("crosscheck.json: the same bytes in all three runs")


def _write_corpus(directory: Path, segments: int, shards: int) -> int:
    rng = random.Random(2026)
    words = [f"w{i}" for i in range(2000)] + ["the", "a", "of", ",", "."] * 200
    directory.mkdir(parents=True, exist_ok=True)
    per = -(-segments // shards)
    tokens = 0
    whole = {name: open(directory / f"{name}.all", "w", encoding="utf-8") for name in ("hyp", "ref")}
    try:
        for k in range(shards):
            n = min(per, segments - k * per)
            for name in ("hyp", "ref"):
                lines = []
                for _ in range(n):
                    length = rng.randint(0, 30)
                    tokens += length
                    lines.append(" ".join(rng.choices(words, k=length)) + "\n")
                text = "".join(lines)
                (directory / f"{name}.{k:03d}.txt").write_text(text, encoding="utf-8")
                whole[name].write(text)
    finally:
        for handle in whole.values():
            handle.close()
    return tokens


def score(segments: int, shards: int, directory: Path) -> None:
    tokens = _write_corpus(directory, segments, shards)
    print(f"corpus: {segments} segments in {shards} shards, {tokens} tokens (hyp + ref), {directory}")
    wall, single = _run([*BLEU, "card-score", str(directory / "hyp.all"), str(directory / "ref.all"), "--json"])
    print(f"score (one process)       : {wall:6.1f} s wall, {tokens / wall:10.0f} tokens/s ({_load()})",
          flush=True)
    for spec in ("local:1", "local:2"):
        wall, out = _run([*BLEU, "card-score", "--cluster", spec, str(directory / "hyp.*.txt"),
                          str(directory / "ref.*.txt"), "--json"])
        assert out == single, f"score --cluster {spec} differs:\n{out}\n{single}"
        print(f"score --cluster {spec:9}: {wall:6.1f} s wall, {tokens / wall:10.0f} tokens/s "
              f"({_load()}); output identical", flush=True)
    print(single)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("crosscheck")
    c.add_argument("--cases", type=int, default=1000, help="generated cases per tool")
    s = sub.add_parser("score")
    s.add_argument("--segments", type=int, default=1_000_000)
    s.add_argument("--shards", type=int, default=8)
    s.add_argument("--dir", type=Path, default=Path("/tmp/bleu-compat-shards"))
    args = parser.parse_args()
    if args.what == "crosscheck":
        crosscheck(args.cases)
    else:
        score(args.segments, args.shards, args.dir)


if __name__ == "__main__":
    main()
