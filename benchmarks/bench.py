"""Benchmark: bleu_compat against sacreBLEU and NLTK on the same tokens (issue 6).

Usage::

    .venv/bin/python benchmarks/bench.py [--json] [--quick] [--seed N] [--save PATH]

Rows (each measured in its own worker subprocess, so that peak memory is per
measurement; times are medians over repeated runs in that worker):

* ``wmt``: a WMT-size corpus (3,000 segments, 4 references, 5–45 tokens,
  Zipf-like vocabulary of 5,000 types). In one worker, repeats interleave
  ``bleu_compat.corpus_bleu`` (statistics + score), sacreBLEU
  ``BLEU(tokenize='none', smooth_method='none').corpus_score`` on the
  space-joined tokens and NLTK ``corpus_bleu`` on the token lists, so the
  three see the same load; ratios sacreBLEU/ours and NLTK/ours come from
  these medians. The three scores are compared (ULP distance) as a check
  that they measured the same thing.
* ``scale``: 1k, 10k, 100k and 1M segments with 1 reference (``--quick``
  skips 1M), ours only, streamed from files on disk through
  ``bleu_compat.stream.corpus_stats_files`` (what ``bleu-compat score``
  runs: reading and splitting in bulk, statistics block by block, score),
  so memory stays bounded.
* ``tool``: ``bleu_compat.execute('bleu-corpus-compute', request)`` on a
  request at the card's limits (1,000 segments, 50,000 tokens in hypotheses
  plus references), as a parsed dict and as JSON text.
* ``harness``: generated cases cross-checked per second per tool
  (``bleu_compat.harness.run.run_crosscheck``, one process, no shrinking),
  skipped with a note when the harness is not installed.

Peak memory: ``tracemalloc`` peak of one extra run of the measured call
(Python and numpy allocations made by that call), and the worker's
``ru_maxrss`` (the whole process: interpreter, libraries, corpus).

Corpora are generated from ``--seed`` with numpy's PCG64: a base sentence per
segment; each reference and the hypothesis substitute a share of its tokens
by Zipf draws and change its length by up to 3 tokens (within 5–45).
Tokens are then obtained as users obtain them, by ``str.split`` of the lines.

This script is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

VOCAB_SIZE = 5000
MIN_LEN, MAX_LEN = 5, 45
REF_SUBSTITUTION = 0.3
HYP_SUBSTITUTION = 0.45


# --- corpora -------------------------------------------------------------------

def vocabulary(seed: int) -> list[str]:
    """VOCAB_SIZE distinct lowercase words of 1–12 letters, shortest most frequent-ish."""
    rng = np.random.Generator(np.random.PCG64(seed))
    words: dict[str, None] = {}
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    while len(words) < VOCAB_SIZE:
        length = int(rng.integers(1, 13))
        words.setdefault("".join(rng.choice(letters, length)), None)
    return list(words)


def zipf_cdf() -> np.ndarray:
    """Cumulative Zipf (s = 1) probabilities over VOCAB_SIZE ranks."""
    weights = 1.0 / np.arange(1, VOCAB_SIZE + 1)
    return np.cumsum(weights / weights.sum())


def corpus_lines(
    seed: int, n_segments: int, n_refs: int, *, block: int = 100_000
) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Blocks of (hypothesis lines, reference lines per reference index)."""
    words = np.array(vocabulary(seed), dtype=object)
    cdf = zipf_cdf()
    rng = np.random.Generator(np.random.PCG64(seed + 1))

    def zipf(shape: tuple[int, ...]) -> np.ndarray:
        return np.minimum(np.searchsorted(cdf, rng.random(shape)), VOCAB_SIZE - 1)

    def derive(base: np.ndarray, base_len: np.ndarray, p_sub: float) -> list[str]:
        tokens = np.where(rng.random(base.shape) < p_sub, zipf(base.shape), base)
        lengths = np.clip(base_len + rng.integers(-3, 4, len(base_len)), MIN_LEN, MAX_LEN)
        text = words[tokens]
        return [" ".join(row[:n]) for row, n in zip(text, lengths.tolist())]

    for start in range(0, n_segments, block):
        size = min(block, n_segments - start)
        base = zipf((size, MAX_LEN))  # beyond a base length: fresh words to grow into
        base_len = rng.integers(MIN_LEN, MAX_LEN + 1, size)
        refs = [derive(base, base_len, REF_SUBSTITUTION) for _ in range(n_refs)]
        hyps = derive(base, base_len, HYP_SUBSTITUTION)
        yield hyps, refs


def in_memory_corpus(seed: int, n_segments: int, n_refs: int) -> tuple[list[str], list[list[str]]]:
    """Hypothesis lines and reference streams (sacreBLEU's layout: refs[k][i])."""
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in range(n_refs)]
    for h, r in corpus_lines(seed, n_segments, n_refs):
        hyps.extend(h)
        for k in range(n_refs):
            refs[k].extend(r[k])
    return hyps, refs


