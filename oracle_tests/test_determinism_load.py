"""Same seed, same reports, on a quiet and on a loaded machine (issue 24, item 7).

The README's test command failed for a new user on a busy machine: the shrinker's 20 s
wall-clock budget ran out and the reproducer stayed large. Shrinking is now bounded by a
count of steps. This test runs the same crosscheck twice, the second time beside
CPU-bound processes (one per core), and compares the reports byte for byte; the run
shrinks an UNEXPECTED difference of the flawed example implementation (the search whose
result used to depend on the clock) and checks the reproducer is the minimal one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAWED = "examples/flawed_bleu.py:bleu"
#: The minimal request of the flawed clipping (test_impl.CLIP_MINIMAL, worked by hand there).
CLIP_MINIMAL = {"hypotheses": [["a", "a"]], "references": [[["a"], ["a"]]], "max_order": 1}
REPORTS = ("crosscheck.json", "crosscheck.md", "crosscheck.junit.xml")


def _crosscheck(out: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bleu_compat", "crosscheck", "--impl", FLAWED, "--cases", "40",
         "--seed", "3", "--no-real", "--workers", "2", "--no-progress", "--no-html", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_reports_are_byte_identical_beside_a_cpu_hog(tmp_path: Path) -> None:
    _crosscheck(tmp_path / "quiet")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"], start_new_session=True)
            for _ in range(cores)]
    try:
        _crosscheck(tmp_path / "loaded")
    finally:
        for hog in hogs:
            os.killpg(hog.pid, signal.SIGKILL)
            hog.wait()
    for name in REPORTS:
        assert (tmp_path / "loaded" / name).read_bytes() == (tmp_path / "quiet" / name).read_bytes(), name
    report = json.loads((tmp_path / "quiet" / "crosscheck.json").read_text())
    assert report["unexpected_count"] > 0
    assert {json.dumps(u["reproducer"], sort_keys=True) for u in report["unexpected"]} == {
        json.dumps(CLIP_MINIMAL, sort_keys=True)}
