"""Outputs written "complete or absent" (bleu_compat.atomic) never replace what is not a
regular file: a symbolic link keeps being a link (its target gets the new content), a
FIFO or a device is written to, not renamed over (a fresh tester's `catalog --out /dev/full`
once turned the device into a regular file for the whole machine); a file output whose
directory does not exist is refused, not made.

FIFOs stand in for devices here (a test must not risk /dev/full): a reader thread drains
each one, and after the write it must still be a FIFO.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bleu_compat.atomic import atomic_open, staged, write_all_atomic, write_atomic

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _fifo(tmp_path: Path, name: str = "pipe") -> tuple[Path, list[bytes], threading.Thread]:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    got: list[bytes] = []

    def drain() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return fifo, got, reader


def test_write_atomic_writes_through_a_symlink(tmp_path: Path) -> None:
    real, link = tmp_path / "real.md", tmp_path / "link.md"
    real.write_text("old", encoding="utf-8")
    link.symlink_to("real.md")
    write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == "real.md"
    assert real.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "real.md"]  # no temp left


@pytest.mark.parametrize("how", ["write_atomic", "atomic_open"])
def test_a_fifo_is_written_to_not_replaced(tmp_path: Path, how: str) -> None:
    fifo, got, reader = _fifo(tmp_path)
    if how == "write_atomic":
        write_atomic(fifo, "hello\n")
    else:
        with atomic_open(fifo, "w") as handle:
            handle.write("hello\n")
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got == [b"hello\n"]


def test_report_sets_refuse_a_fifo(tmp_path: Path) -> None:
    """A set of reports (crosscheck's) follows every output's rule: a pipe with no reader in
    it refuses the set at once (never waited on), before anything is renamed, the FIFO left
    as it was; the staged (appended) file of a report is never a pipe."""
    fifo = tmp_path / "crosscheck.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="a pipe with no reader"):
        write_all_atomic({tmp_path / "crosscheck.md": "m", fifo: "j"})
    with pytest.raises(OSError, match="not a regular file"):
        staged(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not (tmp_path / "crosscheck.md").exists()


def _catalog(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", "catalog", *argv],
                          capture_output=True, text=True, timeout=120)


def test_catalog_out_a_fifo_link_and_missing_directory(tmp_path: Path) -> None:
    fifo, got, reader = _fifo(tmp_path)
    proc = _catalog("--out", str(fifo))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0].startswith(b"# Divergence catalog")

    real, link = tmp_path / "real.md", tmp_path / "link.md"
    real.write_text("old", encoding="utf-8")
    link.symlink_to("real.md")
    assert _catalog("--out", str(link)).returncode == 0
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("# Divergence catalog")

    missing = tmp_path / "no" / "such" / "dir" / "x.md"
    proc = _catalog("--out", str(missing))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no directory" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "no").exists()