def write_corpus(seed: int, n_segments: int, directory: Path) -> tuple[Path, Path]:
    """Write a 1-reference corpus as two line-aligned files."""
    hyp_path = directory / f"hyp.{n_segments}.txt"
    ref_path = directory / f"ref.{n_segments}.txt"
    with hyp_path.open("w", encoding="utf-8") as h, ref_path.open("w", encoding="utf-8") as r:
        for hyps, refs in corpus_lines(seed, n_segments, 1):
            h.write("\n".join(hyps) + "\n")
            r.write("\n".join(refs[0]) + "\n")
    return hyp_path, ref_path


# --- timing helpers --------------------------------------------------------------

def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, result) of one call."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, time.process_time() - c0, result


def traced_peak(fn: Callable[[], Any]) -> int:
    """Peak bytes allocated (tracemalloc) during one call."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def maxrss_bytes() -> int:
    """This process's peak resident set size in bytes.

    Linux: ``VmHWM`` of /proc/self/status, the peak of this program's own
    memory. ``ru_maxrss`` is not used there: after exec it still holds the
    parent's resident size at fork (the parent here holds the generated
    corpora), so a small worker would report the parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def summary(walls: list[float], cpus: list[float]) -> dict[str, Any]:
    return {
        "median_s": statistics.median(walls),
        "cpu_median_s": statistics.median(cpus),
        "runs": len(walls),
        "min_s": min(walls),
        "max_s": max(walls),
    }


# --- workers (run in subprocesses) -------------------------------------------------

def worker_wmt(seed: int, repeats: int) -> dict[str, Any]:
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
    from sacrebleu.metrics import BLEU

    from bleu_compat import corpus_bleu
    from bleu_compat.ulp import ulp_distance

    hyp_lines, ref_streams = in_memory_corpus(seed, 3000, 4)
    hyps = [line.split() for line in hyp_lines]
    refs = [[stream[i].split() for stream in ref_streams] for i in range(len(hyp_lines))]
    n_tokens = sum(map(len, hyps)) + sum(len(r) for rs in refs for r in rs)
    sacre = BLEU(tokenize="none", smooth_method="none")
    calls: dict[str, Callable[[], Any]] = {
        "ours": lambda: corpus_bleu(hyps, refs),
        "sacrebleu": lambda: sacre.corpus_score(hyp_lines, ref_streams),
        "nltk": lambda: nltk_corpus_bleu(refs, hyps),
    }
    walls: dict[str, list[float]] = {k: [] for k in calls}
    cpus: dict[str, list[float]] = {k: [] for k in calls}
    results: dict[str, Any] = {}
    for _ in range(repeats):  # interleaved: the three share the same load
        for name, fn in calls.items():
            wall, cpu, results[name] = timed(fn)
            walls[name].append(wall)
            cpus[name].append(cpu)
    ours = results["ours"]
    scores = {
        "ours": ours.bleu,
        "sacrebleu": results["sacrebleu"].score / 100,
        "nltk": float(results["nltk"]),
    }
    out: dict[str, Any] = {
        "segments": 3000, "references": 4, "tokens": n_tokens,
        "scores": scores,
        "ulp_vs_ours": {k: ulp_distance(v, ours.bleu) for k, v in scores.items() if k != "ours"},
        "matches": list(ours.stats.matches), "totals": list(ours.stats.totals),
        "sacrebleu_counts": list(results["sacrebleu"].counts),
        "libraries": {},
    }
    for name, fn in calls.items():
        out["libraries"][name] = {**summary(walls[name], cpus[name]), "tracemalloc_peak": traced_peak(fn)}
    out["maxrss"] = maxrss_bytes()
    return out


def worker_scale(hyp_path: str, ref_path: str, repeats: int) -> dict[str, Any]:
    from bleu_compat.bleu import bleu_from_stats
    from bleu_compat.stream import corpus_stats_files

    def run() -> Any:
        return bleu_from_stats(corpus_stats_files(hyp_path, [ref_path]))

    walls, cpus = [], []
    result = None
    for _ in range(repeats):
        wall, cpu, result = timed(run)
        walls.append(wall)
        cpus.append(cpu)
    segments = sum(1 for _ in open(hyp_path, encoding="utf-8"))
    tokens = result.stats.hyp_len + sum(len(line.split()) for line in open(ref_path, encoding="utf-8"))
    out = {**summary(walls, cpus), "segments": segments, "tokens": tokens, "bleu": result.bleu}
    out["maxrss"] = maxrss_bytes()  # before tracemalloc's own bookkeeping
    out["tracemalloc_peak"] = traced_peak(run) if segments <= 100_000 else None
    return out


