"""Whole-process benchmark: ``bleu-compat score`` against the ``sacrebleu`` command and an NLTK script (issue 12).

Usage::

    .venv/bin/python benchmarks/whole_process.py [--runs N] [--json] [--save PATH]
        [--million] [--million-sacrebleu]

What a user runs, timed from outside as whole processes (start-up, reading,
tokenizing, statistics, printing): each pair of commands is run in turn,
A B A B ... (one warm-up each first), on the same files; a figure is the
median over the runs, and a ratio is the median of the pairwise ratios B/A
(so that it holds when the machine's speed drifts during the run). Per run:
wall time, CPU time (user + system) and peak resident memory of the child
(``os.wait4``'s ``ru_maxrss``; it includes the resident size of this
script at fork, about 15 MiB, which is why the corpora are generated in a
child process). The 1-minute load average is printed with every row: the
machine may be shared. The commands run with bytecode caches, as installed
packages do (``CHILD_ENV``: PYTHONDONTWRITEBYTECODE is removed from their
environment).

Rows:

* ``none`` and ``13a``: 8,000 segments x 4 references, generated from
  ``--seed`` with bench.py's generator (Zipf-like vocabulary, 5-45 tokens),
  with punctuation attached to about one word in eight so that 13a has work
  to do. ``bleu-compat score REF0..REF3 -i HYP --tokenize T -s none -b -w 2``
  against ``sacrebleu REF0..REF3 -i HYP -tok T -s none -m bleu -b -w 2`` and against
  ``python benchmarks/nltk_score.py HYP REF0..REF3 --tokenize T`` (read,
  split, NLTK ``corpus_bleu``). The three BLEU values are checked equal to
  two decimals.
* ``wmt17`` (issue 20): the bundled WMT17 en-de corpus (3,004 segments, one
  system, one reference), default tokenizer (13a), as a user types it:
  ``bleu-compat score REF -i SYS -b`` against ``sacrebleu REF -i SYS -b``;
  the two printed scores are checked equal.
* ``tokens`` (issue 20): tokens per second of the 13a tokenizers alone, in
  one process (CPU time, best of 5): our whole-block C path
  (``bleu_compat.tokenizers.block.tokenize_block``), our reference (one line
  at a time), and sacreBLEU's ``Tokenizer13a`` (its BLEU's ``rstrip`` and
  tokenizer per line, as its ``corpus_score`` runs it), on the same lines:
  the 8,000 x 4 corpus and WMT17; the token lists are checked equal.
* ``start-up``: ``bleu-compat --help`` and ``bleu-compat score`` on a
  one-line corpus, alone (no pair): median wall.
* ``--million``: 1,000,000 segments x 1 reference (bench.py's scale corpus),
  ``card-score HYP REF``, ``score REF -i HYP --tokenize none``, ``score REF -i
  HYP`` (that form's default, 13a, sacreBLEU's: peak RSS must stay under
  1 GiB, streaming) and ``card-score HYP REF --segments``, 3 runs each; with
  ``--million-sacrebleu`` also the ``sacrebleu`` command once on the same
  files (about 2 minutes and several GiB), for the ratio.

Files are written under a temporary directory and removed afterwards. This
script is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

BIN = Path(sys.executable).parent
PUNCTUATION = [",", ".", "!", "?", ";", ":", "'s", ")", "\""]


#: The children's environment: this one without PYTHONDONTWRITEBYTECODE, so
#: that every command runs from bytecode caches as an installed package does
#: (pip compiles a wheel's modules at install; an editable install writes
#: them at first import, here the warm-up). With the variable set, as in this
#: project's sessions, sacreBLEU, NLTK and numpy still load the caches pip
#: wrote while bleu_compat (editable) is compiled from source at every start
#: (about 18 ms of CPU), which would measure a set-up no user has.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str], cwd: Path) -> dict[str, Any]:
    """One whole-process run: wall, CPU (user + sys) and peak RSS of the child; its stdout."""
    out = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, env=CHILD_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    text = out.read().decode("utf-8", "replace")
    out.close()
    return {
        "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
        "maxrss_mib": usage.ru_maxrss / 1024, "exit": proc.returncode, "stdout": text,
    }


def paired(a: list[str], b: list[str], cwd: Path, runs: int) -> dict[str, Any]:
    """A and B in turn, one warm-up each; medians of each and of the pairwise ratios B/A."""
    run_once(a, cwd)
    run_once(b, cwd)
    load = os.getloadavg()[0]
    ra, rb = [], []
    for _ in range(runs):
        ra.append(run_once(a, cwd))
        rb.append(run_once(b, cwd))
    return {
        "a": summary(ra), "b": summary(rb),
        "ratio_wall": statistics.median(y["wall"] / x["wall"] for x, y in zip(ra, rb)),
        "ratio_cpu": statistics.median(y["cpu"] / x["cpu"] for x, y in zip(ra, rb)),
        "load_before": load, "load_after": os.getloadavg()[0],
        "stdout_a": ra[-1]["stdout"], "stdout_b": rb[-1]["stdout"],
    }


def alone(a: list[str], cwd: Path, runs: int) -> dict[str, Any]:
    run_once(a, cwd)
    load = os.getloadavg()[0]
    results = [run_once(a, cwd) for _ in range(runs)]
    return {"a": summary(results), "load_before": load, "load_after": os.getloadavg()[0],
            "stdout_a": results[-1]["stdout"]}


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    walls = [r["wall"] for r in results]
    return {
        "wall_median": statistics.median(walls), "wall_min": min(walls), "wall_max": max(walls),
        "cpu_median": statistics.median(r["cpu"] for r in results),
        "maxrss_mib": max(r["maxrss_mib"] for r in results),
        "exits": sorted({r["exit"] for r in results}), "runs": len(results),
    }


def write_corpus(directory: Path, seed: int, n_segments: int = 8000, n_refs: int = 4) -> None:
    """HYP and REF0..REF{n_refs-1} from bench.py's generator, with punctuation attached.

    Run in a child process (``--write-corpus``): the parent stays small, since
    a child's peak RSS counts the parent's pages it was forked with.
    """
    import random

    sys.path.insert(0, str(HERE))
    import bench

    rnd = random.Random(seed)

    def punctuate(line: str) -> str:
        words = line.split(" ")
        return " ".join(w + rnd.choice(PUNCTUATION) if rnd.random() < 0.125 else w for w in words)

    hyps, refs = bench.in_memory_corpus(seed, n_segments, n_refs)
    (directory / "hyp.txt").write_text("".join(punctuate(x) + "\n" for x in hyps), "utf-8")
    for k, stream in enumerate(refs):
        (directory / f"ref{k}.txt").write_text("".join(punctuate(x) + "\n" for x in stream), "utf-8")


def bleu_of(text: str) -> str | None:
    """BLEU to two decimals from ``BLEU = 12.34, ...`` or sacrebleu -b -w 2's ``12.34``."""
    match = re.search(r"^(?:BLEU = )?(\d+\.\d\d)\b", text.strip())
    return match.group(1) if match else None


