"""Disk, memory and time that ``bleu-compat score`` spends on inputs that never end (issue 24).

Makes the issue's reproducers in a temporary directory (a 3-line reference,
a .gz of 2**30 lines, a small .bz2 of 256 MiB of NUL bytes, a 512 MiB single
line; issue 35's: a Perl script that prints without end, one whose child holds
its standard output, a FIFO with no reader as ``--segments``, identify with
5,000 decimals), runs each command with its own ``TMPDIR``, samples that directory's
size every 0.1 s, and prints: exit status, wall time, the peak size of
``TMPDIR``, what was left in it, and the command's peak RSS. A command still
running after ``--timeout`` seconds gets SIGTERM (what was left then shows
whether the spool survives it).

    .venv/bin/python benchmarks/input_bounds.py [--timeout 60] [--pythonpath DIR [--no-opt-in]]

Needs GNU ``/usr/bin/time`` (Debian's ``time`` package) for the peak RSS.
``--pythonpath`` runs another checkout's code (e.g. an unpacked ``git archive``
of an older commit) with this interpreter, for a before/after comparison.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _du(path: str) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _measure(label: str, command: str, timeout: float, pythonpath: str | None, cwd: Path) -> str:
    spool = tempfile.mkdtemp(prefix="input-bounds-")
    env = dict(os.environ, TMPDIR=spool)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    wrapped = f"{command}; echo $? >&3"  # the score command's own exit status, through fd 3
    read, write = os.pipe()
    start = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", f"exec 3>&{write}; {wrapped}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            pass_fds=(write,), start_new_session=True,
                            cwd=cwd)  # not this checkout: `-m` would import it before PYTHONPATH
    os.close(write)
    peak, killed = 0, False
    while proc.poll() is None:
        peak = max(peak, _du(spool))
        if time.monotonic() - start > timeout:
            os.killpg(proc.pid, signal.SIGTERM)
            killed = True
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.1)
    _, err = proc.communicate()
    wall = time.monotonic() - start
    status = os.read(read, 64).decode().strip() or "?"
    os.close(read)
    left = _du(spool)
    shutil.rmtree(spool, ignore_errors=True)
    lines = err.decode(errors="replace").strip().splitlines()
    rss = [int(x.split("=")[1]) for x in lines if x.startswith("maxrss-kib=")]
    message = [x for x in lines if not x.startswith(("maxrss-kib=", "Command "))]
    return (f"| {label} | {'SIGTERM after %gs' % timeout if killed else status} | {wall:.1f} s | "
            f"{peak / 2**20:.0f} MiB | {left / 2**20:.0f} MiB | "
            f"{f'{rss[0] / 1024:.0f} MiB' if rss else '-'} | {message[-1][:90] if message else ''} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--pythonpath", default=None)
    parser.add_argument("--issue-35-only", action="store_true",
                        help="only the rows of issue 35 (foreign code, output paths, decimals)")
    parser.add_argument("--no-opt-in", action="store_true",
                        help="run the planted scripts without --allow-unknown-code (a checkout from "
                             "before issue 35 has no such option, and runs them without it)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="input-bounds-data-"))
    try:
        ref = work / "ref3.txt"
        ref.write_text("a b c\nd e f\ng h i\n", encoding="utf-8")
        big, bomb, line = work / "big.gz", work / "zeros.bz2", work / "line512.txt"
        if not args.issue_35_only:
            with gzip.open(big, "wb") as handle:
                chunk = b"x\n" * (1 << 20)
                for _ in range(1024):
                    handle.write(chunk)
            compressor = bz2.BZ2Compressor(9)
            data = b"".join(compressor.compress(b"\0" * (1 << 20)) for _ in range(256))
            bomb.write_bytes(data + compressor.flush())
            with open(line, "wb") as handle:
                handle.write(b"a" * (512 << 20) + b"\n")
        # /usr/bin/time (GNU) reports the score process's own peak RSS
        score = f"/usr/bin/time -f maxrss-kib=%M '{sys.executable}' -m bleu_compat score"
        size = (lambda p: p.stat().st_size if p.exists() else 0)  # noqa: E731
        rows = [
            ("`score REF -i /dev/zero`", f"{score} {ref} -i /dev/zero"),
            ("`yes | score REF -i -`", f"yes | {score} {ref} -i -"),
            ("`yes | score REF` (system on stdin)", f"yes | {score} {ref}"),
            ("`yes | score REF -i - --compare`", f"yes | {score} {ref} -i - --compare"),
            (f"`.gz` of 2^30 lines ({size(big):,} bytes) vs 3-line REF", f"{score} {ref} -i {big}"),
            (f"`.bz2` of 256 MiB NUL ({size(bomb)} bytes)", f"{score} {ref} -i {bomb}"),
            ("512 MiB single line", f"{score} {ref} -i {line}"),
        ]
        # issue 35: foreign code and output paths (the planted scripts are no known release)
        spew = work / "spew.perl"
        spew.write_text('$| = 1; while (1) { print "x" x 4096, "\\n"; }\n', encoding="utf-8")
        forks = work / "forks.perl"
        forks.write_text('if (fork() == 0) { sleep 1000; exit 0 } sleep 1000;\n', encoding="utf-8")
        fifo = work / "nobody-reads.fifo"
        os.mkfifo(fifo)
        opt = "" if args.no_opt_in else " --allow-unknown-code"
        perl = f"BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1 BLEU_COMPAT_PERL_TIMEOUT=3 {score} {ref} -i {ref}"
        identify = score.replace(" score", " identify")
        rows = [] if args.issue_35_only else rows
        rows += [
            # under a 4 GiB address-space limit: without a cap on its output, the run would
            # take the machine's memory (5 GiB in 12.6 s was seen)
            ("Perl script printing without end (`ulimit -v` 4 GiB)",
             f"ulimit -v 4194304; {perl} --compare multi-bleu.perl:path={spew}{opt}"),
            ("Perl script whose child holds stdout (bound 3 s CPU, 30 s wall)",
             f"{perl} --compare multi-bleu.perl:path={forks}{opt}"),
            ("`--segments` a FIFO with no reader", f"{score} {ref} -i {ref} --segments {fifo}"),
            ("`identify` with 5,000 decimals", f"{identify} 12.{'3' * 5000} {ref} -i {ref}"),
        ]
        print("| input | exit | wall | peak TMPDIR | left in TMPDIR | peak RSS | message |")
        print("|---|---|---:|---:|---:|---:|---|")
        for label, command in rows:
            print(_measure(label, command, args.timeout, args.pythonpath, work), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