def limit_request(seed: int) -> dict[str, Any]:
    """1,000 segments x (10 hypothesis + 4 x 10 reference tokens) = 50,000 tokens."""
    hyp_lines, ref_streams = in_memory_corpus(seed, 1000, 4)

    def ten(line: str) -> list[str]:
        tokens = line.split()
        return (tokens * 10)[:10]

    request = {
        "hypotheses": [ten(h) for h in hyp_lines],
        "references": [[ten(s[i]) for s in ref_streams] for i in range(1000)],
    }
    assert sum(map(len, request["hypotheses"])) + sum(
        len(r) for rs in request["references"] for r in rs
    ) == 50_000
    return json.loads(json.dumps(request))  # fresh strings, as from a parser


def worker_tool(seed: int, repeats: int) -> dict[str, Any]:
    from bleu_compat import execute

    request = limit_request(seed)
    text = json.dumps(request)
    out: dict[str, Any] = {"segments": 1000, "tokens": 50_000, "request_bytes": len(text.encode())}
    for name, payload in (("dict", request), ("json_text", text)):
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu, result = timed(lambda: execute("bleu-corpus-compute", payload))
            walls.append(wall)
            cpus.append(cpu)
        out[name] = {**summary(walls, cpus),
                     "tracemalloc_peak": traced_peak(lambda: execute("bleu-corpus-compute", payload))}
    out["bleu"] = result["bleu"]
    out["maxrss"] = maxrss_bytes()
    return out


def worker_harness(seed: int, quick: bool) -> dict[str, Any]:
    try:
        from bleu_compat.harness.run import run_crosscheck
    except ImportError as exc:
        return {"skipped": f"bleu_compat.harness has no crosscheck runner yet ({exc})"}
    from bleu_compat.tools import TOOL_IDS

    def crosscheck(tool_id: str, count: int) -> Any:
        # one process, generated cases only, no shrinking: the per-case cost of
        # generating a request, running ours + every library mode, comparing.
        return run_crosscheck(seed=seed, cases={tool_id: count}, real_sets=(), workers=1,
                              shrink_unexpected=False)

    counts = {"bleu-corpus-compute": 50 if quick else 200}
    out: dict[str, Any] = {"tools": {}}
    for tool_id in TOOL_IDS:
        count = counts.get(tool_id, 200 if quick else 1000)
        crosscheck(tool_id, 2)  # warm-up: imports, caches
        wall, cpu, _ = timed(lambda: crosscheck(tool_id, count))
        out["tools"][tool_id] = {"cases": count, "wall_s": wall, "cpu_s": cpu, "cases_per_s": count / wall}
    out["maxrss"] = maxrss_bytes()
    return out


WORKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "wmt": worker_wmt, "scale": worker_scale, "tool": worker_tool, "harness": worker_harness,
}