WMT17 = HERE.parent / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"


def tokens_per_second(directory: Path) -> dict[str, Any]:
    """13a tokens per second, in this process: our C block path, our reference, sacreBLEU's.

    CPU time (``time.process_time``), best of 5 runs of each over the same lines (every
    file of ``directory``, then WMT17); the three token lists are checked equal first.
    """
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from bleu_compat.tokenizers import get_tokenizer
    from bleu_compat.tokenizers.block import kernel, tokenize_block

    out: dict[str, Any] = {"kernel": kernel() is not None}
    for label, files in (("8,000 x 4", sorted(directory.glob("*.txt"))),
                         ("WMT17 en-de", sorted(WMT17.glob("*.txt")))):
        blocks = [f.read_bytes() for f in files]
        lines = [line for b in blocks for line in b.decode("utf-8").split("\n")[:-1]]
        theirs_tok = Tokenizer13a()
        reference = get_tokenizer("13a", release=None)

        def ours_fast() -> list[bytes]:
            return [tokenize_block(b, "13a") for b in blocks]

        def ours_reference() -> list[list[str]]:
            return [reference(line) for line in lines]

        def sacrebleu() -> list[list[str]]:
            # its two lru_caches (13a's and the regex part's) would make later runs free; a
            # run still meets them, as its BLEU does (a line seen before is a cache hit)
            theirs_tok.__call__.cache_clear()
            theirs_tok._post_tokenizer.__call__.cache_clear()
            return [theirs_tok(line.rstrip()).split() for line in lines]

        expected = sacrebleu()
        fast = [line.split() for b in ours_fast() for line in b.decode("utf-8").split("\n")[:-1]]
        same = fast == expected and ours_reference() == expected
        n_tokens = sum(map(len, expected))
        row: dict[str, Any] = {"lines": len(lines), "tokens": n_tokens, "same_tokens": same}
        for name, fn in (("ours_c_block", ours_fast), ("ours_reference", ours_reference),
                         ("sacrebleu_13a", sacrebleu)):
            best = min(_cpu(fn) for _ in range(5))
            row[name] = {"cpu_s": best, "tokens_per_s": n_tokens / best}
        out[label] = row
    return out


