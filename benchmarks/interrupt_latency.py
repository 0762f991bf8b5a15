"""How long a command takes to stop after Ctrl-C (SIGINT), and what it leaves (issue 24, issue 35).

Usage::

    .venv/bin/python benchmarks/interrupt_latency.py [--runs 5] [--pythonpath DIR]

Each command is started in a process group of its own, given ``--warm`` seconds to get
busy, then sent SIGINT as a terminal's Ctrl-C would (to the whole group); the time until it
exited, its exit status, whether any process of its group was left, and what was left in its
``TMPDIR`` and output directory are printed (median and max over ``--runs``):

- ``score`` with ``--segments``, having read half its system from standard input and waiting
  for the rest (its temporary file exists);
- ``score --compare`` running a Perl script that sleeps (a child of its own session, which a
  terminal's Ctrl-C does not reach: bleu-compat must stop it);
- ``crosscheck`` on generated cases;
- ``identify`` on a 3,000-line corpus.

Not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _in_spool(spool: Path) -> list[int]:
    """Processes whose working directory lies in ``spool`` (a script bleu-compat started runs in
    a temporary directory there, in a session of its own: the group check cannot see it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(spool)):
            found.append(int(entry.name))
    return found


def _one(command: str, env: dict[str, str], cwd: Path, warm: float) -> tuple[float, int, bool]:
    proc = subprocess.Popen(["bash", "-c", command], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(warm)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        status = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        status = proc.wait()
    took = time.monotonic() - sent
    time.sleep(0.2)
    left = _group_alive(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    return took, status, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm", type=float, default=2.0)
    parser.add_argument("--pythonpath", default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="interrupt-latency-"))
    try:
        ref = work / "ref.txt"
        ref.write_text("".join(f"line {k} of a reference text\n" for k in range(3000)), encoding="utf-8")
        sleeper = work / "sleeps.perl"
        sleeper.write_text("sleep 1000;\n", encoding="utf-8")
        py = f"'{sys.executable}' -m bleu_compat"
        rows = [
            ("`score REF -i - --segments OUT`, half the system read, then waiting",
             f"(head -n 1500 {ref}; sleep 1000) | {py} score {ref} -i - --segments out/seg.tsv"),
            ("`score --compare` a sleeping Perl script",
             f"{py} score {ref} -i {ref} --compare multi-bleu.perl:path={sleeper} --allow-unknown-code"),
            ("`crosscheck --cases 2000 --no-real`",
             f"{py} crosscheck --cases 2000 --no-real --no-progress --no-html --workers 1 --out out/cc"),
            ("`identify 23.38` on 3,000 lines", f"{py} identify 23.38 {ref} -i {ref}"),
        ]
        print("| command | Ctrl-C to exit: median | max | exit | processes left | temporary files left |")
        print("|---|---:|---:|---|---|---|")
        for label, command in rows:
            took, statuses, lefts, temps = [], set(), 0, 0
            for _ in range(args.runs):
                spool = Path(tempfile.mkdtemp(prefix="spool-", dir=work))
                out = work / "out"
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                env = dict(os.environ, TMPDIR=str(spool), BLEU_COMPAT_ALLOW_UNKNOWN_CODE="1")
                if args.pythonpath:
                    env["PYTHONPATH"] = args.pythonpath
                t, status, left = _one(command, env, work, args.warm)
                strays = _in_spool(spool)
                for pid in strays:
                    os.kill(pid, signal.SIGKILL)
                left = left or bool(strays)
                took.append(t)
                statuses.add(status)
                lefts += left
                temps += sum(1 for _ in spool.rglob("*")) + sum(
                    1 for p in out.rglob("*") if p.name.startswith("."))
                shutil.rmtree(spool, ignore_errors=True)
            print(f"| {label} | {statistics.median(took):.2f} s | {max(took):.2f} s | "
                  f"{', '.join(map(str, sorted(statuses)))} | {lefts} of {args.runs} runs | {temps} |",
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