def run_worker(name: str, *args: Any) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; returns its JSON result."""
    cmd = [sys.executable, __file__, "--worker", name, json.dumps(args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {name} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- report -------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    import nltk
    import sacrebleu

    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(),
        "numpy": np.__version__, "sacrebleu": sacrebleu.__version__, "nltk": nltk.__version__,
        "loadavg_start": os.getloadavg(),
    }


def mib(value: int | None) -> str:
    return "—" if value is None else f"{value / 2**20:.1f}"


def render(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    m = report["machine"]
    console.print(
        f"[bold]bleu_compat benchmark[/] seed={report['seed']} quick={report['quick']}  "
        f"{m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, numpy {m['numpy']}, "
        f"sacreBLEU {m['sacrebleu']}, NLTK {m['nltk']}; load average "
        f"{m['loadavg_start'][0]:.2f} → {report['loadavg_end'][0]:.2f}"
    )
    wmt = report["wmt"]
    table = Table(title=f"WMT-size: 3,000 segments x 4 references, {wmt['tokens']:,} tokens")
    for col in ("library", "median wall ms", "median CPU ms", "runs", "ns/token",
                "x ours (wall)", "x ours (CPU)", "tracemalloc peak MiB", "BLEU (0–1)"):
        table.add_column(col, justify="right")
    ours = wmt["libraries"]["ours"]
    for name, lib in wmt["libraries"].items():
        table.add_row(
            name, f"{lib['median_s'] * 1e3:.1f}", f"{lib['cpu_median_s'] * 1e3:.1f}", str(lib["runs"]),
            f"{lib['median_s'] / wmt['tokens'] * 1e9:.0f}",
            f"{lib['median_s'] / ours['median_s']:.1f}", f"{lib['cpu_median_s'] / ours['cpu_median_s']:.1f}",
            mib(lib["tracemalloc_peak"]), repr(wmt["scores"][name]),
        )
    console.print(table)
    console.print(
        f"scores vs ours in ULPs: {wmt['ulp_vs_ours']}; worker peak RSS {mib(wmt['maxrss'])} MiB"
    )

    table = Table(title="Scale series (ours, 1 reference, streamed from files: read + split + statistics + score)")
    for col in ("segments", "tokens", "runs", "median wall s", "median CPU s", "ns/token (wall)",
                "ns/token (CPU)", "vs 10k per token (CPU)", "tracemalloc peak MiB", "peak RSS MiB"):
        table.add_column(col, justify="right")
    base = next((r for r in report["scale"] if r["segments"] == 10_000), None)
    for row in report["scale"]:
        per_cpu = row["cpu_median_s"] / row["tokens"]
        rel = f"{per_cpu / (base['cpu_median_s'] / base['tokens']):.2f}" if base else "—"
        table.add_row(
            f"{row['segments']:,}", f"{row['tokens']:,}", str(row["runs"]), f"{row['median_s']:.3f}",
            f"{row['cpu_median_s']:.3f}", f"{row['median_s'] / row['tokens'] * 1e9:.0f}",
            f"{per_cpu * 1e9:.0f}", rel, mib(row["tracemalloc_peak"]), mib(row["maxrss"]),
        )
    console.print(table)

    tool = report["tool"]
    table = Table(title="Tool path: execute('bleu-corpus-compute') at the card limits "
                        f"(1,000 segments, 50,000 tokens, {tool['request_bytes']:,} bytes of JSON)")
    for col in ("request as", "median wall ms", "median CPU ms", "runs", "min ms", "tracemalloc peak MiB"):
        table.add_column(col, justify="right")
    for name in ("dict", "json_text"):
        row = tool[name]
        table.add_row(name, f"{row['median_s'] * 1e3:.1f}", f"{row['cpu_median_s'] * 1e3:.1f}",
                      str(row["runs"]), f"{row['min_s'] * 1e3:.1f}", mib(row["tracemalloc_peak"]))
    console.print(table)
    harness = report["harness"]
    if "skipped" in harness:
        console.print(f"Harness throughput: skipped — {harness['skipped']}")
        return
    table = Table(title="Harness: generated cases cross-checked (ours, sacreBLEU and NLTK in every mode, "
                        "field-by-field comparison), one process")
    for col in ("tool", "cases", "wall s", "CPU s", "cases/s"):
        table.add_column(col, justify="right")
    for tool_id, row in harness["tools"].items():
        table.add_row(tool_id, str(row["cases"]), f"{row['wall_s']:.2f}", f"{row['cpu_s']:.2f}",
                      f"{row['cases_per_s']:.0f}")
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--quick", action="store_true", help="skip the 1M-segment row, fewer repeats")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--save", metavar="PATH", help="also write the JSON report to PATH")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="?", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    if ns.worker:
        print(json.dumps(WORKERS[ns.worker](*json.loads(ns.args))))
        return 0

    report: dict[str, Any] = {"seed": ns.seed, "quick": ns.quick, "machine": machine()}
    log = (lambda msg: None) if ns.json else (lambda msg: print(msg, file=sys.stderr, flush=True))
    log("WMT-size corpus: ours, sacreBLEU, NLTK (interleaved)…")
    report["wmt"] = run_worker("wmt", ns.seed, 5 if ns.quick else 7)
    sizes = [1_000, 10_000, 100_000] + ([] if ns.quick else [1_000_000])
    repeats = {1_000: 15, 10_000: 9, 100_000: 5, 1_000_000: 3}
    report["scale"] = []
    with tempfile.TemporaryDirectory(prefix="bleu_bench_") as tmp:
        for size in sizes:
            log(f"scale: writing {size:,} segments…")
            hyp_path, ref_path = write_corpus(ns.seed, size, Path(tmp))
            log(f"scale: {size:,} segments…")
            report["scale"].append(run_worker("scale", str(hyp_path), str(ref_path), repeats[size]))
    log("tool path…")
    report["tool"] = run_worker("tool", ns.seed, 11 if ns.quick else 21)
    log("harness…")
    report["harness"] = run_worker("harness", ns.seed, ns.quick)
    report["loadavg_end"] = os.getloadavg()
    wmt = report["wmt"]["libraries"]
    report["ratios"] = {
        "sacrebleu_over_ours": wmt["sacrebleu"]["median_s"] / wmt["ours"]["median_s"],
        "nltk_over_ours": wmt["nltk"]["median_s"] / wmt["ours"]["median_s"],
        "sacrebleu_over_ours_cpu": wmt["sacrebleu"]["cpu_median_s"] / wmt["ours"]["cpu_median_s"],
        "nltk_over_ours_cpu": wmt["nltk"]["cpu_median_s"] / wmt["ours"]["cpu_median_s"],
    }
    if ns.save:
        Path(ns.save).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if ns.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