def _cpu(fn: Any) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def write_million(directory: Path, seed: int) -> None:
    sys.path.insert(0, str(HERE))
    import bench

    bench.write_corpus(seed, 1_000_000, directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="counted runs per command (default 7)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--save", metavar="PATH", help="also write the JSON report to PATH")
    parser.add_argument("--million", action="store_true", help="add the 1M-segment streaming rows")
    parser.add_argument("--million-sacrebleu", action="store_true",
                        help="with --million, run the sacrebleu command once on the same files")
    parser.add_argument("--only", choices=("none", "13a", "wmt17", "tokens", "startup"),
                        action="append", help="run only these rows (repeatable)")
    parser.add_argument("--tokens-per-second", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--write-corpus", nargs=2, metavar=("DIR", "WHICH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tokens_per_second:
        print(json.dumps(tokens_per_second(Path(args.tokens_per_second))))
        return 0
    if args.write_corpus:
        directory, which = Path(args.write_corpus[0]), args.write_corpus[1]
        (write_million if which == "million" else write_corpus)(directory, args.seed)
        return 0

    ours = str(BIN / "bleu-compat")
    sacre = str(BIN / "sacrebleu")
    py = sys.executable
    report: dict[str, Any] = {"machine": {
        "nproc": os.cpu_count(), "python": platform.python_version(), "runs": args.runs,
        "bytecode_caches": "written and used (PYTHONDONTWRITEBYTECODE unset for the commands)",
    }, "rows": {}}
    work = Path(tempfile.mkdtemp(prefix="bleu-compat-bench-"))
    try:
        subprocess.run([py, __file__, "--seed", str(args.seed), "--write-corpus", str(work), "8000x4"],
                       check=True)
        refs = [f"ref{k}.txt" for k in range(4)]
        for tok in ("none", "13a"):
            if args.only and tok not in args.only:
                continue
            # the same settings and output as the sacrebleu row (score REF -i SYS has
            # sacreBLEU's defaults: exp smoothing, width 1)
            a = [ours, "score", *refs, "-i", "hyp.txt", "--tokenize", tok, "-s", "none", "-b",
                 "-w", "2"]
            vs_sacre = paired(a, [sacre, *refs, "-i", "hyp.txt", "-tok", tok, "-s", "none",
                                  "-m", "bleu", "-b", "-w", "2"], work, args.runs)
            vs_nltk = paired(a, [py, str(HERE / "nltk_score.py"), "hyp.txt", *refs,
                                 "--tokenize", tok], work, args.runs)
            scores = {bleu_of(vs_sacre["stdout_a"]), bleu_of(vs_sacre["stdout_b"]),
                      bleu_of(vs_nltk["stdout_b"])}
            report["rows"][tok] = {"sacrebleu": vs_sacre, "nltk": vs_nltk,
                                   "same_bleu_2dp": len(scores) == 1, "bleu": sorted(map(str, scores))}
        if not args.only or "wmt17" in args.only:
            pair = paired([ours, "score", "ref.A.txt", "-i", "sys.uedin-nmt.4722.txt", "-b"],
                          [sacre, "ref.A.txt", "-i", "sys.uedin-nmt.4722.txt", "-b"], WMT17, args.runs)
            pair["same_bleu"] = pair["stdout_a"].strip() == pair["stdout_b"].strip() != ""
            report["rows"]["wmt17"] = pair
        if not args.only or "tokens" in args.only:
            proc = subprocess.run([py, __file__, "--tokens-per-second", str(work)], check=True,
                                  capture_output=True, text=True, env=CHILD_ENV)
            report["rows"]["tokens"] = json.loads(proc.stdout)
        if not args.only or "startup" in args.only:
            (work / "one.hyp").write_text("the cat sat on the mat\n", "utf-8")
            (work / "one.ref").write_text("the cat is on the mat\n", "utf-8")
            report["rows"]["startup"] = {
                "help": alone([ours, "--help"], work, args.runs),
                "score_one_line": alone([ours, "score", "one.ref", "-i", "one.hyp"], work, args.runs),
                "python_itself": alone([py, "-c", "pass"], work, args.runs),
            }
        if args.million:
            big = work / "million"
            big.mkdir()
            subprocess.run([py, __file__, "--seed", str(args.seed), "--write-corpus", str(big),
                            "million"], check=True)
            hyp, ref = big / "hyp.1000000.txt", big / "ref.1000000.txt"
            rows = {}
            for name, cmd in {
                "card-score HYP REF": [ours, "card-score", hyp.name, ref.name],
                # -i's form defaults to 13a (as sacreBLEU): name none, as the sacrebleu row does
                "score REF -i HYP --tokenize none": [ours, "score", ref.name, "-i", hyp.name,
                                                     "--tokenize", "none"],
                "score REF -i HYP (13a)": [ours, "score", ref.name, "-i", hyp.name],
                "card-score HYP REF --segments": [ours, "card-score", hyp.name, ref.name,
                                                  "--segments", str(big / "segments.jsonl")],
            }.items():
                rows[name] = alone(cmd, big, 3)
            if args.million_sacrebleu:
                rows["sacrebleu"] = alone([sacre, ref.name, "-i", hyp.name, "-tok", "none", "-s",
                                           "none", "-m", "bleu", "-b", "-w", "2"], big, 1)
            report["rows"]["million"] = rows
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for row in report["rows"].values():  # the printed outputs are for the checks only
        row.pop("stdout_a", None)
        row.pop("stdout_b", None)
        for part in row.values() if isinstance(row, dict) else []:
            if isinstance(part, dict):
                part.pop("stdout_a", None)
                part.pop("stdout_b", None)
    if args.save:
        Path(args.save).write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    return 0


def render(report: dict[str, Any]) -> None:
    rows = report["rows"]
    print(f"whole process, {report['machine']['runs']} runs per command after 1 warm-up, "
          f"{report['machine']['nproc']} CPUs, Python {report['machine']['python']}")
    print("| corpus | command | median wall | CPU | peak RSS | ratio (median of pairs, wall) | load |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for tok in ("none", "13a"):
        if tok not in rows:
            continue
        for lib, label in (("sacrebleu", "sacrebleu command"), ("nltk", "NLTK script")):
            pair = rows[tok][lib]
            a, b = pair["a"], pair["b"]
            load = f"{pair['load_before']:.2f}-{pair['load_after']:.2f}"
            print(f"| 8,000 x 4, {tok} | bleu-compat score | {a['wall_median']:.3f} s | "
                  f"{a['cpu_median']:.3f} s | {a['maxrss_mib']:.0f} MiB | | {load} |")
            print(f"| 8,000 x 4, {tok} | {label} | {b['wall_median']:.3f} s | "
                  f"{b['cpu_median']:.3f} s | {b['maxrss_mib']:.0f} MiB | "
                  f"**{pair['ratio_wall']:.1f}x** (CPU {pair['ratio_cpu']:.1f}x) | {load} |")
        if not rows[tok]["same_bleu_2dp"]:
            print(f"| 8,000 x 4, {tok} | WARNING: the BLEU values differ: {rows[tok]['bleu']} | | | | | |")
    if "wmt17" in rows:
        pair = rows["wmt17"]
        a, b = pair["a"], pair["b"]
        load = f"{pair['load_before']:.2f}-{pair['load_after']:.2f}"
        print(f"| WMT17 en-de, 13a | `bleu-compat score REF -i SYS -b` | {a['wall_median']:.3f} s | "
              f"{a['cpu_median']:.3f} s | {a['maxrss_mib']:.0f} MiB | | {load} |")
        print(f"| WMT17 en-de, 13a | `sacrebleu REF -i SYS -b` | {b['wall_median']:.3f} s | "
              f"{b['cpu_median']:.3f} s | {b['maxrss_mib']:.0f} MiB | "
              f"**{pair['ratio_wall']:.1f}x** (CPU {pair['ratio_cpu']:.1f}x) | {load} |")
        if not pair["same_bleu"]:
            print("| WMT17 en-de | WARNING: the printed BLEU values differ | | | | | |")
    if "tokens" in rows:
        t = rows["tokens"]
        for label in ("8,000 x 4", "WMT17 en-de"):
            row = t[label]
            cells = "; ".join(
                f"{name} {row[name]['tokens_per_s'] / 1e6:.2f} M tokens/s ({row[name]['cpu_s'] * 1e3:.1f} ms)"
                for name in ("ours_c_block", "ours_reference", "sacrebleu_13a"))
            print(f"| {label}, 13a tokens alone ({row['tokens']} tokens, in process) | {cells} | "
                  f"same tokens: {row['same_tokens']} | C kernel: {t['kernel']} | | | |")
    if "startup" in rows:
        for name, label in (("help", "bleu-compat --help"), ("score_one_line", "score, one line"),
                            ("python_itself", "python -c pass")):
            r = rows["startup"][name]
            print(f"| start-up | {label} | {1000 * r['a']['wall_median']:.0f} ms | "
                  f"{1000 * r['a']['cpu_median']:.0f} ms | {r['a']['maxrss_mib']:.0f} MiB | | "
                  f"{r['load_before']:.2f} |")
    if "million" in rows:
        for name, r in rows["million"].items():
            print(f"| 1M x 1 | {name} | {r['a']['wall_median']:.2f} s | {r['a']['cpu_median']:.2f} s | "
                  f"{r['a']['maxrss_mib']:.0f} MiB | | {r['load_before']:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
