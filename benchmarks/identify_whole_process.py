"""Whole-process benchmark of ``bleu-compat identify`` against one ``sacrebleu`` run (issue 33).

Usage::

    .venv/bin/python benchmarks/identify_whole_process.py [--runs N] [--score 23.38] [--json]

What a reviewer runs, timed from outside as whole processes (start-up, reading, every
tokenization, every configuration, printing), on the bundled WMT17 en-de corpus
(``fixtures/real/wmt17-en-de-uedin-nmt``: 3,004 segments, one reference):

* A: ``bleu-compat identify SCORE ref.A.txt -i sys.uedin-nmt.4722.txt``
* B: ``sacrebleu ref.A.txt -i sys.uedin-nmt.4722.txt`` (one BLEU, sacreBLEU's defaults)

A and B in turn (A B A B ..., one warm-up each: :func:`whole_process.paired`); a figure
is the median over the runs and the ratio the median of the pairwise ratios A/B, so that
it holds when the machine's speed drifts. CPU is user + system time of the child
(``os.wait4``). The children run with bytecode caches, as installed packages do. The
1-minute load average before and after is printed: the machine may be shared.

Issue 33's target: A's CPU at most 2x B's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from whole_process import BIN, paired  # noqa: E402

CORPUS = HERE.parent / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="paired runs (default 7)")
    ap.add_argument("--score", default="23.38", help="the score identify looks for")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    a = [str(BIN / "bleu-compat"), "identify", args.score, "ref.A.txt", "-i", "sys.uedin-nmt.4722.txt"]
    b = [str(BIN / "sacrebleu"), "ref.A.txt", "-i", "sys.uedin-nmt.4722.txt"]
    result = paired(b, a, CORPUS, args.runs)  # paired(x, y) reports y / x: identify / sacrebleu
    report = {
        "date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), "runs": args.runs,
        "identify": result["b"], "sacrebleu": result["a"],
        "ratio_cpu": result["ratio_cpu"], "ratio_wall": result["ratio_wall"],
        "load_before": result["load_before"], "load_after": result["load_after"],
        "commands": {"identify": " ".join(a[1:]), "sacrebleu": " ".join(b[1:])},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['date']}, {report['cpus']} CPUs, {args.runs} paired runs, load "
          f"{report['load_before']:.2f} -> {report['load_after']:.2f} (1-minute average)")
    for name in ("identify", "sacrebleu"):
        r = report[name]
        print(f"{name:10} cpu {r['cpu_median']:.3f} s  wall {r['wall_median']:.3f} s "
              f"(min {r['wall_min']:.3f}, max {r['wall_max']:.3f})  peak {r['maxrss_mib']:.0f} MiB")
    print(f"identify / sacrebleu: cpu {report['ratio_cpu']:.2f}x, wall {report['ratio_wall']:.2f}x "
          "(medians of the pairwise ratios)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
